import 'reflect-metadata';
import { Controller, Get, Inject, Module, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Response } from 'express';
import { APP_CONFIG } from '../../../libs/config/src/config.module';
import type { AppConfig } from '../../../libs/config/src/config';
import { accessSummary, startChecksOrExit } from '../../../libs/auth/src/self-hosted';
import { LOG_PORT, type LogPort } from '../../../libs/log/src/log.port';
import { logger } from '../../../libs/observability/src/logger';
import { startApp } from '../../../libs/observability/src/start';
import { configureServerEdge } from '../../../libs/http/src/server-edge';
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

/** The stream app alone: WS /api/v1/stream, GET /health and GET /metrics on PORT. */
async function bootstrap(): Promise<void> {
  const { config, nestLogger } = startApp('stream');
  await startChecksOrExit(config);
  const app = await NestFactory.create(StreamAppModule, { logger: nestLogger });
  configureServerEdge(app);
  useStreamWsAdapter(app);
  app.enableShutdownHooks();
  await app.listen(app.get<AppConfig>(APP_CONFIG).port);
  logger().info(`stream listening on :${config.port} (log: ${config.logDriver}) — stream /api/v1/stream, health /health, metrics /metrics; ${accessSummary(config)}`);
}

void bootstrap();
