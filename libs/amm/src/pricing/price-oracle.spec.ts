import fc from 'fast-check';
import type { HopQuote, Pool } from '../pool';
import { PriceOracle, type PriceRecord } from './price-oracle';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const ORCA = 'orcaEKTdK7LKz57vaAYr9QeNsVEPfiu6QeMU1kektZE';
const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';
const UNKNOWN = '11111111111111111111111111111111';

/** A constant-product stand-in: spot price and reserves from two reserves (smallest units). */
function pool(address: string, mintA: string, mintB: string, ra: number, rb: number, slot = 1): Pool {
  const unused = (): HopQuote => {
    throw new Error('not used');
  };
  return {
    address,
    programId: 'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C',
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
    spotPrice: (m: string) => {
      if (m === mintA) return rb / ra;
      if (m === mintB) return ra / rb;
      throw new Error(`mint ${m} is not in pool ${address}`);
    },
    reserve: (m: string) => {
      if (m === mintA) return ra;
      if (m === mintB) return rb;
      throw new Error(`mint ${m} is not in pool ${address}`);
    },
  };
}

const DECIMALS: Record<string, number> = { [SOL]: 9, [USDC]: 6, [USDT]: 6, [BONK]: 5, [JUP]: 6, [ORCA]: 6, [PYUSD]: 6 };

function oracle(stables = [USDC, USDT]): PriceOracle {
  const o = new PriceOracle(stables, SOL);
  for (const [m, d] of Object.entries(DECIMALS)) o.setDecimals(m, d);
  return o;
}

const zero = (mint: string): PriceRecord => ({ mint, price: 0, slot: 0, updatedAt: 0 });

describe('PriceOracle', () => {
  describe('stablecoins', () => {
    it('are the constant 1 with slot and updatedAt 0, whatever their pools say', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('usdc-usdt', USDC, USDT, 1_000e6, 900e6, 5), updatedAt: 50 });
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1_000e9, 150_000e6, 6), updatedAt: 60 });
      expect(o.get(USDC)).toEqual({ mint: USDC, price: 1, slot: 0, updatedAt: 0 });
      expect(o.get(USDT)).toEqual({ mint: USDT, price: 1, slot: 0, updatedAt: 0 });
      expect(o.isStablecoin(USDC)).toBe(true);
    });

    it('follow the configured list: a listed mint is an anchor, an unlisted one is priced like any token', () => {
      const o = oracle([PYUSD]);
      expect(o.get(PYUSD)).toEqual({ mint: PYUSD, price: 1, slot: 0, updatedAt: 0 });
      // USDC is not a stablecoin here: priced from its pool against PYUSD
      o.poolChanged({ pool: pool('usdc-pyusd', USDC, PYUSD, 1_000e6, 990e6, 3), updatedAt: 30 });
      expect(o.get(USDC)).toEqual({ mint: USDC, price: expect.closeTo(0.99, 12), slot: 3, updatedAt: 30 });
      // and SOL is priced from a SOL/PYUSD pool only; a SOL/USDC pool is a SOL pool of USDC
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1e9, 100e6, 4), updatedAt: 40 });
      expect(o.get(SOL).price).toBe(0);
      o.poolChanged({ pool: pool('sol-pyusd', SOL, PYUSD, 10e9, 1_500e6, 5), updatedAt: 50 });
      expect(o.get(SOL)).toEqual({ mint: SOL, price: 150, slot: 5, updatedAt: 50 });
    });

    it('cannot include the native mint', () => {
      expect(() => new PriceOracle([USDC, SOL], SOL)).toThrow(/native mint/);
    });
  });

  describe('the native token', () => {
    it('is priced from its deepest SOL/stable pool, decimals applied, with that pool update\'s slot and updatedAt', () => {
      const o = oracle();
      // 1,000 SOL vs 150,000 USDC: 150 USD; depth 300k USD
      o.poolChanged({ pool: pool('p1', SOL, USDC, 1000e9, 150_000e6, 7), updatedAt: 100 });
      // a shallower pool at another price, seen later, does not win
      o.poolChanged({ pool: pool('p2', USDT, SOL, 1_000e6, 10e9, 9), updatedAt: 200 });
      expect(o.get(SOL)).toEqual({ mint: SOL, price: 150, slot: 7, updatedAt: 100 });
      // the USDT pool grows past it (400k USD of depth): it wins
      o.poolChanged({ pool: pool('p2', USDT, SOL, 200_000e6, 1_250e9, 10), updatedAt: 210 });
      expect(o.get(SOL)).toEqual({ mint: SOL, price: 160, slot: 10, updatedAt: 210 });
    });

    it('ignores SOL pools of other tokens', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('sol-bonk', SOL, BONK, 1e12, 1e15, 2), updatedAt: 1 });
      expect(o.get(SOL)).toEqual(zero(SOL));
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 10e9, 1_000e6, 3), updatedAt: 2 });
      expect(o.get(SOL)).toEqual({ mint: SOL, price: 100, slot: 3, updatedAt: 2 });
    });
  });

  describe('other tokens', () => {
    it('are priced through the deepest anchor pool by USD liquidity, stable and SOL pools compared in USD', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 100_000e6, 1), updatedAt: 1 }); // SOL = 100
      // BONK/USDC: 20,000 USDC side => depth 40k USD, price 2e-5
      o.poolChanged({ pool: pool('bonk-usdc', BONK, USDC, 1e9 * 1e5, 20_000e6, 3), updatedAt: 30 });
      expect(o.get(BONK)).toEqual({ mint: BONK, price: expect.closeTo(2e-5, 15), slot: 3, updatedAt: 30 });
      // BONK/SOL with 500 SOL = 50k USD side => depth 100k USD: wins, price 2.5e-5
      o.poolChanged({ pool: pool('bonk-sol', BONK, SOL, 2e9 * 1e5, 500e9, 4), updatedAt: 40 });
      expect(o.get(BONK)).toEqual({ mint: BONK, price: expect.closeTo(2.5e-5, 15), slot: 4, updatedAt: 40 });
    });

    it('take the pool deepest by liquidity whatever the order the pools arrive in', () => {
      const pools = [
        pool('a-usdc', JUP, USDC, 1_000e6, 500e6, 2), // depth 1,000 USD, price 0.5
        pool('b-usdt', USDT, JUP, 9_000e6, 20_000e6, 3), // depth 18,000 USD, price 0.45 <- deepest
        pool('c-sol', JUP, SOL, 10_000e6, 40e9, 4), // 40 SOL × 100 → depth 8,000 USD, price 0.4
        pool('d-usdc', USDC, JUP, 5_000e6, 10_000e6, 5), // depth 10,000 USD, price 0.5
      ];
      const perms = (xs: Pool[]): Pool[][] => (xs.length <= 1 ? [xs] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p])));
      for (const order of perms(pools)) {
        const o = oracle();
        o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 100_000e6, 1), updatedAt: 1 });
        for (const p of order) o.poolChanged({ pool: p, updatedAt: p.slot * 10 });
        expect(o.get(JUP)).toEqual({ mint: JUP, price: expect.closeTo(0.45, 12), slot: 3, updatedAt: 30 });
      }
    });

    it('break a depth tie deterministically: stable pool before SOL pool, then the lower address', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 100_000e6, 1), updatedAt: 1 }); // SOL = 100
      o.poolChanged({ pool: pool('z-usdc', JUP, USDC, 1_000e6, 1_000e6, 2), updatedAt: 2 }); // depth 2,000, price 1
      o.poolChanged({ pool: pool('y-sol', JUP, SOL, 1_000e6, 10e9, 3), updatedAt: 3 }); // 10 SOL → depth 2,000, price 1
      o.poolChanged({ pool: pool('x-usdt', JUP, USDT, 500e6, 1_000e6, 4), updatedAt: 4 }); // depth 2,000, price 2
      expect(o.get(JUP)).toMatchObject({ price: 2, slot: 4 }); // 'x-usdt' < 'z-usdc'
      o.poolRemoved('x-usdt');
      expect(o.get(JUP)).toMatchObject({ price: 1, slot: 2 }); // the stable pool before the SOL pool
    });

    it('have price 0 when their only pool is against a non-anchor token; unknown tokens have 0 too', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 100_000e6), updatedAt: 1 });
      o.poolChanged({ pool: pool('jup-orca', JUP, ORCA, 1e6, 1e6), updatedAt: 1 });
      expect(o.get(JUP)).toEqual(zero(JUP));
      expect(o.get(ORCA)).toEqual(zero(ORCA));
      expect(o.get(UNKNOWN)).toEqual(zero(UNKNOWN));
      // even if ORCA is priced, JUP is not priced through it (no multi-hop)
      o.poolChanged({ pool: pool('orca-usdc', ORCA, USDC, 1_000e6, 2_000e6), updatedAt: 1 });
      expect(o.get(ORCA).price).toBe(2);
      expect(o.get(JUP)).toEqual(zero(JUP));
    });

    it('have price 0 while SOL has no price, when their only anchor pool is a SOL pool', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('jup-sol', JUP, SOL, 1_000e6, 10e9, 3), updatedAt: 3 });
      expect(o.get(JUP)).toEqual(zero(JUP));
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 100_000e6, 4), updatedAt: 4 });
      expect(o.get(JUP)).toEqual({ mint: JUP, price: 1, slot: 4, updatedAt: 4 });
    });
  });

  describe('decimals', () => {
    it('apply on both sides', () => {
      const o = oracle();
      // BONK (5 decimals) vs USDC (6): 1e10 BONK units = 1e5 BONK, 2e6 USDC units = 2 USDC → 2e-5 USD
      o.poolChanged({ pool: pool('bonk-usdc', BONK, USDC, 1e10, 2e6), updatedAt: 1 });
      expect(o.get(BONK).price).toBeCloseTo(2e-5, 17);
      // SOL (9) vs USDT (6): 2e9 units = 2 SOL vs 300e6 = 300 USDT → 150
      o.poolChanged({ pool: pool('usdt-sol', USDT, SOL, 300e6, 2e9), updatedAt: 1 });
      expect(o.get(SOL).price).toBe(150);
    });

    it('give price 0 while pending (either side), and a price once they arrive', () => {
      const o = new PriceOracle([USDC], SOL);
      o.poolChanged({ pool: pool('jup-usdc', JUP, USDC, 1_000e6, 500e6, 2), updatedAt: 9 });
      expect(o.get(JUP)).toEqual(zero(JUP));
      expect([...o.pendingDecimals()].sort()).toEqual([JUP, USDC].sort());
      o.setDecimals(JUP, 6);
      expect(o.get(JUP)).toEqual(zero(JUP)); // the anchor's decimals are still pending
      o.setDecimals(USDC, 6);
      expect(o.get(JUP)).toEqual({ mint: JUP, price: 0.5, slot: 2, updatedAt: 9 });
      expect(o.pendingDecimals().size).toBe(0);
      // decimals that change (a mint re-created) re-price; unknown again → 0 again
      o.setDecimals(JUP, 7);
      expect(o.get(JUP).price).toBeCloseTo(5, 12);
      o.setDecimals(JUP, undefined);
      expect(o.get(JUP)).toEqual(zero(JUP));
      expect([...o.pendingDecimals()]).toEqual([JUP]);
    });

    it('rejects impossible decimals', () => {
      expect(() => oracle().setDecimals(JUP, -1)).toThrow(RangeError);
      expect(() => oracle().setDecimals(JUP, 1.5)).toThrow(RangeError);
    });
  });

  describe('staleness fields', () => {
    it('are the slot and updatedAt of the pool update the price came from', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('jup-usdc', JUP, USDC, 10_000e6, 5_000e6, 100), updatedAt: 1_700_000_000 });
      expect(o.get(JUP)).toEqual({ mint: JUP, price: 0.5, slot: 100, updatedAt: 1_700_000_000 });
      // a newer update of a shallower pool does not touch the record
      o.poolChanged({ pool: pool('jup-usdt', JUP, USDT, 100e6, 60e6, 105), updatedAt: 1_700_000_002 });
      expect(o.get(JUP)).toEqual({ mint: JUP, price: 0.5, slot: 100, updatedAt: 1_700_000_000 });
      // a newer update of the best pool moves all three
      o.poolChanged({ pool: pool('jup-usdc', JUP, USDC, 10_000e6, 5_100e6, 107), updatedAt: 1_700_000_003 });
      expect(o.get(JUP)).toEqual({ mint: JUP, price: 0.51, slot: 107, updatedAt: 1_700_000_003 });
    });

    it('through a SOL pool, are those of the newer of the two updates the price came from', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 100_000e6, 50), updatedAt: 500 });
      o.poolChanged({ pool: pool('jup-sol', JUP, SOL, 1_000e6, 10e9, 40), updatedAt: 400 });
      expect(o.get(JUP)).toEqual({ mint: JUP, price: 1, slot: 50, updatedAt: 500 });
      o.poolChanged({ pool: pool('jup-sol', JUP, SOL, 1_000e6, 11e9, 60), updatedAt: 600 });
      expect(o.get(JUP)).toEqual({ mint: JUP, price: expect.closeTo(1.1, 12), slot: 60, updatedAt: 600 });
    });

    it('return to 0 when the token loses its last usable pool', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('jup-usdc', JUP, USDC, 1_000e6, 500e6, 2), updatedAt: 9 });
      o.poolRemoved('jup-usdc');
      expect(o.get(JUP)).toEqual(zero(JUP));
      expect(o.stats).toEqual({ pools: 0, tokens: 0, priced: 0, pendingDecimals: 0 });
    });
  });

  describe('incremental repricing', () => {
    it('reprices tokens priced through SOL pools when SOL moves, and may switch their deepest pool', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 100_000e6, 1), updatedAt: 1 }); // SOL = 100
      o.poolChanged({ pool: pool('bonk-usdc', BONK, USDC, 1e9 * 1e5, 20_000e6, 3), updatedAt: 30 }); // 40k USD deep
      o.poolChanged({ pool: pool('bonk-sol', BONK, SOL, 2e9 * 1e5, 500e9, 4), updatedAt: 40 }); // 1,000 SOL deep = 100k USD
      o.poolChanged({ pool: pool('jup-sol', JUP, SOL, 1_000e6, 10e9, 4), updatedAt: 40 });
      expect(o.get(JUP).price).toBeCloseTo(1, 12);
      // SOL halves: BONK's SOL pool (50k USD deep) still wins; both tokens repriced at the SOL update
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 50_000e6, 5), updatedAt: 50 });
      expect(o.get(BONK)).toEqual({ mint: BONK, price: expect.closeTo(1.25e-5, 15), slot: 5, updatedAt: 50 });
      expect(o.get(JUP)).toEqual({ mint: JUP, price: expect.closeTo(0.5, 12), slot: 5, updatedAt: 50 });
      // SOL drops further (SOL pool 10k USD deep): the USDC pool is now the deepest
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 10_000e6, 6), updatedAt: 60 });
      expect(o.get(BONK)).toEqual({ mint: BONK, price: expect.closeTo(2e-5, 15), slot: 3, updatedAt: 30 });
      expect(o.get(JUP)).toEqual({ mint: JUP, price: expect.closeTo(0.1, 12), slot: 6, updatedAt: 60 });
      // SOL loses its price: SOL-only tokens go to 0, BONK keeps its USDC price
      o.poolRemoved('sol-usdc');
      expect(o.get(SOL)).toEqual(zero(SOL));
      expect(o.get(JUP)).toEqual(zero(JUP));
      expect(o.get(BONK).price).toBeCloseTo(2e-5, 15);
    });

    it('materialises records at the end of a batch (SOL first), not before', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 100_000e6, 1), updatedAt: 1 });
      o.poolChanged({ pool: pool('jup-sol', JUP, SOL, 1_000e6, 10e9, 1), updatedAt: 1 });
      const before = o.get(JUP);
      o.batch(() => {
        // the token's pool arrives before the SOL move inside the batch
        o.poolChanged({ pool: pool('jup-sol', JUP, SOL, 1_000e6, 20e9, 2), updatedAt: 2 });
        o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 200_000e6, 2), updatedAt: 2 });
        expect(o.get(JUP)).toBe(before);
      });
      expect(o.get(SOL).price).toBe(200);
      expect(o.get(JUP)).toEqual({ mint: JUP, price: 4, slot: 2, updatedAt: 2 });
    });

    it('falls back to the next deepest pool when the best one shrinks, breaks or leaves', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('big', JUP, USDC, 10_000e6, 10_000e6, 1), updatedAt: 1 });
      o.poolChanged({ pool: pool('mid', JUP, USDC, 2_000e6, 1_000e6, 2), updatedAt: 2 });
      o.poolChanged({ pool: pool('small', JUP, USDT, 100e6, 300e6, 3), updatedAt: 3 });
      expect(o.get(JUP).price).toBe(1);
      o.poolChanged({ pool: pool('big', JUP, USDC, 10_000e6, 400e6, 4), updatedAt: 4 }); // shrinks below mid
      expect(o.get(JUP).price).toBe(0.5);
      o.poolChanged({ pool: pool('mid', JUP, USDC, 2_000e6, 0, 5), updatedAt: 5 }); // empty anchor side: unusable
      expect(o.get(JUP)).toMatchObject({ price: 0.04, slot: 4 });
      o.poolRemoved('big');
      expect(o.get(JUP)).toMatchObject({ price: 3, slot: 3 });
    });

    it('treats a pool whose spotPrice or reserve throws or is not finite as unusable, without failing', () => {
      const o = oracle();
      const broken = { ...pool('broken', JUP, USDC, 1e6, 1e6), spotPrice: () => { throw new Error('not quotable'); } };
      const nan = { ...pool('nan', JUP, USDC, 1e6, 1e6), reserve: () => NaN };
      o.poolChanged({ pool: broken, updatedAt: 1 });
      o.poolChanged({ pool: nan, updatedAt: 1 });
      expect(o.get(JUP)).toEqual(zero(JUP));
      o.poolChanged({ pool: pool('ok', JUP, USDC, 1e6, 2e6, 2), updatedAt: 2 });
      expect(o.get(JUP)).toMatchObject({ price: 2, slot: 2 });
    });

    it('moves a pool whose mints changed to its new role', () => {
      const o = oracle();
      o.poolChanged({ pool: pool('p', JUP, USDC, 1e6, 2e6, 1), updatedAt: 1 });
      o.poolChanged({ pool: pool('p', ORCA, USDC, 1e6, 3e6, 2), updatedAt: 2 });
      expect(o.get(JUP)).toEqual(zero(JUP));
      expect(o.get(ORCA)).toMatchObject({ price: 3, slot: 2 });
      o.poolChanged({ pool: pool('p', ORCA, JUP, 1e6, 3e6, 3), updatedAt: 3 });
      expect(o.get(ORCA)).toEqual(zero(ORCA));
      expect(o.stats.pools).toBe(0);
    });
  });

  describe('property: the incremental state equals the rules applied from scratch', () => {
    const MINTS = [SOL, USDC, USDT, JUP, ORCA, BONK];
    const ADDRS = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'];
    type Op =
      | { t: 'pool'; addr: string; a: number; b: number; ra: number; rb: number; slot: number; at: number }
      | { t: 'remove'; addr: string }
      | { t: 'dec'; mint: number; d: number | null };
    const reserve = fc.oneof({ weight: 1, arbitrary: fc.constantFrom(0, 1e6, 2e6, 1e9) }, { weight: 3, arbitrary: fc.integer({ min: 1, max: 1e12 }) });
    // mint indices: 0 SOL, 1-2 stables, 3-5 tokens; pairs biased towards the anchor pairs
    const pair = fc
      .oneof(
        { weight: 2, arbitrary: fc.tuple(fc.constant(0), fc.integer({ min: 1, max: 2 })) },
        { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 3, max: 5 }), fc.integer({ min: 1, max: 2 })) },
        { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 3, max: 5 }), fc.constant(0)) },
        { weight: 1, arbitrary: fc.tuple(fc.nat(5), fc.nat(5)) },
      )
      .chain(([a, b]) => fc.constantFrom<[number, number]>([a, b], [b, a]));
    const op: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .record({ addr: fc.constantFrom(...ADDRS), ab: pair, ra: reserve, rb: reserve, slot: fc.nat(1000), at: fc.nat(10_000) })
          .map(({ addr, ab, ra, rb, slot, at }) => ({ t: 'pool' as const, addr, a: ab[0], b: ab[1], ra, rb, slot, at })),
      },
      { weight: 1, arbitrary: fc.record({ t: fc.constant('remove' as const), addr: fc.constantFrom(...ADDRS) }) },
      { weight: 1, arbitrary: fc.record({ t: fc.constant('dec' as const), mint: fc.nat(5), d: fc.option(fc.nat(12)) }) },
    );

    /** the rules, directly: every record from the final pools and decimals */
    function reference(pools: Map<string, { pool: Pool; at: number }>, dec: Map<string, number>): Map<string, PriceRecord> {
      const stables = new Set([USDC, USDT]);
      type Cand = { address: string; px: number; depthUsd: number; slot: number; at: number; viaSol: boolean };
      const cands = (token: string, solUsd: number): Cand[] => {
        const out: Cand[] = [];
        for (const { pool: p, at } of pools.values()) {
          if (p.mintA === p.mintB || (p.mintA !== token && p.mintB !== token)) continue;
          const anchor = p.mintA === token ? p.mintB : p.mintA;
          const isStable = stables.has(anchor);
          if (!isStable && (anchor !== SOL || token === SOL)) continue;
          const dt = dec.get(token);
          const da = dec.get(anchor);
          if (dt === undefined || da === undefined) continue;
          const px = p.spotPrice(token) * 10 ** (dt - da);
          const depth = (2 * p.reserve(anchor)) / 10 ** da;
          if (!(Number.isFinite(px) && px > 0 && Number.isFinite(depth) && depth > 0)) continue;
          const usd = isStable ? 1 : solUsd;
          if (!(usd > 0)) continue;
          out.push({ address: p.address, px: px * usd, depthUsd: depth * usd, slot: p.slot, at, viaSol: !isStable });
        }
        return out;
      };
      const best = (cs: Cand[]): Cand | null => {
        // the oracle picks the best per kind by depth in anchor units, then compares kinds in USD
        const pick = (xs: Cand[]): Cand | null =>
          xs.reduce<Cand | null>((b, c) => (b === null || c.depthUsd > b.depthUsd || (c.depthUsd === b.depthUsd && c.address < b.address) ? c : b), null);
        const s = pick(cs.filter((c) => !c.viaSol));
        const n = pick(cs.filter((c) => c.viaSol));
        if (s && (!n || s.depthUsd >= n.depthUsd)) return s;
        return n;
      };
      const out = new Map<string, PriceRecord>();
      const solBest = best(cands(SOL, 0));
      const sol: PriceRecord = solBest ? { mint: SOL, price: solBest.px, slot: solBest.slot, updatedAt: solBest.at } : zero(SOL);
      out.set(SOL, sol);
      for (const m of [JUP, ORCA, BONK]) {
        const b = best(cands(m, sol.price));
        out.set(
          m,
          !b ? zero(m) : b.viaSol ? { mint: m, price: b.px, slot: Math.max(b.slot, sol.slot), updatedAt: Math.max(b.at, sol.updatedAt) } : { mint: m, price: b.px, slot: b.slot, updatedAt: b.at },
        );
      }
      out.set(USDC, { mint: USDC, price: 1, slot: 0, updatedAt: 0 });
      out.set(USDT, { mint: USDT, price: 1, slot: 0, updatedAt: 0 });
      return out;
    }

    function close(a: PriceRecord, b: PriceRecord): boolean {
      const rel = Math.abs(a.price - b.price) <= 1e-9 * Math.max(Math.abs(a.price), Math.abs(b.price));
      return a.mint === b.mint && rel && a.slot === b.slot && a.updatedAt === b.updatedAt;
    }

    it('after any sequence of pool updates, removals and decimals, in batches or not', () => {
      fc.assert(
        fc.property(fc.array(fc.option(fc.nat(12), { freq: 5 }), { minLength: 6, maxLength: 6 }), fc.array(op, { minLength: 4, maxLength: 60 }), fc.array(fc.nat(4), { maxLength: 60 }), (initial, ops, cuts) => {
          const o = new PriceOracle([USDC, USDT], SOL);
          const pools = new Map<string, { pool: Pool; at: number }>();
          const dec = new Map<string, number>();
          initial.forEach((d, i) => {
            if (d === null) return;
            o.setDecimals(MINTS[i], d);
            dec.set(MINTS[i], d);
          });
          const applyOp = (x: Op): void => {
            if (x.t === 'pool') {
              const p = pool(x.addr, MINTS[x.a], MINTS[x.b], x.ra, x.rb, x.slot);
              o.poolChanged({ pool: p, updatedAt: x.at });
              pools.set(x.addr, { pool: p, at: x.at });
            } else if (x.t === 'remove') {
              o.poolRemoved(x.addr);
              pools.delete(x.addr);
            } else {
              o.setDecimals(MINTS[x.mint], x.d ?? undefined);
              if (x.d === null) dec.delete(MINTS[x.mint]);
              else dec.set(MINTS[x.mint], x.d);
            }
          };
          // apply in chunks: a chunk of size 0 applies one op outside any batch
          let i = 0;
          let k = 0;
          while (i < ops.length) {
            const n = cuts[k++ % Math.max(1, cuts.length)] ?? 0;
            if (n === 0) applyOp(ops[i++]);
            else {
              const chunk = ops.slice(i, i + n);
              o.batch(() => chunk.forEach(applyOp));
              i += n;
            }
          }
          const want = reference(pools, dec);
          for (const [m, r] of want) {
            const got = o.get(m);
            if (!close(got, r)) throw new Error(`${m}: got ${JSON.stringify(got)}, want ${JSON.stringify(r)}`);
          }
        }),
        { numRuns: 400 },
      );
    });
  });
});
