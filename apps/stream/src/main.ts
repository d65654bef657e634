import 'reflect-metadata';
import { Controller, Get, Inject, Module, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Response } from 'express';
import { APP_CONFIG } from '../../../libs/config/src/config.module';
import { loadConfig, type AppConfig } from '../../../libs/config/src/config';
import { LOG_PORT, type LogPort } from '../../../libs/log/src/log.port';
import { configureServerEdge } from '../../router/src/http-app';
import { StreamModule } from './stream.module';
import { StreamService } from './stream.service';
import { useStreamWsAdapter } from './ws-adapter';

@Controller()
class StreamHealthController {
  constructor(
    @Inject(LOG_PORT) private readonly log: LogPort,
    private readonly stream: StreamService,
  ) {}

  @Get('health')
  async health(@Res() res: Response): Promise<void> {
    const ok = await this.log.ping().catch(() => false);
    if (ok) res.status(200).json({ status: 'ok', ...this.stream.hub.stats() });
    else res.status(503).json({ status: 'unavailable', reason: 'log unreachable' });
  }
}

@Module({ imports: [StreamModule], controllers: [StreamHealthController] })
class StreamAppModule {}

/** The stream app alone: WS /api/v1/stream and GET /health on PORT. */
async function bootstrap(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (e) {
    console.error(`configuration error: ${(e as Error).message}`);
    process.exit(2);
  }
  const app = await NestFactory.create(StreamAppModule);
  configureServerEdge(app);
  useStreamWsAdapter(app);
  app.enableShutdownHooks();
  await app.listen(app.get<AppConfig>(APP_CONFIG).port);
  console.log(`stream listening on :${config.port} (log: ${config.logDriver})`);
}

void bootstrap();
