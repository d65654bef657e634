/**
 * Build a consistent synthetic Raydium CLMM pool (PoolState, AmmConfig, tick arrays, bitmap
 * extension) from positions and limit orders: for tests and the simulated market. Bitmaps are set
 * exactly as the program sets them (pool bitmap within its range, extension beyond).
 */
import {
  clmmEmptyDynamicFeeInfo,
  clmmEmptyTick,
  type ClmmAmmConfig,
  type ClmmDynamicFeeInfo,
  type ClmmPoolState,
  type ClmmRewardInfo,
  type ClmmTickArrayBitmapExtension,
  type ClmmTickArrayState,
  type ClmmTickState,
} from '@app/solana';
import { getSqrtPriceAtTick, getTickAtSqrtPrice } from './math';
import { TICK_ARRAY_BITMAP_SIZE, getArrayStartIndex, isOverflowDefaultBitmap, maxTickInTickArrayBitmap, tickCount } from './tick-array';

export interface SyntheticPosition {
  tickLower: number;
  tickUpper: number;
  liquidity: bigint;
}

export interface SyntheticLimitOrder {
  tick: number;
  /** unfilled amount of the order (the token a swap crossing the tick receives) */
  ordersAmount: bigint;
  partFilledOrdersRemaining?: bigint;
}

export interface SyntheticClmmSpec {
  address: string;
  mint0: string;
  mint1: string;
  ammConfig: string;
  tickSpacing: number;
  /** current price: a tick (price exactly at it) or an explicit sqrt price */
  tickCurrent?: number;
  sqrtPriceX64?: bigint;
  positions: SyntheticPosition[];
  limitOrders?: SyntheticLimitOrder[];
  tradeFeeRate?: number;
  protocolFeeRate?: number;
  fundFeeRate?: number;
  feeOn?: number;
  status?: number;
  dynamicFeeInfo?: ClmmDynamicFeeInfo;
}

export interface SyntheticClmm {
  state: ClmmPoolState;
  config: ClmmAmmConfig;
  tickArrays: ClmmTickArrayState[];
  extension: ClmmTickArrayBitmapExtension;
}

const ZERO_KEY = '11111111111111111111111111111111';

function emptyReward(): ClmmRewardInfo {
  return {
    rewardState: 0,
    openTime: 0n,
    endTime: 0n,
    lastUpdateTime: 0n,
    emissionsPerSecondX64: 0n,
    rewardTotalEmitted: 0n,
    rewardClaimed: 0n,
    tokenMint: ZERO_KEY,
    tokenVault: ZERO_KEY,
    authority: ZERO_KEY,
    rewardGrowthGlobalX64: 0n,
  };
}

function setBit(words: bigint[], bit: number): void {
  words[bit >> 6] |= 1n << BigInt(bit & 63);
}

export function buildSyntheticClmm(spec: SyntheticClmmSpec): SyntheticClmm {
  const ts = spec.tickSpacing;
  const sqrtPriceX64 = spec.sqrtPriceX64 ?? getSqrtPriceAtTick(spec.tickCurrent ?? 0);
  const tickCurrent = spec.sqrtPriceX64 !== undefined ? getTickAtSqrtPrice(sqrtPriceX64) : (spec.tickCurrent ?? 0);

  const ticks = new Map<number, ClmmTickState>();
  const tickAt = (t: number): ClmmTickState => {
    if (t % ts !== 0) throw new Error(`tick ${t} is not a multiple of spacing ${ts}`);
    let k = ticks.get(t);
    if (!k) {
      k = { ...clmmEmptyTick(), tick: t };
      ticks.set(t, k);
    }
    return k;
  };
  let liquidity = 0n;
  for (const p of spec.positions) {
    if (!(p.tickLower < p.tickUpper) || p.liquidity <= 0n) throw new Error('bad position');
    const lo = tickAt(p.tickLower);
    lo.liquidityGross += p.liquidity;
    lo.liquidityNet += p.liquidity;
    const hi = tickAt(p.tickUpper);
    hi.liquidityGross += p.liquidity;
    hi.liquidityNet -= p.liquidity;
    if (p.tickLower <= tickCurrent && tickCurrent < p.tickUpper) liquidity += p.liquidity;
  }
  for (const o of spec.limitOrders ?? []) {
    const k = tickAt(o.tick);
    k.ordersAmount += o.ordersAmount;
    k.partFilledOrdersRemaining += o.partFilledOrdersRemaining ?? 0n;
  }

  const arrays = new Map<number, ClmmTickArrayState>();
  for (const [t, k] of ticks) {
    const start = getArrayStartIndex(t, ts);
    let a = arrays.get(start);
    if (!a) {
      a = {
        poolId: spec.address,
        startTickIndex: start,
        ticks: Array.from({ length: 60 }, () => clmmEmptyTick()),
        initializedTickCount: 0,
        recentEpoch: 0n,
      };
      arrays.set(start, a);
    }
    a.ticks[(t - start) / ts] = k;
    a.initializedTickCount++;
  }

  const poolBitmap: bigint[] = Array(16).fill(0n);
  const positive: bigint[][] = Array.from({ length: 14 }, () => Array(8).fill(0n));
  const negative: bigint[][] = Array.from({ length: 14 }, () => Array(8).fill(0n));
  const perBitmap = maxTickInTickArrayBitmap(ts);
  for (const start of arrays.keys()) {
    if (!isOverflowDefaultBitmap(start, ts)) {
      setBit(poolBitmap, start / tickCount(ts) + 512);
    } else {
      let offset = Math.trunc(Math.abs(start) / perBitmap) - 1;
      if (start < 0 && Math.abs(start) % perBitmap === 0) offset -= 1;
      const m = Math.abs(start) % perBitmap;
      let bit = Math.trunc(m / tickCount(ts));
      if (start < 0 && m !== 0) bit = TICK_ARRAY_BITMAP_SIZE - bit;
      setBit((start < 0 ? negative : positive)[offset], bit);
    }
  }

  const state: ClmmPoolState = {
    bump: 255,
    ammConfig: spec.ammConfig,
    owner: ZERO_KEY,
    tokenMint0: spec.mint0,
    tokenMint1: spec.mint1,
    tokenVault0: ZERO_KEY,
    tokenVault1: ZERO_KEY,
    observationKey: ZERO_KEY,
    mintDecimals0: 9,
    mintDecimals1: 6,
    tickSpacing: ts,
    liquidity,
    sqrtPriceX64,
    tickCurrent,
    padding3: 0,
    padding4: 0,
    feeGrowthGlobal0X64: 0n,
    feeGrowthGlobal1X64: 0n,
    protocolFeesToken0: 0n,
    protocolFeesToken1: 0n,
    padding5: [0n, 0n, 0n, 0n],
    status: spec.status ?? 0,
    feeOn: spec.feeOn ?? 0,
    rewardInfos: [emptyReward(), emptyReward(), emptyReward()],
    tickArrayBitmap: poolBitmap,
    padding6: [0n, 0n, 0n, 0n],
    fundFeesToken0: 0n,
    fundFeesToken1: 0n,
    openTime: 0n,
    recentEpoch: 0n,
    dynamicFeeInfo: spec.dynamicFeeInfo ?? clmmEmptyDynamicFeeInfo(),
  };
  const config: ClmmAmmConfig = {
    bump: 255,
    index: 0,
    owner: ZERO_KEY,
    protocolFeeRate: spec.protocolFeeRate ?? 120_000,
    tradeFeeRate: spec.tradeFeeRate ?? 2500,
    tickSpacing: ts,
    fundFeeRate: spec.fundFeeRate ?? 40_000,
    paddingU32: 0,
    fundOwner: ZERO_KEY,
  };
  return {
    state,
    config,
    tickArrays: [...arrays.values()].sort((a, b) => a.startTickIndex - b.startTickIndex),
    extension: { poolId: spec.address, positiveTickArrayBitmap: positive, negativeTickArrayBitmap: negative },
  };
}
