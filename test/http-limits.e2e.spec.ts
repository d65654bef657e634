/**
 * The HTTP edge's limits over real connections: the request rate limit of API.md §8 (per client
 * address, REST and the stream's upgrade request counting against the same windows), and
 * requests refused before any route (a body over the parser's limit, headers over Node's) still
 * answered with the {success:false, error} envelope.
 */
import 'reflect-metadata';
import * as http from 'node:http';
import { Module, type INestApplication } from '@nestjs/common';
import WebSocket from 'ws';
import { SimMarket } from '@app/sim';
import { RouterModule } from '../apps/router/src/router.module';
import { StreamModule } from '../apps/stream/src/stream.module';
import { appendUpdates, closeApp, poolLog, serveOn } from './support/app';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';

@Module({ imports: [RouterModule, StreamModule] })
class AllInOne {}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

describe('HTTP limits e2e (all-in-one: REST and stream on one port)', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let port: number;

  /** a request from `from` (a loopback address: each one is another client) */
  function request(method: string, p: string, from = '127.0.0.1', body?: string, headers: http.OutgoingHttpHeaders = {}): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: p, method, localAddress: from, headers: { ...headers, connection: 'close' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text.length > 0 ? JSON.parse(text) : null }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** the stream's upgrade from `from`: 'open', or the HTTP status and body it was refused with */
  function upgrade(from: string): Promise<{ open: true } | { status: number; retryAfter?: string; body: string }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/stream`, { localAddress: from });
      ws.once('open', () => {
        ws.close();
        resolve({ open: true });
      });
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, body }));
      });
      ws.once('error', (e) => reject(e));
    });
  }

  beforeAll(async () => {
    ({ dir, log } = await poolLog('http-limits-e2e-'));
    const market = new SimMarket({ seed: 5, pools: 30, tokens: 10, swapsPerSlot: 2 });
    await appendUpdates(log, market.genesis());
    // small windows so the test reaches them quickly: 3 a second, 5 a minute
    ({ app, port } = await serveOn(AllInOne, dir, { RATE_LIMIT_PER_SECOND: '3', RATE_LIMIT_PER_MINUTE: '5' }, { stream: true }));
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('REST: a burst over the per-second window gets 429 with the envelope and Retry-After; a second later the client may go on', async () => {
    const from = '127.0.0.2';
    for (let i = 0; i < 3; i++) expect((await request('GET', '/api/v1/tokens', from)).status).toBe(200);
    const refused = await request('GET', '/api/v1/tokens', from);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, error: 'rate limit exceeded' });
    expect(refused.headers['retry-after']).toBe('1');
    // another client is not held back; /health and the docs are not limited
    expect((await request('GET', '/api/v1/tokens', '127.0.0.3')).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await request('GET', '/health', from)).status).toBe(200);
    expect((await request('GET', '/api/docs-json', from)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_050));
    // the per-minute window: 2 more of its 5, then refused until the first is a minute old
    expect((await request('GET', '/api/v1/price/So11111111111111111111111111111111111111112', from)).status).toBe(200);
    expect((await request('POST', '/api/v1/swap', from, '{}', { 'content-type': 'application/json' })).status).toBe(400);
    const minute = await request('GET', '/api/v1/tokens', from);
    expect(minute.status).toBe(429);
    expect(Number(minute.headers['retry-after'])).toBeGreaterThan(55);
    expect(Number(minute.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('the stream: the upgrade request counts against the same windows as REST calls', async () => {
    const from = '127.0.0.4';
    expect(await upgrade(from)).toEqual({ open: true });
    for (let i = 0; i < 2; i++) expect((await request('GET', '/api/v1/tokens', from)).status).toBe(200);
    const refused = await upgrade(from);
    expect(refused).toMatchObject({ status: 429, retryAfter: '1' });
    expect(JSON.parse((refused as { body: string }).body)).toEqual({ success: false, error: 'rate limit exceeded' });
    expect((await request('GET', '/api/v1/tokens', from)).status).toBe(429);
  });

  it('a body over the parser limit gets 413 with the envelope, not 500', async () => {
    const body = JSON.stringify({ userWallet: 'a'.repeat(150_000) });
    const r = await request('POST', '/api/v1/swap', '127.0.0.5', body, { 'content-type': 'application/json' });
    expect(r).toMatchObject({ status: 413, body: { success: false, error: 'payload too large' } });
  });

  it('headers over Node limit get 431 with the envelope', async () => {
    const r = await request('GET', `/api/v1/price/${'A'.repeat(20_000)}`, '127.0.0.6');
    expect(r).toMatchObject({ status: 431, body: { success: false, error: 'request headers too large' } });
  });
});
