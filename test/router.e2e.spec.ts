/**
 * Router end to end: a real EmbeddedLog in a temp dir filled with a simulated market, the
 * RouterModule app on an ephemeral port, real HTTP requests.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { SimMarket } from '@app/sim';
import { SAME_MINT_ERROR } from '../apps/router/src/http/api-error';
import { QuotesServedService } from '../apps/router/src/audit/quotes-served.service';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { findBestRoute } from '@app/amm';
import { decodeQuoteServed } from '@app/contracts';
import { RouterModule } from '../apps/router/src/router.module';
import { appendUpdates, closeApp, poolLog, serveOn } from './support/app';
import { type PoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { LOG_PORT, type LogPort } from '@app/log';
import { base58Encode } from '@app/solana';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { decodeTokenAccount, encodeTokenAccount } from '@app/solana';
import { testCpmmPool, testMint, testVault } from './support/cpmm-accounts';

const key = (byte: number): string => base58Encode(Buffer.alloc(32, byte));

describe('router e2e', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let market: SimMarket;
  // an island: a pool between two mints nobody else trades, and a pool with a missing vault
  const islandX = key(7);
  const islandY = key(8);
  const islandPool = key(11);
  const brokenPool = key(12);
  const missingVault = key(13);

  const append = (updates: PoolUpdate[]): Promise<void> => appendUpdates(log, updates);

  async function get(p: string): Promise<{ status: number; body: any; headers?: Headers }> {
    const res = await fetch(base + p);
    const text = await res.text();
    const out: { status: number; body: any; headers?: Headers } = { status: res.status, body: text.length ? JSON.parse(text) : null };
    // kept off the object's enumerable keys so the many toEqual({status, body}) checks still hold
    Object.defineProperty(out, 'headers', { value: res.headers, enumerable: false });
    return out;
  }

  /** the route's edges form a flow from inputMint to outputMint (API: split representation) */
  function expectValidRoutes(d: any): void {
    const reached = new Set<string>([d.inputMint]);
    for (const h of d.routes) {
      expect(reached.has(h.inputMint)).toBe(true); // topological order: the input token was reached before
      expect(Number.isInteger(h.percent) && h.percent >= 1 && h.percent <= 100).toBe(true);
      expect(h.poolType).toBe('Raydium CPMM');
      reached.add(h.outputMint);
    }
    const pct = (pred: (h: any) => boolean) => d.routes.filter(pred).reduce((n: number, h: any) => n + h.percent, 0);
    // rounding: each percent is rounded on its own
    expect(Math.abs(pct((h) => h.inputMint === d.inputMint) - 100)).toBeLessThanOrEqual(d.routes.length);
    expect(Math.abs(pct((h) => h.outputMint === d.outputMint) - 100)).toBeLessThanOrEqual(d.routes.length);
    expect(d.routePath[0]).toBe(d.inputMint);
    expect(d.routePath[d.routePath.length - 1]).toBe(d.outputMint);
    expect(d.routePath).toHaveLength(d.hopCount + 1);
    for (let i = 0; i + 1 < d.routePath.length; i++) {
      expect(d.routes.some((h: any) => h.inputMint === d.routePath[i] && h.outputMint === d.routePath[i + 1])).toBe(true);
    }
  }

  const quote = (q: Record<string, string>) => get(`/api/v1/quote?${new URLSearchParams(q).toString()}`);

  function islandUpdates(slot: number): PoolUpdate[] {
    const pool = (address: string, v0: string, v1: string) => testCpmmPool(slot, address, market.pools[0].state, islandX, islandY, v0, v1);
    return [
      testMint(slot, islandX),
      testMint(slot, islandY),
      testVault(slot, key(9), islandX),
      testVault(slot, key(10), islandY),
      pool(islandPool, key(9), key(10)),
      pool(brokenPool, key(9), missingVault),
    ];
  }

  beforeAll(async () => {
    ({ dir, log } = await poolLog('router-e2e-'));
    market = new SimMarket({ seed: 21, pools: 60, tokens: 20, swapsPerSlot: 6 });
    await append(market.genesis());
    for (let i = 0; i < 5; i++) await append(market.step());
    await append(islandUpdates(market.slot));

    ({ app, base } = await serveOn(RouterModule, dir));
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('GET /health → 200 {status:"ok"} once caught up', async () => {
    const r = await get('/health');
    expect(r).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('an ExactIn quote SOL → USDC with every QuoteResponse field', async () => {
    const r = await quote({ inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1000000000', swapMode: 'ExactIn' });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    const d = r.body.data;
    expect(d).toMatchObject({ inputMint: MINTS.SOL, outputMint: MINTS.USDC, amountIn: '1000000000' });
    expect(d.amountOut).toMatch(/^[1-9][0-9]*$/);
    // SOL is worth ~150 USD: 1 SOL → at least ~100 USDC (6 decimals). No upper bound: the
    // simulated market has real arbitrage loops (reserves clamped at 1e17 misprice a few pools)
    expect(Number(d.amountOut)).toBeGreaterThan(100e6);
    expectValidRoutes(d);
    expect(Number.isInteger(d.priceImpactBps)).toBe(true);
    expect(d.priceImpactPercent).toBe((d.priceImpactBps / 100).toFixed(2));
    expect(['none', 'low', 'moderate', 'high', 'extreme']).toContain(d.priceImpactSeverity);
    expect(typeof d.priceImpactWarning).toBe('string');
    expect(Number.isInteger(d.feeBps)).toBe(true);
    expect(d.otherAmountThreshold).toBe(((BigInt(d.amountOut) * 9950n) / 10000n).toString());
    expect(d.contextSlot).toBe(market.slot);
    expect(d.logPosition).toEqual({ '0': expect.stringMatching(/^\d+$/) });
    expect(r.headers!.get('x-quote-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('every served quote is on quotes-served with its request, response, slot and log position', async () => {
    const r = await quote({ inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '2500000', swapMode: 'ExactOut', slippageBps: '75' });
    expect(r.status).toBe(200);
    const id = r.headers!.get('x-quote-id')!;
    expect(id).toBeTruthy();
    await app.get(QuotesServedService).flush();
    const records = await log.read(TOPICS.quotesServed, 'beginning', 100_000);
    const mine = records.filter((rec) => rec.key === id);
    expect(mine).toHaveLength(1);
    const served = decodeQuoteServed(mine[0].value);
    expect(served).toEqual({
      quoteId: id,
      servedAt: expect.any(Number),
      request: { inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '2500000', swapMode: 'ExactOut', slippageBps: 75 },
      response: r.body.data,
      slot: r.body.data.contextSlot,
      logPosition: r.body.data.logPosition,
    });
    // errors are not served quotes: nothing recorded for them
    const before = (await log.endPositions(TOPICS.quotesServed))['0'];
    expect((await quote({ inputMint: MINTS.SOL, outputMint: islandX, amount: '1', swapMode: 'ExactIn' })).status).toBe(404);
    await app.get(QuotesServedService).flush();
    expect((await log.endPositions(TOPICS.quotesServed))['0']).toBe(before);
  });

  it('a large trade is split over pools and paths, exact, and never worse than the best single path', async () => {
    const projection = app.get(ProjectionService).projection;
    let splitSeen = false;
    for (const amount of [10n ** 9n, 10n ** 11n, 10n ** 12n, 10n ** 13n]) {
      for (const swapMode of ['ExactIn', 'ExactOut'] as const) {
        const [inputMint, outputMint] = swapMode === 'ExactIn' ? [MINTS.SOL, MINTS.USDC] : [MINTS.USDC, MINTS.SOL];
        const req = { inputMint, outputMint, amount, mode: swapMode, maxHops: 5 };
        let single;
        try {
          single = findBestRoute(projection, req, { split: false });
        } catch {
          continue;
        }
        const r = await quote({ inputMint, outputMint, amount: amount.toString(), swapMode });
        expect(r.status).toBe(200);
        const d = r.body.data;
        expectValidRoutes(d);
        if (d.routes.length > d.hopCount) splitSeen = true;
        if (swapMode === 'ExactIn') expect(BigInt(d.amountOut)).toBeGreaterThanOrEqual(single.amountOut);
        else {
          expect(BigInt(d.amountOut)).toBeGreaterThanOrEqual(amount);
          expect(BigInt(d.amountIn)).toBeLessThanOrEqual(single.amountIn);
        }
      }
    }
    expect(splitSeen).toBe(true);
  });

  it('a direct quote: the island pair has exactly one pool', async () => {
    const r = await quote({ inputMint: islandX, outputMint: islandY, amount: '1000000', swapMode: 'ExactIn', slippageBps: '0' });
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d.hopCount).toBe(1);
    expect(d.routePath).toEqual([islandX, islandY]);
    expectValidRoutes(d);
    expect(d.routes).toEqual([{ poolAddress: islandPool, poolType: 'Raydium CPMM', percent: 100, inputMint: islandX, outputMint: islandY }]);
    // 1e6 into 1e12 / 1e12 at the template's fee: output just under 1e6 minus the fee
    expect(BigInt(d.amountOut)).toBeLessThan(1_000_000n);
    expect(BigInt(d.amountOut)).toBeGreaterThan(900_000n);
    expect(d.otherAmountThreshold).toBe(d.amountOut);
    expect(d.feeBps).toBeGreaterThan(0);
  });

  it('a multi-hop quote between two tokens without a common pool', async () => {
    const pairs = new Set(market.pools.map((p) => `${p.state.token0Mint}|${p.state.token1Mint}`));
    const direct = (a: string, b: string) => pairs.has(`${a}|${b}`) || pairs.has(`${b}|${a}`);
    const generated = market.tokens.slice(3).map((t) => t.mint);
    let pair: [string, string] | null = null;
    for (const a of generated) for (const b of generated) if (!pair && a !== b && !direct(a, b)) pair = [a, b];
    expect(pair).not.toBeNull();
    const [a, b] = pair!;
    const t = market.tokens.find((x) => x.mint === a)!;
    const amount = BigInt(Math.ceil((100 / t.priceUsd) * 10 ** t.decimals)); // about 100 USD
    const r = await quote({ inputMint: a, outputMint: b, amount: amount.toString(), swapMode: 'ExactIn', slippageBps: '100' });
    expect(r.status).toBe(200);
    expect(r.body.data.hopCount).toBeGreaterThanOrEqual(2);
    expect(r.body.data.routePath).toHaveLength(r.body.data.hopCount + 1);
    expectValidRoutes(r.body.data);
    expect(new Set(r.body.data.routePath).size).toBe(r.body.data.routePath.length);
    expect(r.body.data.otherAmountThreshold).toBe(((BigInt(r.body.data.amountOut) * 9900n) / 10000n).toString());
  });

  it('ExactOut: delivers at least the requested output; threshold is the max input', async () => {
    const r = await quote({ inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '500000000', swapMode: 'ExactOut', slippageBps: '30' });
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(BigInt(d.amountOut)).toBeGreaterThanOrEqual(500000000n);
    expect(d.otherAmountThreshold).toBe(((BigInt(d.amountIn) * 10030n + 9999n) / 10000n).toString());
  });

  it('every quote error with its status and the envelope, in the order of the API table', async () => {
    const ok = { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1000000', swapMode: 'ExactIn' };
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ ...ok, inputMint: 'not-a-key' }, 400, 'invalid inputMint'],
      [{ ...ok, inputMint: 'bad', outputMint: 'bad', amount: 'x', swapMode: 'y' }, 400, 'invalid inputMint'],
      [{ outputMint: MINTS.USDC, amount: '1', swapMode: 'ExactIn' }, 400, 'invalid inputMint'],
      [{ ...ok, outputMint: '0OIl' }, 400, 'invalid outputMint'],
      [{ ...ok, outputMint: 'bad', amount: '-1', swapMode: 'nope' }, 400, 'invalid outputMint'],
      [{ ...ok, amount: '0' }, 400, 'invalid amount'],
      [{ ...ok, amount: '-5' }, 400, 'invalid amount'],
      [{ ...ok, amount: '1.5' }, 400, 'invalid amount'],
      [{ ...ok, amount: '18446744073709551616' }, 400, 'invalid amount'],
      [{ ...ok, amount: 'abc', swapMode: 'nope' }, 400, 'invalid amount'],
      [{ ...ok, swapMode: 'exactin' }, 400, 'invalid swapMode'],
      [{ ...ok, swapMode: '' }, 400, 'invalid swapMode'],
      [{ ...ok, slippageBps: '10001' }, 400, 'invalid slippageBps'],
      [{ ...ok, slippageBps: '1.5' }, 400, 'invalid slippageBps'],
      [{ ...ok, slippageBps: '-1' }, 400, 'invalid slippageBps'],
      [{ ...ok, outputMint: MINTS.SOL }, 400, SAME_MINT_ERROR],
      [{ ...ok, outputMint: PROGRAM_IDS.system }, 404, 'no pool found'],
      [{ ...ok, inputMint: PROGRAM_IDS.system }, 404, 'no pool found'],
      [{ ...ok, outputMint: islandX }, 404, 'no route found'],
      [{ ...ok, amount: '18446744073709551615', swapMode: 'ExactOut' }, 400, 'insufficient liquidity'],
    ];
    for (const [q, status, error] of cases) {
      const r = await quote(q);
      expect({ q, status: r.status, body: r.body }).toEqual({ q, status, body: { success: false, error } });
    }
    // slippageBps at the bounds is fine
    expect((await quote({ ...ok, slippageBps: '0' })).status).toBe(200);
    expect((await quote({ ...ok, slippageBps: '10000' })).body.data.otherAmountThreshold).toBe('0');
  });

  it('unknown /api/v1 paths answer with the envelope, never a Nest default body', async () => {
    expect(await get('/api/v1/nope')).toEqual({ status: 404, body: { success: false, error: 'not found' } });
  });

  it('GET /api/v1/tokens lists the graph with decimals, pool counts, and symbols and names from the Metadata accounts on the log', async () => {
    const r = await get('/api/v1/tokens');
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    const tokens: Array<{ mint: string; decimals: number; pools: number }> = r.body.data.tokens;
    const usdc = tokens.find((t) => t.mint === MINTS.USDC)!;
    expect(usdc.decimals).toBe(6);
    expect(usdc.pools).toBeGreaterThan(0);
    expect(usdc).toMatchObject({ symbol: 'USDC', name: 'USD Coin' });
    // a mint without metadata on the log
    expect(tokens.find((t) => t.mint === islandX)).toEqual({ mint: islandX, decimals: 6, pools: 1, symbol: null, name: null });
    for (const t of market.tokens) expect(tokens.find((x) => x.mint === t.mint)).toMatchObject({ decimals: t.decimals, symbol: t.symbol.slice(0, 10) });

    const bySymbol = await get('/api/v1/tokens?symbol=usdc');
    expect(bySymbol.body.data).toMatchObject({ total: 1, tokens: [{ mint: MINTS.USDC, symbol: 'USDC' }] });
    expect((await get(`/api/v1/tokens?symbol=${market.tokens[5].symbol}&mint=${market.tokens[5].mint}`)).body.data.total).toBe(1);
    expect((await get('/api/v1/tokens?symbol=NOSUCH')).body.data).toEqual({ tokens: [], total: 0, nextOffset: null });
    expect(await get('/api/v1/tokens?symbol=%01')).toEqual({ status: 400, body: { success: false, error: 'invalid symbol' } });
  });

  it('GET /api/v1/markets lists every pool, unroutable ones with their reason', async () => {
    const r = await get('/api/v1/markets');
    expect(r.status).toBe(200);
    const markets: any[] = r.body.data.markets;
    expect(markets).toHaveLength(market.pools.length + 2);
    const sim = markets.find((m) => m.address === market.pools[0].address);
    expect(sim).toEqual({
      address: market.pools[0].address,
      programId: PROGRAM_IDS.raydiumCpmm,
      kind: 'constant-product',
      label: 'Raydium CPMM',
      mintA: market.pools[0].state.token0Mint,
      mintB: market.pools[0].state.token1Mint,
      lastSlot: expect.any(Number),
      routable: true,
    });
    expect(markets.find((m) => m.address === brokenPool)).toMatchObject({
      routable: false,
      reason: `missing token1 vault account ${missingVault}`,
      mintA: islandX,
      mintB: islandY,
    });
  });

  it('GET /api/docs-json documents /api/v1/quote with its parameters; /api/docs is served', async () => {
    const r = await get('/api/docs-json');
    expect(r.status).toBe(200);
    const op = r.body.paths['/api/v1/quote'].get;
    const params = op.parameters.map((p: any) => [p.name, p.in, p.required]);
    expect(params).toEqual(
      expect.arrayContaining([
        ['inputMint', 'query', true],
        ['outputMint', 'query', true],
        ['amount', 'query', true],
        ['swapMode', 'query', true],
        ['slippageBps', 'query', false],
      ]),
    );
    expect(r.body.paths['/health']).toBeDefined();
    expect(r.body.paths['/api/v1/markets']).toBeDefined();
    const page = await fetch(`${base}/api/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/swagger/i);
  });

  it('tails the log: a quote changes after a new pool update is appended', async () => {
    const q = { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1000000000', swapMode: 'ExactIn' };
    const before = (await quote(q)).body.data;
    const poolAddr = before.routes.find((h: any) => h.outputMint === MINTS.USDC).poolAddress;
    const sp = market.pools.find((p) => p.address === poolAddr)!;
    const outVault = sp.state.token0Mint === MINTS.USDC ? sp.state.token0Vault : sp.state.token1Vault;
    const vault = (await log.read(TOPICS.poolUpdates, 'beginning', 100_000))
      .map((rec) => JSON.parse(rec.value.toString()))
      .filter((v) => v.address === outVault)
      .pop();
    const data = Buffer.from(vault.data, 'base64');
    const acc = decodeTokenAccount(data, vault.owner);
    const slot = market.slot + 1;
    await append([
      {
        slot,
        address: outVault,
        owner: vault.owner,
        lamports: BigInt(vault.lamports),
        data: encodeTokenAccount({ ...acc, amount: acc.amount * 2n }),
        source: 'test',
      },
    ]);
    let after = before;
    for (let i = 0; i < 200 && after.amountOut === before.amountOut; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = (await quote(q)).body.data;
    }
    expect(BigInt(after.amountOut)).toBeGreaterThan(BigInt(before.amountOut));
    expect(after.contextSlot).toBe(slot);
    expect(BigInt(after.logPosition['0'])).toBeGreaterThan(BigInt(before.logPosition['0']));
  });

  it('GET /health → 503 {status:"unavailable", reason} once the log is unreachable (runs last)', async () => {
    await app.get(QuotesServedService).flush();
    await app.get<LogPort>(LOG_PORT).close();
    expect(await get('/health')).toEqual({ status: 503, body: { status: 'unavailable', reason: 'log unreachable' } });
  });
});
