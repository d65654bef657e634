import fc from 'fast-check';
import { PoolQuoteError } from '../../pool';
import { clmmBitmapExtensionAddress, clmmTickArrayAddress, type ClmmDynamicFeeInfo } from '@app/solana';
import { ClmmPool, clmmDependencies, clmmTickArrayStartIndexes } from './pool';
import { computeSwapStep, getSqrtPriceAtTick, getTickAtSqrtPrice, Q64, U64_MAX } from './math';
import { buildSyntheticClmm, type SyntheticClmm, type SyntheticClmmSpec } from './synthetic';
import { prepareBitmaps, tickIsInitialized } from './tick-array';

const POOL = 'AcPS8SrzXDwPxk6LLz2tykwFEsSeD5LtctMLVeh2shq8';
const M0 = 'So11111111111111111111111111111111111111112';
const M1 = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const CFG = '9iFER3bpjf1PTTCQCfTRu17EJgvsxo9pVyA9QWwEuX4x';

/** spacing 10 → 600 ticks per array; initialized ticks in arrays -1200, -600, 0, 600, 1200 */
const POSITIONS = [
  { tickLower: -1200, tickUpper: -300, liquidity: 5_000_000_000n },
  { tickLower: -600, tickUpper: 600, liquidity: 10_000_000_000n },
  { tickLower: -100, tickUpper: 1300, liquidity: 3_000_000_000n },
  { tickLower: 200, tickUpper: 700, liquidity: 2_000_000_000n },
];

function spec(over: Partial<SyntheticClmmSpec> = {}): SyntheticClmmSpec {
  return { address: POOL, mint0: M0, mint1: M1, ammConfig: CFG, tickSpacing: 10, tickCurrent: 5, positions: POSITIONS, ...over };
}

function make(s: SyntheticClmm, opts: { only?: number[]; ext?: boolean; ts?: number } = {}): ClmmPool {
  return new ClmmPool({
    address: POOL,
    state: s.state,
    config: s.config,
    extension: opts.ext === false ? null : s.extension,
    tickArrays: opts.only ? s.tickArrays.filter((a) => opts.only!.includes(a.startTickIndex)) : s.tickArrays,
    slot: 1,
    unixTimestamp: opts.ts,
  });
}

/** Independent walk for exact-in, fee on input, no dynamic fee: sorted ticks and compute_swap only. */
function referenceExactIn(s: SyntheticClmm, zeroForOne: boolean, amount: bigint): { out: bigint; fee: bigint; tick: number } {
  const ticks = s.tickArrays
    .flatMap((a) => a.ticks)
    .filter((t) => tickIsInitialized(t))
    .filter((t) => (zeroForOne ? t.tick <= s.state.tickCurrent : t.tick > s.state.tickCurrent))
    .sort((a, b) => (zeroForOne ? b.tick - a.tick : a.tick - b.tick));
  let price = s.state.sqrtPriceX64;
  let L = s.state.liquidity;
  let rem = amount;
  let out = 0n;
  let fee = 0n;
  let tick = s.state.tickCurrent;
  for (const t of ticks) {
    const target = getSqrtPriceAtTick(t.tick);
    const r = computeSwapStep(price, target, L, rem, BigInt(s.config.tradeFeeRate), true, zeroForOne, true);
    rem -= r.amountIn + r.feeAmount;
    out += r.amountOut;
    fee += r.feeAmount;
    price = r.sqrtPriceNextX64;
    if (price !== target) return { out, fee, tick: getTickAtSqrtPrice(price) };
    L += zeroForOne ? -t.liquidityNet : t.liquidityNet;
    tick = zeroForOne ? t.tick - 1 : t.tick;
    if (rem === 0n) return { out, fee, tick };
  }
  throw new Error('reference ran out of ticks');
}

/** The pool after a swap (price, tick, liquidity moved; no limit orders involved). */
function after(s: SyntheticClmm, r: { sqrtPriceX64: bigint; tickCurrent: number; liquidity: bigint }): SyntheticClmm {
  return { ...s, state: { ...s.state, sqrtPriceX64: r.sqrtPriceX64, tickCurrent: r.tickCurrent, liquidity: r.liquidity } };
}

describe('ClmmPool: a synthetic pool with ticks in five tick arrays', () => {
  const s = buildSyntheticClmm(spec());
  const pool = make(s);

  it('is built consistently (liquidity in range, bitmap bits of the five arrays)', () => {
    expect(s.state.liquidity).toBe(13_000_000_000n);
    expect(s.tickArrays.map((a) => a.startTickIndex)).toEqual([-1200, -600, 0, 600, 1200]);
    expect(pool.kind).toBe('concentrated-liquidity');
    expect(pool.label).toBe('Raydium CLMM');
    expect(pool.feeBps).toBe(25);
  });

  it('exact in, token0 → token1, crossing -100, -300, -600 and into array -1200', () => {
    const amount = 450_000_000n;
    const r = pool.swap(M0, 'ExactIn', amount);
    const ref = referenceExactIn(s, true, amount);
    expect(r.amountIn).toBe(amount);
    expect(r.amountOut).toBe(ref.out);
    expect(r.tradeFee).toBe(ref.fee);
    expect(r.tickCurrent).toBe(ref.tick);
    expect(r.tickCurrent).toBeLessThan(-600);
    expect(r.tickArraysUsed).toEqual([0, -600, -1200]);
    expect(r.ticksCrossed).toBe(3);
    // below -600 only the first position is in range
    expect(r.liquidity).toBe(5_000_000_000n);
    // the fee split: protocol 12%, fund 4%, the rest to LPs (each rounded down per step)
    expect(r.lpFee + r.protocolFee + r.fundFee).toBe(r.tradeFee);
    expect(r.protocolFee).toBeLessThanOrEqual((r.tradeFee * 120_000n) / 1_000_000n);
    expect(r.protocolFee).toBeGreaterThanOrEqual((r.tradeFee * 120_000n) / 1_000_000n - 4n);
    const q = pool.quoteExactIn(M0, amount);
    expect(q).toEqual({ amountIn: amount, amountOut: r.amountOut, feeAmount: r.tradeFee });
  });

  it('exact in, token1 → token0, crossing 200, 600, 700 into array 1200', () => {
    const amount = 500_000_000n;
    const r = pool.swap(M1, 'ExactIn', amount);
    const ref = referenceExactIn(s, false, amount);
    expect(r.amountOut).toBe(ref.out);
    expect(r.tickCurrent).toBe(ref.tick);
    expect(r.tickCurrent).toBeGreaterThanOrEqual(700);
    expect(r.tickArraysUsed).toEqual([0, 600, 1200]);
    expect(r.ticksCrossed).toBe(3);
    expect(r.liquidity).toBe(3_000_000_000n);
  });

  it('exact out matches exact in around it, both directions', () => {
    for (const [mint, amount] of [
      [M0, 300_000_000n],
      [M1, 300_000_000n],
    ] as const) {
      const out = pool.quoteExactIn(mint, amount).amountOut;
      const q = pool.quoteExactOut(mint, out);
      expect(q.amountOut).toBe(out);
      expect(q.amountIn).toBeLessThanOrEqual(amount);
      expect(pool.quoteExactIn(mint, q.amountIn).amountOut).toBeGreaterThanOrEqual(out);
      expect(pool.quoteExactIn(mint, q.amountIn - 1n).amountOut).toBeLessThanOrEqual(out);
    }
  });

  it('stops exactly where the loaded tick arrays end (not-quotable beyond, naming the array)', () => {
    const partial = make(s, { only: [0, -600] });
    // inside the loaded arrays: same as the full pool
    expect(partial.quoteExactIn(M0, 100_000_000n)).toEqual(pool.quoteExactIn(M0, 100_000_000n));
    // crossing -600 needs array -1200 (the next initialized tick is -1200)
    let err: unknown;
    try {
      partial.quoteExactIn(M0, 450_000_000n);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PoolQuoteError);
    expect((err as PoolQuoteError).reason).toBe('not-quotable');
    expect((err as PoolQuoteError).message).toContain('tick array -1200');
    expect((err as PoolQuoteError).message).toContain(clmmTickArrayAddress(POOL, -1200));
    // the first array of a direction missing
    expect(() => make(s, { only: [-600] }).quoteExactIn(M0, 10n)).toThrow(/tick array 0 /);
  });

  it('beyond the last initialized tick array the pool has no liquidity: insufficient-liquidity', () => {
    expect(() => pool.quoteExactIn(M0, 10n ** 15n)).toThrow(expect.objectContaining({ reason: 'insufficient-liquidity' }));
    expect(() => pool.quoteExactOut(M1, U64_MAX)).toThrow(PoolQuoteError);
  });

  it('tiny inputs: the fee can eat the whole input (zero-output)', () => {
    expect(() => pool.quoteExactIn(M0, 1n)).toThrow(expect.objectContaining({ reason: 'zero-output' }));
  });

  it('dependencies: config, extension PDA (spacing < 15), initialized arrays both ways', () => {
    expect(clmmTickArrayStartIndexes(s.state, s.extension, 2)).toEqual([0, -600, 600]);
    expect(clmmTickArrayStartIndexes(s.state, s.extension, 3)).toEqual([0, -600, -1200, 600, 1200]);
    const deps = clmmDependencies(POOL, s.state, s.extension, 2);
    expect(deps).toEqual([
      CFG,
      clmmBitmapExtensionAddress(POOL),
      clmmTickArrayAddress(POOL, 0),
      clmmTickArrayAddress(POOL, -600),
      clmmTickArrayAddress(POOL, 600),
    ]);
    const wide = buildSyntheticClmm(spec({ tickSpacing: 60, tickCurrent: 0, positions: [{ tickLower: -60, tickUpper: 60, liquidity: 1n }] }));
    expect(clmmDependencies(POOL, wide.state)).not.toContain(clmmBitmapExtensionAddress(POOL));
  });

  it('spot price and float guides follow the exact quotes', () => {
    const p = Number(s.state.sqrtPriceX64) ** 2 / 2 ** 128;
    expect(pool.spotPrice(M0)).toBeCloseTo(p, 12);
    expect(pool.spotPrice(M1)).toBeCloseTo(1 / p, 12);
    for (const [mint, amt] of [
      [M0, 300_000_000n],
      [M1, 300_000_000n],
      [M0, 123_456n],
    ] as const) {
      const exact = Number(pool.quoteExactIn(mint, amt).amountOut);
      expect(Math.abs(pool.approxOut(mint, Number(amt)) - exact) / exact).toBeLessThan(1e-4);
      expect(Math.abs(pool.approxIn(mint, exact) - Number(amt)) / Number(amt)).toBeLessThan(1e-4);
    }
    expect(pool.approxIn(M0, 1e30)).toBe(Infinity);
    // reserve: what the loaded arrays can pay out
    expect(pool.reserve(M1)).toBeGreaterThan(Number(pool.quoteExactIn(M0, 450_000_000n).amountOut));
    expect(pool.reserve(M0)).toBeGreaterThan(0);
  });

  it('properties: monotone, fees ≥ 0, no value created on a round trip, exact out asks enough', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.bigInt({ min: 1_000n, max: 500_000_000n }),
        fc.bigInt({ min: 1n, max: 100_000_000n }),
        fc.constantFrom(0, 1, 2),
        (zeroForOne, amount, extra, feeOn) => {
          const ps = buildSyntheticClmm(spec({ feeOn }));
          const p = make(ps);
          const mIn = zeroForOne ? M0 : M1;
          const mOut = zeroForOne ? M1 : M0;
          let a;
          try {
            a = p.swap(mIn, 'ExactIn', amount);
          } catch (e) {
            expect(e).toBeInstanceOf(PoolQuoteError);
            return;
          }
          expect(a.tradeFee >= 0n && a.lpFee >= 0n && a.protocolFee >= 0n && a.fundFee >= 0n).toBe(true);
          try {
            const b = p.swap(mIn, 'ExactIn', amount + extra);
            expect(b.amountOut >= a.amountOut).toBe(true);
          } catch (e) {
            expect((e as PoolQuoteError).reason).not.toBe('zero-output');
          }
          // round trip on the moved pool: back from the output cannot return more than went in
          try {
            const back = make(after(ps, a)).swap(mOut, 'ExactIn', a.amountOut);
            expect(back.amountOut <= a.amountIn).toBe(true);
          } catch (e) {
            expect(e).toBeInstanceOf(PoolQuoteError);
          }
          // exact out for that output asks at least what exact in needs for it
          const o = p.swap(mIn, 'ExactOut', a.amountOut);
          expect(o.amountOut).toBe(a.amountOut);
          expect(p.swap(mIn, 'ExactIn', o.amountIn).amountOut >= a.amountOut).toBe(true);
          expect(o.tradeFee >= 0n).toBe(true);
          // approx guides are monotone
          expect(p.approxOut(mIn, Number(amount + extra)) >= p.approxOut(mIn, Number(amount))).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('ClmmPool: fee on the output token', () => {
  it('fee_on = 1 (token0 only): a token0 → token1 swap pays the fee in input, the reverse in output', () => {
    const s = buildSyntheticClmm(spec({ feeOn: 1 }));
    const p = make(s);
    const a = p.swap(M0, 'ExactIn', 1_000_000n);
    expect(a.feeOnInput).toBe(true);
    const b = p.swap(M1, 'ExactIn', 1_000_000n);
    expect(b.feeOnInput).toBe(false);
    expect(b.feeOnToken0).toBe(true);
    // one step, no tick crossed: output = gross - ceil(gross · 0.25%)
    const step = computeSwapStep(s.state.sqrtPriceX64, getSqrtPriceAtTick(200), s.state.liquidity, 1_000_000n, 2500n, true, false, false);
    expect(b.amountOut).toBe(step.amountOut);
    expect(b.tradeFee).toBe(step.feeAmount);
    expect(b.amountIn).toBe(1_000_000n);
    // exact out with the fee on the output: the user receives exactly the net amount
    const o = p.swap(M1, 'ExactOut', b.amountOut);
    expect(o.amountOut).toBe(b.amountOut);
    expect(o.amountIn).toBeLessThanOrEqual(1_000_000n);
  });
});

describe('ClmmPool: limit orders on a tick', () => {
  // no liquidity; 1_000_000 token1 for sale at tick 0 (price 1); the pool sits exactly at tick 0
  const s = buildSyntheticClmm(spec({ tickCurrent: 0, positions: [], limitOrders: [{ tick: 0, ordersAmount: 1_000_000n }], tradeFeeRate: 3000 }));
  const p = make(s);

  it('exact in: fee ceil(1000·0.3%) = 3, 997 filled at price 1', () => {
    const r = p.swap(M0, 'ExactIn', 1000n);
    expect([r.amountIn, r.amountOut, r.tradeFee]).toEqual([1000n, 997n, 3n]);
    expect(r.limitOrderAmountOut).toBe(997n);
    expect(r.tickCurrent).toBe(0); // orders remain: the tick is not crossed
    expect(r.sqrtPriceX64).toBe(Q64);
  });

  it('exact out: 500000 out costs 500000 plus fee ceil(500000·3000/997000) = 1505', () => {
    const r = p.swap(M0, 'ExactOut', 500_000n);
    expect([r.amountIn, r.amountOut, r.tradeFee]).toEqual([501_505n, 500_000n, 1505n]);
  });

  it('more than the orders hold: insufficient liquidity (nothing behind them)', () => {
    expect(() => p.quoteExactIn(M0, 2_000_000n)).toThrow(expect.objectContaining({ reason: 'insufficient-liquidity' }));
  });
});

describe('ClmmPool: tick arrays beyond the pool bitmap (bitmap extension)', () => {
  // spacing 1: the pool bitmap covers [-30720, 30720); arrays 30660 (pool bitmap), 30720 and 30780 (extension)
  const s = buildSyntheticClmm(
    spec({
      tickSpacing: 1,
      tickCurrent: 30790,
      positions: [
        { tickLower: 30650, tickUpper: 30800, liquidity: 10n ** 12n },
        { tickLower: 30700, tickUpper: 30750, liquidity: 10n ** 12n },
      ],
    }),
  );

  it('is laid out across both bitmaps', () => {
    expect(s.tickArrays.map((a) => a.startTickIndex)).toEqual([30600, 30660, 30720, 30780]);
    expect(s.extension.positiveTickArrayBitmap[0][0]).toBe(3n); // bits 0 and 1: arrays 30720, 30780
    expect(s.state.tickArrayBitmap[15] >> 62n).toBe(3n); // bits 1022, 1023: arrays 30600, 30660
  });

  it('without the extension the quote is not-quotable and says why', () => {
    const p = make(s, { ext: false });
    expect(() => p.quoteExactIn(M0, 1000n)).toThrow(/bitmap extension account is not loaded/);
    // the dependencies still name the extension so it gets loaded
    expect(clmmDependencies(POOL, s.state)).toContain(clmmBitmapExtensionAddress(POOL));
  });

  it('with it, a token0 → token1 swap walks from the extension back into the pool bitmap', () => {
    const p = make(s);
    const amount = 1_800_000_000n;
    const r = p.swap(M0, 'ExactIn', amount);
    // the program needs array 30600 too: it looks up the next tick (30650) before knowing the amount ends first
    expect(r.tickArraysUsed).toEqual([30780, 30720, 30660, 30600]);
    expect(r.ticksCrossed).toBe(2); // 30750 (array 30720, extension) and 30700 (array 30660, pool bitmap)
    expect(() => make(s, { only: [30780, 30720, 30660] }).quoteExactIn(M0, amount)).toThrow(/tick array 30600/);
    expect(r.tickCurrent).toBeGreaterThan(30650);
    expect(r.tickCurrent).toBeLessThan(30700);
    expect(r.amountOut).toBe(referenceExactIn(s, true, amount).out);
    expect(clmmTickArrayStartIndexes(s.state, s.extension, 4)).toEqual([30780, 30720, 30660, 30600]);
  });

  it('spreads the bits of a decoded bitmap once; a new version of the words is spread again', () => {
    const a = prepareBitmaps(1, s.state.tickArrayBitmap, s.extension);
    const b = prepareBitmaps(1, s.state.tickArrayBitmap, s.extension);
    expect(b.pool).toBe(a.pool);
    expect(b.positive).toBe(a.positive);
    expect(b.negative).toBe(a.negative);
    expect([...a.pool.keys()].filter((i) => a.pool[i] === 1)).toEqual([1022, 1023]);
    expect([...a.positive![0].keys()].filter((i) => a.positive![0][i] === 1)).toEqual([0, 1]);
    // the next version of the pool and extension accounts decodes to new arrays: array 30600 cleared, 30840 initialized
    const pool2 = s.state.tickArrayBitmap.map((w, i) => (i === 15 ? w & ~(1n << 62n) : w));
    const positive2 = s.extension.positiveTickArrayBitmap.map((m, i) => (i === 0 ? m.map((w, j) => (j === 0 ? w | 4n : w)) : m));
    const c = prepareBitmaps(1, pool2, { positiveTickArrayBitmap: positive2, negativeTickArrayBitmap: s.extension.negativeTickArrayBitmap });
    expect([...c.pool.keys()].filter((i) => c.pool[i] === 1)).toEqual([1023]);
    expect([...c.positive![0].keys()].filter((i) => c.positive![0][i] === 1)).toEqual([0, 1, 2]);
    expect(c.negative).toBe(a.negative);
    expect(clmmTickArrayStartIndexes({ ...s.state, tickArrayBitmap: pool2 }, { ...s.extension, positiveTickArrayBitmap: positive2 }, 4)).toEqual([30780, 30720, 30660, 30840]); // down from the current array, then up
    // the first version's bits are as they were
    expect(a.pool[1022]).toBe(1);
  });
});

describe('ClmmPool: dynamic fee', () => {
  const dyn: ClmmDynamicFeeInfo = {
    filterPeriod: 30,
    decayPeriod: 600,
    reductionFactor: 5000,
    dynamicFeeControl: 50_000,
    maxVolatilityAccumulator: 300_000,
    tickSpacingIndexReference: 0,
    volatilityReference: 20_000,
    volatilityAccumulator: 60_000,
    lastUpdateTimestamp: 1_700_000_000n,
  };

  it('needs the clock when the time window changes the fee; quotes exactly with it', () => {
    const s = buildSyntheticClmm(spec({ dynamicFeeInfo: dyn }));
    expect(() => make(s).quoteExactIn(M0, 200_000_000n)).toThrow(/block time is needed/);
    const within = make(s, { ts: 1_700_000_010 }).quoteExactIn(M0, 200_000_000n);
    const decayed = make(s, { ts: 1_700_000_100 }).quoteExactIn(M0, 200_000_000n);
    const reset = make(s, { ts: 1_700_010_000 }).quoteExactIn(M0, 200_000_000n);
    // references: within filter_period 20_000 (unchanged), decayed 60_000·0.5 = 30_000, reset 0;
    // a higher volatility reference means a higher fee: less out
    expect(decayed.amountOut).toBeLessThan(within.amountOut);
    expect(within.amountOut).toBeLessThan(reset.amountOut);
    const plain = make(buildSyntheticClmm(spec())).quoteExactIn(M0, 200_000_000n);
    expect(reset.amountOut).toBeLessThan(plain.amountOut);
  });

  it('quotes without the clock when no time window can change the result', () => {
    const calm = { ...dyn, volatilityReference: 0, volatilityAccumulator: 0, tickSpacingIndexReference: 0 };
    const s = buildSyntheticClmm(spec({ dynamicFeeInfo: calm }));
    const q = make(s).quoteExactIn(M0, 200_000_000n);
    expect(q).toEqual(make(s, { ts: 1_800_000_000 }).quoteExactIn(M0, 200_000_000n));
  });

  it('steps stop at every tick spacing group edge: the fee grows with the distance moved', () => {
    const calm = { ...dyn, volatilityReference: 0, volatilityAccumulator: 0 };
    const s = buildSyntheticClmm(spec({ dynamicFeeInfo: calm }));
    const r = make(s, { ts: 1_700_010_000 }).swap(M0, 'ExactIn', 300_000_000n);
    const plain = make(buildSyntheticClmm(spec())).swap(M0, 'ExactIn', 300_000_000n);
    expect(r.tradeFee).toBeGreaterThan(plain.tradeFee);
    expect(r.dynamicFee!.volatilityAccumulator).toBeGreaterThan(0);
  });
});

describe('ClmmPool: cost of a hop crossing 10 initialized ticks', () => {
  it('crosses the 10 ticks (its cost is reported, not asserted)', () => {
    const positions = Array.from({ length: 10 }, (_, i) => ({
      tickLower: -100 * (i + 1),
      tickUpper: 100 * (i + 1),
      liquidity: 1_000_000_000n,
    }));
    positions.push({ tickLower: -5000, tickUpper: 5000, liquidity: 10_000_000_000n });
    const s = buildSyntheticClmm(spec({ tickCurrent: 5, positions }));
    const p = make(s);
    const amount = 850_000_000n;
    const probe = p.swap(M0, 'ExactIn', amount);
    expect(probe.ticksCrossed).toBe(10);
    const n = 5000;
    for (let i = 0; i < 3000; i++) p.quoteExactIn(M0, amount + BigInt(i));
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) p.quoteExactIn(M0, amount + BigInt(i));
    const us = Number(process.hrtime.bigint() - t0) / 1000 / n;
    // eslint-disable-next-line no-console
    console.log(`Raydium CLMM: exact-in hop crossing 10 initialized ticks: ${us.toFixed(1)} µs per quote`);
  });
});
