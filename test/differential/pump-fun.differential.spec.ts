/**
 * Differential test: our pump.fun bonding-curve quotes (libs/amm/src/programs/pump-fun: the
 * PumpFunCurve pool over math.ts, state from the libs/solana/src/pump-fun.ts codecs) against pump's
 * official SDK (`@pump-fun/pump-sdk` 2.0.0: getBuySolAmountFromTokenAmount,
 * getBuyTokenAmountFromSolAmount, getSellSolAmountFromTokenAmount, getFee), on random curves (the
 * standard pump curve at every stage up to a few tokens before completion, and arbitrary virtual /
 * real reserves), Global flat fees or a FeeConfig whose market-cap tiers straddle the curve's cap,
 * with and without a creator, mayhem and ordinary coins.
 *
 * Mapping: our Global / FeeConfig / BondingCurve map field for field onto the SDK's; the SDK's extra
 * inputs take the values of a plain SOL-quoted curve: quoteMint the default key, the curve's
 * creatorFeeBps 0 and Global.creatorFeeConfigurable false (a per-coin creator rate does not apply:
 * the schedule's creator rate is charged, as our codec reads it), exoticFlatFees unset. The market
 * cap of the fee tier: the SDK takes vQ * supply / vT with supply = 10^15 for ordinary coins (its
 * ONE_BILLION_SUPPLY) and the given mint supply for mayhem coins; we take the curve's
 * tokenTotalSupply. Ordinary coins are generated with the supply every pump coin has (10^15), mayhem
 * coins with a random supply passed to both as the mint supply, so both price the same tier.
 *
 * Equal to the last unit (no difference allowed):
 *  - buy of exactly T tokens (our ExactOut, token out): SOL paid = cost + protocol + creator fee;
 *    and the fee alone (SDK getFee of the cost);
 *  - sell of T tokens (our ExactIn, token in): SOL received, and the fee alone;
 *  - sell for at least W lamports (our ExactOut, SOL out; the program has no exact-output sell): our
 *    token amount is checked with the SDK's own sell function: it pays at least W, one token less
 *    pays less than W.
 * Documented differences (asserted as such):
 *  - buy with a SOL budget S (our ExactIn, SOL in) is the program's buy_exact_sol_in (formula in the
 *    pump IDL: net = floor(S * 10^4 / (10^4 + fee bps)), reduced by the excess of the separate
 *    ceil fees, tokens = floor((net - 1) * vT / (vQ + net - 1))). The SDK 2.0.0 has no
 *    buy_exact_sol_in; its getBuyTokenAmountFromSolAmount is the estimate for a `buy` of exact
 *    tokens: floor((S - 1) * 10^4 / (10^4 + fee bps)) lamports into the curve, no fee correction.
 *    It is never below ours and at most what a budget 3 lamports larger buys through ours (i.e.
 *    ours >= the SDK's estimate for S - 3). The SDK's exact-token price of our tokens is exactly
 *    what we say the buyer pays, and that is within the budget.
 *  - more tokens than the curve still has (buy T > realTokenReserves): the SDK silently prices
 *    realTokenReserves; an exact-output quote cannot deliver T, we refuse (insufficient-liquidity);
 *    the SDK's figure equals ours for realTokenReserves.
 *  - a sell whose SOL exceeds the curve's real SOL: the program fails; the SDK prices it anyway. We
 *    refuse (insufficient-liquidity) and assert the SDK's fee-free figure is above the real SOL.
 *    A sell that pays nothing after fees: we refuse (zero-output), the SDK returns <= 0.
 *  - a `complete` curve: the program refuses every trade; the SDK does not look at the flag and
 *    prices sells. We refuse (not-quotable).
 * This spec is the only kind of place that imports the SDK: a devDependency, never product code.
 */
import fc from 'fast-check';
import { PublicKey } from '@solana/web3.js';
import { getBuySolAmountFromTokenAmount, getBuyTokenAmountFromSolAmount, getFee, getSellSolAmountFromTokenAmount } from '@pump-fun/pump-sdk';
import { PoolQuoteError, type HopQuote } from '@app/amm';
import { PumpFunCurve } from '@app/amm';
import type { PumpFunBuy, PumpFunSell } from '@app/amm';
import { MINTS } from '@app/solana';
import { DEFAULT_PUBKEY, type PumpBondingCurve, type PumpFeeConfig, type PumpFees, type PumpGlobal } from '@app/solana';

// bn.js ships without types here; it is the SDK's own number type
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BN: new (v: string) => { toString(): string } = require('bn.js');
const bn = (v: bigint) => new BN(v.toString());
const big = (v: { toString(): string }) => BigInt(v.toString());

const RUNS = Number(process.env.DIFF_RUNS ?? 1500);
const CURVE_ADDRESS = 'Curve11111111111111111111111111111111111111';
const MINT = 'Mint111111111111111111111111111111111111111';
const CREATOR = 'Creator111111111111111111111111111111111111';
const SOL = MINTS.SOL;
const U64_MAX = (1n << 64n) - 1n;
const PUMP_SUPPLY = 1_000_000_000_000_000n;
// the standard curve pump creates (Global's initial reserves)
const VT0 = 1_073_000_000_000_000n;
const VQ0 = 30_000_000_000n;
const RT0 = 793_100_000_000_000n;

function logBig(lo: number, hi: number): fc.Arbitrary<bigint> {
  return fc.integer({ min: lo, max: hi }).chain((bits) => fc.bigInt({ min: 1n, max: (1n << BigInt(bits)) - 1n }));
}

interface Case {
  curve: PumpBondingCurve;
  global: PumpGlobal;
  feeConfig: PumpFeeConfig | null;
}

/** reserves: the standard curve after `sold` tokens (vQ from the invariant, rounded up as buys do), or arbitrary */
const reserves = fc.oneof(
  fc
    .oneof(
      fc.bigInt({ min: 0n, max: RT0 - 1n }),
      // near completion: only a few tokens left
      fc.bigInt({ min: 1n, max: 10n ** 9n }).map((left) => RT0 - left),
    )
    .map((sold) => {
      const vT = VT0 - sold;
      const vQ = (VT0 * VQ0 + vT - 1n) / vT;
      return { vT, vQ, rT: RT0 - sold, rQ: vQ - VQ0 };
    }),
  fc
    .record({ vT: logBig(8, 63), vQ: logBig(8, 56), rTp: fc.integer({ min: 1, max: 1_000_000 }), rQp: fc.integer({ min: 0, max: 1_000_000 }) })
    .map(({ vT, vQ, rTp, rQp }) => {
      const rT = (vT * BigInt(rTp)) / 1_000_001n;
      return { vT: vT < 2n ? 2n : vT, vQ, rT: rT < 1n ? 1n : rT, rQ: (vQ * BigInt(rQp)) / 1_000_001n };
    }),
);

const feesArb: fc.Arbitrary<PumpFees> = fc.record({
  lpFeeBps: fc.constant(0n),
  protocolFeeBps: fc.oneof(fc.constantFrom(95n, 93n, 90n, 0n), fc.bigInt({ min: 0n, max: 600n })),
  creatorFeeBps: fc.oneof(fc.constantFrom(30n, 5n, 0n), fc.bigInt({ min: 0n, max: 400n })),
});

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    r: reserves,
    creator: fc.boolean(),
    mayhem: fc.boolean(),
    mayhemSupply: logBig(30, 62),
    globalFees: feesArb,
    // tiers: thresholds as multiples (x1/1000) of the curve's market cap, so the cap falls anywhere among them
    tiers: fc.option(fc.array(fc.record({ at: fc.integer({ min: 0, max: 4000 }), fees: feesArb }), { minLength: 1, maxLength: 5 }), { nil: null, freq: 3 }),
  })
  .map(({ r, creator, mayhem, mayhemSupply, globalFees, tiers }) => {
    const supply = mayhem ? mayhemSupply : PUMP_SUPPLY;
    const curve: PumpBondingCurve = {
      virtualTokenReserves: r.vT,
      virtualQuoteReserves: r.vQ,
      realTokenReserves: r.rT,
      realQuoteReserves: r.rQ,
      tokenTotalSupply: supply,
      complete: false,
      creator: creator ? CREATOR : DEFAULT_PUBKEY,
      isMayhemMode: mayhem,
      isCashbackCoin: false,
      quoteMint: DEFAULT_PUBKEY,
    };
    const global = {
      feeBasisPoints: globalFees.protocolFeeBps,
      creatorFeeBasisPoints: globalFees.creatorFeeBps,
      tokenTotalSupply: PUMP_SUPPLY,
    } as PumpGlobal;
    let feeConfig: PumpFeeConfig | null = null;
    if (tiers !== null) {
      const cap = (r.vQ * supply) / r.vT;
      const sorted = tiers.map((t) => ({ marketCapLamportsThreshold: (cap * BigInt(t.at)) / 1000n, fees: t.fees }));
      sorted.sort((a, b) => (a.marketCapLamportsThreshold < b.marketCapLamportsThreshold ? -1 : a.marketCapLamportsThreshold > b.marketCapLamportsThreshold ? 1 : 0));
      const zero = { lpFeeBps: 0n, protocolFeeBps: 0n, creatorFeeBps: 0n };
      feeConfig = { bump: 255, admin: DEFAULT_PUBKEY, flatFees: zero, feeTiers: sorted, stableFeeTiers: [] };
    }
    return { curve, global, feeConfig };
  });

function ours(c: Case): PumpFunCurve {
  return new PumpFunCurve({ address: CURVE_ADDRESS, mint: MINT, curve: c.curve, global: c.global, feeConfig: c.feeConfig, slot: 1, mintSupply: c.curve.tokenTotalSupply });
}

const pk = (s: string) => (s === DEFAULT_PUBKEY ? PublicKey.default : new PublicKey(s));
const sdkFees = (f: PumpFees) => ({ lpFeeBps: bn(f.lpFeeBps), protocolFeeBps: bn(f.protocolFeeBps), creatorFeeBps: bn(f.creatorFeeBps) });

/** the SDK's inputs for the same state: a plain SOL-quoted curve */
function sdkState(c: Case) {
  const k = c.curve;
  const global = {
    feeBasisPoints: bn(c.global.feeBasisPoints),
    creatorFeeBasisPoints: bn(c.global.creatorFeeBasisPoints),
    tokenTotalSupply: bn(c.global.tokenTotalSupply),
    creatorFeeConfigurable: false,
  };
  const bondingCurve = {
    virtualTokenReserves: bn(k.virtualTokenReserves),
    virtualQuoteReserves: bn(k.virtualQuoteReserves),
    realTokenReserves: bn(k.realTokenReserves),
    realQuoteReserves: bn(k.realQuoteReserves),
    tokenTotalSupply: bn(k.tokenTotalSupply),
    complete: k.complete,
    creator: pk(k.creator),
    isMayhemMode: k.isMayhemMode,
    isCashbackCoin: k.isCashbackCoin,
    quoteMint: PublicKey.default,
    creatorFeeBps: bn(0n),
    canEditCreatorFee: false,
    isHolderReward: false,
  };
  const feeConfig =
    c.feeConfig === null
      ? null
      : {
          admin: PublicKey.default,
          flatFees: sdkFees(c.feeConfig.flatFees),
          feeTiers: c.feeConfig.feeTiers.map((t) => ({ marketCapLamportsThreshold: bn(t.marketCapLamportsThreshold), fees: sdkFees(t.fees) })),
          stableFeeTiers: [],
          exoticFlatFees: sdkFees({ lpFeeBps: 0n, protocolFeeBps: 0n, creatorFeeBps: 0n }),
        };
  return { global, feeConfig, bondingCurve, mintSupply: bn(k.tokenTotalSupply), quoteMint: PublicKey.default } as never as Parameters<typeof getBuyTokenAmountFromSolAmount>[0];
}

const sdk = {
  buyCost: (c: Case, tokens: bigint) => big(getBuySolAmountFromTokenAmount({ ...sdkState(c), amount: bn(tokens) })),
  buyTokens: (c: Case, sol: bigint) => big(getBuyTokenAmountFromSolAmount({ ...sdkState(c), amount: bn(sol) })),
  sellNet: (c: Case, tokens: bigint) => big(getSellSolAmountFromTokenAmount({ ...sdkState(c), amount: bn(tokens) } as never)),
  /** the SOL a sell moves before fees: the SDK's sell with no fees at all */
  sellGross: (c: Case, tokens: bigint) => big(getSellSolAmountFromTokenAmount({ ...sdkState({ ...c, feeConfig: null, global: { ...c.global, feeBasisPoints: 0n, creatorFeeBasisPoints: 0n } }), amount: bn(tokens) } as never)),
  fee: (c: Case, amount: bigint) => big(getFee({ ...sdkState(c), amount: bn(amount), isNewBondingCurve: false } as never)),
};

type Outcome<T> = { ok: true; v: T } | { ok: false; e: PoolQuoteError };
function attempt<T>(f: () => T): Outcome<T> {
  try {
    return { ok: true, v: f() };
  } catch (e) {
    if (e instanceof PoolQuoteError) return { ok: false, e };
    throw e;
  }
}

/** a token amount: a share (0..120%) of the real tokens left, or spread over magnitudes */
const tokenPick = fc.oneof(fc.integer({ min: 1, max: 1200 }).map((permille) => ({ permille })), logBig(1, 63).map((log) => ({ log })));
function tokensFor(c: Case, p: { permille: number } | { log: bigint }): bigint {
  if ('log' in p) return p.log;
  const t = (c.curve.realTokenReserves * BigInt(p.permille)) / 1000n;
  return t < 1n ? 1n : t;
}

/** a SOL amount: a share of the curve's virtual SOL (0..150%), or spread over magnitudes */
const solPick = fc.oneof(fc.integer({ min: 1, max: 1500 }).map((permille) => ({ permille })), logBig(1, 62).map((log) => ({ log })));
function solFor(c: Case, p: { permille: number } | { log: bigint }): bigint {
  if ('log' in p) return p.log;
  const s = (c.curve.virtualQuoteReserves * BigInt(p.permille)) / 1000n;
  return s < 1n ? 1n : s > U64_MAX ? U64_MAX : s;
}

/** the most tokens (<= u64) whose sell moves no more SOL than the curve really holds (SDK's sell, no fees) */
function largestSellWithin(c: Case): bigint {
  const fits = (t: bigint) => sdk.sellGross(c, t) <= c.curve.realQuoteReserves;
  if (fits(U64_MAX)) return U64_MAX;
  let lo = 0n;
  let hi = U64_MAX;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** a wanted SOL amount: a share (0..120%) of the curve's real SOL, or spread over magnitudes */
function wantFor(c: Case, p: { permille: number } | { log: bigint }): bigint {
  if ('log' in p) return p.log;
  const s = (c.curve.realQuoteReserves * BigInt(p.permille)) / 1250n;
  return s < 1n ? 1n : s;
}

describe('pump.fun bonding curve vs @pump-fun/pump-sdk', () => {
  it('buy exactly T tokens (ExactOut, token out): SOL paid and fee equal; beyond the real tokens we refuse, the SDK caps', () => {
    let compared = 0;
    let capped = 0;
    let laterTier = 0;
    fc.assert(
      fc.property(caseArb, tokenPick, (c, pick) => {
        const tokens = tokensFor(c, pick);
        const pool = ours(c);
        const q = attempt(() => pool.quoteExactOut(SOL, tokens));
        if (q.ok) {
          compared++;
          const tier0 = c.feeConfig?.feeTiers[0].fees;
          if (tier0 && pool.fees && (pool.fees.protocolFeeBps !== tier0.protocolFeeBps || (c.curve.creator !== DEFAULT_PUBKEY && pool.fees.creatorFeeBps !== tier0.creatorFeeBps))) laterTier++;
          const t = pool.trade(SOL, 'ExactOut', tokens) as PumpFunBuy;
          expect(q.v.amountOut).toBe(tokens);
          expect(q.v.amountIn).toBe(sdk.buyCost(c, tokens));
          expect(q.v.feeAmount).toBe(sdk.fee(c, t.solCost));
          return;
        }
        expect(q.e.reason).toBe('insufficient-liquidity');
        if (tokens <= c.curve.realTokenReserves) {
          // the program's u64 arithmetic: the price does not fit
          expect(sdk.buyCost(c, tokens) > U64_MAX).toBe(true);
          return;
        }
        // documented: more than the curve still sells; the SDK prices the real tokens left
        const all = attempt(() => pool.quoteExactOut(SOL, c.curve.realTokenReserves));
        expect(sdk.buyCost(c, tokens)).toBe(all.ok ? all.v.amountIn : sdk.buyCost(c, c.curve.realTokenReserves));
        if (!all.ok) expect(sdk.buyCost(c, tokens) > U64_MAX).toBe(true);
        capped++;
      }),
      { numRuns: RUNS, seed: Number(process.env.DIFF_SEED ?? 31) },
    );
    expect(compared).toBeGreaterThan(RUNS / 2);
    expect(capped).toBeGreaterThan(0);
    // the market-cap tiers are exercised beyond the first one
    expect(laterTier).toBeGreaterThan(RUNS / 20);
  });

  it('sell T tokens (ExactIn, token in): SOL received and fee equal; what the program refuses, we refuse', () => {
    let compared = 0;
    let overReal = 0;
    fc.assert(
      fc.property(caseArb, tokenPick, (c, pick) => {
        const tokens = tokensFor(c, pick);
        const pool = ours(c);
        const q = attempt(() => pool.quoteExactIn(MINT, tokens));
        if (q.ok) {
          compared++;
          const t = pool.trade(MINT, 'ExactIn', tokens) as PumpFunSell;
          expect(q.v.amountOut).toBe(sdk.sellNet(c, tokens));
          expect(t.solOut).toBe(sdk.sellGross(c, tokens));
          expect(t.protocolFee + t.creatorFee).toBe(sdk.fee(c, t.solOut));
          return;
        }
        if (q.e.reason === 'insufficient-liquidity') {
          // documented: the program cannot pay more SOL than the curve holds; the SDK does not check
          expect(sdk.sellGross(c, tokens) > c.curve.realQuoteReserves).toBe(true);
          overReal++;
          return;
        }
        expect(q.e.reason).toBe('zero-output');
        expect(sdk.sellNet(c, tokens) <= 0n).toBe(true);
      }),
      { numRuns: RUNS, seed: 32 },
    );
    expect(compared).toBeGreaterThan(RUNS / 3);
    expect(overReal).toBeGreaterThan(0);
  });

  it('sell for at least W lamports (ExactOut, SOL out): by the SDK\'s own sell, our T pays >= W and T - 1 pays < W', () => {
    let compared = 0;
    fc.assert(
      fc.property(caseArb, solPick, (c, pick) => {
        const want = wantFor(c, pick);
        const pool = ours(c);
        const q = attempt(() => pool.quoteExactOut(MINT, want));
        if (q.ok) {
          compared++;
          const t = q.v.amountIn;
          expect(q.v.amountOut).toBe(sdk.sellNet(c, t));
          expect(q.v.amountOut >= want).toBe(true);
          if (t > 1n) expect(sdk.sellNet(c, t - 1n) < want).toBe(true);
          return;
        }
        expect(q.e.reason).toBe('insufficient-liquidity');
        // no sell the program accepts pays W: the largest sell (of at most a u64 of tokens) whose
        // SOL the curve's real SOL covers pays less than W, by the SDK's own sell
        const tMax = largestSellWithin(c);
        expect(tMax === 0n || sdk.sellNet(c, tMax) < want).toBe(true);
      }),
      { numRuns: RUNS, seed: 33 },
    );
    expect(compared).toBeGreaterThan(RUNS / 3);
  });

  it('buy with a SOL budget S (ExactIn, SOL in; buy_exact_sol_in): documented difference to the SDK\'s buy estimate, bounded', () => {
    let equal = 0;
    let sdkMore = 0;
    let refused = 0;
    fc.assert(
      fc.property(caseArb, solPick, (c, pick) => {
        const budget = solFor(c, pick);
        const pool = ours(c);
        const q: Outcome<HopQuote> = attempt(() => pool.quoteExactIn(SOL, budget));
        const sdkTokens = sdk.buyTokens(c, budget);
        const sdkLower = budget > 3n ? sdk.buyTokens(c, budget - 3n) : 0n;
        if (!q.ok) {
          expect(q.e.reason).toBe('zero-output');
          expect(sdkLower).toBe(0n);
          refused++;
          return;
        }
        const t = q.v.amountOut;
        // the SDK's estimate is never below what buy_exact_sol_in gives, and at most what 3 more lamports give
        expect(t <= sdkTokens).toBe(true);
        expect(t >= sdkLower).toBe(true);
        // what the buyer pays for our tokens is the SDK's exact-token price, and within the budget
        expect(q.v.amountIn).toBe(sdk.buyCost(c, t));
        expect(q.v.amountIn <= budget).toBe(true);
        if (t === sdkTokens) equal++;
        else sdkMore++;
      }),
      { numRuns: RUNS, seed: 34 },
    );
    expect(equal).toBeGreaterThan(RUNS / 4);
    expect(sdkMore).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it('a budget exactly at the SDK price of T tokens: ours buys no more than T, spends no more than the budget, and no more than the SDK estimate', () => {
    fc.assert(
      fc.property(caseArb, tokenPick, (c, pick) => {
        const tokens = tokensFor(c, pick);
        if (tokens > c.curve.realTokenReserves) return;
        const price = sdk.buyCost(c, tokens);
        const q = attempt(() => ours(c).quoteExactIn(SOL, price));
        if (!q.ok) {
          expect(q.e.reason).toBe('zero-output');
          return;
        }
        expect(q.v.amountIn <= price).toBe(true);
        expect(q.v.amountOut <= sdk.buyTokens(c, price)).toBe(true);
        expect(q.v.amountOut <= tokens).toBe(true);
      }),
      { numRuns: Math.floor(RUNS / 2), seed: 35 },
    );
  });

  it('a complete curve: we refuse every trade (not-quotable); the SDK does not look at the flag', () => {
    const c = fc.sample(caseArb, { numRuns: 1, seed: 36 })[0];
    const done: Case = { ...c, curve: { ...c.curve, complete: true, realTokenReserves: 0n, realQuoteReserves: c.curve.virtualQuoteReserves - 1n } };
    const pool = ours(done);
    expect(pool.notQuotable).toMatch(/complete/);
    for (const [mint, mode] of [
      [SOL, 'ExactIn'],
      [SOL, 'ExactOut'],
      [MINT, 'ExactIn'],
      [MINT, 'ExactOut'],
    ] as const) {
      const r = attempt(() => (mode === 'ExactIn' ? pool.quoteExactIn(mint, 1_000_000n) : pool.quoteExactOut(mint, 1_000_000n)));
      expect(r.ok ? 'ok' : r.e.reason).toBe('not-quotable');
    }
    expect(sdk.sellNet(done, 1_000_000_000n) > 0n).toBe(true);
  });
});
