/**
 * Differential test: our Raydium CPMM math (libs/amm/src/programs/raydium-cpmm/math.ts) against
 * the official SDK's `CurveCalculator` (`@raydium-io/raydium-sdk-v2`, cpmm/curve/calculator), on
 * random reserves, fee rates (trade, protocol, fund, creator), creator-fee side and amounts, both
 * modes. Same reserves go to both (vault balances net of the fees owed are the caller's business in
 * both); the SDK reports `inputAmount` / `outputAmount` / fees, we report the same.
 *
 * Documented difference (SDK 0.2.73-alpha vs the program, raydium-cp-swap curve/calculator.rs):
 *  - ExactIn with the creator fee on the input: the program takes ONE fee,
 *    ceil(in * (trade + creator) / 1e6), then splits it (creator = floor(total * creator / (trade +
 *    creator))); the SDK rounds the trade fee and the creator fee up separately, so its total fee
 *    can be 1 unit higher and its output a little lower. We follow the program. Where the two
 *    totals agree everything must be equal; where they differ the SDK's total is exactly one more
 *    and its output never above ours.
 * Everything else (ExactIn with the creator fee on the output, every ExactOut) must be equal.
 * This spec is the only kind of place that imports the SDK: a devDependency, never product code.
 */
import fc from 'fast-check';
import { CurveCalculator } from '@raydium-io/raydium-sdk-v2/lib/raydium/cpmm/curve/calculator';
import { PoolQuoteError } from '@app/amm';
import { cpmmSwapBaseInput, cpmmSwapBaseOutput, type CpmmFeeRates } from '@app/amm';

// bn.js ships without types here; it is the SDK's own number type
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BN: new (v: string) => { toString(): string } = require('bn.js');
const bn = (v: bigint) => new BN(v.toString());
const big = (v: { toString(): string }) => BigInt(v.toString());

const RUNS = Number(process.env.DIFF_RUNS ?? 3000);

function logBig(lo: number, hi: number): fc.Arbitrary<bigint> {
  return fc.integer({ min: lo, max: hi }).chain((bits) => fc.bigInt({ min: 1n, max: (1n << BigInt(bits)) - 1n }));
}

const feeRates: fc.Arbitrary<CpmmFeeRates> = fc
  .record({
    trade: fc.oneof(fc.constantFrom(0, 100, 2500, 3000, 10_000, 40_000), fc.integer({ min: 0, max: 100_000 })),
    protocol: fc.oneof(fc.constantFrom(0, 120_000), fc.integer({ min: 0, max: 1_000_000 })),
    fund: fc.oneof(fc.constantFrom(0, 40_000), fc.integer({ min: 0, max: 1_000_000 })),
    creator: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50_000 })),
    onInput: fc.boolean(),
  })
  .map((r) => ({
    tradeFeeRate: BigInt(r.trade),
    protocolFeeRate: BigInt(r.protocol),
    fundFeeRate: BigInt(r.fund),
    creatorFeeRate: BigInt(r.creator),
    creatorFeeOnInput: r.onInput,
  }));

function sdkIn(amount: bigint, rIn: bigint, rOut: bigint, f: CpmmFeeRates) {
  const r = CurveCalculator.swapBaseInput(bn(amount), bn(rIn), bn(rOut), bn(f.tradeFeeRate), bn(f.creatorFeeRate), bn(f.protocolFeeRate), bn(f.fundFeeRate), f.creatorFeeOnInput);
  return { amountIn: big(r.inputAmount), amountOut: big(r.outputAmount), tradeFee: big(r.tradeFee), protocolFee: big(r.protocolFee), fundFee: big(r.fundFee), creatorFee: big(r.creatorFee) };
}

function sdkOut(amount: bigint, rIn: bigint, rOut: bigint, f: CpmmFeeRates) {
  const r = CurveCalculator.swapBaseOutput(bn(amount), bn(rIn), bn(rOut), bn(f.tradeFeeRate), bn(f.creatorFeeRate), bn(f.protocolFeeRate), bn(f.fundFeeRate), f.creatorFeeOnInput);
  return { amountIn: big(r.inputAmount), amountOut: big(r.outputAmount), tradeFee: big(r.tradeFee), protocolFee: big(r.protocolFee), fundFee: big(r.fundFee), creatorFee: big(r.creatorFee) };
}

const reserves = fc.tuple(logBig(1, 64), logBig(1, 64));

describe('Raydium CPMM vs @raydium-io/raydium-sdk-v2 CurveCalculator', () => {
  it('ExactIn (swap_base_input): equal, except the documented creator-fee-on-input rounding', () => {
    let compared = 0;
    let creatorOnInputDiffers = 0;
    fc.assert(
      fc.property(reserves, feeRates, logBig(1, 64), ([rIn, rOut], f, amount) => {
        let ours;
        try {
          ours = cpmmSwapBaseInput(amount, rIn, rOut, f);
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
          // we refuse: zero output (the program's swap then fails its minimum-out / zero checks)
          return;
        }
        const sdk = sdkIn(amount, rIn, rOut, f);
        compared++;
        const docCase = f.creatorFeeOnInput && f.creatorFeeRate > 0n;
        const oursTotal = ours.tradeFee + (f.creatorFeeOnInput ? ours.creatorFee : 0n);
        const sdkTotal = sdk.tradeFee + (f.creatorFeeOnInput ? sdk.creatorFee : 0n);
        if (docCase && sdkTotal !== oursTotal) {
          creatorOnInputDiffers++;
          expect(sdkTotal).toBe(oursTotal + 1n);
          expect(sdk.amountOut <= ours.amountOut).toBe(true);
          return;
        }
        if (docCase) {
          // same total fee: same output; the split may differ by the separate rounding
          expect(sdk.amountOut).toBe(ours.amountOut);
          expect(sdk.amountIn).toBe(ours.amountIn);
          return;
        }
        expect(sdk).toEqual({ amountIn: ours.amountIn, amountOut: ours.amountOut, tradeFee: ours.tradeFee, protocolFee: ours.protocolFee, fundFee: ours.fundFee, creatorFee: ours.creatorFee });
      }),
      { numRuns: RUNS, seed: 42 },
    );
    expect(compared).toBeGreaterThan(RUNS / 2);
    // the documented difference does occur (so the branch above is exercised)
    expect(creatorOnInputDiffers).toBeGreaterThan(0);
  });

  it('ExactOut (swap_base_output): equal to the last unit, all fees included', () => {
    let compared = 0;
    fc.assert(
      fc.property(reserves, feeRates, fc.integer({ min: 1, max: 999_999 }), ([rIn, rOut], f, permille) => {
        const amount = (rOut * BigInt(permille)) / 1_000_000n;
        if (amount === 0n) return;
        let ours;
        try {
          ours = cpmmSwapBaseOutput(amount, rIn, rOut, f);
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
          return;
        }
        const sdk = sdkOut(amount, rIn, rOut, f);
        compared++;
        expect(sdk).toEqual({ amountIn: ours.amountIn, amountOut: ours.amountOut, tradeFee: ours.tradeFee, protocolFee: ours.protocolFee, fundFee: ours.fundFee, creatorFee: ours.creatorFee });
      }),
      { numRuns: RUNS, seed: 43 },
    );
    expect(compared).toBeGreaterThan(RUNS / 2);
  });

  it('ExactIn with the creator fee on the output side or no creator fee: every field equal', () => {
    fc.assert(
      fc.property(reserves, feeRates, logBig(1, 64), ([rIn, rOut], f0, amount) => {
        const f = { ...f0, creatorFeeOnInput: false };
        let ours;
        try {
          ours = cpmmSwapBaseInput(amount, rIn, rOut, f);
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
          return;
        }
        expect(sdkIn(amount, rIn, rOut, f)).toEqual({ ...ours });
      }),
      { numRuns: RUNS, seed: 44 },
    );
  });

  it('the documented difference on a worked example: in 1000, trade 2500 + creator 500 ppm on the input', () => {
    const f: CpmmFeeRates = { tradeFeeRate: 2500n, protocolFeeRate: 0n, fundFeeRate: 0n, creatorFeeRate: 500n, creatorFeeOnInput: true };
    const ours = cpmmSwapBaseInput(1000n, 1_000_000_000n, 1_000_000_000n, f);
    // program: total = ceil(1000 * 3000 / 1e6) = 3, creator = floor(3 * 500 / 3000) = 0, trade = 3
    expect([ours.tradeFee, ours.creatorFee]).toEqual([3n, 0n]);
    expect(ours.amountOut).toBe(996n);
    // SDK: trade = ceil(2.5) = 3, creator = ceil(0.5) = 1: one unit more fee, one unit less out
    const sdk = sdkIn(1000n, 1_000_000_000n, 1_000_000_000n, f);
    expect([sdk.tradeFee, sdk.creatorFee]).toEqual([3n, 1n]);
    expect(sdk.amountOut).toBe(995n);
  });
});
