/**
 * The HTTP edge an operator relies on, over real connections to the all-in-one (REST and stream
 * on one port): CORS and its preflight, security headers and no X-Powered-By, compression of
 * large answers, 405 for a known path with another method, every early refusal (missing Host,
 * malformed request, oversized headers, a body nested too deeply) with the envelope.
 */
import 'reflect-metadata';
import * as http from 'node:http';
import * as net from 'node:net';
import * as zlib from 'node:zlib';
import { Module, type INestApplication } from '@nestjs/common';
import { SimMarket } from '@app/sim';
import { RouterModule } from '../apps/router/src/router.module';
import { StreamModule } from '../apps/stream/src/stream.module';
import { TOO_DEEP } from '@app/http';
import type { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { appendUpdates, closeApp, poolLog, serveOn } from './support/app';

@Module({ imports: [RouterModule, StreamModule] })
class AllInOne {}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

describe('operations e2e: the HTTP edge', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let port: number;

  function request(method: string, p: string, headers: http.OutgoingHttpHeaders = {}, body?: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: p, method, headers: { connection: 'close', ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, raw: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  const json = (r: Reply): unknown => JSON.parse(r.raw.toString('utf8'));

  /** bytes written as they are on a fresh connection; the whole answer the server sends back */
  function rawExchange(bytes: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
  }

  function parseRaw(text: string): { status: number; headers: string; body: unknown } {
    const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
    return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) };
  }

  beforeAll(async () => {
    ({ dir, log } = await poolLog('ops-e2e-'));
    const market = new SimMarket({ seed: 3, pools: 60, tokens: 20, swapsPerSlot: 2 });
    await appendUpdates(log, market.genesis());
    ({ app, port } = await serveOn(AllInOne, dir, {}, { stream: true }));
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('a browser preflight is answered (any origin by default), and answers carry the CORS headers', async () => {
    const pre = await request('OPTIONS', '/api/v1/swap', {
      origin: 'https://dapp.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,authorization',
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-methods']).toContain('POST');
    expect(pre.headers['access-control-allow-headers']).toMatch(/content-type/i);
    expect(pre.headers['access-control-allow-headers']).toMatch(/authorization/i);
    const get = await request('GET', '/api/v1/tokens', { origin: 'https://dapp.example' });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBe('*');
    expect(get.headers['access-control-expose-headers']).toMatch(/X-Request-Id/i);
  });

  it('security headers are set and X-Powered-By is not', async () => {
    const r = await request('GET', '/health');
    expect(r.headers['x-powered-by']).toBeUndefined();
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['x-frame-options']).toBeDefined();
    expect(r.headers['strict-transport-security']).toBeDefined();
    expect(r.headers['content-security-policy']).toBeDefined();
  });

  it('large answers are compressed with brotli or gzip as the client accepts; small ones are not', async () => {
    const plain = await request('GET', '/api/v1/markets');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await request('GET', '/api/v1/markets', { 'accept-encoding': 'br, gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(zlib.brotliDecompressSync(br.raw).toString('utf8'))).toEqual(json(plain));
    expect(br.raw.length).toBeLessThan(plain.raw.length / 3);
    const gz = await request('GET', '/api/v1/markets', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(gz.raw).toString('utf8'))).toEqual(json(plain));
    const small = await request('GET', '/health', { 'accept-encoding': 'br, gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('a known path with another method is 405 with Allow and the envelope; an unknown path stays 404', async () => {
    const r = await request('DELETE', '/api/v1/quote');
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD');
    expect(json(r)).toEqual({ success: false, error: 'method not allowed' });
    const post = await request('GET', '/api/v1/swap');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('POST');
    const param = await request('PUT', '/api/v1/price/So11111111111111111111111111111111111111112');
    expect(param.status).toBe(405);
    const unknown = await request('GET', '/api/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(json(unknown)).toEqual({ success: false, error: 'not found' });
  });

  it('a body nested 2,500 deep is 400 with the envelope, never 500', async () => {
    const body = '['.repeat(2500) + ']'.repeat(2500);
    const r = await request('POST', '/api/v1/swap', { 'content-type': 'application/json' }, body);
    expect(r.status).toBe(400);
    expect(json(r)).toEqual({ success: false, error: TOO_DEEP });
    const obj = await request('POST', '/api/v1/instructions', { 'content-type': 'application/json' }, JSON.stringify({ userWallet: JSON.parse('['.repeat(40) + ']'.repeat(40)) }));
    expect(obj.status).toBe(400);
    expect(json(obj)).toEqual({ success: false, error: TOO_DEEP });
  });

  it('a malformed JSON body is 400 with the envelope', async () => {
    const r = await request('POST', '/api/v1/swap', { 'content-type': 'application/json' }, '{"userWallet":');
    expect(r.status).toBe(400);
    expect(json(r)).toEqual({ success: false, error: 'bad request' });
  });

  it('an HTTP/1.1 request without Host is 400 with the envelope', async () => {
    const r = parseRaw(await rawExchange('GET /api/v1/tokens HTTP/1.1\r\nConnection: close\r\n\r\n'));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: 'missing Host header' });
  });

  it('a malformed request line is 400 with the envelope', async () => {
    const r = parseRaw(await rawExchange('GET /api/v1/tokens HTTP/9\r\n\r\n'));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: 'bad request' });
  });

  it('oversized headers are 431 with the envelope', async () => {
    const r = parseRaw(await rawExchange(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(r.status).toBe(431);
    expect(r.body).toEqual({ success: false, error: 'request headers too large' });
  });

  it('markets: filtered by mint, program and routability, and paged', async () => {
    const all = json(await request('GET', '/api/v1/markets')) as { data: { markets: Array<{ address: string; mintA: string; mintB: string; programId: string; label: string; routable: boolean }>; total: number; nextOffset: number | null } };
    const markets = all.data.markets;
    expect([all.data.total, all.data.nextOffset]).toEqual([markets.length, null]);
    const sol = 'So11111111111111111111111111111111111111112';
    const bySol = json(await request('GET', `/api/v1/markets?mint=${sol}`)) as typeof all;
    expect(bySol.data.markets.map((m) => m.address)).toEqual(markets.filter((m) => m.mintA === sol || m.mintB === sol).map((m) => m.address));
    const label = markets[0].label;
    const byLabel = json(await request('GET', `/api/v1/markets?program=${encodeURIComponent(label.toUpperCase())}&routable=true`)) as typeof all;
    expect(byLabel.data.markets.map((m) => m.address)).toEqual(markets.filter((m) => m.programId === markets[0].programId && m.routable).map((m) => m.address));
    const pages: string[] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const page = json(await request('GET', `/api/v1/markets?limit=7&offset=${offset}`)) as typeof all;
      expect(page.data.markets.length).toBeLessThanOrEqual(7);
      pages.push(...page.data.markets.map((m) => m.address));
      offset = page.data.nextOffset;
    }
    expect(pages).toEqual(markets.map((m) => m.address));
    for (const [q, error] of [
      ['mint=nope', 'invalid mint'],
      ['program=serum', 'invalid program'],
      ['routable=yes', 'invalid routable'],
      ['limit=1001', 'invalid limit'],
      ['offset=-1', 'invalid offset'],
      ['sort=address', 'unknown parameter sort'],
    ]) {
      const r = await request('GET', `/api/v1/markets?${q}`);
      expect([q, r.status, json(r)]).toEqual([q, 400, { success: false, error }]);
    }
  });

  it('tokens: filtered by mint, and paged', async () => {
    const all = json(await request('GET', '/api/v1/tokens')) as { data: { tokens: Array<{ mint: string }>; total: number } };
    const mint = all.data.tokens[1].mint;
    const one = json(await request('GET', `/api/v1/tokens?mint=${mint}`)) as typeof all;
    expect(one.data.tokens).toEqual([all.data.tokens[1]]);
    const page = json(await request('GET', '/api/v1/tokens?limit=3&offset=2')) as typeof all;
    expect(page.data.tokens).toEqual(all.data.tokens.slice(2, 5));
    expect(page.data.total).toBe(all.data.total);
  });

  it('the server runs with the configured timeouts and connection cap', () => {
    const server = app.getHttpServer() as http.Server;
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout, server.maxConnections]).toEqual([10_000, 30_000, 5_000, 10_000]);
  });
});
