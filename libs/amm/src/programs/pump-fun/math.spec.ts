import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { PoolQuoteError } from '../../pool';
import { MINTS } from '@app/solana';
import {
  DEFAULT_PUBKEY,
  decodePumpBondingCurve,
  decodePumpGlobal,
  type PumpBondingCurve,
  type PumpFeeConfig,
  type PumpGlobal,
} from '@app/solana';
import {
  pumpFee,
  pumpFeeTier,
  pumpFunApplyBuy,
  pumpFunApplySell,
  pumpFunBuyExactSolIn,
  pumpFunBuyExactTokens,
  pumpFunFeeBps,
  pumpFunMarketCap,
  pumpFunSellExactTokens,
  pumpFunSellForSol,
  type PumpFunFeeBps,
} from './math';
import { PumpFunCurve, pumpFunDependencies } from './pool';

const FIXTURES = path.resolve(__dirname, '../../../../..', '..', 'shared', 'fixtures');
const CURVE_ADDRESS = 'HWxwYxr4AV5ytUyT8pvjCEiUrXhwpbx365VpvQ6Bd6MZ';
const MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'; // any key: the fixture does not name its mint

function fixture(file: string): { owner: string; data: Buffer } {
  const j = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'pumpfun', file), 'utf8'));
  return { owner: j.owner, data: Buffer.from(j.data, 'base64') };
}

const curveFx = fixture('carbon_bonding_curve_account.json');
const globalFx = fixture('carbon_global_account.json');
const CURVE: PumpBondingCurve = decodePumpBondingCurve(curveFx.data, curveFx.owner, CURVE_ADDRESS);
const GLOBAL: PumpGlobal = decodePumpGlobal(globalFx.data, globalFx.owner);
const FEES_95_5: PumpFunFeeBps = { protocolFeeBps: 95n, creatorFeeBps: 5n };

const TIERS: PumpFeeConfig = {
  bump: 255,
  admin: DEFAULT_PUBKEY,
  flatFees: { lpFeeBps: 25n, protocolFeeBps: 5n, creatorFeeBps: 0n },
  feeTiers: [
    { marketCapLamportsThreshold: 100_000_000_000n, fees: { lpFeeBps: 0n, protocolFeeBps: 95n, creatorFeeBps: 30n } },
    { marketCapLamportsThreshold: 420_000_000_000n, fees: { lpFeeBps: 0n, protocolFeeBps: 93n, creatorFeeBps: 20n } },
    { marketCapLamportsThreshold: 1_000_000_000_000n, fees: { lpFeeBps: 0n, protocolFeeBps: 90n, creatorFeeBps: 10n } },
  ],
  stableFeeTiers: [],
};

function reason(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof PoolQuoteError) return e.reason;
    throw e;
  }
  return 'ok';
}

describe('fees', () => {
  it('Global flat fees when there is no FeeConfig (95 + 5 bps on the fixture); no creator -> no creator fee', () => {
    expect(pumpFunFeeBps(GLOBAL, null, CURVE)).toEqual(FEES_95_5);
    expect(pumpFunFeeBps(GLOBAL, null, { ...CURVE, creator: DEFAULT_PUBKEY })).toEqual({ protocolFeeBps: 95n, creatorFeeBps: 0n });
  });

  it('market cap = vQ * supply / vT; tiers: first below the first threshold, else the last reached', () => {
    // 30002485430 * 1e15 / 1072911112000000 -> 27_963_626_338 lamports (~28 SOL)
    expect(pumpFunMarketCap(CURVE)).toBe(27_963_626_338n);
    expect(pumpFunFeeBps(GLOBAL, TIERS, CURVE)).toEqual({ protocolFeeBps: 95n, creatorFeeBps: 30n });
    expect(pumpFeeTier(TIERS.feeTiers, 420_000_000_000n).protocolFeeBps).toBe(93n);
    expect(pumpFeeTier(TIERS.feeTiers, 419_999_999_999n).protocolFeeBps).toBe(95n);
    expect(pumpFeeTier(TIERS.feeTiers, 10n ** 20n).protocolFeeBps).toBe(90n);
    // a bigger mint supply moves the cap into the next tier
    expect(pumpFunFeeBps(GLOBAL, TIERS, CURVE, 20n * 10n ** 15n)).toEqual({ protocolFeeBps: 93n, creatorFeeBps: 20n });
    expect(reason(() => pumpFeeTier([], 1n))).toBe('not-quotable');
  });

  it('fee(x, bps) rounds up', () => {
    expect(pumpFee(27_964n, 95n)).toBe(266n); // 265.658
    expect(pumpFee(27_964n, 5n)).toBe(14n); // 13.982
    expect(pumpFee(10_000n, 100n)).toBe(100n);
    expect(pumpFee(0n, 100n)).toBe(0n);
  });
});

describe('hand-checked vectors on the fixture curve (vT 1072911112000000, vQ 30002485430)', () => {
  it('buy 1000 tokens: cost floor + 1, fees ceil', () => {
    // floor(1e9 * 30002485430 / 1072910112000000) = 27963 -> +1 = 27964; fees 266 + 14
    expect(pumpFunBuyExactTokens(CURVE, FEES_95_5, 1_000_000_000n)).toEqual({
      tokensOut: 1_000_000_000n,
      solCost: 27_964n,
      protocolFee: 266n,
      creatorFee: 14n,
      totalSol: 28_244n,
    });
  });

  it('buy_exact_sol_in 0.01 SOL: budget split, one-lamport shave, then the buy of the tokens it prices', () => {
    // net = floor(1e7 * 1e4 / 10100) = 9900990; fees ceil(94059.4) + ceil(4950.5) = 94060 + 4951
    // net + fees = 10000001 > 1e7 -> net = 9900989; tokens = floor(9900988 * vT / (vQ + 9900988))
    const b = pumpFunBuyExactSolIn(CURVE, FEES_95_5, 10_000_000n);
    expect(b.tokensOut).toBe(353_949_862_467n);
    expect(b.solCost).toBe(9_900_988n);
    expect(b.protocolFee).toBe(94_060n);
    expect(b.creatorFee).toBe(4_951n);
    expect(b.totalSol).toBe(9_999_999n); // the buyer is debited one lamport below the budget
  });

  it('buy_exact_sol_in is capped by the real token reserves', () => {
    const small = { ...CURVE, realTokenReserves: 1_000_000n };
    const b = pumpFunBuyExactSolIn(small, FEES_95_5, 10_000_000_000n);
    expect(b.tokensOut).toBe(1_000_000n);
    expect(b).toEqual(pumpFunBuyExactTokens(small, FEES_95_5, 1_000_000n));
    expect(b.totalSol).toBeLessThan(10_000_000_000n);
  });

  it('sell 1000 tokens: floor out, fees ceil off the output', () => {
    // floor(1e9 * 30002485430 / 1072912112000000) = 27963; fees 266 + 14 -> 27683
    expect(pumpFunSellExactTokens(CURVE, FEES_95_5, 1_000_000_000n)).toEqual({
      tokensIn: 1_000_000_000n,
      solOut: 27_963n,
      protocolFee: 266n,
      creatorFee: 14n,
      netSol: 27_683n,
    });
  });

  it('sell for an amount of SOL: the fewest tokens paying at least that', () => {
    const s = pumpFunSellForSol(CURVE, FEES_95_5, 1_000_000n);
    expect(s.netSol).toBeGreaterThanOrEqual(1_000_000n);
    expect(pumpFunSellExactTokens(CURVE, FEES_95_5, s.tokensIn - 1n).netSol).toBeLessThan(1_000_000n);
  });

  it('errors where the program errors', () => {
    expect(reason(() => pumpFunBuyExactTokens(CURVE, FEES_95_5, 0n))).toBe('zero-output');
    expect(reason(() => pumpFunBuyExactTokens(CURVE, FEES_95_5, CURVE.realTokenReserves + 1n))).toBe('insufficient-liquidity');
    expect(pumpFunBuyExactTokens(CURVE, FEES_95_5, CURVE.realTokenReserves).tokensOut).toBe(CURVE.realTokenReserves);
    expect(reason(() => pumpFunBuyExactSolIn(CURVE, FEES_95_5, 1n))).toBe('zero-output');
    expect(reason(() => pumpFunBuyExactSolIn(CURVE, FEES_95_5, 2n))).toBe('zero-output');
    expect(reason(() => pumpFunSellExactTokens(CURVE, FEES_95_5, 10n))).toBe('zero-output'); // 0 lamports out
    // selling more than the real SOL can pay
    expect(reason(() => pumpFunSellExactTokens(CURVE, FEES_95_5, 10n ** 15n))).toBe('insufficient-liquidity');
    expect(reason(() => pumpFunSellForSol(CURVE, FEES_95_5, CURVE.realQuoteReserves))).toBe('insufficient-liquidity');
    const done = { ...CURVE, complete: true };
    expect(reason(() => pumpFunBuyExactTokens(done, FEES_95_5, 1000n))).toBe('not-quotable');
    expect(reason(() => pumpFunSellExactTokens(done, FEES_95_5, 1000n))).toBe('not-quotable');
  });

  it('apply: a buy of all real tokens completes the curve; buy then sell restores the token reserves', () => {
    const all = pumpFunBuyExactTokens(CURVE, FEES_95_5, CURVE.realTokenReserves);
    expect(pumpFunApplyBuy(CURVE, all).complete).toBe(true);
    const b = pumpFunBuyExactTokens(CURVE, FEES_95_5, 5_000_000_000n);
    const after = pumpFunApplyBuy(CURVE, b);
    expect(after.complete).toBe(false);
    const s = pumpFunSellExactTokens(after, FEES_95_5, 5_000_000_000n);
    const back = pumpFunApplySell(after, s);
    expect(back.virtualTokenReserves).toBe(CURVE.virtualTokenReserves);
    expect(back.virtualQuoteReserves).toBeGreaterThanOrEqual(CURVE.virtualQuoteReserves); // the curve keeps the rounding
  });
});

describe('PumpFunCurve', () => {
  const pool = new PumpFunCurve({ address: CURVE_ADDRESS, mint: MINT, curve: CURVE, global: GLOBAL, feeConfig: null, slot: 7 });

  it('identity', () => {
    expect(pool.label).toBe('pump.fun');
    expect(pool.kind).toBe('bonding-curve');
    expect(pool.mintA).toBe(MINT);
    expect(pool.mintB).toBe('So11111111111111111111111111111111111111112');
    expect(pool.feeBps).toBe(100);
    expect(pool.slot).toBe(7);
    expect(pumpFunDependencies()).toEqual(['4wTV1YmiEkRvAtNtsSGPtUrqRYQMe5SKy2uB4Jjaxnjf', expect.any(String)]);
  });

  it('quotes in all four modes', () => {
    expect(pool.quoteExactOut(MINTS.SOL, 1_000_000_000n)).toEqual({ amountIn: 28_244n, amountOut: 1_000_000_000n, feeAmount: 280n });
    expect(pool.quoteExactIn(MINTS.SOL, 10_000_000n)).toEqual({ amountIn: 9_999_999n, amountOut: 353_949_862_467n, feeAmount: 99_011n });
    // sell: fee 280 lamports converted to token units at 1e9 tokens / 27963 lamports
    expect(pool.quoteExactIn(MINT, 1_000_000_000n)).toEqual({ amountIn: 1_000_000_000n, amountOut: 27_683n, feeAmount: (280n * 1_000_000_000n) / 27_963n });
    const out = pool.quoteExactOut(MINT, 1_000_000n);
    expect(out.amountOut).toBeGreaterThanOrEqual(1_000_000n);
  });

  it('float guides track the exact math', () => {
    const exact = Number(pool.quoteExactIn(MINTS.SOL, 10_000_000n).amountOut);
    expect(pool.approxOut(MINTS.SOL, 1e7) / exact).toBeCloseTo(1, 6);
    expect(pool.approxIn(MINTS.SOL, 1e9) / 28_244).toBeCloseTo(1, 3);
    expect(pool.approxOut(MINT, 1e9) / 27_683).toBeCloseTo(1, 3);
    expect(pool.approxIn(MINT, 1e6) / Number(pool.quoteExactOut(MINT, 1_000_000n).amountIn)).toBeCloseTo(1, 4);
    expect(pool.approxIn(MINTS.SOL, 1e18)).toBe(Infinity);
    expect(pool.approxIn(MINT, 1e12)).toBe(Infinity);
    expect(pool.spotPrice(MINT)).toBeCloseTo(30_002_485_430 / 1_072_911_112_000_000, 15);
    expect(pool.reserve(MINT)).toBe(793_011_112_000_000);
    expect(pool.reserve(MINTS.SOL)).toBe(2_485_430);
  });

  it('a complete curve is not quotable, with a clear message', () => {
    const done = new PumpFunCurve({ address: CURVE_ADDRESS, mint: MINT, curve: { ...CURVE, complete: true }, global: GLOBAL, feeConfig: null, slot: 1 });
    expect(() => done.quoteExactIn(MINTS.SOL, 1000n)).toThrow(/complete: it no longer trades/);
    expect(reason(() => done.quoteExactOut(MINT, 1000n))).toBe('not-quotable');
    expect(done.approxOut(MINTS.SOL, 1e9)).toBe(0);
    expect(done.approxIn(MINTS.SOL, 1e3)).toBe(Infinity);
    expect(done.reserve(MINT)).toBe(0);
  });

  it('fee tiers from the fee config; a non-SOL quote mint is not quotable', () => {
    const tiered = new PumpFunCurve({ address: CURVE_ADDRESS, mint: MINT, curve: CURVE, global: GLOBAL, feeConfig: TIERS, slot: 1 });
    expect(tiered.feeBps).toBe(125);
    expect(tiered.quoteExactOut(MINTS.SOL, 1_000_000_000n).feeAmount).toBe(pumpFee(27_964n, 95n) + pumpFee(27_964n, 30n));
    const usdc = new PumpFunCurve({ address: CURVE_ADDRESS, mint: MINT, curve: { ...CURVE, quoteMint: MINTS.USDC }, global: GLOBAL, feeConfig: TIERS, slot: 1 });
    expect(usdc.notQuotable).toMatch(/not SOL/);
  });
});

// ---- properties over random curves ----

const arbCurve = fc
  .record({
    vT: fc.bigInt({ min: 10n ** 6n, max: 2n * 10n ** 15n }),
    vQ: fc.bigInt({ min: 10n ** 6n, max: 10n ** 12n }),
    realShare: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
    realQ: fc.bigInt({ min: 0n, max: 10n ** 12n }),
  })
  .map(({ vT, vQ, realShare, realQ }): PumpBondingCurve => ({
    ...CURVE,
    virtualTokenReserves: vT,
    virtualQuoteReserves: vQ,
    realTokenReserves: BigInt(Math.floor(Number(vT) * realShare)),
    realQuoteReserves: realQ > vQ ? vQ : realQ,
  }));
const arbFees = fc.record({ protocolFeeBps: fc.bigInt({ min: 0n, max: 500n }), creatorFeeBps: fc.bigInt({ min: 0n, max: 500n }) });
const arbAmount = fc.oneof(fc.bigInt({ min: 1n, max: 10_000n }), fc.bigInt({ min: 1n, max: 10n ** 13n }));

function tryQ<T>(f: () => T): T | null {
  try {
    return f();
  } catch (e) {
    if (e instanceof PoolQuoteError) return null;
    throw e;
  }
}

describe('properties', () => {
  it('monotone: a bigger budget never buys fewer tokens; more tokens never cost less; selling more never pays less gross', () => {
    fc.assert(
      fc.property(arbCurve, arbFees, arbAmount, arbAmount, (c, f, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const bl = tryQ(() => pumpFunBuyExactSolIn(c, f, lo));
        const bh = tryQ(() => pumpFunBuyExactSolIn(c, f, hi));
        if (bl && bh) expect(bh.tokensOut).toBeGreaterThanOrEqual(bl.tokensOut);
        const tl = tryQ(() => pumpFunBuyExactTokens(c, f, lo));
        const th = tryQ(() => pumpFunBuyExactTokens(c, f, hi));
        if (tl && th) expect(th.totalSol).toBeGreaterThanOrEqual(tl.totalSol);
        const sl = tryQ(() => pumpFunSellExactTokens(c, f, lo));
        const sh = tryQ(() => pumpFunSellExactTokens(c, f, hi));
        if (sl && sh) expect(sh.solOut).toBeGreaterThanOrEqual(sl.solOut);
      }),
      { numRuns: 400 },
    );
  });

  it('fees >= 0; a budget is never overspent; buy cost <= the budget split net', () => {
    fc.assert(
      fc.property(arbCurve, arbFees, arbAmount, (c, f, s) => {
        const b = tryQ(() => pumpFunBuyExactSolIn(c, f, s));
        if (!b) return;
        expect(b.protocolFee).toBeGreaterThanOrEqual(0n);
        expect(b.creatorFee).toBeGreaterThanOrEqual(0n);
        expect(b.totalSol).toBeLessThanOrEqual(s);
        expect(b.tokensOut).toBeLessThanOrEqual(c.realTokenReserves);
      }),
      { numRuns: 400 },
    );
  });

  it('ExactOut asks at least what ExactIn needs: the budget of a token buy buys at least those tokens (unless capped)', () => {
    fc.assert(
      fc.property(arbCurve, arbFees, arbAmount, (c, f, t) => {
        const b = tryQ(() => pumpFunBuyExactTokens(c, f, t));
        if (!b) return;
        const back = tryQ(() => pumpFunBuyExactSolIn(c, f, b.totalSol));
        // buy_exact_sol_in is an approximate inverse: with the cost of T as the budget it buys
        // at most T, and never more than the budget
        if (back) {
          expect(back.totalSol).toBeLessThanOrEqual(b.totalSol);
          expect(back.tokensOut).toBeLessThanOrEqual(t);
        }
        const sell = tryQ(() => pumpFunSellForSol(c, f, t));
        if (sell) expect(pumpFunSellExactTokens(c, f, sell.tokensIn).netSol).toBeGreaterThanOrEqual(t);
      }),
      { numRuns: 300 },
    );
  });

  it('no value created: buying tokens and selling them straight back returns less SOL than paid', () => {
    fc.assert(
      fc.property(arbCurve, arbFees, arbAmount, (c, f, s) => {
        const b = tryQ(() => pumpFunBuyExactSolIn(c, f, s));
        if (!b) return;
        const after = pumpFunApplyBuy(c, b);
        const back = tryQ(() => pumpFunSellExactTokens(after, f, b.tokensOut));
        if (back) expect(back.netSol).toBeLessThan(b.totalSol);
        expect(after.virtualQuoteReserves * after.virtualTokenReserves).toBeGreaterThanOrEqual(c.virtualQuoteReserves * c.virtualTokenReserves);
      }),
      { numRuns: 400 },
    );
  });
});
