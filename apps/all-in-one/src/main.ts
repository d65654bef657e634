import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig, type AppConfig } from '../../../libs/config/src/config';
import { IngestorModule } from '../../ingestor/src/ingestor.module';
import { RouterModule } from '../../router/src/router.module';
import { configureHttpApp } from '../../router/src/http-app';
import { StreamModule } from '../../stream/src/stream.module';
import { useStreamWsAdapter } from '../../stream/src/ws-adapter';

/** The three apps in one process on one log: the default way to start. */
@Module({ imports: [IngestorModule, RouterModule, StreamModule] })
export class AllInOneModule {}

async function bootstrap(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (e) {
    console.error(`configuration error: ${(e as Error).message}`);
    process.exit(2);
  }
  const app = await NestFactory.create(AllInOneModule);
  configureHttpApp(app);
  useStreamWsAdapter(app);
  app.enableShutdownHooks();
  await app.listen(config.port);
  console.log(
    `swap aggregator listening on :${config.port} (log: ${config.logDriver}, data: ${config.dataDir}, source: ${config.ingestSource}) — ` +
      `REST /api/v1, docs /api/docs, stream /api/v1/stream, health /health`,
  );
}

void bootstrap();
