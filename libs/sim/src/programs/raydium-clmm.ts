/**
 * Raydium CLMM in the simulated market: AmmConfig accounts (index 0..3: tick spacing 1 / 10 / 60 /
 * 120, fee 0.01% / 0.05% / 0.25% / 1%; protocol 12% / fund 4% of the fee) at their PDAs, PoolState
 * accounts at ["pool", config, mint0, mint1] (mint0 < mint1 bytewise), the initialized tick arrays
 * (only arrays holding initialized ticks exist; the pool's bitmap and, beyond its range, the
 * TickArrayBitmapExtension say which), the extension account for spacings below 15 (where the
 * program requires it), and the vaults (owner field = the pool).
 *
 * Liquidity: a wide base position and 6-16 narrower ones (cl-shape.ts), built with
 * `buildSyntheticClmm`, which sets the bitmaps as the program does. Swaps run `clmmSwap` with the
 * pool's fee growth tracked; the pool takes the result's price, tick, liquidity, fee growth,
 * protocol and fund fees; each crossed tick flips its fee growth outside against the fee growth
 * at the crossing.
 */
import type { PoolUpdate } from '@app/contracts';
import {
  ClmmMathError,
  CLMM_MAX_SQRT_PRICE_X64 as MAX_SQRT_PRICE_X64,
  MAX_TICK,
  CLMM_MIN_SQRT_PRICE_X64 as MIN_SQRT_PRICE_X64,
  MIN_TICK,
  getDeltaAmount0,
  getDeltaAmount1,
  getSqrtPriceAtTick,
  getTickAtSqrtPrice,
} from '@app/amm';
import { clmmSwap, type ClmmSwapResult } from '@app/amm';
import { buildSyntheticClmm } from '@app/amm';
import { getArrayStartIndex, prepareBitmaps, type ClmmBitmaps } from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import {
  CLMM_SEEDS,
  clmmEmptyTick,
  encodeClmmAmmConfig,
  encodeClmmPoolState,
  encodeClmmTickArrayBitmapExtension,
  encodeClmmTickArrayState,
  type ClmmAmmConfig,
  type ClmmPoolState,
  type ClmmTickArrayBitmapExtension,
  type ClmmTickArrayState,
  type ClmmTickState,
} from '@app/solana';
import { MEMO_PROGRAM_ID } from '@app/solana';
import { pda, randomKey, raw, type SimContext, type SimVault, type SwapDraw } from '../context';
import type { Prng } from '../prng';
import { planPositions, positionAmounts, sqrtPriceX64Of, wrapSub128, planClSwap } from './cl-shape';
import type { PlannedPool, SimPoolInfo, SimProgram, SimSwap } from './program';
import { clampDepth } from './raydium-cpmm';

const PROGRAM = PROGRAM_IDS.raydiumClmm;
export const CLMM_TIERS: readonly { index: number; tickSpacing: number; tradeFeeRate: number }[] = [
  { index: 0, tickSpacing: 1, tradeFeeRate: 100 },
  { index: 1, tickSpacing: 10, tradeFeeRate: 500 },
  { index: 2, tickSpacing: 60, tradeFeeRate: 2500 },
  { index: 3, tickSpacing: 120, tradeFeeRate: 10000 },
];
/** below this tick spacing the program needs the bitmap extension account */
const EXTENSION_BELOW_SPACING = 15;
const TICKS_PER_ARRAY = 60;

export interface SimClmmConfig {
  address: string;
  config: ClmmAmmConfig;
}

export interface SimClmmPool {
  address: string;
  tier: number;
  state: ClmmPoolState;
  arrays: Map<number, ClmmTickArrayState>;
  arrayAddress: Map<number, string>;
  extension: ClmmTickArrayBitmapExtension;
  extensionAddress: string;
  /** the extension account exists (spacing < 15) */
  hasExtension: boolean;
  bitmaps: ClmmBitmaps;
  vault0: SimVault;
  vault1: SimVault;
  refLiquidity: bigint;
  tiny: boolean;
  changedArrays: Set<number>;
}

export class RaydiumClmmSim implements SimProgram {
  readonly name = 'raydium-clmm' as const;
  readonly tierWeights = [0.1, 0.3, 0.4, 0.2];
  readonly configs: SimClmmConfig[] = [];
  readonly clmmPools: SimClmmPool[] = [];
  readonly pools: SimPoolInfo[] = [];

  pickTier(rng: Prng, stablePair: boolean): number {
    return stablePair ? 0 : rng.weighted([1, 2, 3], [0.3, 0.45, 0.25]);
  }

  accepts(ctx: SimContext, a: number, b: number): boolean {
    return !ctx.tokens[a].pump && !ctx.tokens[b].pump;
  }

  build(ctx: SimContext, rng: Prng, plans: PlannedPool[]): void {
    const owner = randomKey(rng);
    const fundOwner = randomKey(rng);
    for (const t of CLMM_TIERS) {
      const be = Buffer.alloc(2);
      be.writeUInt16BE(t.index, 0);
      const [address, bump] = pda(PROGRAM, [CLMM_SEEDS.ammConfig, be]);
      this.configs.push({
        address,
        config: { bump, index: t.index, owner, protocolFeeRate: 120_000, tradeFeeRate: t.tradeFeeRate, tickSpacing: t.tickSpacing, fundFeeRate: 40_000, paddingU32: 0, fundOwner },
      });
    }
    const used = new Set(plans.map((p) => `${ctx.ordered(p.a, p.b).join(':')}:${p.tier}`));
    for (const plan of plans) {
      const [i0, i1] = ctx.ordered(plan.a, plan.b);
      const t0 = ctx.tokens[i0];
      const t1 = ctx.tokens[i1];
      // variant: the 0.01% tier on a volatile pair (its arrays often lie beyond the pool bitmap),
      // unless the pair already has a pool there (one pool per pair and config)
      let tierIndex = plan.tier;
      if (plan.variant && plan.tier !== 0 && !used.has(`${i0}:${i1}:0`)) {
        used.add(`${i0}:${i1}:0`);
        tierIndex = 0;
      }
      const tier = CLMM_TIERS[tierIndex];
      const cfg = this.configs[tierIndex];
      const ts = tier.tickSpacing;
      const [address, bump] = pda(PROGRAM, [CLMM_SEEDS.pool, raw(cfg.address), ctx.mintBytes[i0], ctx.mintBytes[i1]]);
      const sqrtPrice = sqrtPriceX64Of(ctx.latentRaw(i0, i1) * rng.range(0.9985, 1.0015), MIN_SQRT_PRICE_X64 + 1n, MAX_SQRT_PRICE_X64 - 1n);
      const tick = getTickAtSqrtPrice(sqrtPrice);
      const depthUsd = clampDepth(ctx, i0, i1, plan.depthUsd);
      const positions = planPositions(rng, {
        tickCurrent: tick,
        tickSpacing: ts,
        arraySpan: TICKS_PER_ARRAY * ts,
        minTick: MIN_TICK,
        maxTick: MAX_TICK,
        depthUsd,
        usd0: ctx.usd(i0, 1),
        usd1: ctx.usd(i1, 1),
        sqrtPrice: Number(sqrtPrice) / 2 ** 64,
      });
      const syn = buildSyntheticClmm({
        address,
        mint0: t0.mint,
        mint1: t1.mint,
        ammConfig: cfg.address,
        tickSpacing: ts,
        sqrtPriceX64: sqrtPrice,
        positions: positions.map((p) => ({ tickLower: p.lower, tickUpper: p.upper, liquidity: p.liquidity })),
        tradeFeeRate: tier.tradeFeeRate,
      });
      const amounts = positionAmounts(positions, tick, sqrtPrice, getSqrtPriceAtTick, (a, b, l) => getDeltaAmount0(a, b, l, true), (a, b, l) => getDeltaAmount1(a, b, l, true));
      const poolKey = raw(address);
      const vault0 = pda(PROGRAM, [CLMM_SEEDS.poolVault, poolKey, ctx.mintBytes[i0]])[0];
      const vault1 = pda(PROGRAM, [CLMM_SEEDS.poolVault, poolKey, ctx.mintBytes[i1]])[0];
      const state: ClmmPoolState = {
        ...syn.state,
        bump,
        owner: randomKey(rng),
        tokenVault0: vault0,
        tokenVault1: vault1,
        observationKey: pda(PROGRAM, [CLMM_SEEDS.observation, poolKey])[0],
        mintDecimals0: t0.decimals,
        mintDecimals1: t1.decimals,
        openTime: BigInt(1_680_000_000 + rng.int(0, 60_000_000)),
        recentEpoch: ctx.epoch,
      };
      const arrays = new Map<number, ClmmTickArrayState>();
      const arrayAddress = new Map<number, string>();
      for (const a of syn.tickArrays) {
        arrays.set(a.startTickIndex, { ...a, ticks: a.ticks.map(shareEmpty), recentEpoch: ctx.epoch });
        const be = Buffer.alloc(4);
        be.writeInt32BE(a.startTickIndex, 0);
        arrayAddress.set(a.startTickIndex, pda(PROGRAM, [CLMM_SEEDS.tickArray, poolKey, be])[0]);
      }
      const hasExtension = ts < EXTENSION_BELOW_SPACING;
      this.clmmPools.push({
        address,
        tier: tierIndex,
        state,
        arrays,
        arrayAddress,
        extension: syn.extension,
        extensionAddress: hasExtension ? pda(PROGRAM, [CLMM_SEEDS.bitmapExtension, poolKey])[0] : '',
        hasExtension,
        bitmaps: prepareBitmaps(ts, state.tickArrayBitmap, syn.extension),
        vault0: ctx.vault(vault0, i0, address, amounts.amount0),
        vault1: ctx.vault(vault1, i1, address, amounts.amount1),
        refLiquidity: state.liquidity > 0n ? state.liquidity : positions.reduce((m, p) => (p.liquidity > m ? p.liquidity : m), 1n),
        tiny: plan.tiny,
        changedArrays: new Set(),
      });
      this.pools.push({ program: this.name, address, tokenA: i0, tokenB: i1, routable: true, tiny: plan.tiny });
    }
  }

  sharedAccounts(ctx: SimContext, out: PoolUpdate[]): void {
    for (const c of this.configs) out.push(ctx.record(c.address, PROGRAM, encodeClmmAmmConfig(c.config)));
  }

  private arrayRecord(ctx: SimContext, p: SimClmmPool, start: number): PoolUpdate {
    return ctx.record(p.arrayAddress.get(start)!, PROGRAM, encodeClmmTickArrayState(p.arrays.get(start)!));
  }

  poolAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    const p = this.clmmPools[i];
    out.push(ctx.vaultRecord(p.vault0));
    out.push(ctx.vaultRecord(p.vault1));
    if (p.hasExtension) out.push(ctx.record(p.extensionAddress, PROGRAM, encodeClmmTickArrayBitmapExtension(p.extension)));
    for (const s of [...p.arrays.keys()].sort((a, b) => a - b)) out.push(this.arrayRecord(ctx, p, s));
    out.push(ctx.record(p.address, PROGRAM, encodeClmmPoolState(p.state)));
    p.changedArrays.clear();
  }

  changedAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    const p = this.clmmPools[i];
    out.push(ctx.vaultRecord(p.vault0));
    out.push(ctx.vaultRecord(p.vault1));
    for (const s of [...p.changedArrays].sort((a, b) => a - b)) out.push(this.arrayRecord(ctx, p, s));
    out.push(ctx.record(p.address, PROGRAM, encodeClmmPoolState(p.state)));
    p.changedArrays.clear();
  }

  swap(ctx: SimContext, i: number, draw: SwapDraw): SimSwap | null {
    const p = this.clmmPools[i];
    const s = p.state;
    const plan = planClSwap(
      ctx,
      draw,
      { tokenA: p.vault0.token, tokenB: p.vault1.token, sqrtPriceX64: s.sqrtPriceX64, liquidity: s.liquidity, refLiquidity: p.refLiquidity, vaultAAmount: p.vault0.amount, vaultBAmount: p.vault1.amount },
      // a partial fill at the limit is allowed; the limit must lie strictly inside the bounds
      { min: MIN_SQRT_PRICE_X64 + 1n, max: MAX_SQRT_PRICE_X64 - 1n },
    );
    if (plan === null) return null;
    const { aToB: zeroForOne, amount, limit } = plan;
    const vaultOut = zeroForOne ? p.vault1.amount : p.vault0.amount;
    const mode = draw.exactIn ? 'ExactIn' : 'ExactOut';
    const cfg = this.configs[p.tier].config;
    const feeOnToken0 = s.feeOn === 1 ? true : s.feeOn === 2 ? false : zeroForOne;
    let r: ClmmSwapResult;
    try {
      r = clmmSwap(
        {
          tickSpacing: s.tickSpacing,
          liquidity: s.liquidity,
          sqrtPriceX64: s.sqrtPriceX64,
          tickCurrent: s.tickCurrent,
          feeOn: s.feeOn,
          tradeFeeRate: cfg.tradeFeeRate,
          protocolFeeRate: cfg.protocolFeeRate,
          fundFeeRate: cfg.fundFeeRate,
          dynamicFeeInfo: null,
          feeGrowthGlobalX64: feeOnToken0 ? s.feeGrowthGlobal0X64 : s.feeGrowthGlobal1X64,
        },
        p.bitmaps,
        p.arrays,
        { zeroForOne, isBaseInput: draw.exactIn, amount, sqrtPriceLimitX64: limit },
      );
    } catch (e) {
      if (e instanceof ClmmMathError) return null;
      throw e;
    }
    if ((!r.filled && limit === 0n) || r.amountIn === 0n || r.amountOut === 0n || r.amountOut > vaultOut) return null;
    applyClmmSwap(p, r, ctx.epoch);
    if (zeroForOne) {
      ctx.credit(p.vault0, r.amountIn);
      ctx.debit(p.vault1, r.amountOut);
    } else {
      ctx.credit(p.vault1, r.amountIn);
      ctx.debit(p.vault0, r.amountOut);
    }
    return { program: this.name, pool: i, address: p.address, aToB: zeroForOne, mode, amount, sqrtPriceLimit: limit, result: r };
  }

  forget(i: number): void {
    this.clmmPools[i].changedArrays.clear();
  }

  /** swap_v2 lists the memo program as an account */
  lookupShared(): string[] {
    return [MEMO_PROGRAM_ID];
  }

  /** the pool's observation account (a swap lists and writes it; the market does not write it) */
  lookupExtras(i: number): string[] {
    return [this.clmmPools[i].state.observationKey];
  }

  holdings(held: bigint[]): void {
    for (const p of this.clmmPools) {
      held[p.vault0.token] += p.vault0.amount;
      held[p.vault1.token] += p.vault1.amount;
    }
  }
}

/**
 * The pool's state transition for a swap result (swap_internal's writes): price, tick,
 * liquidity, the fee token's fee growth, protocol and fund fees, crossed ticks' fee growth
 * outside, recent epoch. Exported for the spec.
 */
export function applyClmmSwap(p: SimClmmPool, r: ClmmSwapResult, epoch: bigint): void {
  const s = p.state;
  const g = r.feeGrowth!;
  const on0 = r.feeOnToken0;
  for (const c of g.crossings) {
    const start = getArrayStartIndex(c.tick, s.tickSpacing);
    const arr = p.arrays.get(start)!;
    const off = (c.tick - start) / s.tickSpacing;
    const t = arr.ticks[off];
    const g0 = on0 ? c.feeGrowthGlobalX64 : s.feeGrowthGlobal0X64;
    const g1 = on0 ? s.feeGrowthGlobal1X64 : c.feeGrowthGlobalX64;
    const ticks = arr.ticks.slice();
    ticks[off] = { ...t, feeGrowthOutside0X64: wrapSub128(g0, t.feeGrowthOutside0X64), feeGrowthOutside1X64: wrapSub128(g1, t.feeGrowthOutside1X64) };
    p.arrays.set(start, { ...arr, ticks });
    p.changedArrays.add(start);
  }
  p.state = {
    ...s,
    sqrtPriceX64: r.sqrtPriceX64,
    tickCurrent: r.tickCurrent,
    liquidity: r.liquidity,
    feeGrowthGlobal0X64: on0 ? g.feeGrowthGlobalX64 : s.feeGrowthGlobal0X64,
    feeGrowthGlobal1X64: on0 ? s.feeGrowthGlobal1X64 : g.feeGrowthGlobalX64,
    protocolFeesToken0: on0 ? s.protocolFeesToken0 + r.protocolFee : s.protocolFeesToken0,
    protocolFeesToken1: on0 ? s.protocolFeesToken1 : s.protocolFeesToken1 + r.protocolFee,
    fundFeesToken0: on0 ? s.fundFeesToken0 + r.fundFee : s.fundFeesToken0,
    fundFeesToken1: on0 ? s.fundFeesToken1 : s.fundFeesToken1 + r.fundFee,
    recentEpoch: epoch,
  };
}

/**
 * The uninitialized tick, one frozen object shared by every array (a swap replaces the ticks it
 * crosses, never changes one in place): a fraction of the memory, and of a market checkpoint
 */
const EMPTY_CLMM_TICK: ClmmTickState = Object.freeze({ ...clmmEmptyTick(), rewardGrowthsOutsideX64: Object.freeze([0n, 0n, 0n]) as bigint[] });

function shareEmpty(t: ClmmTickState): ClmmTickState {
  const zero =
    t.tick === 0 && t.liquidityNet === 0n && t.liquidityGross === 0n && t.feeGrowthOutside0X64 === 0n && t.feeGrowthOutside1X64 === 0n &&
    t.rewardGrowthsOutsideX64.every((g) => g === 0n) && t.orderPhase === 0n && t.ordersAmount === 0n && t.partFilledOrdersRemaining === 0n && t.unfilledRatioX64 === 0n;
  return zero ? EMPTY_CLMM_TICK : t;
}
