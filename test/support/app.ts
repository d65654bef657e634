/**
 * An e2e suite's app: `module` compiled with its configuration, the HTTP setup every served app
 * applies (and the stream's WebSocket adapter when asked), listening on an ephemeral loopback port.
 */
import * as fs from 'node:fs';
import type { INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { configureHttpApp } from '../../apps/router/src/http-app';
import { useStreamWsAdapter } from '../../apps/stream/src/ws-adapter';
import type { AppConfig } from '../../libs/config/src/config';
import { APP_CONFIG } from '../../libs/config/src/config.module';

export async function listenApp(module: Type, config: AppConfig, opts: { stream?: boolean } = {}): Promise<{ app: INestApplication; port: number }> {
  const moduleRef = await Test.createTestingModule({ imports: [module] }).overrideProvider(APP_CONFIG).useValue(config).compile();
  const app = moduleRef.createNestApplication({ logger: ['error'] });
  configureHttpApp(app);
  if (opts.stream) useStreamWsAdapter(app);
  await app.listen(0, '127.0.0.1');
  return { app, port: app.getHttpServer().address().port };
}

/** an e2e suite's teardown: the app, then its log, then the data directory */
export async function closeApp(app: INestApplication | undefined, log: { close(): Promise<void> } | undefined, dir: string | undefined): Promise<void> {
  await app?.close();
  await log?.close();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
}
