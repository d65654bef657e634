/**
 * An e2e suite's app: `module` compiled with its configuration, the HTTP setup every served app
 * applies (and the stream's WebSocket adapter when asked), listening on an ephemeral loopback port.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { configureHttpApp } from '../../apps/router/src/http-app';
import { useStreamWsAdapter } from '../../apps/stream/src/ws-adapter';
import { ProjectionService } from '../../apps/router/src/projection/projection.service';
import { loadConfig, type AppConfig } from '@app/config';
import { APP_CONFIG } from '@app/config';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import type { LogPort } from '@app/log';
import { NO_RATE_LIMIT } from './config';

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

/** a fresh embedded log in a new temporary directory (`prefix`), with the pool-updates topic */
export async function poolLog(prefix: string): Promise<{ dir: string; log: EmbeddedLog }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const log = new EmbeddedLog({ dataDir: dir });
  await log.ensureTopic(TOPICS.poolUpdates);
  return { dir, log };
}

/** append pool updates to pool-updates, keyed by their account address */
export async function appendUpdates(log: LogPort, updates: readonly PoolUpdate[]): Promise<void> {
  await log.append(
    TOPICS.poolUpdates,
    updates.map((u) => ({ key: u.address, value: encodePoolUpdate(u) })),
  );
}

/**
 * `module` served on the embedded log in `dir` (configuration: DATA_DIR, an ephemeral port, no
 * rate limit, then `env`), once its projection has caught up with the log.
 */
export async function serveOn(module: Type, dir: string, env: Record<string, string> = {}, opts: { stream?: boolean } = {}): Promise<{ app: INestApplication; port: number; base: string }> {
  const config = { ...loadConfig({ DATA_DIR: dir, PORT: '0', ...NO_RATE_LIMIT, ...env }), port: 0 };
  const { app, port } = await listenApp(module, config, opts);
  await app.get(ProjectionService).whenReady();
  return { app, port, base: `http://127.0.0.1:${port}` };
}

/** an HTTP call to `base + path` (a JSON body for POST): its status and JSON body (null when empty) */
export async function callJson(base: string, method: 'GET' | 'POST', p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + p, {
    method,
    headers: body === undefined ? undefined : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.length ? JSON.parse(text) : null };
}
