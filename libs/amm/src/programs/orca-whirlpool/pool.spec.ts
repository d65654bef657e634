import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { PoolQuoteError } from '../../pool';
import {
  decodeTickArray,
  decodeWhirlpool,
  whirlpoolOracleAddress,
  whirlpoolTickArrayAddress,
  type Whirlpool,
  type WhirlpoolOracle,
  type WhirlpoolTickArray,
} from '@app/solana';
import { sqrtPriceFromTickIndex } from './math';
import { WhirlpoolPool, whirlpoolDependencies, whirlpoolTickArrayStarts } from './pool';

const FIXTURES = path.resolve(__dirname, '../../../../..', '..', 'shared', 'fixtures');
const ORCA = path.join(FIXTURES, 'orca-whirlpool');
const ESS = path.join(ORCA, 'whirlpool-essentials');

function bytes(file: string): { pubkey: string; owner: string; data: Buffer } {
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  return { pubkey: j.pubkey, owner: j.account.owner, data: Buffer.from(j.account.data[0], 'base64') };
}

const SAMO_USDC = '9vqYJjDUFecLL2xPUC4Rc7hyCtZ6iJ4mDiVZX7aFXoAe';
const samoFile = bytes(path.join(ESS, `samo_usdc_wp_whirlpool.${SAMO_USDC}.json`));
const samo = decodeWhirlpool(samoFile.data, samoFile.owner, SAMO_USDC);
const samoArrays: WhirlpoolTickArray[] = fs
  .readdirSync(ESS)
  .filter((n) => n.startsWith('samo_usdc_wp_ta_'))
  .map((n) => {
    const f = bytes(path.join(ESS, n));
    return decodeTickArray(f.data, f.owner, f.pubkey);
  });

function samoPool(over: Partial<Whirlpool> = {}, arrays = samoArrays): WhirlpoolPool {
  return new WhirlpoolPool({ address: SAMO_USDC, whirlpool: { ...samo, ...over }, tickArrays: arrays, slot: 160156384 });
}

const pool = samoPool();
const A = samo.tokenMintA; // SAMO (9 decimals)
const B = samo.tokenMintB; // USDC (6 decimals)

describe('WhirlpoolPool on the SAMO/USDC capture (7 tick arrays)', () => {
  it('identity and fee', () => {
    expect(pool.kind).toBe('concentrated-liquidity');
    expect(pool.label).toBe('Orca Whirlpool');
    expect(pool.feeBps).toBe(samo.feeRate / 100);
    expect(pool.notQuotable).toBeNull();
  });

  it('dependencies: the tick arrays of both directions (PDAs) + mints; all present in the capture', () => {
    const deps = whirlpoolDependencies(SAMO_USDC, samo);
    const starts = whirlpoolTickArrayStarts(samo);
    expect(starts.length).toBeGreaterThanOrEqual(4);
    const have = new Set(samoArrays.map((t) => whirlpoolTickArrayAddress(SAMO_USDC, t.startTickIndex)));
    for (const s of starts) expect(have.has(whirlpoolTickArrayAddress(SAMO_USDC, s))).toBe(true);
    expect(deps).toEqual([...starts.map((s) => whirlpoolTickArrayAddress(SAMO_USDC, s)), A, B]);
  });

  it('spot price is about 0.01 USDC per SAMO in smallest units (1e-5 B per A) and consistent both ways', () => {
    const p = pool.spotPrice(A);
    expect(p).toBeGreaterThan(1e-6);
    expect(p).toBeLessThan(1e-4);
    expect(pool.spotPrice(B) * p).toBeCloseTo(1, 12);
  });

  it.each([
    ['SAMO->USDC', 1_000_000_000n, A], // 1 SAMO
    ['SAMO->USDC', 50_000_000_000_000n, A], // 50k SAMO
    ['USDC->SAMO', 1_000_000n, B], // 1 USDC
    ['USDC->SAMO', 5_000_000_000n, B], // 5k USDC
  ])('%s %s units: ExactIn and ExactOut are sane and consistent', (_n, amountIn, input) => {
    const q = pool.quoteExactIn(input, amountIn);
    expect(q.amountIn).toBe(amountIn);
    expect(q.amountOut).toBeGreaterThan(0n);
    expect(q.feeAmount).toBeGreaterThan(0n);
    expect(q.feeAmount).toBeLessThan(amountIn);
    // output within (0, spot * in]
    expect(Number(q.amountOut)).toBeLessThanOrEqual(Number(amountIn) * pool.spotPrice(input) * (1 + 1e-9));
    // the exact output of that input costs no more than that input, and at least the input of one unit less
    const back = pool.quoteExactOut(input, q.amountOut);
    expect(back.amountOut).toBe(q.amountOut);
    expect(back.amountIn).toBeLessThanOrEqual(amountIn);
    const more = pool.quoteExactIn(input, back.amountIn);
    expect(more.amountOut).toBeGreaterThanOrEqual(q.amountOut);
    // float guides agree within a fraction of a percent
    expect(pool.approxOut(input, Number(amountIn))).toBeCloseTo(Number(q.amountOut), -Math.log10(Number(q.amountOut) * 1e-3));
  });

  it('ExactOut asks at least the input that ExactIn needs for the same output', () => {
    for (const [input, out] of [
      [A, 10_000n],
      [A, 3_000_000_000n],
      [B, 1_000_000_000n],
      [B, 10_000_000_000_000n],
    ] as const) {
      const eo = pool.quoteExactOut(input, out);
      expect(eo.amountOut).toBe(out);
      expect(pool.quoteExactIn(input, eo.amountIn).amountOut).toBeGreaterThanOrEqual(out);
      if (eo.amountIn > 1n) expect(pool.quoteExactIn(input, eo.amountIn - 1n).amountOut).toBeLessThanOrEqual(out);
    }
  });

  it('a swap past the loaded tick arrays fails as the transaction would (insufficient-liquidity)', () => {
    const depthB = pool.reserve(B);
    expect(depthB).toBeGreaterThan(0);
    const tooMuch = () => pool.quoteExactOut(A, BigInt(Math.ceil(depthB * 2)));
    expect(tooMuch).toThrow(PoolQuoteError);
    expect(tooMuch).toThrow(/tick arrays available|not enough liquidity/);
    expect(pool.approxIn(A, depthB * 2)).toBe(Infinity);
  });

  it('property: monotone in amount, fees never negative, no value created on a round trip', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.bigInt({ min: 1n, max: 2_000_000_000_000n }), fc.bigInt({ min: 1n, max: 2_000_000_000_000n }), (aIn, x, y) => {
        const input = aIn ? A : B;
        const output = aIn ? B : A;
        const lo = x < y ? x : y;
        const hi = x < y ? y : x;
        let qlo, qhi;
        try {
          qlo = pool.quoteExactIn(input, lo);
          qhi = pool.quoteExactIn(input, hi);
        } catch (e) {
          if (e instanceof PoolQuoteError) return;
          throw e;
        }
        expect(qhi.amountOut).toBeGreaterThanOrEqual(qlo.amountOut);
        expect(qlo.feeAmount).toBeGreaterThanOrEqual(0n);
        expect(pool.approxOut(input, Number(hi))).toBeGreaterThanOrEqual(pool.approxOut(input, Number(lo)));
        // round trip on the same state: what comes back is at most what went in
        try {
          const back = pool.quoteExactIn(output, qhi.amountOut);
          expect(back.amountOut).toBeLessThanOrEqual(hi);
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('property: ExactOut/ExactIn consistency and monotone ExactOut', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.bigInt({ min: 1n, max: 100_000_000_000n }), (aIn, out) => {
        const input = aIn ? A : B;
        let eo;
        try {
          eo = pool.quoteExactOut(input, out);
        } catch (e) {
          if (e instanceof PoolQuoteError) return;
          throw e;
        }
        expect(eo.feeAmount).toBeGreaterThanOrEqual(0n);
        expect(pool.quoteExactIn(input, eo.amountIn).amountOut).toBeGreaterThanOrEqual(out);
        const eo2 = pool.quoteExactOut(input, out + 1n);
        expect(eo2.amountIn).toBeGreaterThanOrEqual(eo.amountIn);
        const ai = pool.approxIn(input, Number(out));
        expect(ai).toBeLessThanOrEqual(pool.approxIn(input, Number(out) * 2));
      }),
      { numRuns: 300 },
    );
  });
});

describe('tick-array sequence traps', () => {
  const T = 88 * samo.tickSpacing;
  // put the pool exactly at the start of an array that has no initialized tick at its start
  const start = samoArrays
    .map((t) => t.startTickIndex)
    .sort((a, b) => b - a)
    .find((s) => {
      const ta = samoArrays.find((t) => t.startTickIndex === s)!;
      return !ta.ticks[0].initialized && samoArrays.some((t) => t.startTickIndex === s - T);
    })!;
  const at = { tickCurrentIndex: start, sqrtPrice: sqrtPriceFromTickIndex(start) };

  it('a->b from exactly an array start needs the array below, even for one unit', () => {
    const only = samoArrays.filter((t) => t.startTickIndex === start);
    expect(() => samoPool(at, only).quoteExactIn(A, 1_000_000n)).toThrow(/tick arrays available/);
    const withBelow = samoArrays.filter((t) => t.startTickIndex === start || t.startTickIndex === start - T);
    expect(samoPool(at, withBelow).quoteExactIn(A, 1_000_000n).amountIn).toBe(1_000_000n);
  });

  it('after an a->b swap that ends on an array start the pool tick is start-1: b->a uses the array above', () => {
    const st = { tickCurrentIndex: start - 1, sqrtPrice: sqrtPriceFromTickIndex(start) };
    expect(whirlpoolTickArrayStarts({ tickSpacing: samo.tickSpacing, ...st })).toEqual([start - 3 * T, start - 2 * T, start - T, start, start + T, start + 2 * T]);
    const above = samoArrays.filter((t) => t.startTickIndex >= start);
    expect(samoPool(st, above).quoteExactIn(B, 1_000n).amountIn).toBe(1_000n);
  });

  it('a tick array known not to exist is used as an empty array', () => {
    const only = samoArrays.filter((t) => t.startTickIndex === start);
    const p = new WhirlpoolPool({
      address: SAMO_USDC,
      whirlpool: { ...samo, ...at },
      tickArrays: only,
      absentTickArrayStarts: [start - T, start - 2 * T],
      slot: 1,
    });
    expect(p.quoteExactIn(A, 1_000_000n).amountIn).toBe(1_000_000n);
  });
});

describe('adaptive-fee pools', () => {
  const f = bytes(path.join(ORCA, 'ipv4sq_src_dex_whirlpool_pool_data.HyA4ct7i4XvZsVrLyb5VJhcTP1EZVDZoF9fFGym16zcj.json'));
  const adaptivePool = decodeWhirlpool(f.data, f.owner, f.pubkey);

  it('without the Oracle: not-quotable with a clear message; the oracle PDA is a dependency', () => {
    const p = new WhirlpoolPool({ address: f.pubkey, whirlpool: adaptivePool, tickArrays: [], slot: 1 });
    expect(p.notQuotable).toMatch(/adaptive-fee pool .* needs its Oracle account/);
    expect(() => p.quoteExactIn(adaptivePool.tokenMintA, 1000n)).toThrow(PoolQuoteError);
    expect(whirlpoolDependencies(f.pubkey, adaptivePool)).toContain(whirlpoolOracleAddress(f.pubkey));
  });

  function oracle(over: Partial<WhirlpoolOracle['adaptiveFeeConstants']>, vars: Partial<WhirlpoolOracle['adaptiveFeeVariables']> = {}): WhirlpoolOracle {
    return {
      whirlpool: SAMO_USDC,
      tradeEnableTimestamp: 0n,
      adaptiveFeeConstants: {
        filterPeriod: 30,
        decayPeriod: 600,
        reductionFactor: 5000,
        adaptiveFeeControlFactor: 4000,
        maxVolatilityAccumulator: 350_000,
        tickGroupSize: 64,
        majorSwapThresholdTicks: 64,
        ...over,
      },
      adaptiveFeeVariables: {
        lastReferenceUpdateTimestamp: 1_700_000_000n,
        lastMajorSwapTimestamp: 1_700_000_000n,
        volatilityReference: 0,
        tickGroupIndexReference: 0,
        volatilityAccumulator: 0,
        ...vars,
      },
    };
  }

  const ts = 1_700_000_010;
  it('control factor 0 gives exactly the static-fee quote; a volatile oracle charges more', () => {
    const base = samoPool();
    const flat = new WhirlpoolPool({ address: SAMO_USDC, whirlpool: samo, tickArrays: samoArrays, slot: 1, oracle: oracle({ adaptiveFeeControlFactor: 0 }), unixTimestamp: ts });
    for (const [input, amt] of [
      [A, 10_000_000_000_000n],
      [B, 2_000_000_000n],
    ] as const) {
      expect(flat.quoteExactIn(input, amt)).toEqual(base.quoteExactIn(input, amt));
      expect(flat.quoteExactOut(input, amt / 1000n)).toEqual(base.quoteExactOut(input, amt / 1000n));
    }
    const g = Math.floor(samo.tickCurrentIndex / 64);
    const volatile = new WhirlpoolPool({
      address: SAMO_USDC,
      whirlpool: samo,
      tickArrays: samoArrays,
      slot: 1,
      oracle: oracle({}, { tickGroupIndexReference: g - 20, volatilityReference: 100_000 }),
      unixTimestamp: ts,
    });
    const qs = base.quoteExactIn(A, 10_000_000_000_000n);
    const qv = volatile.quoteExactIn(A, 10_000_000_000_000n);
    expect(qv.feeAmount).toBeGreaterThan(qs.feeAmount);
    expect(qv.amountOut).toBeLessThan(qs.amountOut);
  });

  it('trading not yet enabled or no timestamp: not-quotable', () => {
    const o = { ...oracle({}), tradeEnableTimestamp: BigInt(ts + 100) };
    expect(new WhirlpoolPool({ address: SAMO_USDC, whirlpool: samo, tickArrays: samoArrays, slot: 1, oracle: o, unixTimestamp: ts }).notQuotable).toMatch(/trading opens/);
    expect(new WhirlpoolPool({ address: SAMO_USDC, whirlpool: samo, tickArrays: samoArrays, slot: 1, oracle: oracle({}) }).notQuotable).toMatch(/timestamp/);
  });
});
