import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { PoolQuoteError } from '../../pool';
import { decodeAmmV4Info, type AmmV4Fees, type AmmV4Info } from '@app/solana';
import { decodeTokenAccount } from '@app/solana';
import { MINTS } from '@app/solana';
import { ammV4ApplySwap, ammV4Reserves, ammV4SwapBaseIn, ammV4SwapBaseOut } from './math';
import { AmmV4Pool, ammV4Dependencies } from './pool';

const FIXTURES = path.resolve(__dirname, '../../../../..', '..', 'shared', 'fixtures');
const DIR = path.join(FIXTURES, 'raydium-amm-v4', 'unattributed');
const POOL = '58oQChx4yWmvKdwLLZzBi4ChoCc2fqCUWBkwMihLYQo2';

function account(file: string): { pubkey: string; owner: string; data: Buffer } {
  const j = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'));
  return { pubkey: j.pubkey, owner: j.account.owner, data: Buffer.from(j.account.data[0], 'base64') };
}

function capturedPool(): { info: AmmV4Info; coinVault: bigint; pcVault: bigint } {
  const a = account(`amm_info.${POOL}.captured2026-08-06.json`);
  const c = account('coin_vault.DQyrAcCrDXQ7NeoqGgDCZwBvWDcYmFCjSb9JtteuvPpz.captured2026-08-06.json');
  const p = account('pc_vault.HLmqeL62xR1QoZ1HKKbXRrdN1p3phKpxRMb2VVopvBBz.captured2026-08-06.json');
  return {
    info: decodeAmmV4Info(a.data, a.owner, a.pubkey),
    coinVault: decodeTokenAccount(c.data, c.owner, c.pubkey).amount,
    pcVault: decodeTokenAccount(p.data, p.owner, p.pubkey).amount,
  };
}

const FEE_25BPS: AmmV4Fees = {
  minSeparateNumerator: 5n,
  minSeparateDenominator: 10_000n,
  tradeFeeNumerator: 25n,
  tradeFeeDenominator: 10_000n,
  pnlNumerator: 12n,
  pnlDenominator: 100n,
  swapFeeNumerator: 25n,
  swapFeeDenominator: 10_000n,
};

const feeOf = (num: bigint, den: bigint): AmmV4Fees => ({ ...FEE_25BPS, swapFeeNumerator: num, swapFeeDenominator: den });

function reason(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof PoolQuoteError) return e.reason;
    throw e;
  }
  return 'ok';
}

/** The SDK's computeAmountIn (Liquidity.computeAmountIn): both divisions floor. Not the chain. */
function sdkFloorAmountIn(out: bigint, x: bigint, y: bigint, f: AmmV4Fees): bigint {
  const withoutFee = (x * out) / (y - out);
  return (withoutFee * f.swapFeeDenominator) / (f.swapFeeDenominator - f.swapFeeNumerator);
}

describe('hand-checked vectors', () => {
  it('ExactIn: fee ceil, output floor', () => {
    // fee = ceil(10000 * 25 / 10000) = 25; net 9975; out = floor(2e6 * 9975 / 1_009_975) = 19752
    expect(ammV4SwapBaseIn(10_000n, 1_000_000n, 2_000_000n, FEE_25BPS)).toEqual({ amountIn: 10_000n, amountOut: 19_752n, fee: 25n });
    // fee = ceil(1001 * 25 / 10000) = ceil(2.5025) = 3 (a floor would take 2); net 998 -> 1994
    expect(ammV4SwapBaseIn(1001n, 1_000_000n, 2_000_000n, FEE_25BPS)).toEqual({ amountIn: 1001n, amountOut: 1994n, fee: 3n });
  });

  it('ExactOut: the input rounds up twice; the SDK floor comes out 2 units low and would fail on chain', () => {
    // beforeFee = ceil(1e6 * 1000 / 1_999_000) = ceil(500.25) = 501
    // in = ceil(501 * 10000 / 9975) = ceil(502.26) = 503; fee = 2
    const r = ammV4SwapBaseOut(1000n, 1_000_000n, 2_000_000n, FEE_25BPS);
    expect(r).toEqual({ amountIn: 503n, amountOut: 1000n, fee: 2n });
    // the SDK: floor(500.25) = 500, floor(500 * 10000 / 9975) = floor(501.25) = 501
    const sdk = sdkFloorAmountIn(1000n, 1_000_000n, 2_000_000n, FEE_25BPS);
    expect(sdk).toBe(501n);
    expect(r.amountIn - sdk).toBe(2n);
    // max_amount_in = 501 fails on chain (ExceededSlippage); and 501 in buys only 997 out
    expect(ammV4SwapBaseIn(sdk, 1_000_000n, 2_000_000n, FEE_25BPS).amountOut).toBe(997n);
    // the chain's 503 buys at least the 1000 asked
    expect(ammV4SwapBaseIn(503n, 1_000_000n, 2_000_000n, FEE_25BPS).amountOut).toBe(1001n);
  });

  it('ExactOut on the SOL/USDC capture: 100 USDC out for SOL in', () => {
    const { info, coinVault, pcVault } = capturedPool();
    const { coin, pc } = ammV4Reserves(info, coinVault, pcVault);
    const r = ammV4SwapBaseOut(100_000_000n, coin, pc, info.fees);
    // beforeFee = ceil(67661004799950 * 1e8 / 4936081262839) = ceil(1370743332.56) = 1_370_743_333
    // in = ceil(1370743333 * 10000 / 9975) = ceil(1374178779.95) = 1_374_178_780
    expect(r).toEqual({ amountIn: 1_374_178_780n, amountOut: 100_000_000n, fee: 1_374_178_780n - 1_370_743_333n });
    // the SDK: floor(1370743332.56) = 1370743332, floor(1370743332 * 10000 / 9975) = floor(1374178778.95)
    expect(sdkFloorAmountIn(100_000_000n, coin, pc, info.fees)).toBe(1_374_178_778n); // 2 units low
    expect(ammV4SwapBaseIn(1_374_178_778n, coin, pc, info.fees).amountOut).toBeLessThan(100_000_000n);
    expect(ammV4SwapBaseIn(1_374_178_780n, coin, pc, info.fees).amountOut).toBeGreaterThanOrEqual(100_000_000n);
  });

  it('errors where the program errors', () => {
    expect(reason(() => ammV4SwapBaseIn(0n, 1000n, 1000n, FEE_25BPS))).toBe('zero-output');
    // fee ceil(1 * 25 / 1e4) = 1 leaves nothing
    expect(reason(() => ammV4SwapBaseIn(1n, 1000n, 1000n, FEE_25BPS))).toBe('zero-output');
    // empty output reserve: nothing out (InvalidInput)
    expect(reason(() => ammV4SwapBaseIn(100n, 0n, 0n, FEE_25BPS))).toBe('zero-output');
    // an empty input reserve would pay out the whole output reserve: InsufficientFunds
    expect(reason(() => ammV4SwapBaseIn(100n, 0n, 1000n, FEE_25BPS))).toBe('insufficient-liquidity');
    expect(reason(() => ammV4SwapBaseOut(0n, 1000n, 1000n, FEE_25BPS))).toBe('zero-output');
    expect(reason(() => ammV4SwapBaseOut(1000n, 1000n, 1000n, FEE_25BPS))).toBe('insufficient-liquidity');
    expect(reason(() => ammV4SwapBaseOut(1001n, 1000n, 1000n, FEE_25BPS))).toBe('insufficient-liquidity');
    // an input beyond u64
    expect(reason(() => ammV4SwapBaseOut(2n ** 63n, 2n ** 63n, 2n ** 63n + 1n, FEE_25BPS))).toBe('insufficient-liquidity');
    expect(reason(() => ammV4SwapBaseIn(100n, 1000n, 1000n, feeOf(1n, 0n)))).toBe('not-quotable');
    expect(reason(() => ammV4SwapBaseIn(100n, 1000n, 1000n, feeOf(5n, 5n)))).toBe('not-quotable');
  });

  it('reserves are vault balances minus needTakePnl; a vault below the pnl owed is not quotable', () => {
    const a = account(`amm_info.${POOL}.slot453868631.json`);
    const info = decodeAmmV4Info(a.data, a.owner);
    expect(ammV4Reserves(info, 1_000_000_000_000n, 2_000_000_000n)).toEqual({
      coin: 1_000_000_000_000n - 183_502_858n,
      pc: 2_000_000_000n - 21_928_100n,
    });
    expect(reason(() => ammV4Reserves(info, 183_502_857n, 1n << 40n))).toBe('not-quotable');
  });
});

describe('AmmV4Pool on the SOL/USDC capture', () => {
  const { info, coinVault, pcVault } = capturedPool();
  const pool = new AmmV4Pool({ address: POOL, info, coinVaultAmount: coinVault, pcVaultAmount: pcVault, slot: 1 });

  it('identity, fee, dependencies', () => {
    expect(pool.label).toBe('Raydium AMM v4');
    expect(pool.kind).toBe('constant-product');
    expect(pool.mintA).toBe(MINTS.SOL);
    expect(pool.mintB).toBe(MINTS.USDC);
    expect(pool.feeBps).toBe(25);
    expect(pool.notQuotable).toBeNull();
    expect(ammV4Dependencies(info)).toEqual([info.coinVault, info.pcVault, MINTS.SOL, MINTS.USDC]);
  });

  it('1 SOL -> USDC: exact integer quote, ~72.77 USDC after the 0.25 % fee', () => {
    const q = pool.quoteExactIn(MINTS.SOL, 1_000_000_000n);
    // fee = ceil(1e9 * 25 / 1e4) = 2_500_000; out = floor(4936181262839 * 997500000 / (67661004799950 + 997500000))
    expect(q.feeAmount).toBe(2_500_000n);
    expect(q.amountOut).toBe((4_936_181_262_839n * 997_500_000n) / (67_661_004_799_950n + 997_500_000n));
    expect(Number(q.amountOut) / 1e6).toBeCloseTo(72.77, 1);
    expect(pool.approxOut(MINTS.SOL, 1e9)).toBeCloseTo(Number(q.amountOut), -1);
  });

  it('ExactOut and approxIn agree; spot price and reserves', () => {
    const q = pool.quoteExactOut(MINTS.USDC, 1_000_000_000n); // 1 SOL out for USDC
    expect(q.amountOut).toBe(1_000_000_000n);
    expect(Math.abs(pool.approxIn(MINTS.USDC, 1e9) - Number(q.amountIn))).toBeLessThan(3);
    expect(pool.spotPrice(MINTS.SOL)).toBeCloseTo(4_936_181_262_839 / 67_661_004_799_950, 12);
    expect(pool.reserve(MINTS.SOL)).toBe(67_661_004_799_950);
    expect(pool.reserve(MINTS.USDC)).toBe(4_936_181_262_839);
    expect(() => pool.reserve(MINTS.USDT)).toThrow();
    expect(pool.approxIn(MINTS.USDC, 1e20)).toBe(Infinity);
  });

  it('not quotable: status without swap permission, WaitingTrade before open time, pnl above the vault', () => {
    const disabled = new AmmV4Pool({ address: POOL, info: { ...info, status: 4n }, coinVaultAmount: coinVault, pcVaultAmount: pcVault, slot: 1 });
    expect(reason(() => disabled.quoteExactIn(MINTS.SOL, 1000n))).toBe('not-quotable');
    expect(disabled.approxOut(MINTS.SOL, 1000)).toBe(0);
    const waiting = { ...info, status: 7n, stateData: { ...info.stateData, poolOpenTime: 2_000_000_000n } };
    const early = new AmmV4Pool({ address: POOL, info: waiting, coinVaultAmount: coinVault, pcVaultAmount: pcVault, slot: 1, unixTimestamp: 1_999_999_999 });
    expect(reason(() => early.quoteExactOut(MINTS.SOL, 1000n))).toBe('not-quotable');
    const open = new AmmV4Pool({ address: POOL, info: waiting, coinVaultAmount: coinVault, pcVaultAmount: pcVault, slot: 1, unixTimestamp: 2_000_000_000 });
    expect(open.quoteExactIn(MINTS.SOL, 1_000_000n).amountOut).toBeGreaterThan(0n);
    const owed = { ...info, stateData: { ...info.stateData, needTakePnlPc: pcVault + 1n } };
    expect(new AmmV4Pool({ address: POOL, info: owed, coinVaultAmount: coinVault, pcVaultAmount: pcVault, slot: 1 }).notQuotable).toMatch(/pnl owed/);
  });

  it('ammV4ApplySwap moves the vaults by exactly the quote', () => {
    const r = ammV4ApplySwap(info, coinVault, pcVault, true, 'ExactIn', 5_000_000_000n);
    expect(r.coinVault).toBe(coinVault + 5_000_000_000n);
    expect(r.pcVault).toBe(pcVault - pool.quoteExactIn(MINTS.SOL, 5_000_000_000n).amountOut);
    const back = ammV4ApplySwap(info, coinVault, pcVault, false, 'ExactOut', 1_000_000_000n);
    expect(back.coinVault).toBe(coinVault - 1_000_000_000n);
    expect(back.pcVault).toBe(pcVault + pool.quoteExactOut(MINTS.USDC, 1_000_000_000n).amountIn);
  });
});

const arbReserve = fc.oneof(fc.bigInt({ min: 1n, max: 10_000n }), fc.bigInt({ min: 1n, max: 10n ** 18n }));
const arbAmount = fc.oneof(fc.bigInt({ min: 1n, max: 100_000n }), fc.bigInt({ min: 1n, max: 10n ** 18n }));
const arbFees = fc
  .tuple(fc.bigInt({ min: 1n, max: 1_000_000n }), fc.double({ min: 0, max: 0.1, noNaN: true }))
  .map(([den, share]) => feeOf(BigInt(Math.floor(Number(den) * share)), den));

function tryQ<T>(f: () => T): T | null {
  try {
    return f();
  } catch (e) {
    if (e instanceof PoolQuoteError) return null;
    throw e;
  }
}

describe('properties', () => {
  it('monotone: more in never gives less out; more out never costs less in', () => {
    fc.assert(
      fc.property(arbReserve, arbReserve, arbFees, arbAmount, arbAmount, (x, y, f, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const ql = tryQ(() => ammV4SwapBaseIn(lo, x, y, f));
        const qh = tryQ(() => ammV4SwapBaseIn(hi, x, y, f));
        if (ql && qh) expect(qh.amountOut).toBeGreaterThanOrEqual(ql.amountOut);
        const ol = tryQ(() => ammV4SwapBaseOut(lo, x, y, f));
        const oh = tryQ(() => ammV4SwapBaseOut(hi, x, y, f));
        if (ol && oh) expect(oh.amountIn).toBeGreaterThanOrEqual(ol.amountIn);
        if (oh) expect(ol).not.toBeNull(); // a smaller output is always fillable if a larger one is
      }),
      { numRuns: 500 },
    );
  });

  it('fees >= 0, fee <= input, output below the reserve', () => {
    fc.assert(
      fc.property(arbReserve, arbReserve, arbFees, arbAmount, fc.boolean(), (x, y, f, a, exactIn) => {
        const q = tryQ(() => (exactIn ? ammV4SwapBaseIn(a, x, y, f) : ammV4SwapBaseOut(a, x, y, f)));
        if (!q) return;
        expect(q.fee).toBeGreaterThanOrEqual(0n);
        expect(q.fee).toBeLessThanOrEqual(q.amountIn);
        expect(q.amountOut).toBeLessThan(y);
        expect(q.amountOut).toBeGreaterThan(0n);
      }),
      { numRuns: 500 },
    );
  });

  it('ExactOut asks at least the input ExactIn needs, and that input buys the output', () => {
    fc.assert(
      fc.property(arbReserve, arbReserve, arbFees, arbAmount, (x, y, f, out) => {
        const q = tryQ(() => ammV4SwapBaseOut(out, x, y, f));
        if (!q) return;
        const forward = ammV4SwapBaseIn(q.amountIn, x, y, f);
        expect(forward.amountOut).toBeGreaterThanOrEqual(out);
        if (q.amountIn > 1n) {
          // one unit less than ExactOut's input: either it still buys `out` (ExactOut asked more
          // than needed, allowed) or it does not; ExactOut never asks less than needed
          const less = tryQ(() => ammV4SwapBaseIn(q.amountIn - 1n, x, y, f));
          if (less && less.amountOut >= out) expect(q.amountIn).toBeGreaterThan(q.amountIn - 1n);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('no value created: a round trip never returns more than was put in; k never decreases', () => {
    fc.assert(
      fc.property(arbReserve, arbReserve, arbFees, arbAmount, (x, y, f, a) => {
        const there = tryQ(() => ammV4SwapBaseIn(a, x, y, f));
        if (!there) return;
        const x2 = x + there.amountIn;
        const y2 = y - there.amountOut;
        expect(x2 * y2).toBeGreaterThanOrEqual(x * y);
        const back = tryQ(() => ammV4SwapBaseIn(there.amountOut, y2, x2, f));
        if (back) expect(back.amountOut).toBeLessThanOrEqual(a);
      }),
      { numRuns: 500 },
    );
  });

  it('the SDK floor formula is never above the chain and at most 1 + ceil(den / (den - num)) units below (2 at 0.25 %)', () => {
    fc.assert(
      fc.property(arbReserve, arbReserve, arbFees, arbAmount, (x, y, f, out) => {
        const q = tryQ(() => ammV4SwapBaseOut(out, x, y, f));
        if (!q) return;
        const sdk = sdkFloorAmountIn(out, x, y, f);
        expect(q.amountIn - sdk).toBeGreaterThanOrEqual(0n);
        const den = f.swapFeeDenominator;
        const bound = 1n + (den + (den - f.swapFeeNumerator) - 1n) / (den - f.swapFeeNumerator);
        expect(q.amountIn - sdk).toBeLessThanOrEqual(bound);
      }),
      { numRuns: 500 },
    );
  });
});
