/**
 * The access gate over real connections (API.md §5, §8): API keys from the api-keys topic on
 * REST and the stream upgrade (401, 403), rate limits per key and tier with their headers (429),
 * every bypass spelling counted, a revocation reaching two routers that share one log, one limit
 * shared by two replicas through a real redis-server, the limit per client address with keys off
 * (X-Forwarded-For from TRUSTED_PROXIES only), the stream's caps and slow-reader drop, the sim
 * endpoints' gating, and a self-hosted license expiring while the process runs.
 */
import 'reflect-metadata';
import * as net from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { Module, type INestApplication } from '@nestjs/common';
import type WebSocket from 'ws';
import { SimMarket } from '@app/sim';
import { RouterModule } from '../apps/router/src/router.module';
import { StreamModule } from '../apps/stream/src/stream.module';
import { StreamService } from '../apps/stream/src/stream.service';
import { issueLicense } from '@app/auth';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS } from '@app/solana';
import { bearer, keys, rawRequest, upgrade, type UpgradeResult } from './support/access';
import { appendUpdates, closeApp, poolLog, serveOn } from './support/app';
import { startRedis, type RedisServer } from './support/redis';
import { waitFor } from './support/wait-for';

jest.setTimeout(120_000);

@Module({ imports: [RouterModule, StreamModule] })
class AllInOne {}

const MISSING = { success: false, error: 'missing api key' };
const INVALID = { success: false, error: 'invalid api key' };
const LIMITED = { success: false, error: 'rate limit exceeded' };
/** keys mode; the default tier unlimited, `one` allows 1 request a minute, `few` 3 */
const KEYS_ENV = { AUTH_MODE: 'keys', RATE_LIMIT_TIERS: 'one=1/0,few=3/0' };

const opened = (r: UpgradeResult): boolean => {
  if (r.open) r.ws.close();
  return r.open;
};

describe('access e2e', () => {
  let dir: string;
  let log: EmbeddedLog;
  const apps: INestApplication[] = [];
  let port: number;
  let key: string;
  let keyId: string;

  async function serve(module: typeof AllInOne | typeof RouterModule, env: Record<string, string>): Promise<{ app: INestApplication; port: number }> {
    const s = await serveOn(module, dir, env, { stream: module === AllInOne });
    apps.push(s.app);
    return s;
  }

  const newKey = async (tier?: string, env: Record<string, string> = KEYS_ENV): Promise<{ id: string; key: string }> =>
    (await keys(log, ['create', '--name', 'suite', ...(tier ? ['--tier', tier] : [])], env))[0];

  beforeAll(async () => {
    ({ dir, log } = await poolLog('access-e2e-'));
    await appendUpdates(log, new SimMarket({ seed: 5, pools: 30, tokens: 10, swapsPerSlot: 2 }).genesis());
    // a key made before the app starts: read from the log before the app serves
    ({ id: keyId, key } = await newKey());
    ({ port } = await serve(AllInOne, KEYS_ENV));
  });

  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    await closeApp(undefined, log, dir);
  });

  describe('keys on REST', () => {
    it('401 without a key (or with another scheme), 403 with a key the log does not hold, 200 with one it does', async () => {
      expect(await rawRequest(port, 'GET', '/api/v1/tokens')).toMatchObject({ status: 401, body: MISSING });
      expect(await rawRequest(port, 'GET', '/api/v1/tokens', { authorization: `Basic ${key}` })).toMatchObject({ status: 401, body: MISSING });
      expect(await rawRequest(port, 'GET', '/api/v1/tokens', bearer(`swap_${'0'.repeat(64)}`))).toMatchObject({ status: 403, body: INVALID });
      expect(await rawRequest(port, 'GET', '/api/v1/tokens', bearer('garbage'))).toMatchObject({ status: 403, body: INVALID });
      const ok = await rawRequest(port, 'GET', '/api/v1/tokens', bearer(key));
      expect(ok.status).toBe(200);
      expect(ok.body.success).toBe(true);
      // the price endpoints need a key too
      expect(await rawRequest(port, 'GET', `/api/v1/price/${MINTS.SOL}`)).toMatchObject({ status: 401, body: MISSING });
      expect((await rawRequest(port, 'GET', `/api/v1/price/${MINTS.SOL}`, bearer(key))).status).toBe(200);
    });

    it('/health and the API docs stay open', async () => {
      expect((await rawRequest(port, 'GET', '/health')).status).toBe(200);
      expect((await rawRequest(port, 'GET', '/api/docs-json')).status).toBe(200);
      expect((await rawRequest(port, 'GET', '/api/docs/')).status).toBe(200);
    });

    it('disable, enable and revoke take effect on the running app; a revoked key stays revoked', async () => {
      const k = await newKey();
      expect((await rawRequest(port, 'GET', '/api/v1/tokens', bearer(k.key))).status).toBe(200);
      expect(await keys(log, ['disable', k.id])).toEqual([{ id: k.id, state: 'disabled' }]);
      await waitFor(async () => (await rawRequest(port, 'GET', '/api/v1/tokens', bearer(k.key))).status === 403, 5_000, 'the disabled key refused');
      await keys(log, ['enable', k.id]);
      await waitFor(async () => (await rawRequest(port, 'GET', '/api/v1/tokens', bearer(k.key))).status === 200, 5_000, 'the enabled key served');
      await keys(log, ['revoke', k.id]);
      await waitFor(async () => (await rawRequest(port, 'GET', '/api/v1/tokens', bearer(k.key))).status === 403, 5_000, 'the revoked key refused');
      await expect(keys(log, ['enable', k.id])).rejects.toThrow(/stays revoked/);
      const listed = await keys(log, ['list']);
      expect(listed).toContainEqual({ id: k.id, name: 'suite', tier: 'default', state: 'revoked' });
      expect(listed).toContainEqual({ id: keyId, name: 'suite', tier: 'default', state: 'active' });
      expect(JSON.stringify(listed)).not.toContain(key);
    });

    it('429 per key by its tier, with Retry-After and the X-RateLimit headers; another key is not held back', async () => {
      const few = await newKey('few');
      await waitFor(async () => (await rawRequest(port, 'GET', '/health', bearer(few.key))).status === 200 && (await rawRequest(port, 'GET', '/api/v1/tokens', bearer(few.key))).status === 200, 5_000, 'the new key');
      const second = await rawRequest(port, 'GET', '/api/v1/tokens', bearer(few.key));
      expect(second.headers).toMatchObject({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '1' });
      expect(Number(second.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      expect((await rawRequest(port, 'POST', '/api/v1/swap', { ...bearer(few.key), 'content-type': 'application/json' }, '127.0.0.1', '{}')).status).toBe(400);
      const refused = await rawRequest(port, 'GET', '/api/v1/tokens', bearer(few.key));
      expect(refused).toMatchObject({ status: 429, body: LIMITED, headers: { 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0' } });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(50);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      // the stream upgrade counts against the same limit
      expect(await upgrade(port, `?key=${few.key}`)).toMatchObject({ open: false, status: 429, body: LIMITED });
      expect((await rawRequest(port, 'GET', '/api/v1/tokens', bearer(key))).status).toBe(200);
    });
  });

  describe('keys on the stream upgrade', () => {
    it('401 without a key, 403 with a bad one, open with ?key= or the header; refused once revoked', async () => {
      expect(await upgrade(port)).toMatchObject({ open: false, status: 401, body: MISSING });
      expect(await upgrade(port, '?key=')).toMatchObject({ open: false, status: 401, body: MISSING });
      expect(await upgrade(port, `?key=swap_${'f'.repeat(64)}`)).toMatchObject({ open: false, status: 403, body: INVALID });
      expect(await upgrade(port, '', { authorization: 'Bearer nope' })).toMatchObject({ open: false, status: 403, body: INVALID });
      const k = await newKey();
      expect(opened(await upgrade(port, `?key=${k.key}`))).toBe(true);
      expect(opened(await upgrade(port, '', { authorization: `Bearer ${k.key}` }))).toBe(true);
      await keys(log, ['revoke', k.id]);
      await waitFor(async () => !opened(await upgrade(port, `?key=${k.key}`)), 5_000, 'the revoked key refused on the stream');
      expect(await upgrade(port, `?key=${k.key}`)).toMatchObject({ open: false, status: 403, body: INVALID });
    });

    it('a rate-limited key: the upgrade gets 429 with Retry-After', async () => {
      const one = await newKey('one');
      expect(opened(await upgrade(port, `?key=${one.key}`))).toBe(true);
      const r = await upgrade(port, `?key=${one.key}`);
      expect(r).toMatchObject({ open: false, status: 429, body: LIMITED, headers: { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0' } });
      expect(Number((r as { headers: Record<string, string> }).headers['retry-after'])).toBeGreaterThan(50);
    });
  });

  describe('no spelling of a path escapes the gate', () => {
    const spellings = [
      '/API/V1/TOKENS',
      '/Api/v1/tokens/',
      `http://127.0.0.1/api/v1/tokens`,
      'HTTP://EXAMPLE.COM/API/V1/tokens',
      '//api/v1/tokens',
      '/api//v1/tokens',
      '/api/v1/%74okens',
      '/%61pi/v1/tokens',
      '/api/docs/../v1/tokens',
      '/health/../api/v1/tokens',
    ];

    it.each(spellings)('%s: needs a key, and counts against the key’s limit', async (target) => {
      const without = await rawRequest(port, 'GET', target);
      expect(without).toMatchObject({ status: 401, body: MISSING });
      const one = await newKey('one');
      await waitFor(async () => (await rawRequest(port, 'GET', target, bearer(one.key))).status !== 403, 5_000, 'the new key');
      // its one request a minute went on that spelling: the plain path is refused
      expect(await rawRequest(port, 'GET', '/api/v1/tokens', bearer(one.key))).toMatchObject({ status: 429, body: LIMITED });
    });

    it('the spellings the router routes are served with a key (so the counting above is of real requests)', async () => {
      for (const target of ['/API/V1/TOKENS', '/Api/v1/tokens/', 'http://127.0.0.1/api/v1/tokens', 'HTTP://EXAMPLE.COM/API/V1/tokens']) {
        const r = await rawRequest(port, 'GET', target, bearer(key));
        expect([target, r.status, r.body.success]).toEqual([target, 200, true]);
      }
    });

    it('an absolute-form stream upgrade needs a key too', async () => {
      const head = await new Promise<string>((resolve, reject) => {
        const s = net.connect(port, '127.0.0.1', () =>
          s.write(
            `GET http://127.0.0.1:${port}/api/v1/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
              `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
          ),
        );
        let got = '';
        s.on('data', (d) => (got += d.toString()));
        s.on('end', () => resolve(got));
        s.on('close', () => resolve(got));
        s.on('error', reject);
      });
      expect(head.startsWith('HTTP/1.1 401')).toBe(true);
      expect(head).toContain(JSON.stringify(MISSING));
    });
  });

  it('a key revoked while two routers share one log is refused by both within a second', async () => {
    const second = await serve(RouterModule, KEYS_ENV);
    const k = await newKey();
    await waitFor(async () => (await rawRequest(second.port, 'GET', '/api/v1/tokens', bearer(k.key))).status === 200, 5_000, 'the key on the second router');
    expect((await rawRequest(port, 'GET', '/api/v1/tokens', bearer(k.key))).status).toBe(200);
    await keys(log, ['revoke', k.id]);
    const refusedBy = async (p: number): Promise<boolean> => (await rawRequest(p, 'GET', '/api/v1/tokens', bearer(k.key))).status === 403;
    // the bound the issue sets: 1 s after the revocation is on the log, on every replica
    await waitFor(async () => (await refusedBy(port)) && (await refusedBy(second.port)), 1_000, 'the revocation on both routers');
  });

  describe('the stream caps per key', () => {
    let capPort: number;
    let capKey: string;
    beforeAll(async () => {
      capKey = (await newKey()).key;
      ({ port: capPort } = await serve(AllInOne, { ...KEYS_ENV, STREAM_MAX_CONNECTIONS: '2', STREAM_MAX_SUBSCRIPTIONS: '3' }));
    });

    const frames = (ws: WebSocket): any[] => {
      const got: any[] = [];
      ws.on('message', (d) => got.push(JSON.parse(d.toString())));
      return got;
    };
    const pairs = (...amounts: string[]): object[] => amounts.map((amount) => ({ in: MINTS.SOL, out: MINTS.USDC, amount, exactIn: true }));

    it('at most STREAM_MAX_CONNECTIONS connections and STREAM_MAX_SUBSCRIPTIONS live pairs in all', async () => {
      const a = (await upgrade(capPort, `?key=${capKey}`)) as { open: true; ws: WebSocket };
      const b = (await upgrade(capPort, `?key=${capKey}`)) as { open: true; ws: WebSocket };
      const c = await upgrade(capPort, `?key=${capKey}`);
      expect(c.open).toBe(true);
      const closed = await new Promise<{ code: number; reason: string }>((r) => (c as { ws: WebSocket }).ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
      expect(closed).toEqual({ code: 1008, reason: expect.stringMatching(/too many connections: at most 2 per key/) });
      const fa = frames(a.ws);
      const fb = frames(b.ws);
      a.ws.send(JSON.stringify({ op: 'subscribe', pairs: pairs('1', '2') }));
      await waitFor(() => fa.some((f) => f.type === 'subscribed'), 10_000, 'the first subscription');
      b.ws.send(JSON.stringify({ op: 'subscribe', pairs: pairs('3', '4', '5') }));
      await waitFor(() => fb.some((f) => f.type === 'subscribed'), 10_000, 'the second subscription');
      expect(fb).toContainEqual({ type: 'error', message: expect.stringMatching(/at most 3 live pairs per key .*; 2 pair\(s\) rejected/) });
      expect(fb).toContainEqual({ type: 'subscribed', count: 1 });
      // a pair given back makes room; a closed connection frees its slot
      a.ws.send(JSON.stringify({ op: 'unsubscribe', pairs: pairs('1') }));
      await waitFor(() => fa.some((f) => f.type === 'unsubscribed'), 10_000, 'the unsubscription');
      b.ws.send(JSON.stringify({ op: 'subscribe', pairs: pairs('4') }));
      await waitFor(() => fb.filter((f) => f.type === 'subscribed').length === 2, 10_000, 'the next subscription');
      expect(fb.filter((f) => f.type === 'subscribed')[1]).toEqual({ type: 'subscribed', count: 1 });
      a.ws.close();
      await waitFor(async () => opened(await upgrade(capPort, `?key=${capKey}`)), 10_000, 'a slot freed');
      b.ws.close();
    });
  });

  it('a reader that stops reading is dropped within two ping intervals; one that reads stays', async () => {
    const s = await serveOn(AllInOne, dir, { STREAM_PING_MS: '200' }, { stream: true });
    apps.push(s.app);
    const hub = s.app.get(StreamService).hub;
    const reader = (await upgrade(s.port)) as { open: true; ws: WebSocket };
    const stalled = (await upgrade(s.port)) as { open: true; ws: WebSocket };
    await waitFor(() => hub.stats().connections === 2, 5_000, 'two connections');
    // the client stops reading its socket: pings go unanswered
    (stalled.ws as unknown as { _socket: net.Socket })._socket.pause();
    await waitFor(() => hub.stats().connections === 1, 10_000, 'the stalled reader dropped');
    // the reader answered every ping meanwhile and is still there
    expect(reader.ws.readyState).toBe(reader.ws.OPEN);
    reader.ws.close();
    stalled.ws.terminate();
  });

  describe('keys off: the limit is per client address, X-Forwarded-For only from TRUSTED_PROXIES', () => {
    let offPort: number;
    beforeAll(async () => {
      ({ port: offPort } = await serve(AllInOne, { RATE_LIMIT_PER_MINUTE: '2', TRUSTED_PROXIES: '127.0.0.1', SIM_FAUCET_MAX: '18446744073709551615' }));
    });

    it('no key needed; behind a trusted proxy each forwarded client has its own limit', async () => {
      const via = (client: string): Promise<number> => rawRequest(offPort, 'GET', '/api/v1/tokens', { 'x-forwarded-for': client }).then((r) => r.status);
      expect([await via('198.51.100.1'), await via('198.51.100.1'), await via('198.51.100.1')]).toEqual([200, 200, 429]);
      expect(await via('198.51.100.2')).toBe(200);
    });

    it('from an address that is not a trusted proxy, X-Forwarded-For is ignored', async () => {
      const from = (client: string): Promise<number> => rawRequest(offPort, 'GET', '/api/v1/tokens', { 'x-forwarded-for': client }, '127.0.0.7').then((r) => r.status);
      expect([await from('198.51.100.3'), await from('198.51.100.4'), await from('198.51.100.5')]).toEqual([200, 200, 429]);
    });

    it('the sim faucet: no balance past u64', async () => {
      const wallet = '11111111111111111111111111111112';
      const fund = (amount: string, from: string): Promise<{ status: number; body: any }> =>
        rawRequest(offPort, 'POST', '/api/v1/sim/faucet', { 'content-type': 'application/json' }, from, JSON.stringify({ wallet, amount }));
      expect((await fund('18446744073709551615', '127.0.0.8')).status).toBe(200);
      expect(await fund('1', '127.0.0.8')).toMatchObject({ status: 400, body: { success: false, error: 'the balance would pass 2^64-1 (u64)' } });
    });
  });

  describe('the sim endpoints', () => {
    const faucet = (p: number, k: string, amount: string): Promise<{ status: number; body: any }> =>
      rawRequest(p, 'POST', '/api/v1/sim/faucet', { ...bearer(k), 'content-type': 'application/json' }, '127.0.0.1', JSON.stringify({ wallet: '11111111111111111111111111111112', amount }));

    it('with keys on they do not exist unless SIM_ENDPOINTS=on; the faucet is capped per call', async () => {
      expect(await faucet(port, key, '1000')).toMatchObject({ status: 404, body: { success: false, error: 'not found' } });
      const { port: simPort } = await serve(RouterModule, { ...KEYS_ENV, SIM_ENDPOINTS: 'on', SIM_FAUCET_MAX: '1000' });
      expect((await faucet(simPort, key, '1000')).status).toBe(200);
      expect(await faucet(simPort, key, '1001')).toMatchObject({ status: 400, body: { success: false, error: "amount over the faucet's cap of 1000 per call" } });
      expect((await faucet(simPort, 'nope', '1')).status).toBe(403);
    });
  });

  describe('two replicas sharing one limit through a real redis-server', () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('the requests of one key to either replica count against the same window', async () => {
      const env = { ...KEYS_ENV, RATE_LIMIT_TIERS: 'shared=4/0', REDIS_URL: redis.url };
      const a = await serve(RouterModule, env);
      const b = await serve(RouterModule, env);
      const k = await newKey('shared', env);
      await waitFor(async () => (await rawRequest(b.port, 'GET', '/health', bearer(k.key))).status === 200, 5_000, 'b');
      await waitFor(async () => (await rawRequest(a.port, 'GET', '/api/v1/tokens', bearer(k.key))).status === 200, 5_000, 'the key on a');
      const r2 = await rawRequest(b.port, 'GET', '/api/v1/tokens', bearer(k.key));
      expect(r2).toMatchObject({ status: 200, headers: { 'x-ratelimit-remaining': '2' } });
      const r3 = await rawRequest(a.port, 'GET', '/api/v1/tokens', bearer(k.key));
      expect(r3).toMatchObject({ status: 200, headers: { 'x-ratelimit-remaining': '1' } });
      expect((await rawRequest(b.port, 'GET', '/api/v1/tokens', bearer(k.key))).status).toBe(200);
      expect(await rawRequest(a.port, 'GET', '/api/v1/tokens', bearer(k.key))).toMatchObject({ status: 429, body: LIMITED });
      expect(await rawRequest(b.port, 'GET', '/api/v1/tokens', bearer(k.key))).toMatchObject({ status: 429, body: LIMITED });
    });
  });

  it('self-hosted: a license that expires while the process runs stops new requests with a clear error, not the process', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const expiresAt = new Date(Date.now() + 4_000).toISOString();
    const license = issueLicense(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { licensee: 'Suite', expiresAt, limits: {} });
    const s = await serve(RouterModule, {
      DEPLOYMENT: 'self-hosted',
      LICENSE_KEY: license,
      LICENSE_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
      RPC_URL: 'http://127.0.0.1:9',
      RPC_KEY: 'k',
    });
    expect((await rawRequest(s.port, 'GET', '/api/v1/tokens')).status).toBe(200);
    await waitFor(async () => (await rawRequest(s.port, 'GET', '/api/v1/tokens')).status === 503, 30_000, 'the license expired');
    expect(await rawRequest(s.port, 'GET', '/api/v1/tokens')).toMatchObject({ status: 503, body: { success: false, error: 'license expired' } });
    expect((await rawRequest(s.port, 'GET', '/health')).status).toBe(200);
  });
});
