/**
 * Orca Whirlpool in the simulated market: Whirlpool accounts at their PDA ["whirlpool", config,
 * mintA, mintB, fee tier index] under the mainnet WhirlpoolsConfig (mintA < mintB bytewise), the
 * tick arrays (fixed, 9,988 bytes; some pools use dynamic ones) at their PDAs covering every
 * position plus one array of margin each side, the vaults (owner field = the whirlpool), and for
 * pools of an adaptive fee tier (fee tier index != tick spacing) the Oracle account.
 *
 * Liquidity: a wide base position and 6-16 narrower ones (cl-shape.ts), so swaps cross
 * initialized ticks. Swaps run `whirlpoolSwap` over the tick-array sequence the program would use
 * (the same three arrays from the current tick), at the slot's unix time with the Oracle's
 * adaptive fee; the Whirlpool takes the result's liquidity, price, tick, fee growth and protocol
 * fee, each crossed tick flips its fee growth outside against the fee growth at the crossing,
 * and the Oracle takes the new adaptive-fee variables.
 */
import type { PoolUpdate } from '@app/contracts';
import {
  MAX_SQRT_PRICE_X64,
  MAX_TICK_INDEX,
  MIN_SQRT_PRICE_X64,
  MIN_TICK_INDEX,
  TICK_ARRAY_SIZE,
  WhirlpoolMathError,
  getAmountDeltaA,
  getAmountDeltaB,
  sqrtPriceFromTickIndex,
  tickIndexFromSqrtPrice,
} from '@app/amm';
import { buildSwapTickSequence, tickArrayStartIndex, whirlpoolSwap, type SwapResult } from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import {
  encodeDynamicTickArray,
  encodeFixedTickArray,
  encodeOracle,
  encodeWhirlpool,
  type Whirlpool,
  type WhirlpoolOracle,
  type WhirlpoolTick,
} from '@app/solana';
import { MEMO_PROGRAM_ID } from '@app/solana';
import { pda, randomKey, raw, type SimContext, type SimVault, type SwapDraw } from '../context';
import type { Prng } from '../prng';
import { planPositions, positionAmounts, sqrtPriceX64Of, tickLiquidity, wrapSub128, planClSwap } from './cl-shape';
import type { PlannedPool, SimPoolInfo, SimProgram, SimSwap } from './program';
import { clampDepth } from './raydium-cpmm';

const PROGRAM = PROGRAM_IDS.orcaWhirlpool;
/** the mainnet WhirlpoolsConfig */
export const WHIRLPOOLS_CONFIG = '2LecshUwdy9xi7meFgHtFJQNSKk4KdTrcpvaB56dP2NQ';
/** fee tiers: tick spacing and fee rate (hundredths of a bp) */
export const WHIRLPOOL_TIERS: readonly { tickSpacing: number; feeRate: number }[] = [
  { tickSpacing: 1, feeRate: 100 },
  { tickSpacing: 4, feeRate: 500 },
  { tickSpacing: 64, feeRate: 3000 },
  { tickSpacing: 128, feeRate: 10000 },
];
/** adaptive fee tiers: index = ADAPTIVE_INDEX_BASE + tick spacing */
const ADAPTIVE_INDEX_BASE = 1024;

export interface SimWhirlpool {
  address: string;
  whirlpool: Whirlpool;
  /** tick arrays by start index (88 ticks each), all existing on chain */
  arrays: Map<number, WhirlpoolTick[]>;
  arrayAddress: Map<number, string>;
  dynamicArrays: boolean;
  oracle: WhirlpoolOracle | null;
  oracleAddress: string | null;
  vaultA: SimVault;
  vaultB: SimVault;
  /** genesis liquidity (sizes swaps when the price sits where little liquidity is) */
  refLiquidity: bigint;
  tiny: boolean;
  changedArrays: Set<number>;
}

function zeroReward(extension: Uint8Array) {
  return { mint: PROGRAM_IDS.system, vault: PROGRAM_IDS.system, extension, emissionsPerSecondX64: 0n, growthGlobalX64: 0n };
}

/**
 * The uninitialized tick, one frozen object shared by every array (a swap replaces the ticks it
 * crosses, never changes one in place): a fraction of the memory, and of a market checkpoint
 */
const EMPTY_TICK: WhirlpoolTick = Object.freeze({ initialized: false, liquidityNet: 0n, liquidityGross: 0n, feeGrowthOutsideA: 0n, feeGrowthOutsideB: 0n, rewardGrowthsOutside: Object.freeze([0n, 0n, 0n]) as WhirlpoolTick['rewardGrowthsOutside'] });

function emptyTick(): WhirlpoolTick {
  return EMPTY_TICK;
}

export class OrcaWhirlpoolSim implements SimProgram {
  readonly name = 'orca-whirlpool' as const;
  readonly tierWeights = [0.1, 0.3, 0.4, 0.2];
  readonly whirlpools: SimWhirlpool[] = [];
  readonly pools: SimPoolInfo[] = [];

  pickTier(rng: Prng, stablePair: boolean): number {
    return stablePair ? 0 : rng.weighted([1, 2, 3], [0.3, 0.45, 0.25]);
  }

  accepts(ctx: SimContext, a: number, b: number): boolean {
    return !ctx.tokens[a].pump && !ctx.tokens[b].pump;
  }

  build(ctx: SimContext, rng: Prng, plans: PlannedPool[]): void {
    const configKey = raw(WHIRLPOOLS_CONFIG);
    for (const plan of plans) {
      const [ia, ib] = ctx.ordered(plan.a, plan.b);
      const ta = ctx.tokens[ia];
      const tb = ctx.tokens[ib];
      const tier = WHIRLPOOL_TIERS[plan.tier];
      const ts = tier.tickSpacing;
      // adaptive-fee pools only on the wider spacings (as on mainnet)
      const adaptive = plan.variant && ts >= 64;
      const feeTierIndex = adaptive ? ADAPTIVE_INDEX_BASE + ts : ts;
      const idx = Buffer.alloc(2);
      idx.writeUInt16LE(feeTierIndex, 0);
      const [address, bump] = pda(PROGRAM, ['whirlpool', configKey, ctx.mintBytes[ia], ctx.mintBytes[ib], idx]);
      const sqrtPrice = sqrtPriceX64Of(ctx.latentRaw(ia, ib) * rng.range(0.9985, 1.0015), MIN_SQRT_PRICE_X64, MAX_SQRT_PRICE_X64);
      const tick = tickIndexFromSqrtPrice(sqrtPrice);
      const span = TICK_ARRAY_SIZE * ts;
      const depthUsd = clampDepth(ctx, ia, ib, plan.depthUsd);
      const positions = planPositions(rng, {
        tickCurrent: tick,
        tickSpacing: ts,
        arraySpan: span,
        minTick: MIN_TICK_INDEX,
        maxTick: MAX_TICK_INDEX,
        depthUsd,
        usd0: ctx.usd(ia, 1),
        usd1: ctx.usd(ib, 1),
        sqrtPrice: Number(sqrtPrice) / 2 ** 64,
      });
      const { ticks, active } = tickLiquidity(positions, tick);
      const amounts = positionAmounts(positions, tick, sqrtPrice, sqrtPriceFromTickIndex, (a, b, l) => getAmountDeltaA(a, b, l, true), (a, b, l) => getAmountDeltaB(a, b, l, true));
      // tick arrays: every array holding a position tick, the current one, one of margin each side
      const arrays = new Map<number, WhirlpoolTick[]>();
      const allTicks = [...ticks.keys(), tick];
      const lo = tickArrayStartIndex(Math.min(...allTicks), ts) - span;
      const hi = tickArrayStartIndex(Math.max(...allTicks), ts) + span;
      for (let s = lo; s <= hi; s += span) {
        if (s + span <= MIN_TICK_INDEX || s > MAX_TICK_INDEX) continue;
        arrays.set(s, Array.from({ length: TICK_ARRAY_SIZE }, emptyTick));
      }
      for (const [t, v] of ticks) {
        const s = tickArrayStartIndex(t, ts);
        arrays.get(s)![(t - s) / ts] = { ...emptyTick(), rewardGrowthsOutside: [0n, 0n, 0n], initialized: true, liquidityNet: v.net, liquidityGross: v.gross };
      }
      const arrayAddress = new Map<number, string>();
      for (const s of arrays.keys()) arrayAddress.set(s, pda(PROGRAM, ['tick_array', raw(address), String(s)])[0]);
      const authority = new Uint8Array(rng.bytes(32));
      const whirlpool: Whirlpool = {
        whirlpoolsConfig: WHIRLPOOLS_CONFIG,
        whirlpoolBump: bump,
        tickSpacing: ts,
        feeTierIndexSeed: feeTierIndex,
        feeRate: tier.feeRate,
        protocolFeeRate: 1300,
        liquidity: active,
        sqrtPrice,
        tickCurrentIndex: tick,
        protocolFeeOwedA: 0n,
        protocolFeeOwedB: 0n,
        tokenMintA: ta.mint,
        tokenVaultA: randomKey(rng),
        feeGrowthGlobalA: 0n,
        tokenMintB: tb.mint,
        tokenVaultB: randomKey(rng),
        feeGrowthGlobalB: 0n,
        rewardLastUpdatedTimestamp: ctx.unixTime,
        rewardInfos: [zeroReward(authority), zeroReward(new Uint8Array(32)), zeroReward(new Uint8Array(32))],
      };
      let oracle: WhirlpoolOracle | null = null;
      let oracleAddress: string | null = null;
      if (adaptive) {
        oracleAddress = pda(PROGRAM, ['oracle', raw(address)])[0];
        oracle = {
          whirlpool: address,
          tradeEnableTimestamp: 0n,
          adaptiveFeeConstants: {
            filterPeriod: 30,
            decayPeriod: 600,
            reductionFactor: 5000,
            adaptiveFeeControlFactor: 4000,
            maxVolatilityAccumulator: 350_000,
            tickGroupSize: ts,
            majorSwapThresholdTicks: ts,
          },
          adaptiveFeeVariables: {
            lastReferenceUpdateTimestamp: ctx.unixTime - 900n,
            lastMajorSwapTimestamp: ctx.unixTime - 900n,
            volatilityReference: 0,
            tickGroupIndexReference: Math.floor(tick / ts),
            volatilityAccumulator: 0,
          },
        };
      }
      this.whirlpools.push({
        address,
        whirlpool,
        arrays,
        arrayAddress,
        dynamicArrays: rng.chance(0.5),
        oracle,
        oracleAddress,
        vaultA: ctx.vault(whirlpool.tokenVaultA, ia, address, amounts.amount0),
        vaultB: ctx.vault(whirlpool.tokenVaultB, ib, address, amounts.amount1),
        refLiquidity: active > 0n ? active : positions.reduce((m, p) => (p.liquidity > m ? p.liquidity : m), 1n),
        tiny: plan.tiny,
        changedArrays: new Set(),
      });
      this.pools.push({ program: this.name, address, tokenA: ia, tokenB: ib, routable: true, tiny: plan.tiny });
    }
  }

  sharedAccounts(): void {
    // the WhirlpoolsConfig and fee tiers are not read by a swap
  }

  private arrayRecord(ctx: SimContext, p: SimWhirlpool, start: number): PoolUpdate {
    const ta = { startTickIndex: start, whirlpool: p.address, ticks: p.arrays.get(start)! };
    return ctx.record(p.arrayAddress.get(start)!, PROGRAM, p.dynamicArrays ? encodeDynamicTickArray(ta) : encodeFixedTickArray(ta));
  }

  poolAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    const p = this.whirlpools[i];
    out.push(ctx.vaultRecord(p.vaultA));
    out.push(ctx.vaultRecord(p.vaultB));
    for (const s of p.arrays.keys()) out.push(this.arrayRecord(ctx, p, s));
    if (p.oracle) out.push(ctx.record(p.oracleAddress!, PROGRAM, encodeOracle(p.oracle)));
    out.push(ctx.record(p.address, PROGRAM, encodeWhirlpool(p.whirlpool)));
    p.changedArrays.clear();
  }

  changedAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    const p = this.whirlpools[i];
    out.push(ctx.vaultRecord(p.vaultA));
    out.push(ctx.vaultRecord(p.vaultB));
    for (const s of [...p.changedArrays].sort((a, b) => a - b)) out.push(this.arrayRecord(ctx, p, s));
    if (p.oracle) out.push(ctx.record(p.oracleAddress!, PROGRAM, encodeOracle(p.oracle)));
    out.push(ctx.record(p.address, PROGRAM, encodeWhirlpool(p.whirlpool)));
    p.changedArrays.clear();
  }

  swap(ctx: SimContext, i: number, draw: SwapDraw): SimSwap | null {
    const p = this.whirlpools[i];
    const w = p.whirlpool;
    const plan = planClSwap(
      ctx,
      draw,
      { tokenA: p.vaultA.token, tokenB: p.vaultB.token, sqrtPriceX64: w.sqrtPrice, liquidity: w.liquidity, refLiquidity: p.refLiquidity, vaultAAmount: p.vaultA.amount, vaultBAmount: p.vaultB.amount },
      { min: MIN_SQRT_PRICE_X64, max: MAX_SQRT_PRICE_X64 },
    );
    if (plan === null) return null;
    const { aToB, amount, limit } = plan;
    const vaultOut = aToB ? p.vaultB.amount : p.vaultA.amount;
    const mode = draw.exactIn ? 'ExactIn' : 'ExactOut';
    const timestamp = ctx.unixTime;
    let r: SwapResult;
    try {
      const seq = buildSwapTickSequence(w.tickCurrentIndex, w.tickSpacing, aToB, (s) => {
        const ticks = p.arrays.get(s);
        return ticks ? { startTickIndex: s, ticks } : undefined;
      });
      r = whirlpoolSwap(w, seq, {
        amount,
        sqrtPriceLimit: limit,
        amountSpecifiedIsInput: draw.exactIn,
        aToB,
        timestamp,
        adaptiveFee: p.oracle ? { constants: p.oracle.adaptiveFeeConstants, variables: p.oracle.adaptiveFeeVariables } : null,
      });
    } catch (e) {
      if (e instanceof WhirlpoolMathError) return null;
      throw e;
    }
    if (r.amountA === 0n || r.amountB === 0n) return null;
    // the output must be in the vault (it always is for positions the vaults were funded for)
    if ((aToB ? r.amountB : r.amountA) > vaultOut) return null;
    applyWhirlpoolSwap(p, aToB, r, timestamp);
    if (aToB) {
      ctx.credit(p.vaultA, r.amountA);
      ctx.debit(p.vaultB, r.amountB);
    } else {
      ctx.credit(p.vaultB, r.amountB);
      ctx.debit(p.vaultA, r.amountA);
    }
    return { program: this.name, pool: i, address: p.address, aToB, mode, amount, sqrtPriceLimit: limit, result: r };
  }

  forget(i: number): void {
    this.whirlpools[i].changedArrays.clear();
  }

  /** swap_v2 lists the memo program as an account */
  lookupShared(): string[] {
    return [MEMO_PROGRAM_ID];
  }

  /** the Oracle PDA swap_v2 lists for every pool (an account only for adaptive-fee pools, written then) */
  lookupExtras(i: number): string[] {
    const p = this.whirlpools[i];
    return [p.oracleAddress ?? pda(PROGRAM, ['oracle', raw(p.address)])[0]];
  }

  holdings(held: bigint[]): void {
    for (const p of this.whirlpools) {
      held[p.vaultA.token] += p.vaultA.amount;
      held[p.vaultB.token] += p.vaultB.amount;
    }
  }
}

/**
 * The Whirlpool's state transition for a swap result (swap_manager's post-swap update): pool
 * fields, crossed ticks' fee growth outside, the Oracle's adaptive-fee variables. Exported for
 * the spec, which replays the math on a copy.
 */
export function applyWhirlpoolSwap(p: SimWhirlpool, aToB: boolean, r: SwapResult, timestamp: bigint): void {
  const w = p.whirlpool;
  const ts = w.tickSpacing;
  r.crossedTicks.forEach((t, k) => {
    const s = tickArrayStartIndex(t, ts);
    const ticks = p.arrays.get(s)!;
    const off = (t - s) / ts;
    const tick = ticks[off];
    const growthA = aToB ? r.crossedFeeGrowth[k] : w.feeGrowthGlobalA;
    const growthB = aToB ? w.feeGrowthGlobalB : r.crossedFeeGrowth[k];
    ticks[off] = {
      ...tick,
      feeGrowthOutsideA: wrapSub128(growthA, tick.feeGrowthOutsideA),
      feeGrowthOutsideB: wrapSub128(growthB, tick.feeGrowthOutsideB),
    };
    p.changedArrays.add(s);
  });
  p.whirlpool = {
    ...w,
    liquidity: r.nextLiquidity,
    sqrtPrice: r.nextSqrtPrice,
    tickCurrentIndex: r.nextTickIndex,
    feeGrowthGlobalA: aToB ? r.nextFeeGrowthGlobal : w.feeGrowthGlobalA,
    feeGrowthGlobalB: aToB ? w.feeGrowthGlobalB : r.nextFeeGrowthGlobal,
    protocolFeeOwedA: aToB ? w.protocolFeeOwedA + r.nextProtocolFee : w.protocolFeeOwedA,
    protocolFeeOwedB: aToB ? w.protocolFeeOwedB : w.protocolFeeOwedB + r.nextProtocolFee,
    rewardLastUpdatedTimestamp: timestamp,
  };
  if (p.oracle && r.nextAdaptiveFeeVariables) p.oracle = { ...p.oracle, adaptiveFeeVariables: { ...r.nextAdaptiveFeeVariables } };
}
