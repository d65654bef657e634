import type { HopQuote, Pool } from '../pool';
import { PriceOracle } from './price-oracle';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const ORCA = 'orcaEKTdK7LKz57vaAYr9QeNsVEPfiu6QeMU1kektZE';

/** A constant-product stand-in: spot price and reserves from two reserves (smallest units). */
function pool(address: string, mintA: string, mintB: string, ra: number, rb: number, slot = 1): Pool {
  const r = new Map([
    [mintA, ra],
    [mintB, rb],
  ]);
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
    spotPrice: (m: string) => (m === mintA ? rb / ra : ra / rb),
    reserve: (m: string) => r.get(m) ?? 0,
  };
}

function oracle(): PriceOracle {
  const o = new PriceOracle([USDC, USDT], SOL);
  o.setDecimals(SOL, 9);
  o.setDecimals(USDC, 6);
  o.setDecimals(USDT, 6);
  o.setDecimals(BONK, 5);
  o.setDecimals(JUP, 6);
  o.setDecimals(ORCA, 6);
  return o;
}

describe('PriceOracle', () => {
  it('prices stablecoins at the constant 1 with slot and updatedAt 0', () => {
    expect(oracle().get(USDC)).toEqual({ mint: USDC, price: 1, slot: 0, updatedAt: 0 });
  });

  it('prices SOL from its deepest SOL/stable pool, with decimals applied', () => {
    const o = oracle();
    // 1,000 SOL vs 150,000 USDC: 150 USD; depth 300k
    o.poolChanged({ pool: pool('p1', SOL, USDC, 1000e9, 150_000e6, 7), updatedAt: 100 });
    // shallower pool at another price must not win
    o.poolChanged({ pool: pool('p2', USDT, SOL, 1_000e6, 10e9, 9), updatedAt: 200 });
    expect(o.get(SOL)).toEqual({ mint: SOL, price: 150, slot: 7, updatedAt: 100 });
  });

  it('chooses the deepest anchor pool by USD liquidity, not by arrival order', () => {
    const o = oracle();
    o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 100_000e6), updatedAt: 1 }); // SOL = 100
    // BONK/USDC: 20,000 USDC side => depth 40k, price 2e-5
    o.poolChanged({ pool: pool('bonk-usdc', BONK, USDC, 1e9 * 1e5, 20_000e6, 3), updatedAt: 30 });
    expect(o.get(BONK).price).toBeCloseTo(2e-5, 12);
    // BONK/SOL arrives later with 500 SOL = 50k USD side => depth 100k: wins, price 2.5e-5
    o.poolChanged({ pool: pool('bonk-sol', BONK, SOL, 2e9 * 1e5, 500e9, 4), updatedAt: 40 });
    expect(o.get(BONK)).toEqual({ mint: BONK, price: expect.closeTo(2.5e-5, 12), slot: 4, updatedAt: 40 });
    // SOL halves: the SOL pool is now 25k USD side (50k depth) < nothing? the USDC pool (40k) still loses
    o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 50_000e6, 5), updatedAt: 50 });
    expect(o.get(BONK).price).toBeCloseTo(1.25e-5, 12);
    // SOL drops further: the USDC pool becomes the deepest
    o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 10_000e6, 6), updatedAt: 60 });
    expect(o.get(BONK)).toEqual({ mint: BONK, price: expect.closeTo(2e-5, 12), slot: 3, updatedAt: 30 });
  });

  it('gives 0 to a token whose only pool is against a non-anchor token, and to unknown tokens', () => {
    const o = oracle();
    o.poolChanged({ pool: pool('sol-usdc', SOL, USDC, 1000e9, 100_000e6), updatedAt: 1 });
    o.poolChanged({ pool: pool('jup-orca', JUP, ORCA, 1e6, 1e6), updatedAt: 1 });
    expect(o.get(JUP)).toEqual({ mint: JUP, price: 0, slot: 0, updatedAt: 0 });
    expect(o.get('11111111111111111111111111111111')).toEqual({ mint: '11111111111111111111111111111111', price: 0, slot: 0, updatedAt: 0 });
  });

  it('gives 0 while decimals are pending, and prices once they arrive', () => {
    const o = new PriceOracle([USDC], SOL);
    o.setDecimals(USDC, 6);
    o.poolChanged({ pool: pool('jup-usdc', JUP, USDC, 1_000e6, 500e6, 2), updatedAt: 9 });
    expect(o.get(JUP).price).toBe(0);
    o.setDecimals(JUP, 6);
    expect(o.get(JUP)).toEqual({ mint: JUP, price: 0.5, slot: 2, updatedAt: 9 });
  });

  it('forgets a removed pool', () => {
    const o = oracle();
    o.poolChanged({ pool: pool('jup-usdc', JUP, USDC, 1_000e6, 500e6, 2), updatedAt: 9 });
    o.poolRemoved(pool('jup-usdc', JUP, USDC, 1_000e6, 500e6, 2));
    expect(o.get(JUP).price).toBe(0);
  });
});
