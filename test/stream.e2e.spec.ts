/**
 * WS /api/v1/stream end to end with real `ws` clients, all in one app on one EmbeddedLog (the
 * router and the stream app modules, REST and WebSocket on one port): subscribe → first quote
 * and ack; a pool update appended to the log → recompute (debounced) → quotes-changed → push;
 * an identical re-quote → nothing; unsubscribe; acks and counts; the 256 limit; malformed,
 * non-object, binary and oversized frames (256 KiB counted in bytes; over maxPayload: 1009);
 * two clients sharing a tuple computed once by the router; with the quote work in worker threads
 * and on the main thread; tuples shared over two workers, and a worker that dies started again.
 */
import 'reflect-metadata';
import * as path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Logger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import WebSocket from 'ws';
import { SimMarket } from '@app/sim';
import { InterestHost } from '../apps/router/src/interest/interest-host';
import type { WorkerSearcher } from '../apps/router/src/interest/worker-searcher';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { RouterModule } from '../apps/router/src/router.module';
import { StreamModule } from '../apps/stream/src/stream.module';
import { MAX_FRAME_BYTES, MAX_PAYLOAD_BYTES } from '../apps/stream/src/protocol';
import { useStreamWsAdapter } from '../apps/stream/src/ws-adapter';
import { appendUpdates, closeApp, poolLog, serveOn } from './support/app';
import { loadConfig } from '@app/config';
import { NO_RATE_LIMIT } from './support/config';
import { APP_CONFIG } from '@app/config';
import { decodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { decodeQuotesChanged, tupleKey } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { PROGRAM_IDS, MINTS } from '@app/solana';
import { decodeTokenAccount, encodeTokenAccount } from '@app/solana';

jest.setTimeout(60_000);

@Module({ imports: [RouterModule, StreamModule] })
class AllInOne {}

/** A ws client that records every message and can wait for the next one matching a predicate. */
class Client {
  readonly messages: any[] = [];
  private waiters: Array<{ pred: (m: any) => boolean; resolve: (m: any) => void; from: number }> = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      this.messages.push(m);
      this.waiters = this.waiters.filter((w) => {
        if (w.pred(m)) {
          w.resolve(m);
          return false;
        }
        return true;
      });
    });
  }
  static open(url: string): Promise<Client> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const c = new Client(ws);
      ws.once('open', () => resolve(c));
      ws.once('error', reject);
    });
  }
  send(obj: unknown): void {
    this.ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj));
  }
  /** the first message matching pred among those received from index `since` on (default: all) */
  next(pred: (m: any) => boolean, timeoutMs = 5_000, since = 0): Promise<any> {
    const seen = this.messages.slice(since).find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages.slice(since))}`)), timeoutMs);
      this.waiters.push({
        pred,
        from: since,
        resolve: (m) => {
          clearTimeout(t);
          resolve(m);
        },
      });
    });
  }
  close(): void {
    this.ws.close();
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `delta` more USDC in the vault of every SOL/USDC pool (from its latest record on the log), at `slot`: every SOL→USDC quote changes */
async function moveSolUsdc(log: EmbeddedLog, market: SimMarket, slot: number, delta: bigint): Promise<void> {
  const updates: PoolUpdate[] = [];
  for (const p of market.pools) {
    const mints = [p.state.token0Mint, p.state.token1Mint];
    if (!mints.includes(MINTS.SOL) || !mints.includes(MINTS.USDC)) continue;
    const vault = p.state.token0Mint === MINTS.USDC ? p.state.token0Vault : p.state.token1Vault;
    const [prev] = (await log.read(TOPICS.poolUpdates, 'beginning', 1_000_000)).filter((r) => r.key === vault).slice(-1);
    const u = decodePoolUpdate(prev.value);
    const acc = decodeTokenAccount(u.data!, u.owner);
    updates.push({ ...u, slot, data: encodeTokenAccount({ ...acc, amount: acc.amount + delta }) });
  }
  await appendUpdates(log, updates);
}

// the quote work in a worker thread (the default) and on the main thread: the same contract
describe.each(['1', '0'])('stream e2e (all in one, embedded log, INTEREST_WORKERS=%s)', (workers) => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let url: string;
  let market: SimMarket;
  let genesis: PoolUpdate[];
  const clients: Client[] = [];
  const sol = (amount: string, exactIn = true) => ({ in: MINTS.SOL, out: MINTS.USDC, amount, exactIn });

  const append = (updates: PoolUpdate[]): Promise<void> => appendUpdates(log, updates);

  async function client(): Promise<Client> {
    const c = await Client.open(url);
    clients.push(c);
    return c;
  }

  /** add `delta` to one vault of every SOL/USDC pool (changes every SOL→USDC quote) */
  let slot = 0;
  let currentVaults = new Map<string, PoolUpdate>();
  function bumpSolUsdc(delta: bigint): PoolUpdate[] {
    slot = Math.max(slot, market.slot) + 1;
    const out: PoolUpdate[] = [];
    for (const p of market.pools) {
      const mints = [p.state.token0Mint, p.state.token1Mint];
      if (!mints.includes(MINTS.SOL) || !mints.includes(MINTS.USDC)) continue;
      const vaultAddr = p.state.token0Mint === MINTS.USDC ? p.state.token0Vault : p.state.token1Vault;
      const prev = currentVaults.get(vaultAddr) ?? genesis.find((u) => u.address === vaultAddr)!;
      const acc = decodeTokenAccount(prev.data!, prev.owner);
      const next: PoolUpdate = { ...prev, slot, data: encodeTokenAccount({ ...acc, amount: acc.amount + delta }) };
      currentVaults.set(vaultAddr, next);
      out.push(next);
    }
    return out;
  }

  beforeAll(async () => {
    ({ dir, log } = await poolLog('stream-e2e-'));
    market = new SimMarket({ seed: 4, pools: 60, tokens: 20, swapsPerSlot: 6 });
    genesis = market.genesis();
    await append(genesis);
    let port: number;
    ({ app, port } = await serveOn(AllInOne, dir, { INTEREST_WORKERS: workers }, { stream: true }));
    url = `ws://127.0.0.1:${port}/api/v1/stream`;
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await closeApp(app, log, dir);
  });

  it('subscribe: an immediate first quote and an ack counting only valid, new pairs', async () => {
    const c = await client();
    c.send({ op: 'subscribe', pairs: [sol('1000000000'), sol('1000000000'), { in: 'nope', out: MINTS.USDC, amount: '1', exactIn: true }, sol('2000000000', false)] });
    const ack = await c.next((m) => m.type === 'subscribed');
    expect(ack).toEqual({ type: 'subscribed', count: 2 });
    const q = await c.next((m) => m.type === 'quote' && m.amount === '1000000000');
    expect(q).toMatchObject({ type: 'quote', in: MINTS.SOL, out: MINTS.USDC, amount: '1000000000', hops: expect.any(Number), slot: market.slot });
    expect(BigInt(q.amountOut)).toBeGreaterThan(100_000_000n); // ~150 USDC
    expect(Number.isInteger(q.priceImpactBps)).toBe(true);
    const qOut = await c.next((m) => m.type === 'quote' && m.amount === '2000000000');
    expect(qOut.amountOut).toBe('2000000000'); // ExactOut: the output is the subscribed amount
    expect(BigInt(qOut.amountIn)).toBeGreaterThan(0n);
    c.close();
  });

  it("route controls on pairs: each controlled pair is its own tuple, quoted as GET /quote quotes it under the same controls; a control the stream does not take refuses the pair", async () => {
    const base = url.replace('ws://', 'http://').replace('/api/v1/stream', '');
    // a pair whose best route is multi-hop
    let target: string | undefined;
    for (const t of market.tokens.slice(3)) {
      const r = await fetch(`${base}/api/v1/quote?inputMint=${MINTS.USDT}&outputMint=${t.mint}&amount=50000000&swapMode=ExactIn`);
      if (r.status === 200 && ((await r.json()) as any).data.hopCount >= 2) {
        target = t.mint;
        break;
      }
    }
    expect(target).toBeDefined();
    const pair = { in: MINTS.USDT, out: target!, amount: '50000000', exactIn: true };
    const variants: Array<{ controls: Record<string, unknown>; query: string; echo: Record<string, unknown> }> = [
      { controls: {}, query: '', echo: {} },
      { controls: { onlyDirectRoutes: true }, query: '&onlyDirectRoutes=true', echo: { maxHops: 1 } },
      { controls: { maxHops: 2, restrictIntermediateTokens: true }, query: '&maxHops=2&restrictIntermediateTokens=true', echo: { maxHops: 2, restrictIntermediateTokens: true } },
      { controls: { dexes: 'Orca Whirlpool' }, query: '&dexes=Orca%20Whirlpool', echo: { dexes: [PROGRAM_IDS.orcaWhirlpool] } },
    ];
    const c = await client();
    const refused = [{ ...pair, maxAccounts: 20 }, { ...pair, maxHops: 9 }, { ...pair, dexes: 'nope' }, { ...pair, platformFeeBps: 10 }];
    c.send({ op: 'subscribe', pairs: [...variants.map((v) => ({ ...pair, ...v.controls })), ...refused] });
    expect(await c.next((m) => m.type === 'subscribed')).toEqual({ type: 'subscribed', count: variants.length });
    for (const v of variants) {
      const controlsOf = (m: any) => ['dexes', 'excludeDexes', 'maxHops', 'restrictIntermediateTokens'].every((k) => JSON.stringify(m[k]) === JSON.stringify(v.echo[k]));
      const m = await c.next((x) => (x.type === 'quote' || x.type === 'error') && x.out === target && controlsOf(x));
      const rest = await fetch(`${base}/api/v1/quote?inputMint=${pair.in}&outputMint=${pair.out}&amount=${pair.amount}&swapMode=ExactIn${v.query}`);
      const body = (await rest.json()) as any;
      if (rest.status === 200) {
        expect(m).toMatchObject({ type: 'quote', amountOut: body.data.amountOut, hops: body.data.hopCount, ...v.echo });
      } else {
        expect(m).toMatchObject({ type: 'error', message: body.error });
      }
    }
    c.close();
  });

  it('a pool update on the log is pushed; an identical re-quote is not; unsubscribe stops pushes', async () => {
    const c = await client();
    c.send({ op: 'subscribe', pairs: [sol('3000000000')] });
    const first = await c.next((m) => m.type === 'quote');
    await c.next((m) => m.type === 'subscribed');

    // the market moves: more USDC in every SOL/USDC pool → more USDC out
    const since = c.messages.length;
    await append(bumpSolUsdc(5_000_000_000n));
    const pushed = await c.next((m) => m.type === 'quote', 5_000, since);
    expect(BigInt(pushed.amountOut)).toBeGreaterThan(BigInt(first.amountOut));
    expect(pushed.slot).toBeGreaterThan(first.slot);

    // an update that changes nothing the quote depends on: rewrite the same vaults at a new slot
    const again = [...currentVaults.values()].map((u) => ({ ...u, slot: u.slot + 1 }));
    const before = c.messages.length;
    const recomputes = (await app.get(InterestHost).stats()).recomputes;
    await append(again);
    for (let i = 0; i < 100 && (await app.get(InterestHost).stats()).recomputes === recomputes; i++) await pause(20);
    expect((await app.get(InterestHost).stats()).recomputes).toBeGreaterThan(recomputes); // it was recomputed...
    await pause(200);
    expect(c.messages.slice(before)).toEqual([]); // ...and suppressed

    c.send({ op: 'unsubscribe', pairs: [sol('3000000000'), sol('123')] });
    expect(await c.next((m) => m.type === 'unsubscribed')).toEqual({ type: 'unsubscribed', count: 1 });
    const afterUnsub = c.messages.length;
    await append(bumpSolUsdc(7_000_000_000n));
    await pause(400);
    expect(c.messages.slice(afterUnsub).filter((m) => m.type === 'quote')).toEqual([]);
    c.close();
  });

  it('two clients sharing a tuple both get the push; the router computes and writes it once', async () => {
    const a = await client();
    const b = await client();
    const pair = sol('4000000000');
    const key = tupleKey(pair);
    const records = async (topic: string) => (await log.read(topic, 'beginning', 1_000_000)).filter((r) => r.key === key);
    a.send({ op: 'subscribe', pairs: [pair] });
    await a.next((m) => m.type === 'quote');
    b.send({ op: 'subscribe', pairs: [pair] });
    const bFirst = await b.next((m) => m.type === 'quote'); // the cached quote, at once
    expect(bFirst.amount).toBe('4000000000');
    expect(await b.next((m) => m.type === 'subscribed')).toEqual({ type: 'subscribed', count: 1 });
    // one interest record and one quote for the tuple, whatever the number of connections
    expect((await records(TOPICS.quoteInterest)).map((r) => JSON.parse(r.value.toString()).op)).toEqual(['add']);
    expect(await records(TOPICS.quotesChanged)).toHaveLength(1);
    const [sa, sb] = [a.messages.length, b.messages.length];
    await append(bumpSolUsdc(3_000_000_000n));
    const [pa, pb] = await Promise.all([a.next((m) => m.type === 'quote', 5_000, sa), b.next((m) => m.type === 'quote', 5_000, sb)]);
    expect(pa).toEqual(pb);
    expect(BigInt(pa.amountOut)).toBeGreaterThan(BigInt(bFirst.amountOut));
    await pause(150); // anything else for this burst would have come by now
    const changed = (await records(TOPICS.quotesChanged)).map((r) => decodeQuotesChanged(r.value));
    // every record of the tuple reached each client once: one computation serves both
    const quotesOf = (c: Client) => c.messages.filter((m) => m.type === 'quote' && m.amount === pair.amount).map((m) => m.amountOut);
    expect(changed.map((q) => q.amountOut)).toEqual(quotesOf(a));
    expect(quotesOf(b)).toEqual(quotesOf(a));
    a.close();
    b.close();
  });

  it('at most 256 subscriptions per connection; the rest are rejected with an error', async () => {
    const c = await client();
    const pairs = Array.from({ length: 300 }, (_, i) => sol(String(1_000_000 + i)));
    c.send({ op: 'subscribe', pairs });
    const ack = await c.next((m) => m.type === 'subscribed', 20_000);
    expect(ack.count).toBe(256);
    const err = await c.next((m) => m.type === 'error');
    expect(err.message).toMatch(/at most 256/);
    expect(err.message).toMatch(/; 44 pair\(s\) rejected$/);
    // at the limit: a new pair sent twice is one rejected pair; a pair already held is a duplicate, not rejected
    const n = c.messages.length;
    c.send({ op: 'subscribe', pairs: [sol('999'), sol('999'), sol('1000000')] });
    expect(await c.next((m) => m.type === 'subscribed', 5_000, n)).toEqual({ type: 'subscribed', count: 0 });
    expect((await c.next((m) => m.type === 'error', 5_000, n)).message).toMatch(/at most 256 pairs per connection; 1 pair\(s\) rejected$/);
    c.close();
  });

  it('a slow reader whose outbound queue overflows is closed; the others keep their pushes', async () => {
    // Loopback kernel buffers hold megabytes, so a real backlog takes minutes to build: the
    // server-side queue size of ONE connection is reported as full instead (everything else,
    // sockets and frames included, is real).
    const slow = await client();
    const fast = await client();
    const pair = sol('6000000000');
    for (const c of [slow, fast]) {
      c.send({ op: 'subscribe', pairs: [pair] });
      await c.next((m) => m.type === 'quote');
    }
    const slowPort = (slow.ws as any)._socket.localPort as number;
    // the server's sockets come from the ws copy the Nest adapter loads
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ServerWebSocket = require(require.resolve('ws', { paths: [path.dirname(require.resolve('@nestjs/platform-ws'))] })) as typeof WebSocket;
    const proto = ServerWebSocket.prototype;
    const desc = Object.getOwnPropertyDescriptor(proto, 'bufferedAmount')!;
    Object.defineProperty(proto, 'bufferedAmount', {
      configurable: true,
      get(this: any) {
        return this._socket?.remotePort === slowPort ? 1 << 30 : desc.get!.call(this);
      },
    });
    try {
      const closed = new Promise<number>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('the slow reader was not closed within 5 s')), 5_000);
        slow.ws.once('close', (code) => {
          clearTimeout(t);
          resolve(code);
        });
      });
      const since = fast.messages.length;
      await append(bumpSolUsdc(9_000_000_000n));
      const pushed = await fast.next((m) => m.type === 'quote', 5_000, since);
      expect(pushed.amount).toBe('6000000000');
      // closed with 1008 and terminated at once (the close frame may not get through the backlog: 1006)
      expect([1006, 1008]).toContain(await closed);
    } finally {
      Object.defineProperty(proto, 'bufferedAmount', desc);
    }
    fast.close();
  });

  it('malformed frames get an error message and the connection stays usable', async () => {
    const c = await client();
    c.send('{not json');
    expect(await c.next((m) => m.type === 'error')).toEqual({ type: 'error', message: 'invalid json' });
    let n = c.messages.length;
    c.send({ op: 'publish', pairs: [] });
    expect(await c.next((m) => m.type === 'error', 5_000, n)).toEqual({ type: 'error', message: 'unknown op' });
    n = c.messages.length;
    c.send({ op: 'subscribe', pairs: 'all' });
    expect((await c.next((m) => m.type === 'error', 5_000, n)).message).toMatch(/pairs must be a non-empty array/);
    n = c.messages.length;
    c.send({ op: 'subscribe', pairs: [sol('5000000000')] });
    expect(await c.next((m) => m.type === 'subscribed', 5_000, n)).toEqual({ type: 'subscribed', count: 1 });
    c.close();
  });

  /** the first `error` or `subscribed` message after index `since` */
  const answer = (c: Client, since: number) => c.next((m) => m.type === 'error' || m.type === 'subscribed', 5_000, since);
  function closed(c: Client, timeoutMs = 10_000): Promise<number> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`not closed within ${timeoutMs} ms`)), timeoutMs);
      c.ws.once('close', (code) => {
        clearTimeout(t);
        resolve(code);
      });
    });
  }

  it('the 256 KiB frame limit counts UTF-8 bytes: 200,000 "é" (~400 KB) is too large; the connection stays open', async () => {
    const c = await client();
    const frame = JSON.stringify({ op: 'subscribe', pairs: [sol('7100000000')], pad: 'é'.repeat(200_000) });
    expect(frame.length).toBeLessThan(262_144); // UTF-16 code units: under the limit
    expect(Buffer.byteLength(frame)).toBeGreaterThan(262_144); // bytes on the wire: over it
    c.send(frame);
    expect(await answer(c, 0)).toEqual({ type: 'error', message: 'frame too large (max 262144 bytes)' });
    const n = c.messages.length;
    c.send({ op: 'subscribe', pairs: [sol('7100000000')] });
    // count 1: the oversized frame subscribed nothing
    expect(await answer(c, n)).toEqual({ type: 'subscribed', count: 1 });
    // its first quote (it may come just after the ack: the quote work runs on another thread)
    await c.next((m) => m.type === 'quote', 5_000);
    await pause(100);
    expect(c.messages.filter((m) => m.type === 'quote')).toHaveLength(1);
    c.close();
  });

  it('a frame over the server\'s maxPayload closes the connection with 1009 and logs no error', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      const c = await client();
      const other = await client();
      const code = closed(c);
      // 2 MiB: over the server's maxPayload, which is well under the ws default of 100 MiB
      c.send('x'.repeat(2 * 1024 * 1024));
      expect(await code).toBe(1009);
      expect(MAX_PAYLOAD_BYTES).toBeLessThan(2 * 1024 * 1024);
      expect(MAX_PAYLOAD_BYTES).toBeGreaterThan(MAX_FRAME_BYTES);
      // the server and its other connections carry on
      other.send({ op: 'subscribe', pairs: [sol('7200000000')] });
      expect(await answer(other, 0)).toEqual({ type: 'subscribed', count: 1 });
      expect(errors).not.toHaveBeenCalled();
      other.close();
    } finally {
      errors.mockRestore();
    }
  });

  it('a binary frame gets an error and does nothing, even a valid subscribe; the connection stays open', async () => {
    const c = await client();
    const subscribe = { op: 'subscribe', pairs: [sol('7300000000')] };
    c.ws.send(Buffer.from(JSON.stringify(subscribe)), { binary: true });
    expect(await answer(c, 0)).toEqual({ type: 'error', message: 'binary frames are not supported: send JSON text' });
    await pause(100);
    expect(c.messages).toEqual([{ type: 'error', message: 'binary frames are not supported: send JSON text' }]);
    // the same subscribe as text: the pair is new to this connection
    c.send(subscribe);
    expect(await answer(c, 1)).toEqual({ type: 'subscribed', count: 1 });
    c.close();
  });

  it('parseable JSON that is not an object gets a clear error; text that does not parse still gets "invalid json"', async () => {
    const c = await client();
    for (const text of ['42', '"subscribe"', 'null', '[{"op":"subscribe"}]']) {
      const n = c.messages.length;
      c.send(text);
      expect(await answer(c, n)).toEqual({ type: 'error', message: 'message must be a JSON object {op, pairs}' });
    }
    let n = c.messages.length;
    c.send('{"op":"subscribe"');
    expect(await answer(c, n)).toEqual({ type: 'error', message: 'invalid json' });
    n = c.messages.length;
    c.send({ op: 'dance', pairs: [sol('1')] });
    expect(await answer(c, n)).toEqual({ type: 'error', message: 'unknown op' });
    n = c.messages.length;
    c.send({ op: 'subscribe', pairs: [sol('7400000000')] });
    expect(await answer(c, n)).toEqual({ type: 'subscribed', count: 1 });
    c.close();
  });
});


/**
 * The router and two stream instances as separate Nest apps (each with its own log client on one
 * embedded data directory, as separate processes would have; test/deployment.e2e.spec.ts runs
 * real processes): two instances holding one tuple are served by one computation; a router
 * restart rebuilds the live interest from the log and the pushes go on.
 */
describe('stream instances and the router as separate apps on one data directory', () => {
  let dir: string;
  let log: EmbeddedLog;
  let market: SimMarket;
  let router: INestApplication | undefined;
  const streams: INestApplication[] = [];
  const clients: Client[] = [];
  let slot = 0;

  const configFor = () => ({ ...loadConfig({ DATA_DIR: dir, PORT: '0', ...NO_RATE_LIMIT }), port: 0 });
  async function startRouter(): Promise<INestApplication> {
    const ref = await Test.createTestingModule({ imports: [RouterModule] }).overrideProvider(APP_CONFIG).useValue(configFor()).compile();
    const app = ref.createNestApplication({ logger: ['error'] });
    await app.init();
    await app.get(ProjectionService).whenReady();
    return app;
  }
  async function startStream(): Promise<string> {
    const ref = await Test.createTestingModule({ imports: [StreamModule] }).overrideProvider(APP_CONFIG).useValue(configFor()).compile();
    const app = ref.createNestApplication({ logger: ['error'] });
    useStreamWsAdapter(app);
    await app.listen(0, '127.0.0.1');
    streams.push(app);
    return `ws://127.0.0.1:${app.getHttpServer().address().port}/api/v1/stream`;
  }
  /** move every SOL/USDC pool (more USDC in its vault): every SOL→USDC quote changes */
  async function moveMarket(): Promise<void> {
    slot = Math.max(slot, market.slot) + 1;
    await moveSolUsdc(log, market, slot, 2_000_000_000n);
  }

  beforeAll(async () => {
    ({ dir, log } = await poolLog('stream-apart-'));
    market = new SimMarket({ seed: 9, pools: 60, tokens: 20, swapsPerSlot: 6 });
    await appendUpdates(log, market.genesis());
    router = await startRouter();
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    for (const s of streams) await s.close();
    await closeApp(router, log, dir);
  });

  it('two stream instances share one computation; a router restart rebuilds the interest and pushes go on', async () => {
    const [url1, url2] = [await startStream(), await startStream()];
    const c1 = await Client.open(url1);
    const c2 = await Client.open(url2);
    clients.push(c1, c2);
    const pair = { in: MINTS.SOL, out: MINTS.USDC, amount: '2500000000', exactIn: true };
    const key = tupleKey(pair);
    const quotesChanged = async () => (await log.read(TOPICS.quotesChanged, 'beginning', 1_000_000)).filter((r) => r.key === key).map((r) => decodeQuotesChanged(r.value));

    c1.send({ op: 'subscribe', pairs: [pair] });
    const first1 = await c1.next((m) => m.type === 'quote');
    const searches = (await router!.get(InterestHost).stats()).searches;
    c2.send({ op: 'subscribe', pairs: [pair] });
    const first2 = await c2.next((m) => m.type === 'quote');
    expect(first2).toEqual(first1);
    // the second instance got the router's current quote again, without a new computation
    expect((await router!.get(InterestHost).stats()).searches).toBe(searches);
    expect((await router!.get(InterestHost).stats()).tuples).toBe(1);
    expect((await quotesChanged()).map((q) => q.amountOut)).toEqual([first1.amountOut, first1.amountOut]);

    // a market move: one record, both instances push it
    let [n1, n2] = [c1.messages.length, c2.messages.length];
    await moveMarket();
    const [p1, p2] = await Promise.all([c1.next((m) => m.type === 'quote', 5_000, n1), c2.next((m) => m.type === 'quote', 5_000, n2)]);
    expect(p1).toEqual(p2);
    expect(BigInt(p1.amountOut)).toBeGreaterThan(BigInt(first1.amountOut));
    expect((await quotesChanged()).filter((q) => q.amountOut === p1.amountOut)).toHaveLength(1);

    // the router restarts: it reads back the recent interest and answers it again; the stream
    // instances suppress the identical quote, so the clients see nothing...
    await router!.close();
    router = undefined;
    [n1, n2] = [c1.messages.length, c2.messages.length];
    const before = (await quotesChanged()).length;
    router = await startRouter();
    const svc = router.get(InterestHost);
    for (let i = 0; i < 250 && (await quotesChanged()).length === before; i++) await pause(20);
    expect((await svc.stats()).tuples).toBe(1);
    expect((await quotesChanged()).slice(before).map((q) => q.amountOut)).toEqual([p1.amountOut]);
    await pause(100);
    expect(c1.messages.slice(n1)).toEqual([]);
    expect(c2.messages.slice(n2)).toEqual([]);
    // ...until the market moves again: the new router pushes through both instances
    await moveMarket();
    const [r1, r2] = await Promise.all([c1.next((m) => m.type === 'quote', 5_000, n1), c2.next((m) => m.type === 'quote', 5_000, n2)]);
    expect(r1).toEqual(r2);
    expect(BigInt(r1.amountOut)).toBeGreaterThan(BigInt(p1.amountOut));

    // one instance lets go: the tuple stays live for the other; the last one lets go: it is dropped
    c1.send({ op: 'unsubscribe', pairs: [pair] });
    expect(await c1.next((m) => m.type === 'unsubscribed')).toEqual({ type: 'unsubscribed', count: 1 });
    await pause(100);
    expect((await svc.stats()).tuples).toBe(1);
    c2.close();
    for (let i = 0; i < 250 && (await svc.stats()).tuples > 0; i++) await pause(20);
    expect((await svc.stats()).tuples).toBe(0);
  });
});

/** by amount, the latest quote after message index `since[j]` of each client `cs[j]`, once `count` amounts have one (or 5 s passed) */
async function nextQuotes(cs: Client[], since: number[], count: number): Promise<Map<string, any>> {
  const got = new Map<string, any>();
  for (let i = 0; i < 250 && got.size < count; i++) {
    cs.forEach((c, j) => {
      for (const m of c.messages.slice(since[j])) if (m.type === 'quote') got.set(m.amount, m);
    });
    if (got.size < count) await pause(20);
  }
  return got;
}

/**
 * The quote work over several worker threads: each tuple is one worker's (a hash of its key),
 * every subscriber gets its first quote and its pushes whichever worker computes them, and a
 * worker that dies is started again and picks its tuples up from the log.
 */
describe('quote work in worker threads (INTEREST_WORKERS=2)', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let url: string;
  let market: SimMarket;
  let slot = 0;
  const clients: Client[] = [];
  // 24 tuples: SOL→USDC ExactIn at 24 amounts
  const pairs = Array.from({ length: 24 }, (_, i) => ({ in: MINTS.SOL, out: MINTS.USDC, amount: String(1_000_000_000 + i * 37_000_000), exactIn: true }));

  async function moveMarket(delta: bigint): Promise<void> {
    slot = Math.max(slot, market.slot) + 1;
    await moveSolUsdc(log, market, slot, delta);
  }

  const quotesAfter = (cs: Client[], since: number[]) => nextQuotes(cs, since, pairs.length);

  beforeAll(async () => {
    ({ dir, log } = await poolLog('stream-workers-'));
    market = new SimMarket({ seed: 4, pools: 60, tokens: 20, swapsPerSlot: 6 });
    await appendUpdates(log, market.genesis());
    let port: number;
    ({ app, port } = await serveOn(AllInOne, dir, { INTEREST_WORKERS: '2' }, { stream: true }));
    url = `ws://127.0.0.1:${port}/api/v1/stream`;
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await closeApp(app, log, dir);
  });

  it('each tuple is one worker\'s; both clients get every first quote and every push', async () => {
    const a = await Client.open(url);
    const b = await Client.open(url);
    clients.push(a, b);
    a.send({ op: 'subscribe', pairs: pairs.slice(0, 12) });
    b.send({ op: 'subscribe', pairs: pairs.slice(12) });
    const first = await quotesAfter([a, b], [0, 0]);
    expect(first.size).toBe(pairs.length);
    const { stats, workers } = await app.get(InterestHost).snapshot();
    expect(stats.tuples).toBe(pairs.length);
    // both workers hold a share, and no tuple is held twice
    expect(workers).toHaveLength(2);
    expect(workers.every((w) => w.stats.tuples > 0)).toBe(true);
    expect(workers[0].stats.tuples + workers[1].stats.tuples).toBe(pairs.length);
    // garbage collections are counted only while the pushes are observed (the benchmark): none here
    for (const w of workers) expect([w.collections.minor.count, w.collections.major.count]).toEqual([0, 0]);
    // one computation per tuple: each first quote written once to quotes-changed
    const written = (await log.read(TOPICS.quotesChanged, 'beginning', 1_000_000)).map((r) => r.key);
    for (const p of pairs) expect(written.filter((k) => k === tupleKey(p))).toHaveLength(1);

    const since = [a.messages.length, b.messages.length];
    await moveMarket(5_000_000_000n);
    const pushed = await quotesAfter([a, b], since);
    expect(pushed.size).toBe(pairs.length);
    for (const [amount, q] of pushed) {
      expect(BigInt(q.amountOut)).toBeGreaterThan(BigInt(first.get(amount).amountOut));
      expect(q.slot).toBe(slot);
    }
  });

  it('a worker that dies is started again: it reads the live interest back and the pushes go on', async () => {
    const c = await Client.open(url);
    clients.push(c);
    c.send({ op: 'subscribe', pairs });
    const first = await quotesAfter([c], [0]);
    expect(first.size).toBe(pairs.length);
    const host = app.get(InterestHost);
    const shards = (host as unknown as { shards: Array<{ worker: { terminate(): Promise<number> } | null }> }).shards;
    await shards[0].worker!.terminate();
    expect(shards[0].worker).toBeNull();
    // bounds, not timings: a worker started again under load takes seconds to load and read the log
    for (let i = 0; i < 1500 && shards[0].worker === null; i++) await pause(20);
    expect(shards[0].worker).not.toBeNull();
    for (let i = 0; i < 1500; i++) {
      const s = await host.stats().catch(() => undefined);
      if (s?.tuples === pairs.length) break;
      await pause(20);
    }
    expect((await host.stats()).tuples).toBe(pairs.length);
    const since = [c.messages.length];
    await moveMarket(3_000_000_000n);
    const pushed = await quotesAfter([c], since);
    expect(pushed.size).toBe(pairs.length);
    for (const q of pushed.values()) expect(q.slot).toBe(slot);
  });
});

/**
 * Background searches in a worker thread (SEARCH_WORKER=on): the quote work on the main thread
 * hands them to a worker with its own projection of the log; its answers become the tuples'
 * routes, and first quotes and pushes go on as without it.
 */
describe('background searches in a worker thread (SEARCH_WORKER=on)', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let url: string;
  let market: SimMarket;
  const clients: Client[] = [];
  const pairs = Array.from({ length: 12 }, (_, i) => ({ in: MINTS.SOL, out: MINTS.USDC, amount: String(2_000_000_000 + i * 41_000_000), exactIn: true }));

  const quotesAfter = (c: Client, since: number) => nextQuotes([c], [since], pairs.length);

  beforeAll(async () => {
    ({ dir, log } = await poolLog('stream-searcher-'));
    market = new SimMarket({ seed: 4, pools: 60, tokens: 20, swapsPerSlot: 6 });
    await appendUpdates(log, market.genesis());
    let port: number;
    ({ app, port } = await serveOn(AllInOne, dir, { INTEREST_WORKERS: '0', SEARCH_WORKER: 'on' }, { stream: true }));
    url = `ws://127.0.0.1:${port}/api/v1/stream`;
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await closeApp(app, log, dir);
  });

  it('the worker answers the background searches; subscribers get their first quotes and pushes as without it', async () => {
    const host = app.get(InterestHost);
    const searcher = (host as unknown as { searcher: WorkerSearcher }).searcher;
    for (let i = 0; i < 500 && !searcher.ready; i++) await pause(20);
    expect(searcher.ready).toBe(true);
    const c = await Client.open(url);
    clients.push(c);
    c.send({ op: 'subscribe', pairs });
    const first = await quotesAfter(c, 0);
    expect(first.size).toBe(pairs.length);

    // every tuple queued for a background search, as a pool entering the graph queues them
    const svc = (host as unknown as { inline: { watched: Map<string, { queuedBy?: number }>; searches: Set<string>; flush(): void } }).inline;
    const searches = (await host.stats()).searches;
    const answered = searcher.answered;
    for (const [key, w] of svc.watched) {
      svc.searches.add(key);
      w.queuedBy = Date.now();
    }
    svc.flush();
    for (let i = 0; i < 250 && (await host.stats()).searches < searches + pairs.length; i++) await pause(20);
    expect((await host.stats()).searches).toBe(searches + pairs.length);
    expect(searcher.answered - answered).toBe(pairs.length);
    expect((await host.stats()).pendingSearches).toBe(0);

    // the market moves: every tuple is pushed, on the new slot
    const since = c.messages.length;
    const slot = market.slot + 1;
    await moveSolUsdc(log, market, slot, 5_000_000_000n);
    const pushed = await quotesAfter(c, since);
    expect(pushed.size).toBe(pairs.length);
    for (const [amount, q] of pushed) {
      expect(q.slot).toBe(slot);
      expect(BigInt(q.amountOut)).toBeGreaterThan(BigInt(first.get(amount).amountOut));
    }
  });
});
