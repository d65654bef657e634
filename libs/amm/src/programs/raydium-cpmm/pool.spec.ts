import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { _testing } from '../../routing/compiled-graph';
import { PoolQuoteError } from '../../pool';
import { PROGRAM_IDS } from '@app/solana';
import {
  decodeCpmmAmmConfig,
  decodeCpmmPoolState,
  type CpmmAmmConfig,
  type CpmmPoolState,
} from '@app/solana';
import { CpmmPool, cpmmPoolDependencies } from './pool';
import { cpmmFeeRates, cpmmSwapBaseInput, cpmmSwapBaseOutput } from './math';

const FIXTURES = path.resolve(__dirname, '../../../../..', '..', 'shared', 'fixtures');
function account(file: string): { data: Buffer; owner: string; pubkey: string } {
  const j = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'raydium-cpmm', file), 'utf8'));
  return { data: Buffer.from(j.account.data[0], 'base64'), owner: j.account.owner, pubkey: j.pubkey };
}

// the real FmNz8z2 SOL pool and its real AmmConfig 2fGXL8u (2 % trade fee, creator fee off)
const poolAcc = account('unattributed/pool_state.FmNz8z2oN4CheHj4EUXVXC6doFN4RRmhGwxFQgrJVJFs.json');
const configAcc = account('unattributed/amm_config.2fGXL8uhqxJ4tpgtosHZXT4zcQap6j62z3bMDxdkMvy5.json');
const state: CpmmPoolState = decodeCpmmPoolState(poolAcc.data, poolAcc.owner, poolAcc.pubkey);
const config: CpmmAmmConfig = decodeCpmmAmmConfig(configAcc.data, configAcc.owner, configAcc.pubkey);
const owed0 = state.protocolFeesToken0 + state.fundFeesToken0 + state.creatorFeesToken0;
const owed1 = state.protocolFeesToken1 + state.fundFeesToken1 + state.creatorFeesToken1;
const R0 = 85_000_000_000n; // 85 SOL
const R1 = 1_234_567_890_000_000n;

function makePool(over: Partial<CpmmPoolState> = {}, extra: { unixTimestamp?: number; config?: CpmmAmmConfig } = {}) {
  return new CpmmPool({
    address: poolAcc.pubkey,
    state: { ...state, ...over },
    config: extra.config ?? config,
    vault0Amount: owed0 + R0,
    vault1Amount: owed1 + R1,
    slot: 123,
    unixTimestamp: extra.unixTimestamp,
  });
}

describe('CpmmPool', () => {
  const pool = makePool();

  it('describes itself', () => {
    expect(pool.kind).toBe('constant-product');
    expect(pool.label).toBe('Raydium CPMM');
    expect(pool.programId).toBe(PROGRAM_IDS.raydiumCpmm);
    expect(pool.mintA).toBe(state.token0Mint);
    expect(pool.mintB).toBe(state.token1Mint);
    expect(pool.feeBps).toBe(200); // 20000 / 1e6 = 2 %
    expect(makePool({ enableCreatorFee: true }).feeBps).toBe(205); // + creator 500 / 1e6
    expect(pool.slot).toBe(123);
    expect(pool.reserve(state.token0Mint)).toBe(Number(R0));
    expect(pool.reserve(state.token1Mint)).toBe(Number(R1));
    expect(pool.spotPrice(state.token0Mint)).toBeCloseTo(Number(R1) / Number(R0), 6);
    expect(cpmmPoolDependencies(state)).toEqual([
      state.ammConfig,
      state.token0Vault,
      state.token1Vault,
      state.token0Mint,
      state.token1Mint,
    ]);
    expect(() => pool.quoteExactIn(PROGRAM_IDS.system, 1n)).toThrow(/not in pool/);
  });

  it('exact quotes are the math on reserves net of fees owed, both directions and modes', () => {
    for (const zeroForOne of [true, false]) {
      const input = zeroForOne ? state.token0Mint : state.token1Mint;
      const [x, y] = zeroForOne ? [R0, R1] : [R1, R0];
      const fees = cpmmFeeRates(state, config, zeroForOne);
      const amount = zeroForOne ? 1_000_000_000n : 10_000_000_000_000n;
      const e = cpmmSwapBaseInput(amount, x, y, fees);
      expect(pool.quoteExactIn(input, amount)).toEqual({ amountIn: amount, amountOut: e.amountOut, feeAmount: e.tradeFee });
      const o = cpmmSwapBaseOutput(e.amountOut, x, y, fees);
      expect(pool.quoteExactOut(input, e.amountOut)).toEqual({ amountIn: o.amountIn, amountOut: e.amountOut, feeAmount: o.tradeFee });
      expect(o.amountIn).toBeLessThanOrEqual(amount);
    }
  });

  it('reports the creator fee in the fee amount (input units)', () => {
    const p = makePool({ enableCreatorFee: true, creatorFeeOn: 0 });
    const q = p.quoteExactIn(state.token0Mint, 1_000_000_000n);
    // ceil(1e9 * 20500 / 1e6) = 20_500_000 total, of which creator floor(20.5e6 * 500 / 20500) = 500_000
    expect(q.feeAmount).toBe(20_500_000n);
    const p2 = makePool({ enableCreatorFee: true, creatorFeeOn: 2 }); // token0 -> token1: fee on the output
    const q2 = p2.quoteExactIn(state.token0Mint, 1_000_000_000n);
    expect(q2.feeAmount).toBeGreaterThan(20_000_000n);
    expect(q2.feeAmount).toBeLessThan(20_500_001n);
  });

  it('is not quotable when swaps are disabled, before open time, or vaults are below fees owed', () => {
    for (const p of [
      makePool({ status: 4 }),
      makePool({ status: 7 }),
      makePool({}, { unixTimestamp: Number(state.openTime) - 1 }),
      new CpmmPool({ address: 'x', state, config, vault0Amount: owed0 - 1n, vault1Amount: owed1, slot: 1 }),
      makePool({ creatorFeeOn: 9 }),
    ]) {
      expect(p.notQuotable).not.toBeNull();
      expect(() => p.quoteExactIn(state.token0Mint, 10n)).toThrow(PoolQuoteError);
      try {
        p.quoteExactOut(state.token1Mint, 10n);
      } catch (e) {
        expect((e as PoolQuoteError).reason).toBe('not-quotable');
      }
      expect(p.approxOut(state.token0Mint, 1e9)).toBe(0);
      expect(p.approxIn(state.token0Mint, 1e9)).toBe(Infinity);
    }
    // deposit/withdraw bits alone do not stop swaps; open time reached is fine
    expect(makePool({ status: 3 }).notQuotable).toBeNull();
    expect(makePool({}, { unixTimestamp: Number(state.openTime) }).notQuotable).toBeNull();
  });

  it('passes through insufficient-liquidity and zero-output', () => {
    expect(() => pool.quoteExactOut(state.token1Mint, R0)).toThrow(expect.objectContaining({ reason: 'insufficient-liquidity' }));
    expect(() => pool.quoteExactIn(state.token0Mint, 1n)).toThrow(expect.objectContaining({ reason: 'zero-output' }));
    expect(pool.approxIn(state.token1Mint, Number(R0))).toBe(Infinity);
  });

  it('approxOut / approxIn track the exact quotes closely', () => {
    for (const creator of [
      {},
      { enableCreatorFee: true, creatorFeeOn: 1 },
      { enableCreatorFee: true, creatorFeeOn: 2 },
    ]) {
      const p = makePool(creator);
      fc.assert(
        fc.property(fc.boolean(), fc.double({ min: 1e-6, max: 0.9, noNaN: true }), (z, frac) => {
          const input = z ? state.token0Mint : state.token1Mint;
          const reserveIn = Number(z ? R0 : R1);
          const amountIn = BigInt(Math.floor(reserveIn * frac));
          const exact = p.quoteExactIn(input, amountIn);
          const approx = p.approxOut(input, Number(amountIn));
          // the integer fee rounds up by < 1 input unit, worth up to one spot price of output
          const slack = Number(exact.amountOut) * 1e-9 + 2 + 1.01 * p.spotPrice(input);
          expect(Math.abs(approx - Number(exact.amountOut))).toBeLessThanOrEqual(slack);
          const back = p.approxIn(input, Number(exact.amountOut));
          const exactIn = p.quoteExactOut(input, exact.amountOut).amountIn;
          // an output-side creator fee grosses the output up by < 1 output unit
          const slackIn = Number(exactIn) * 1e-9 + 3 + 1.1 / p.spotPrice(input);
          expect(Math.abs(back - Number(exactIn))).toBeLessThanOrEqual(slackIn);
        }),
        { numRuns: 200 },
      );
    }
  });

  it('constantProductGuide: the route search evaluates the float guides from it bit for bit', () => {
    const packed = (g: { x: number; y: number; kIn: number; kOut: number }) => Float64Array.of(0, g.x, g.y, g.kIn, g.kOut);
    const out = (g: { x: number; y: number; kIn: number; kOut: number }, a: number): number => _testing.guideOut(packed(g), 1, a);
    const inn = (g: { x: number; y: number; kIn: number; kOut: number }, b: number): number => _testing.guideIn(packed(g), 1, b);
    const pools = [makePool({}), makePool({ enableCreatorFee: true, creatorFeeOn: 1 }), makePool({ enableCreatorFee: true, creatorFeeOn: 2 }), makePool({ status: 4 })];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: pools.length - 1 }), fc.boolean(), fc.double({ min: 0, max: 2 * Number(R0), noNaN: true }), (i, z, amount) => {
        const p = pools[i];
        const input = z ? state.token0Mint : state.token1Mint;
        const g = p.constantProductGuide(input);
        expect(out(g, amount)).toBe(p.approxOut(input, amount));
        expect(inn(g, amount)).toBe(p.approxIn(input, amount));
      }),
      { numRuns: 500 },
    );
  });
});
