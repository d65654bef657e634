/**
 * Price endpoints end to end: a real EmbeddedLog in a temp dir filled with a simulated market
 * (plus an island pool between two tokens no anchor trades), the RouterModule app on an
 * ephemeral port, real HTTP requests.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { SimMarket } from '@app/sim';
import { PRICE_ERRORS } from '../apps/router/src/price/price.dto';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { RouterModule } from '../apps/router/src/router.module';
import { PriceOracle, type PriceRecord } from '@app/amm';
import { cpmmReserves } from '@app/amm';
import { appendUpdates, callJson, closeApp, poolLog, serveOn } from './support/app';
import { type PoolUpdate } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { base58Encode } from '@app/solana';
import { MINTS } from '@app/solana';
import { testCpmmPool, testMint, testVault } from './support/cpmm-accounts';

const key = (byte: number): string => base58Encode(Buffer.alloc(32, byte));

describe('price e2e', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let market: SimMarket;
  let startedAt: number;
  const islandX = key(7);
  const islandY = key(8);
  const islandPool = key(11);

  const append = (updates: PoolUpdate[]): Promise<void> => appendUpdates(log, updates);

  const get = (p: string) => callJson(base, 'GET', p);

  const batch = (mints: string[]) => get(`/api/v1/price?mints=${mints.join(',')}`);

  /** two fresh 6-decimal mints and a CPMM pool between them: a pool, but no anchor */
  function islandUpdates(slot: number): PoolUpdate[] {
    const pool = testCpmmPool(slot, islandPool, market.pools[0].state, islandX, islandY, key(9), key(10));
    return [testMint(slot, islandX), testMint(slot, islandY), testVault(slot, key(9), islandX), testVault(slot, key(10), islandY), pool];
  }

  /** the price rules applied from scratch to the router's current projection */
  function scratch(): PriceOracle {
    const p = app.get(ProjectionService).projection;
    const o = new PriceOracle([MINTS.USDC, MINTS.USDT], MINTS.SOL);
    for (const m of p.markets()) {
      const pool = p.pool(m.address);
      if (!pool) continue;
      o.setDecimals(pool.mintA, p.decimals(pool.mintA));
      o.setDecimals(pool.mintB, p.decimals(pool.mintB));
      o.poolChanged({ pool, updatedAt: 0 });
    }
    return o;
  }

  beforeAll(async () => {
    ({ dir, log } = await poolLog('price-e2e-'));
    market = new SimMarket({ seed: 33, pools: 60, tokens: 20, swapsPerSlot: 6 });
    // before the appends: updatedAt is the append time of the record that last changed the pool
    startedAt = Math.floor(Date.now() / 1000);
    await append(market.genesis());
    for (let i = 0; i < 5; i++) await append(market.step());
    await append(islandUpdates(market.slot));

    ({ app, base } = await serveOn(RouterModule, dir));
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('GET /api/v1/price/{SOL}: near the simulated latent SOL price, with the slot and time of its pool update', async () => {
    const r = await get(`/api/v1/price/${MINTS.SOL}`);
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    const d: PriceRecord = r.body.data;
    expect(Object.keys(d).sort()).toEqual(['mint', 'price', 'slot', 'updatedAt']);
    expect(d.mint).toBe(MINTS.SOL);
    // the sim's own deepest SOL/stable pool (by the stable side of its reserves) sets the price
    let deepest: { stableUsd: number; price: number } | null = null;
    for (const sp of market.pools) {
      const m0 = sp.state.token0Mint;
      const m1 = sp.state.token1Mint;
      const stableIs0 = m0 === MINTS.USDC || m0 === MINTS.USDT;
      const stableIs1 = m1 === MINTS.USDC || m1 === MINTS.USDT;
      if (!((m0 === MINTS.SOL && stableIs1) || (m1 === MINTS.SOL && stableIs0))) continue;
      const { reserve0, reserve1 } = cpmmReserves(sp.state, sp.vault0, sp.vault1);
      const [sol, stable] = m0 === MINTS.SOL ? [reserve0, reserve1] : [reserve1, reserve0];
      const stableUsd = Number(stable) / 1e6;
      if (!deepest || stableUsd > deepest.stableUsd) deepest = { stableUsd, price: stableUsd / (Number(sol) / 1e9) };
    }
    expect(d.price).toBeCloseTo(deepest!.price, 9);
    // and it is near the latent price the sim's traders lean towards (one sim swap moves a pool by up to ~6%)
    const latent = market.tokens.find((t) => t.mint === MINTS.SOL)!.priceUsd;
    expect(Math.abs(d.price / latent - 1)).toBeLessThan(0.1);
    expect(Number.isInteger(d.slot)).toBe(true);
    expect(d.slot).toBeGreaterThanOrEqual(market.startSlot);
    expect(d.slot).toBeLessThanOrEqual(market.slot);
    expect(Number.isInteger(d.updatedAt)).toBe(true);
    expect(d.updatedAt).toBeGreaterThanOrEqual(startedAt);
    expect(d.updatedAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
  });

  it('stablecoins are the constant 1 with slot and updatedAt 0', async () => {
    expect(await get(`/api/v1/price/${MINTS.USDC}`)).toEqual({ status: 200, body: { success: true, data: { mint: MINTS.USDC, price: 1, slot: 0, updatedAt: 0 } } });
    expect((await get(`/api/v1/price/${MINTS.USDT}`)).body.data).toEqual({ mint: MINTS.USDT, price: 1, slot: 0, updatedAt: 0 });
  });

  it('every simulated token is priced near its latent price, through its deepest anchor pool', async () => {
    const mints = market.tokens.map((t) => t.mint);
    const r = await batch(mints);
    expect(r.status).toBe(200);
    const want = scratch();
    for (const [i, t] of market.tokens.entries()) {
      const rec: PriceRecord = r.body.data.prices[i];
      expect(rec.mint).toBe(t.mint);
      expect(rec.price).toBeGreaterThan(0);
      expect(Math.abs(rec.price / t.priceUsd - 1)).toBeLessThan(0.15);
      expect({ ...rec, updatedAt: 0 }).toEqual({ ...want.get(t.mint), updatedAt: 0 });
    }
  });

  it('an unknown mint and the tokens of a pool without an anchor have price 0, slot 0, updatedAt 0', async () => {
    const unknown = key(99);
    const r = await batch([unknown, islandX, islandY]);
    expect(r).toEqual({
      status: 200,
      body: {
        success: true,
        data: {
          prices: [unknown, islandX, islandY].map((mint) => ({ mint, price: 0, slot: 0, updatedAt: 0 })),
        },
      },
    });
    // the island pool is routable: it is the anchor rule, not a missing pool, that gives 0
    const markets = (await get('/api/v1/markets')).body.data.markets;
    expect(markets.find((m: any) => m.address === islandPool)).toMatchObject({ routable: true });
  });

  it('a batch answers duplicates once, in the order of first appearance, equal to the single lookups', async () => {
    const t = market.tokens[5].mint;
    const r = await batch([t, MINTS.SOL, t, MINTS.USDC, MINTS.SOL]);
    expect(r.status).toBe(200);
    expect(r.body.data.prices.map((p: PriceRecord) => p.mint)).toEqual([t, MINTS.SOL, MINTS.USDC]);
    for (const p of r.body.data.prices) expect((await get(`/api/v1/price/${p.mint}`)).body.data).toEqual(p);
  });

  it('a batch of 100 mints is answered; 101 is a 400 with a clear error', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => (i < market.tokens.length ? market.tokens[i].mint : key(100 + i)));
    const ok = await batch(hundred);
    expect(ok.status).toBe(200);
    expect(ok.body.data.prices).toHaveLength(100);
    expect(await batch([...hundred, key(250)])).toEqual({ status: 400, body: { success: false, error: 'invalid mints: 101 mints given, at most 100' } });
    // entries as sent: 101 copies of one mint are still too many
    expect((await batch(Array(101).fill(MINTS.SOL))).body).toEqual({ success: false, error: PRICE_ERRORS.tooMany(101) });
  });

  it('an invalid mint in the list is a 400 naming it; missing or repeated mints are 400s', async () => {
    expect(await batch([MINTS.SOL, 'notamint', MINTS.USDC])).toEqual({ status: 400, body: { success: false, error: 'invalid mint: "notamint"' } });
    expect(await batch([MINTS.SOL, ''])).toEqual({ status: 400, body: { success: false, error: 'invalid mint: ""' } });
    expect(await get('/api/v1/price')).toEqual({ status: 400, body: { success: false, error: PRICE_ERRORS.missingMints } });
    expect(await get('/api/v1/price?mints=')).toEqual({ status: 400, body: { success: false, error: PRICE_ERRORS.missingMints } });
    expect(await get(`/api/v1/price?mints=${MINTS.SOL}&mints=${MINTS.USDC}`)).toEqual({ status: 400, body: { success: false, error: PRICE_ERRORS.repeatedMints } });
  });

  it('GET /api/v1/price/{mint} with an invalid mint is a 400 naming it', async () => {
    expect(await get('/api/v1/price/0OIl')).toEqual({ status: 400, body: { success: false, error: 'invalid mint: "0OIl"' } });
  });

  it('GET /api/docs-json documents both price endpoints with their parameters and 400 bodies', async () => {
    const doc = (await get('/api/docs-json')).body;
    const one = doc.paths['/api/v1/price/{mint}'].get;
    const many = doc.paths['/api/v1/price'].get;
    expect(one.parameters.map((p: any) => [p.name, p.in, p.required])).toEqual([['mint', 'path', true]]);
    expect(many.parameters.map((p: any) => [p.name, p.in, p.required])).toEqual([['mints', 'query', true]]);
    for (const op of [one, many]) {
      expect(op.responses['200']).toBeDefined();
      expect(op.responses['400']).toBeDefined();
    }
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.PriceRecordDto.properties).sort()).toEqual(['mint', 'price', 'slot', 'updatedAt']);
    expect(many.responses['400'].description).toContain('at most 100');
  });

  it('follows the log: new slots reprice SOL and what depends on it, as the rules from scratch would', async () => {
    const before = (await get(`/api/v1/price/${MINTS.SOL}`)).body.data as PriceRecord;
    // append slots until one of them moves a SOL/stable pool
    const solStable = new Set(
      market.pools
        .filter((p) => [p.state.token0Mint, p.state.token1Mint].includes(MINTS.SOL) && [p.state.token0Mint, p.state.token1Mint].some((m) => m === MINTS.USDC || m === MINTS.USDT))
        .map((p) => p.address),
    );
    let moved = false;
    for (let i = 0; i < 200 && !moved; i++) {
      const step = market.step();
      await append(step);
      moved = step.some((u) => solStable.has(u.address));
    }
    expect(moved).toBe(true);
    const lastSlot = market.slot;
    let rec = before;
    for (let i = 0; i < 250 && app.get(ProjectionService).projection.slot < lastSlot; i++) await new Promise((r) => setTimeout(r, 20));
    rec = (await get(`/api/v1/price/${MINTS.SOL}`)).body.data;
    expect(rec.slot).toBeGreaterThan(before.slot);
    expect(rec.price).not.toBe(before.price);
    const want = scratch();
    const all = (await batch(market.tokens.map((t) => t.mint))).body.data.prices as PriceRecord[];
    for (const p of all) expect({ ...p, updatedAt: 0 }).toEqual({ ...want.get(p.mint), updatedAt: 0 });
    // tokens priced through a SOL pool carry the SOL update's slot when it is the newer one
    expect(all.filter((p) => p.mint !== MINTS.SOL && p.slot === rec.slot).length).toBeGreaterThan(0);
  });
});
