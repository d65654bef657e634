/**
 * Each simulated program's swap equals the program's math: a swap on a copy of the pool's state,
 * replayed with libs/amm, gives the same result, and the pool's accounts after the swap are
 * exactly what that result says (vaults, pool fields, crossed ticks, oracle, curve).
 */
import { pumpAmmApplyTrade, pumpAmmBuyExactBase, pumpAmmBuyExactQuoteIn, pumpAmmFeeBps, pumpAmmSellExactBase, pumpAmmSellForQuote } from '@app/amm';
import {
  pumpFunApplyBuy,
  pumpFunApplySell,
  pumpFunBuyExactSolIn,
  pumpFunBuyExactTokens,
  pumpFunFeeBps,
  pumpFunSellExactTokens,
  pumpFunSellForSol,
  type PumpFunBuy,
  type PumpFunSell,
} from '@app/amm';
import { ammV4ApplySwap } from '@app/amm';
import { clmmSwap, type ClmmSwapResult } from '@app/amm';
import { cpmmApplySwap } from '@app/amm';
import { buildSwapTickSequence, tickArrayStartIndex, whirlpoolSwap } from '@app/amm';
import { getArrayStartIndex } from '@app/amm';
import type { PoolUpdate } from '@app/contracts';
import { decodeTickArray, decodeWhirlpool, decodeOracle } from '@app/solana';
import { decodeAmmV4Info } from '@app/solana';
import { decodeClmmPoolState, decodeClmmTickArrayState } from '@app/solana';
import { decodePumpBondingCurve } from '@app/solana';
import { decodeCpmmPoolState } from '@app/solana';
import { decodeTokenAccount } from '@app/solana';
import type { SimContext, SwapDraw } from '../context';
import { SimMarket } from '../market';
import { Prng } from '../prng';
import type { SimProgram, SimSwap } from './program';

const U128 = 1n << 128n;
const sub128 = (a: bigint, b: bigint): bigint => (((a - b) % U128) + U128) % U128;

const market = new SimMarket({ seed: 17, pools: 400, tokens: 80, swapsPerSlot: 8, programs: 'all' });
const ctx = (market as unknown as { ctx: SimContext }).ctx;
market.genesis();

function draws(seed: number, n: number): SwapDraw[] {
  const r = new Prng(seed);
  return Array.from({ length: n }, () => ({ u: r.next(), exactIn: r.chance(0.5), fraction: r.logUniform(1e-6, 0.03) }));
}

/** run `n` swaps on random pools of `prog`, checking each against `check(before, swap)` */
function drive<T>(prog: SimProgram, seed: number, n: number, clone: (i: number) => T, check: (i: number, before: T, s: SimSwap, written: Map<string, PoolUpdate>) => void, same: (i: number, before: T) => void): { applied: number; crossed: number } {
  const r = new Prng(seed);
  let applied = 0;
  const crossed = 0;
  for (const d of draws(seed + 1, n)) {
    const i = r.int(0, prog.pools.length - 1);
    const before = clone(i);
    const s = prog.swap(ctx, i, d);
    if (s === null) {
      same(i, before);
      continue;
    }
    applied++;
    const out: PoolUpdate[] = [];
    prog.changedAccounts(ctx, i, out);
    for (const u of out) expect(u.slot).toBe(ctx.slot);
    check(i, before, s, new Map(out.map((u) => [u.address, u])));
  }
  return { applied, crossed };
}

describe('simulated swaps equal the programs\' math', () => {
  it('Raydium CPMM: cpmmApplySwap', () => {
    const p = market.cpmm;
    const { applied } = drive(
      p,
      1,
      300,
      (i) => structuredClone(p.cpmmPools[i]),
      (i, b, s, w) => {
        const next = cpmmApplySwap(b.state, p.feeTiers[b.tier].config, b.vault0, b.vault1, s.aToB, s.mode, s.amount);
        expect(s.result).toEqual(next.result);
        const now = p.cpmmPools[i];
        expect(now.state).toEqual({ ...next.state, recentEpoch: ctx.epoch });
        expect([now.vault0, now.vault1]).toEqual([next.vault0, next.vault1]);
        expect(decodeCpmmPoolState(w.get(now.address)!.data!)).toEqual(now.state);
        expect(decodeTokenAccount(w.get(now.state.token0Vault)!.data!, w.get(now.state.token0Vault)!.owner).amount).toBe(now.vault0);
      },
      (i, b) => expect(p.cpmmPools[i]).toEqual(b),
    );
    expect(applied).toBeGreaterThan(100);
  });

  it('Raydium AMM v4: ammV4ApplySwap, swap statistics', () => {
    const p = market.ammV4;
    const { applied } = drive(
      p,
      2,
      300,
      (i) => structuredClone(p.ammPools[i]),
      (i, b, s, w) => {
        const next = ammV4ApplySwap(b.info, b.coin.amount, b.pc.amount, s.aToB, s.mode, s.amount);
        expect(s.result).toEqual(next.result);
        const now = p.ammPools[i];
        expect([now.coin.amount, now.pc.amount]).toEqual([next.coinVault, next.pcVault]);
        const sd = now.info.stateData;
        if (s.aToB) expect(sd.swapCoinInAmount - b.info.stateData.swapCoinInAmount).toBe(next.result.amountIn);
        else expect(sd.swapPcInAmount - b.info.stateData.swapPcInAmount).toBe(next.result.amountIn);
        expect(decodeAmmV4Info(w.get(now.address)!.data!, w.get(now.address)!.owner)).toEqual(now.info);
        expect(decodeTokenAccount(w.get(now.info.pcVault)!.data!, w.get(now.info.pcVault)!.owner).amount).toBe(now.pc.amount);
      },
      (i, b) => expect(p.ammPools[i]).toEqual(b),
    );
    expect(applied).toBeGreaterThan(100);
  });

  it('PumpSwap: the fee tier of the pool, buy / buy_exact_quote_in / sell, pumpAmmApplyTrade', () => {
    const p = market.pumpSwap;
    const { applied } = drive(
      p,
      3,
      300,
      (i) => structuredClone(p.pumpPools[i]),
      (i, b, s, w) => {
        const base = market.tokens[b.base.token];
        const f = pumpAmmFeeBps({ globalConfig: p.globalConfig, feeConfig: p.feeConfig, pool: b.state, canonical: b.canonical, baseMintSupply: base.supply, baseReserve: b.base.amount, quoteReserve: b.quote.amount });
        const buy = !s.aToB;
        const t = buy
          ? s.mode === 'ExactIn'
            ? pumpAmmBuyExactQuoteIn(b.base.amount, b.quote.amount, f, s.amount)
            : pumpAmmBuyExactBase(b.base.amount, b.quote.amount, f, s.amount)
          : s.mode === 'ExactIn'
            ? pumpAmmSellExactBase(b.base.amount, b.quote.amount, f, s.amount)
            : pumpAmmSellForQuote(b.base.amount, b.quote.amount, f, s.amount);
        expect(s.result).toEqual(t);
        const next = pumpAmmApplyTrade(b.base.amount, b.quote.amount, t);
        const now = p.pumpPools[i];
        expect([now.base.amount, now.quote.amount]).toEqual([next.baseVault, next.quoteVault]);
        const bv = w.get(now.state.poolBaseTokenAccount)!;
        expect(decodeTokenAccount(bv.data!, bv.owner).amount).toBe(now.base.amount);
      },
      (i, b) => expect(p.pumpPools[i]).toEqual(b),
    );
    expect(applied).toBeGreaterThan(100);
  });

  it('pump.fun: buy / buy_exact_sol_in / sell at the market-cap fee tier, the curve and its token account', () => {
    const p = market.pumpFun;
    const { applied } = drive(
      p,
      4,
      300,
      (i) => structuredClone(p.curves[i]),
      (i, b, s, w) => {
        const f = pumpFunFeeBps(p.global, p.feeConfig, b.curve);
        const buy = !s.aToB;
        const t = buy
          ? s.mode === 'ExactIn'
            ? pumpFunBuyExactSolIn(b.curve, f, s.amount)
            : pumpFunBuyExactTokens(b.curve, f, s.amount)
          : s.mode === 'ExactIn'
            ? pumpFunSellExactTokens(b.curve, f, s.amount)
            : pumpFunSellForSol(b.curve, f, s.amount);
        expect(s.result).toEqual(t);
        const now = p.curves[i];
        expect(now.curve).toEqual(buy ? pumpFunApplyBuy(b.curve, t as PumpFunBuy) : pumpFunApplySell(b.curve, t as PumpFunSell));
        const moved = buy ? -(t as PumpFunBuy).tokensOut : (t as PumpFunSell).tokensIn;
        expect(now.tokenAccount.amount).toBe(b.tokenAccount.amount + moved);
        const cu = w.get(now.address)!;
        expect(decodePumpBondingCurve(cu.data!, cu.owner)).toEqual(now.curve);
        expect(cu.lamports).toBeGreaterThan(now.curve.realQuoteReserves);
      },
      (i, b) => expect(p.curves[i]).toEqual(b),
    );
    expect(applied).toBeGreaterThan(100);
  });

  it('Orca Whirlpool: whirlpoolSwap over the program\'s tick-array sequence; pool fields, crossed ticks, oracle, vaults', () => {
    const p = market.whirlpool;
    let crossings = 0;
    let adaptive = 0;
    const { applied } = drive(
      p,
      5,
      160,
      (i) => structuredClone(p.whirlpools[i]),
      (i, b, s, w) => {
        const seq = buildSwapTickSequence(b.whirlpool.tickCurrentIndex, b.whirlpool.tickSpacing, s.aToB, (st) => {
          const ticks = b.arrays.get(st);
          return ticks ? { startTickIndex: st, ticks } : undefined;
        });
        const r = whirlpoolSwap(b.whirlpool, seq, {
          amount: s.amount,
          sqrtPriceLimit: s.sqrtPriceLimit ?? 0n,
          amountSpecifiedIsInput: s.mode === 'ExactIn',
          aToB: s.aToB,
          timestamp: ctx.unixTime,
          adaptiveFee: b.oracle ? { constants: b.oracle.adaptiveFeeConstants, variables: b.oracle.adaptiveFeeVariables } : null,
        });
        expect(s.result).toEqual(r);
        const now = p.whirlpools[i];
        const nw = now.whirlpool;
        expect(nw.liquidity).toBe(r.nextLiquidity);
        expect(nw.sqrtPrice).toBe(r.nextSqrtPrice);
        expect(nw.tickCurrentIndex).toBe(r.nextTickIndex);
        expect(s.aToB ? nw.feeGrowthGlobalA : nw.feeGrowthGlobalB).toBe(r.nextFeeGrowthGlobal);
        expect(s.aToB ? nw.feeGrowthGlobalB : nw.feeGrowthGlobalA).toBe(s.aToB ? b.whirlpool.feeGrowthGlobalB : b.whirlpool.feeGrowthGlobalA);
        expect(s.aToB ? nw.protocolFeeOwedA - b.whirlpool.protocolFeeOwedA : nw.protocolFeeOwedB - b.whirlpool.protocolFeeOwedB).toBe(r.nextProtocolFee);
        expect(nw.rewardLastUpdatedTimestamp).toBe(ctx.unixTime);
        expect(now.vaultA.amount - b.vaultA.amount).toBe(s.aToB ? r.amountA : -r.amountA);
        expect(now.vaultB.amount - b.vaultB.amount).toBe(s.aToB ? -r.amountB : r.amountB);
        // crossed ticks flip their fee growth outside against the fee growth at the crossing; no other tick changes
        const crossed = new Map(r.crossedTicks.map((t, k) => [t, r.crossedFeeGrowth[k]]));
        for (const [start, ticks] of now.arrays) {
          ticks.forEach((t, off) => {
            const idx = start + off * nw.tickSpacing;
            const old = b.arrays.get(start)![off];
            const g = crossed.get(idx);
            if (g === undefined) {
              if (t.feeGrowthOutsideA !== old.feeGrowthOutsideA || t.feeGrowthOutsideB !== old.feeGrowthOutsideB || t.liquidityNet !== old.liquidityNet) expect(t).toEqual(old);
            }
            else {
              expect(t.feeGrowthOutsideA).toBe(sub128(s.aToB ? g : b.whirlpool.feeGrowthGlobalA, old.feeGrowthOutsideA));
              expect(t.feeGrowthOutsideB).toBe(sub128(s.aToB ? b.whirlpool.feeGrowthGlobalB : g, old.feeGrowthOutsideB));
              expect(t.liquidityNet).toBe(old.liquidityNet);
            }
          });
        }
        crossings += r.crossedTicks.length;
        if (now.oracle) {
          adaptive++;
          expect(now.oracle.adaptiveFeeVariables).toEqual(r.nextAdaptiveFeeVariables);
          expect(decodeOracle(w.get(now.oracleAddress!)!.data!).adaptiveFeeVariables).toEqual(now.oracle.adaptiveFeeVariables);
        }
        // what was written: the pool and the arrays holding crossed ticks decode to the new state
        expect(decodeWhirlpool(w.get(now.address)!.data!)).toEqual(nw);
        for (const t of r.crossedTicks) {
          const st = tickArrayStartIndex(t, nw.tickSpacing);
          expect(decodeTickArray(w.get(now.arrayAddress.get(st)!)!.data!).ticks).toEqual(now.arrays.get(st));
        }
      },
      (i, b) => expect([p.whirlpools[i].whirlpool, p.whirlpools[i].vaultA.amount, p.whirlpools[i].vaultB.amount]).toEqual([b.whirlpool, b.vaultA.amount, b.vaultB.amount]),
    );
    expect(applied).toBeGreaterThan(60);
    expect(crossings).toBeGreaterThanOrEqual(3);
    expect(adaptive).toBeGreaterThan(0);
  });

  it('Raydium CLMM: clmmSwap over the bitmap-found tick arrays; pool fields, fee growth, crossed ticks, vaults', () => {
    const p = market.clmm;
    let crossings = 0;
    const { applied } = drive(
      p,
      6,
      160,
      (i) => structuredClone(p.clmmPools[i]),
      (i, b, s, w) => {
        const cfg = p.configs[b.tier].config;
        const on0 = s.aToB;
        const r: ClmmSwapResult = clmmSwap(
          {
            tickSpacing: b.state.tickSpacing,
            liquidity: b.state.liquidity,
            sqrtPriceX64: b.state.sqrtPriceX64,
            tickCurrent: b.state.tickCurrent,
            feeOn: b.state.feeOn,
            tradeFeeRate: cfg.tradeFeeRate,
            protocolFeeRate: cfg.protocolFeeRate,
            fundFeeRate: cfg.fundFeeRate,
            dynamicFeeInfo: null,
            feeGrowthGlobalX64: on0 ? b.state.feeGrowthGlobal0X64 : b.state.feeGrowthGlobal1X64,
          },
          b.bitmaps,
          b.arrays,
          { zeroForOne: s.aToB, isBaseInput: s.mode === 'ExactIn', amount: s.amount, sqrtPriceLimitX64: s.sqrtPriceLimit ?? 0n },
        );
        expect(s.result).toEqual(r);
        const now = p.clmmPools[i];
        const ns = now.state;
        expect([ns.sqrtPriceX64, ns.tickCurrent, ns.liquidity]).toEqual([r.sqrtPriceX64, r.tickCurrent, r.liquidity]);
        expect(on0 ? ns.feeGrowthGlobal0X64 : ns.feeGrowthGlobal1X64).toBe(r.feeGrowth!.feeGrowthGlobalX64);
        expect(on0 ? ns.protocolFeesToken0 - b.state.protocolFeesToken0 : ns.protocolFeesToken1 - b.state.protocolFeesToken1).toBe(r.protocolFee);
        expect(on0 ? ns.fundFeesToken0 - b.state.fundFeesToken0 : ns.fundFeesToken1 - b.state.fundFeesToken1).toBe(r.fundFee);
        expect(now.vault0.amount - b.vault0.amount).toBe(s.aToB ? r.amountIn : -r.amountOut);
        expect(now.vault1.amount - b.vault1.amount).toBe(s.aToB ? -r.amountOut : r.amountIn);
        const crossed = new Map(r.feeGrowth!.crossings.map((c) => [c.tick, c.feeGrowthGlobalX64]));
        expect(crossed.size).toBe(r.ticksCrossed);
        for (const [start, arr] of now.arrays) {
          arr.ticks.forEach((t, off) => {
            const old = b.arrays.get(start)!.ticks[off];
            const g = crossed.get(start + off * ns.tickSpacing);
            if (g === undefined || old.liquidityGross === 0n) {
              if (t.feeGrowthOutside0X64 !== old.feeGrowthOutside0X64 || t.feeGrowthOutside1X64 !== old.feeGrowthOutside1X64 || t.liquidityNet !== old.liquidityNet) expect(t).toEqual(old);
            }
            else {
              expect(t.feeGrowthOutside0X64).toBe(sub128(on0 ? g : b.state.feeGrowthGlobal0X64, old.feeGrowthOutside0X64));
              expect(t.feeGrowthOutside1X64).toBe(sub128(on0 ? b.state.feeGrowthGlobal1X64 : g, old.feeGrowthOutside1X64));
            }
          });
        }
        crossings += r.ticksCrossed;
        expect(decodeClmmPoolState(w.get(now.address)!.data!)).toEqual(ns);
        for (const t of crossed.keys()) {
          const st = getArrayStartIndex(t, ns.tickSpacing);
          expect(decodeClmmTickArrayState(w.get(now.arrayAddress.get(st)!)!.data!)).toEqual(now.arrays.get(st));
        }
      },
      (i, b) => expect([p.clmmPools[i].state, p.clmmPools[i].vault0.amount, p.clmmPools[i].vault1.amount]).toEqual([b.state, b.vault0.amount, b.vault1.amount]),
    );
    expect(applied).toBeGreaterThan(60);
    expect(crossings).toBeGreaterThanOrEqual(3);
  });
});



