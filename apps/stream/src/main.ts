import 'reflect-metadata';
import { Controller, Get, Inject, Module, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Response } from 'express';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { accessSummary, startChecksOrExit } from '@app/auth';
import { LOG_PORT, type LogPort } from '@app/log';
import { logger } from '@app/observability';
import { startApp } from '@app/observability';
import { configureServerEdge } from '@app/http';
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
