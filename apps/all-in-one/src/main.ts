import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { logger } from '@app/observability';
import { startApp } from '@app/observability';
import { accessSummary, startChecksOrExit } from '@app/auth';
import { IngestorModule } from '../../ingestor/src/ingestor.module';
import { RouterModule } from '../../router/src/router.module';
import { configureHttpApp } from '../../router/src/http-app';
import { StreamModule } from '../../stream/src/stream.module';
import { useStreamWsAdapter } from '../../stream/src/ws-adapter';

/** The three apps in one process on one log: the default way to start. */
@Module({ imports: [IngestorModule, RouterModule, StreamModule] })
export class AllInOneModule {}

async function bootstrap(): Promise<void> {
  const { config, nestLogger } = startApp('all-in-one');
  await startChecksOrExit(config);
  const app = await NestFactory.create(AllInOneModule, { logger: nestLogger });
  configureHttpApp(app);
  useStreamWsAdapter(app);
  app.enableShutdownHooks();
  await app.listen(config.port);
  logger().info(
    `swap aggregator listening on :${config.port} (log: ${config.logDriver}, data: ${config.dataDir}, source: ${config.ingestSource}) — ` +
      `REST /api/v1, docs /api/docs, stream /api/v1/stream, health /health, readiness /ready, metrics /metrics; ${accessSummary(config)}`,
  );
}

void bootstrap();
