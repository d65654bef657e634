import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { logger } from '@app/observability';
import { startApp } from '@app/observability';
import { accessSummary, startChecksOrExit } from '@app/auth';
import { configureHttpApp } from './http-app';
import { RouterModule } from './router.module';

/** The router alone: REST /api/v1 (quote, tokens, markets), /health, /ready, /metrics, docs at /api/docs. */
async function bootstrap(): Promise<void> {
  const { config, nestLogger } = startApp('router');
  await startChecksOrExit(config);
  const app = await NestFactory.create(RouterModule, { logger: nestLogger });
  configureHttpApp(app);
  app.enableShutdownHooks();
  await app.listen(config.port);
  logger().info(`router listening on :${config.port} (log: ${config.logDriver}) — REST /api/v1, docs /api/docs, health /health, readiness /ready, metrics /metrics; ${accessSummary(config)}`);
}

void bootstrap();
