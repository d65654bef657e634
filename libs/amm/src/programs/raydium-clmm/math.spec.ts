import fc from 'fast-check';
import {
  ClmmMathError,
  MAX_SQRT_PRICE_X64,
  MAX_TICK,
  MIN_SQRT_PRICE_X64,
  MIN_TICK,
  Q64,
  computeSwapStep,
  getDeltaAmountsForSwap,
  getNextSqrtPriceFromInput,
  getNextSqrtPriceFromOutput,
  getPriceFromSqrtPrice,
  getSqrtPriceAtTick,
  getTickAtSqrtPrice,
} from './math';
import { dynamicFeeRate, tickSpacingIndexFromTick } from './swap';
import { clmmEmptyDynamicFeeInfo } from '@app/solana';

describe('CLMM tick math', () => {
  it('tick 0 is 2^64, the extremes are the program constants', () => {
    expect(getSqrtPriceAtTick(0)).toBe(Q64);
    expect(getSqrtPriceAtTick(MIN_TICK)).toBe(MIN_SQRT_PRICE_X64);
    expect(getSqrtPriceAtTick(MAX_TICK)).toBe(MAX_SQRT_PRICE_X64);
    expect(() => getSqrtPriceAtTick(MAX_TICK + 1)).toThrow(ClmmMathError);
    expect(() => getSqrtPriceAtTick(MIN_TICK - 1)).toThrow(ClmmMathError);
  });

  it('tick 1 and -1 are the first magic factor and its inverse', () => {
    expect(getSqrtPriceAtTick(-1)).toBe(0xfffcb933bd6fb800n);
    expect(getSqrtPriceAtTick(1)).toBe(((1n << 128n) - 1n) / 0xfffcb933bd6fb800n);
    // sqrt(1.0001) ≈ 1.00005: within one unit of 2^64·1.0001^(1/2)
    const f = Number(getSqrtPriceAtTick(1)) / 2 ** 64;
    expect(Math.abs(f - Math.sqrt(1.0001))).toBeLessThan(1e-15);
  });

  it('tick at sqrt price: the program test vectors around ±28861', () => {
    expect(getTickAtSqrtPrice(getSqrtPriceAtTick(-28861))).toBe(-28861);
    expect(getTickAtSqrtPrice(getSqrtPriceAtTick(-28861) + 1n)).toBe(-28861);
    expect(getTickAtSqrtPrice(getSqrtPriceAtTick(-28860) - 1n)).toBe(-28861);
    expect(getTickAtSqrtPrice(getSqrtPriceAtTick(-28861) - 1n)).toBe(-28862);
    expect(getTickAtSqrtPrice(getSqrtPriceAtTick(28861))).toBe(28861);
    expect(getTickAtSqrtPrice(getSqrtPriceAtTick(28862) - 1n)).toBe(28861);
    expect(getTickAtSqrtPrice(getSqrtPriceAtTick(28861) - 1n)).toBe(28860);
    expect(getTickAtSqrtPrice(MIN_SQRT_PRICE_X64)).toBe(MIN_TICK);
    expect(getTickAtSqrtPrice(MAX_SQRT_PRICE_X64 - 1n)).toBe(MAX_TICK - 1);
    expect(() => getTickAtSqrtPrice(MAX_SQRT_PRICE_X64)).toThrow(/SqrtPriceX64/);
  });

  it('real pools: the stored tick is the tick of the stored sqrt price', () => {
    // SOL/USDC 3ucNos4… and the carbon pool AcPS8… (fixtures)
    expect(getTickAtSqrtPrice(9082733951060270080n)).toBe(-14171);
    expect(getTickAtSqrtPrice(647525941329892376628n)).toBe(71168);
  });

  it('sqrt price is strictly increasing and the tick round-trips (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_TICK, max: MAX_TICK - 1 }), (t) => {
        const a = getSqrtPriceAtTick(t);
        const b = getSqrtPriceAtTick(t + 1);
        expect(a < b).toBe(true);
        expect(getTickAtSqrtPrice(a)).toBe(t);
        expect(getTickAtSqrtPrice(b - 1n)).toBe(t);
      }),
      { numRuns: 300 },
    );
  });

  it('price from sqrt price rounds as asked', () => {
    expect(getPriceFromSqrtPrice(Q64, false)).toBe(Q64);
    expect(getPriceFromSqrtPrice(Q64 + 1n, false)).toBe(Q64 + 2n);
    expect(getPriceFromSqrtPrice(Q64 + 1n, true)).toBe(Q64 + 3n);
  });
});

describe('CLMM sqrt price and amount math (hand-computed)', () => {
  const L = 1_000_000n;

  it('token0 in moves the price down, rounded up; token1 out moves it down, rounded down', () => {
    // √P' = ceil(L·2^64·√P / (L·2^64 + Δx·√P)); at √P = 2^64: ceil(L·2^64 / (L + Δx))
    expect(getNextSqrtPriceFromInput(Q64, L, 997n, true)).toBe((L * Q64 + (L + 997n) - 1n) / (L + 997n));
    expect(getNextSqrtPriceFromInput(Q64, L, 997n, true)).toBe(18428370987834680440n);
    // √P' = √P - ceil(Δy·2^64 / L)
    expect(getNextSqrtPriceFromOutput(Q64, L, 3n, true)).toBe(Q64 - ((3n * Q64 + L - 1n) / L));
    // token1 in: √P + floor(Δy·2^64/L)
    expect(getNextSqrtPriceFromInput(Q64, L, 3n, false)).toBe(Q64 + (3n * Q64) / L);
    expect(() => getNextSqrtPriceFromInput(Q64, 0n, 3n, false)).toThrow(/ZeroLiquidity/);
  });

  it('delta amounts: input rounds up, output rounds down', () => {
    const lower = getSqrtPriceAtTick(-10);
    const [in0, out1] = getDeltaAmountsForSwap(lower, Q64, 10n ** 12n, true);
    const [in1, out0] = getDeltaAmountsForSwap(lower, Q64, 10n ** 12n, false);
    const d = Q64 - lower;
    const x = (10n ** 12n * d * Q64) / (lower * Q64); // floor of token0 amount
    const y = (10n ** 12n * d) / Q64; // floor of token1 amount
    expect(out1).toBe(y);
    expect(in1).toBe(y + 1n); // not exact, so the input rounds up
    expect(out0).toBe(x);
    expect(in0).toBe(x + 1n);
  });

  it('exact-in step, fee on input, 0.3%: 1000 token0 pays 997 into the curve and 3 in fees, 996 out', () => {
    const r = computeSwapStep(Q64, getSqrtPriceAtTick(-1000), L, 1000n, 3000n, true, true, true);
    expect(r).toEqual({ sqrtPriceNextX64: 18428370987834680440n, amountIn: 997n, amountOut: 996n, feeAmount: 3n });
  });

  it('exact-out step, fee on input: 1000 token0 out needs 1002 token1 plus a 4 fee (both rounded up)', () => {
    const r = computeSwapStep(Q64, getSqrtPriceAtTick(1000), L, 1000n, 3000n, false, false, true);
    expect(r).toEqual({ sqrtPriceNextX64: 18465209282992544161n, amountIn: 1002n, amountOut: 1000n, feeAmount: 4n });
  });

  it('exact-in step, fee on output: the whole input is charged, the fee comes off the output (rounded up)', () => {
    const r = computeSwapStep(Q64, getSqrtPriceAtTick(-1000), L, 1000n, 3000n, true, true, false);
    // curve output for the full 1000 in: floor(L·(√P - √P')/2^64)
    const sp = (L * Q64 + (L + 1000n) - 1n) / (L + 1000n);
    const gross = (L * (Q64 - sp)) / Q64;
    const fee = (gross * 3000n + 999_999n) / 1_000_000n;
    expect(r).toEqual({ sqrtPriceNextX64: sp, amountIn: 1000n, amountOut: gross - fee, feeAmount: fee });
    expect(fee).toBe(3n);
  });

  it('a step that reaches its target takes the fee as ceil(in·f/(1-f))', () => {
    const target = getSqrtPriceAtTick(-1);
    const [needIn, out] = getDeltaAmountsForSwap(target, Q64, 10n ** 15n, true);
    const r = computeSwapStep(Q64, target, 10n ** 15n, 10n ** 12n, 3000n, true, true, true);
    expect(r.sqrtPriceNextX64).toBe(target);
    expect(r.amountIn).toBe(needIn);
    expect(r.amountOut).toBe(out);
    expect(r.feeAmount).toBe((needIn * 3000n + 997_000n - 1n) / 997_000n);
  });
});

describe('CLMM dynamic fee', () => {
  it('rate = ceil(control·(acc·spacing)² / (1e5·1e4·1e4)), capped at 10%', () => {
    const info = { ...clmmEmptyDynamicFeeInfo(), dynamicFeeControl: 1000 };
    // the program test: acc 10_000, spacing 60 → ceil(1000·600000² / 1e13) = 36
    expect(dynamicFeeRate(info, 10_000n, 60)).toBe(36n);
    expect(dynamicFeeRate(info, 1n, 1)).toBe(1n); // tiny but rounded up
    expect(dynamicFeeRate({ ...info, dynamicFeeControl: 99_999 }, 4_000_000n, 1000)).toBe(100_000n);
    expect(dynamicFeeRate(info, 0n, 60)).toBe(0n);
  });

  it('tick spacing index is floor(tick / spacing)', () => {
    expect(tickSpacingIndexFromTick(0, 60)).toBe(0);
    expect(tickSpacingIndexFromTick(-1, 60)).toBe(-1);
    expect(tickSpacingIndexFromTick(-60, 60)).toBe(-1);
    expect(tickSpacingIndexFromTick(-121, 60)).toBe(-3);
    expect(tickSpacingIndexFromTick(119, 60)).toBe(1);
  });
});
