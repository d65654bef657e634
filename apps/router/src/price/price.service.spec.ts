import type { HopQuote, Pool } from '@app/amm';
import { PriceOracle } from '@app/amm';
import { loadConfig } from '@app/config';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { SimMarket } from '@app/sim';
import { Projection, type ProjectionRecord } from '@app/pools/projection';
import type { PoolsChangedListener, ProjectionService } from '../projection/projection.service';
import { PriceService } from './price.service';

/** The part of ProjectionService the PriceService uses, over a real Projection, batch by batch. */
class FakeProjectionService {
  readonly projection = new Projection();
  private readonly listeners: PoolsChangedListener[] = [];
  private offset = 0;

  onPoolsChanged(l: PoolsChangedListener): void {
    this.listeners.push(l);
  }

  /** apply one batch as ProjectionService does, then notify (`stamp`: each record's append time, by offset) */
  applyBatch(updates: PoolUpdate[], appendedAtMs = 0, stamp?: (offset: number) => number): void {
    const records: ProjectionRecord[] = updates.map((u) => {
      const offset = this.offset++;
      return { partition: 0, offset: String(offset), value: encodePoolUpdate(u), timestamp: stamp?.(offset) };
    });
    this.projection.applyBatch(records);
    if (this.listeners.length > 0) {
      const changedAt = new Map<string, number>();
      const changed = this.projection.drainChanged(changedAt);
      if (changed.size > 0) for (const l of this.listeners) l(changed, this.projection.slot, appendedAtMs, changedAt);
    }
  }
}

/** a constant-product stand-in pool (reserves in smallest units) */
function cp(address: string, mintA: string, mintB: string, ra: number, rb: number, slot: number): Pool {
  const unused = (): HopQuote => {
    throw new Error('not used');
  };
  return {
    address,
    programId: PROGRAM_IDS.raydiumCpmm,
    kind: 'constant-product',
    label: 'test',
    mintA,
    mintB,
    feeBps: 25,
    slot,
    quoteExactIn: unused,
    quoteExactOut: unused,
    approxOut: () => 0,
    approxIn: () => Infinity,
    spotPrice: (m) => (m === mintA ? rb / ra : ra / rb),
    reserve: (m) => (m === mintA ? ra : rb),
  };
}

function setup(opts: { stables?: string } = {}) {
  const market = new SimMarket({ seed: 5, pools: 40, tokens: 14, swapsPerSlot: 8 });
  const fake = new FakeProjectionService();
  let now = 1_767_225_600_000;
  const clock = { set: (ms: number) => (now = ms) };
  const config = loadConfig(opts.stables ? { PRICE_STABLECOINS: opts.stables } : {});
  const service = new PriceService(fake as unknown as ProjectionService, config, () => now);
  return { market, fake, service, clock };
}

/** the rules applied from scratch to the projection's current pools */
function scratch(p: Projection, stables = [MINTS.USDC, MINTS.USDT]): PriceOracle {
  const o = new PriceOracle(stables, MINTS.SOL);
  for (const m of p.markets()) {
    const pool = p.pool(m.address);
    if (!pool) continue;
    o.setDecimals(pool.mintA, p.decimals(pool.mintA));
    o.setDecimals(pool.mintB, p.decimals(pool.mintB));
    o.poolChanged({ pool, updatedAt: 0 });
  }
  return o;
}

describe('PriceService', () => {
  it('seeds from the pools already projected, pricing SOL from its deepest SOL/stable pool', () => {
    const { market, fake, service } = setup();
    fake.applyBatch(market.genesis());
    service.attach();
    // the deepest SOL/stable pool by stable-side reserve, computed here from the projected pools
    let best: { usd: number; price: number } | null = null;
    for (const sp of market.pools) {
      const pool = fake.projection.pool(sp.address)!;
      const stable = [MINTS.USDC, MINTS.USDT].find((s) => s === pool.mintA || s === pool.mintB);
      if (!stable || (pool.mintA !== MINTS.SOL && pool.mintB !== MINTS.SOL)) continue;
      const usd = pool.reserve(stable) / 1e6;
      const price = usd / (pool.reserve(MINTS.SOL) / 1e9);
      if (!best || usd > best.usd) best = { usd, price };
    }
    expect(best).not.toBeNull();
    expect(service.price(MINTS.SOL)).toEqual({ mint: MINTS.SOL, price: expect.closeTo(best!.price, 9), slot: market.startSlot, updatedAt: 1_767_225_600 });
    const sol = market.tokens.find((t) => t.mint === MINTS.SOL)!;
    expect(Math.abs(service.price(MINTS.SOL).price / sol.priceUsd - 1)).toBeLessThan(0.02);
    expect(service.price(MINTS.USDC)).toEqual({ mint: MINTS.USDC, price: 1, slot: 0, updatedAt: 0 });
    // every sim token has an anchor pool: all priced
    for (const t of market.tokens) expect(service.price(t.mint).price).toBeGreaterThan(0);
  });

  it('follows each applied batch: records equal the rules from scratch, stamped with the clock of the batch', () => {
    const { market, fake, service, clock } = setup();
    service.attach(); // before anything is projected: everything arrives through the listener
    fake.applyBatch(market.genesis());
    const mints = market.tokens.map((t) => t.mint);
    for (let i = 1; i <= 30; i++) {
      clock.set(1_767_225_600_000 + i * 400);
      const before = new Map(mints.map((m) => [m, service.price(m)]));
      const step = market.step();
      fake.applyBatch(step);
      const want = scratch(fake.projection);
      for (const m of mints) {
        const got = service.price(m);
        expect({ ...got, updatedAt: 0 }).toEqual({ ...want.get(m), updatedAt: 0 });
        // a record that changed was stamped with this batch's clock (floored to seconds)
        if (got !== before.get(m) && got.slot === market.slot) expect(got.updatedAt).toBe(Math.floor((1_767_225_600_000 + i * 400) / 1000));
      }
    }
    // SOL moved at some point and the tokens priced through SOL pools moved with it (same slot)
    const solSlot = service.price(MINTS.SOL).slot;
    expect(solSlot).toBeGreaterThan(market.startSlot);
  });

  it("stamps updatedAt with the log's append time of the batch when it has one (deterministic on replay)", () => {
    const { market, fake, service, clock } = setup();
    service.attach();
    clock.set(9_999_999_999_000); // the wall clock must not be used
    fake.applyBatch(market.genesis(), 1_767_225_000_000);
    expect(service.price(MINTS.SOL).updatedAt).toBe(1_767_225_000);
    for (let i = 0; i < 20; i++) fake.applyBatch(market.step(), 1_767_225_000_000 + (i + 1) * 400);
    const sol = service.price(MINTS.SOL);
    expect(sol.updatedAt).toBeGreaterThanOrEqual(1_767_225_000);
    expect(sol.updatedAt).toBeLessThanOrEqual(1_767_225_008);
  });

  it('stamps each pool with the append time of the last record that changed it: the same prices and times however the log is batched', () => {
    const { market, fake, service, clock } = setup();
    const updates = [...market.genesis()];
    for (let i = 0; i < 12; i++) updates.push(...market.step());
    const stamp = (offset: number): number => 1_767_225_000_000 + offset * 37;
    service.attach();
    clock.set(9_999_999_999_000);
    // slot by slot, as a live router applies them
    let from = 0;
    while (from < updates.length) {
      let to = from + 1;
      while (to < updates.length && updates[to].slot === updates[from].slot) to++;
      fake.applyBatch(updates.slice(from, to), stamp(to - 1), stamp);
      from = to;
    }
    // a replay: batches of 500 records that cut across slots
    const replay = setup();
    replay.service.attach();
    replay.clock.set(1_000);
    for (let i = 0; i < updates.length; i += 500) replay.fake.applyBatch(updates.slice(i, i + 500), stamp(Math.min(i + 500, updates.length) - 1), stamp);
    const mints = [MINTS.SOL, ...market.tokens.map((t) => t.mint)];
    const live = mints.map((m) => service.price(m));
    expect(mints.map((m) => replay.service.price(m))).toEqual(live);
    // and the times are records' times, not a batch's newest for every pool
    const times = new Set(live.filter((r) => r.price > 0).map((r) => r.updatedAt));
    expect(times.size).toBeGreaterThan(1);
    for (const t of times) expect(t).toBeLessThanOrEqual(Math.floor(stamp(updates.length - 1) / 1000));
  });

  it('prices tokens whose mint accounts arrive after their pools (decimals pending → known)', () => {
    const { market, fake, service } = setup();
    service.attach();
    const genesis = market.genesis();
    const isMint = (u: PoolUpdate): boolean => market.tokens.some((t) => t.mint === u.address);
    fake.applyBatch(genesis.filter((u) => !isMint(u)));
    expect(service.price(MINTS.SOL).price).toBe(0);
    fake.applyBatch(genesis.filter(isMint));
    expect(service.stats.pendingDecimals).toBe(0);
    for (const t of market.tokens) expect(service.price(t.mint).price).toBeGreaterThan(0);
  });

  it('picks up decimals that arrive in a batch that does not re-materialise the pool', () => {
    // a projection whose pool does not depend on its mint accounts (as some venues may)
    const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
    const decimals = new Map<string, number>([[MINTS.USDC, 6]]);
    const pools = new Map<string, Pool>([['p1', cp('p1', JUP, MINTS.USDC, 1_000e6, 250e6, 9)], ['p2', cp('p2', MINTS.SOL, MINTS.USDC, 1e9, 150e6, 10)]]);
    let listener: PoolsChangedListener | null = null;
    const fake = {
      projection: { markets: () => [], pool: (a: string) => pools.get(a), decimals: (m: string) => decimals.get(m), lastChangeAt: () => NaN },
      onPoolsChanged: (l: PoolsChangedListener) => (listener = l),
    };
    const service = new PriceService(fake as unknown as ProjectionService, loadConfig({}), () => 5_000);
    service.attach();
    listener!(new Set(['p1']), 9, 0, new Map());
    expect(service.price(JUP)).toEqual({ mint: JUP, price: 0, slot: 0, updatedAt: 0 });
    expect([...service.oracle.pendingDecimals()]).toEqual([JUP]);
    decimals.set(JUP, 6);
    decimals.set(MINTS.SOL, 9);
    listener!(new Set(['p2']), 10, 0, new Map()); // another pool changes; JUP's mint account arrived meanwhile
    expect(service.price(JUP)).toEqual({ mint: JUP, price: 0.25, slot: 9, updatedAt: 5 });
    expect(service.price(MINTS.SOL)).toEqual({ mint: MINTS.SOL, price: 150, slot: 10, updatedAt: 5 });
    expect(service.stats.pendingDecimals).toBe(0);
  });

  it('forgets a pool the projection no longer has routable', () => {
    const { market, fake, service } = setup();
    fake.applyBatch(market.genesis());
    service.attach();
    // close every SOL/stable pool account: SOL has no price, nor the tokens priced only through SOL
    const closed: PoolUpdate[] = market.pools
      .filter((sp) => [sp.state.token0Mint, sp.state.token1Mint].includes(MINTS.SOL) && [sp.state.token0Mint, sp.state.token1Mint].some((m) => m === MINTS.USDC || m === MINTS.USDT))
      .map((sp) => ({ slot: market.slot + 1, address: sp.address, owner: PROGRAM_IDS.raydiumCpmm, lamports: 0n, data: null, source: 'test' }));
    expect(closed.length).toBeGreaterThan(0);
    fake.applyBatch(closed);
    expect(service.price(MINTS.SOL)).toEqual({ mint: MINTS.SOL, price: 0, slot: 0, updatedAt: 0 });
    const want = scratch(fake.projection);
    for (const t of market.tokens) expect(service.price(t.mint)).toEqual({ ...want.get(t.mint), updatedAt: want.get(t.mint).price > 0 ? service.price(t.mint).updatedAt : 0 });
  });

  it('uses the configured stablecoin list', () => {
    const { market, fake, service } = setup({ stables: MINTS.USDT });
    fake.applyBatch(market.genesis());
    service.attach();
    expect(service.price(MINTS.USDT)).toEqual({ mint: MINTS.USDT, price: 1, slot: 0, updatedAt: 0 });
    // USDC is now an ordinary token, priced near 1 from its pools
    const usdc = service.price(MINTS.USDC);
    expect(usdc.slot).toBe(market.startSlot);
    expect(Math.abs(usdc.price - 1)).toBeLessThan(0.02);
    expect(usdc.price).not.toBe(1);
  });
});
