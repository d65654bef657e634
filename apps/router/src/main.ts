import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { APP_CONFIG } from '../../../libs/config/src/config.module';
import { loadConfig, type AppConfig } from '../../../libs/config/src/config';
import { configureHttpApp } from './http-app';
import { RouterModule } from './router.module';

/** The router alone: REST /api/v1 (quote, tokens, markets), /health, docs at /api/docs. */
async function bootstrap(): Promise<void> {
  try {
    loadConfig();
  } catch (e) {
    console.error(`configuration error: ${(e as Error).message}`);
    process.exit(2);
  }
  const app = await NestFactory.create(RouterModule);
  configureHttpApp(app);
  app.enableShutdownHooks();
  const config = app.get<AppConfig>(APP_CONFIG);
  await app.listen(config.port);
  console.log(`router listening on :${config.port} (log: ${config.logDriver}) — REST /api/v1, docs /api/docs, health /health`);
}

void bootstrap();
