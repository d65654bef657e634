/**
 * The Raydium CLMM swap loop (instructions/swap.rs swap_internal), re-derived in TypeScript:
 * steps between initialized ticks (compute_swap), the trade fee taken from the input or the output
 * (pool fee_on), its protocol / fund / LP split, the dynamic fee (volatility accumulator per tick
 * spacing group, price bounded to the group edge), limit orders matched on a tick before the tick
 * is crossed, tick crossing, and the walk from tick array to tick array through the pool bitmap
 * and the bitmap extension.
 *
 * A swap can only use the tick arrays it is given (the instruction's accounts); when it needs the
 * next initialized tick array and that array is not loaded, the quote fails with
 * ClmmTickArrayNotLoadedError (the program would fail with NotEnoughTickArrayAccount).
 */
import type { ClmmDynamicFeeInfo } from '@app/solana';
import {
  ClmmMathError,
  FEE_RATE_DENOMINATOR,
  MAX_FEE_RATE_NUMERATOR,
  MAX_SQRT_PRICE_X64,
  MAX_TICK,
  MIN_SQRT_PRICE_X64,
  MIN_TICK,
  Q64,
  U128_MAX,
  U32_MAX,
  U64_MAX,
  addDelta,
  computeSwapStep,
  getPriceFromSqrtPrice,
  getSqrtPriceAtTick,
  getTickAtSqrtPrice,
  mulDivCeil,
  mulDivFloor,
  type SwapStepResult,
} from './math';
import {
  type ClmmBitmaps,
  type ClmmSwapTick,
  type ClmmSwapTickArray,
  firstInitializedTickArray,
  firstInitializedTickInArray,
  nextInitializedTickArrayStartIndex,
  nextInitializedTickInArray,
  tickHasLimitOrders,
  tickIsInitialized,
} from './tick-array';

export const VOLATILITY_ACCUMULATOR_SCALE = 10_000n;
export const REDUCTION_FACTOR_DENOMINATOR = 10_000n;
export const DYNAMIC_FEE_CONTROL_DENOMINATOR = 100_000n;

/** The swap needed a tick array that is not among the loaded ones. */
export class ClmmTickArrayNotLoadedError extends ClmmMathError {
  constructor(readonly startTickIndex: number) {
    super('NotEnoughTickArrayAccount', `tick array with start index ${startTickIndex} is needed but not loaded`);
    this.name = 'ClmmTickArrayNotLoadedError';
  }
}

/** What the swap reads of the pool and its AmmConfig. */
export interface ClmmSwapPoolState {
  tickSpacing: number;
  liquidity: bigint;
  sqrtPriceX64: bigint;
  tickCurrent: number;
  /** 0 = fee from input, 1 = token0 only, 2 = token1 only */
  feeOn: number;
  /** AmmConfig rates, millionths */
  tradeFeeRate: number;
  protocolFeeRate: number;
  fundFeeRate: number;
  /** null when the pool's DynamicFeeInfo is all zero (dynamic fee disabled) */
  dynamicFeeInfo: ClmmDynamicFeeInfo | null;
  /**
   * Optional: the pool's fee growth global of the fee token (feeOnToken0 ? 0 : 1). When given,
   * the result carries the fee growth after the swap and at each tick crossing (state
   * transitions for the simulated market); quotes leave it out.
   */
  feeGrowthGlobalX64?: bigint;
}

export interface ClmmSwapParams {
  zeroForOne: boolean;
  /** true: `amount` is the exact input; false: the exact output */
  isBaseInput: boolean;
  amount: bigint;
  /** 0n = none (the program then uses MIN+1 / MAX-1 and refuses partial fills) */
  sqrtPriceLimitX64?: bigint;
  /**
   * Block time (unix seconds) the swap runs at; needed for dynamic-fee pools (the volatility
   * reference decays with time). For other pools it is not used.
   */
  unixTimestamp?: number;
}

export interface ClmmSwapResult {
  zeroForOne: boolean;
  /** what the user pays in (fee included when the fee is on the input) */
  amountIn: bigint;
  /** what the user receives (fee excluded when the fee is on the output) */
  amountOut: bigint;
  /** total trade fee (LP + protocol + fund), in `feeOnToken0 ? token0 : token1` */
  tradeFee: bigint;
  feeOnInput: boolean;
  feeOnToken0: boolean;
  lpFee: bigint;
  protocolFee: bigint;
  fundFee: bigint;
  /** part of the amounts filled by limit orders */
  limitOrderAmountIn: bigint;
  limitOrderAmountOut: bigint;
  sqrtPriceX64: bigint;
  tickCurrent: number;
  liquidity: bigint;
  /** true when the whole specified amount was swapped */
  filled: boolean;
  /** tick arrays the swap walked through, in order (the instruction must pass these) */
  tickArraysUsed: number[];
  /** initialized ticks whose liquidity was crossed */
  ticksCrossed: number;
  /**
   * only when the pool state carried feeGrowthGlobalX64: the fee token's fee growth global after
   * the swap, and the crossed ticks with the (in-flight) fee growth at their crossing
   */
  feeGrowth: { feeGrowthGlobalX64: bigint; crossings: { tick: number; feeGrowthGlobalX64: bigint }[] } | null;
  /** volatility state after the swap (dynamic-fee pools) */
  dynamicFee: { volatilityReference: number; volatilityAccumulator: number; tickSpacingIndexReference: number } | null;
}

/** tick_spacing_index_from_tick: floor(tick / spacing) */
export function tickSpacingIndexFromTick(tick: number, tickSpacing: number): number {
  return Math.floor(tick / tickSpacing);
}

/** The dynamic part of the fee rate for a volatility accumulator (compute_dynamic_fee_rate). */
export function dynamicFeeRate(info: ClmmDynamicFeeInfo, volatilityAccumulator: bigint, tickSpacing: number): bigint {
  const crossed = volatilityAccumulator * BigInt(tickSpacing);
  if (crossed > U32_MAX) throw new ClmmMathError('ArithmeticOverflow', 'volatility_accumulator * tick_spacing overflows u32');
  const squared = crossed * crossed;
  const den = DYNAMIC_FEE_CONTROL_DENOMINATOR * VOLATILITY_ACCUMULATOR_SCALE * VOLATILITY_ACCUMULATOR_SCALE;
  const rate = mulDivCeil(BigInt(info.dynamicFeeControl), squared, den, U128_MAX);
  return rate > MAX_FEE_RATE_NUMERATOR ? MAX_FEE_RATE_NUMERATOR : rate;
}

/** Mutable dynamic fee state of one swap. */
interface DynState {
  info: ClmmDynamicFeeInfo;
  max: bigint;
  reference: bigint;
  accumulator: bigint;
  indexReference: number;
}

/**
 * The volatility reference a swap at `unixTimestamp` starts from (DynamicFeeInfo.update_reference):
 * unchanged within filter_period of the last update, decayed within decay_period, else reset.
 */
export function dynamicFeeReferenceAt(
  info: ClmmDynamicFeeInfo,
  tickSpacingIndex: number,
  unixTimestamp: number,
): { volatilityReference: bigint; tickSpacingIndexReference: number } {
  // the program truncates the block time to u32 before widening it
  const now = BigInt(unixTimestamp) & U32_MAX;
  const elapsed = now > info.lastUpdateTimestamp ? now - info.lastUpdateTimestamp : 0n;
  if (elapsed < BigInt(info.filterPeriod)) {
    return { volatilityReference: BigInt(info.volatilityReference), tickSpacingIndexReference: info.tickSpacingIndexReference };
  }
  if (elapsed < BigInt(info.decayPeriod)) {
    return {
      volatilityReference:
        (BigInt(info.volatilityAccumulator) * BigInt(info.reductionFactor)) / REDUCTION_FACTOR_DENOMINATOR,
      tickSpacingIndexReference: tickSpacingIndex,
    };
  }
  return { volatilityReference: 0n, tickSpacingIndexReference: tickSpacingIndex };
}

/**
 * The references a swap could start from when the block time is not known: one per time window
 * (before filter_period, before decay_period, after), deduplicated.
 */
export function possibleDynamicFeeReferences(
  info: ClmmDynamicFeeInfo,
  tickSpacingIndex: number,
): { volatilityReference: bigint; tickSpacingIndexReference: number }[] {
  const last = Number(info.lastUpdateTimestamp);
  const candidates = [
    dynamicFeeReferenceAt(info, tickSpacingIndex, last),
    dynamicFeeReferenceAt(info, tickSpacingIndex, last + info.filterPeriod),
    dynamicFeeReferenceAt(info, tickSpacingIndex, last + Math.max(info.decayPeriod, info.filterPeriod)),
  ];
  const out: typeof candidates = [];
  for (const c of candidates) {
    if (!out.some((o) => o.volatilityReference === c.volatilityReference && o.tickSpacingIndexReference === c.tickSpacingIndexReference)) {
      out.push(c);
    }
  }
  return out;
}

interface LimitOrderFill {
  amountIn: bigint;
  amountOut: bigint;
  fee: bigint;
  /** unfilled amount left on the tick after the fill */
  remainingUnfilled: bigint;
}

/** match_limit_order_with_sqrt_price: the swap fills resting limit orders on the tick it reached. */
function matchLimitOrders(
  tick: ClmmSwapTick,
  swapAmount: bigint,
  zeroForOne: boolean,
  isBaseInput: boolean,
  feeRate: bigint,
  isFeeOnInput: boolean,
  sqrtPriceX64: bigint,
): LimitOrderFill {
  const totalUnfilled = tick.ordersAmount + tick.partFilledOrdersRemaining;
  if (totalUnfilled > U64_MAX) throw new ClmmMathError('CalculateOverflow', 'limit order amounts overflow');
  if (swapAmount === 0n || totalUnfilled === 0n) return { amountIn: 0n, amountOut: 0n, fee: 0n, remainingUnfilled: totalUnfilled };
  const price = getPriceFromSqrtPrice(sqrtPriceX64, !zeroForOne);
  // output for an input (rounded down) and input for an output (rounded up), at the tick price
  const outputFor = (amountIn: bigint): bigint =>
    zeroForOne ? mulDivFloor(amountIn, price, Q64, U128_MAX) : mulDivFloor(amountIn, Q64, price, U128_MAX);
  const inputFor = (amountOut: bigint): bigint =>
    zeroForOne ? mulDivCeil(amountOut, Q64, price, U64_MAX) : mulDivCeil(amountOut, price, Q64, U64_MAX);
  const keep = FEE_RATE_DENOMINATOR - feeRate;
  let amountIn: bigint;
  let amountOut: bigint;
  let fee = 0n;
  if (isBaseInput) {
    if (isFeeOnInput) {
      fee = mulDivCeil(swapAmount, feeRate, FEE_RATE_DENOMINATOR, U64_MAX);
      amountIn = swapAmount - fee;
    } else {
      amountIn = swapAmount;
    }
    const matched = outputFor(amountIn);
    if (matched > totalUnfilled) {
      amountOut = totalUnfilled;
      amountIn = inputFor(totalUnfilled);
      if (isFeeOnInput) fee = mulDivCeil(amountIn, feeRate, keep, U64_MAX);
    } else {
      amountOut = matched;
    }
  } else {
    const net = swapAmount < totalUnfilled ? swapAmount : totalUnfilled;
    if (isFeeOnInput) {
      amountOut = net;
    } else {
      const gross = mulDivCeil(net, FEE_RATE_DENOMINATOR, keep, U64_MAX);
      amountOut = gross < totalUnfilled ? gross : totalUnfilled;
    }
    amountIn = inputFor(amountOut);
    if (isFeeOnInput) fee = mulDivCeil(amountIn, feeRate, keep, U64_MAX);
  }
  const remainingUnfilled = totalUnfilled - amountOut;
  if (!isFeeOnInput) {
    fee = mulDivCeil(amountOut, feeRate, FEE_RATE_DENOMINATOR, U64_MAX);
    amountOut -= fee;
  }
  return { amountIn, amountOut, fee, remainingUnfilled };
}

const LOOP_GUARD = 200_000;

/**
 * Run the swap on the given state and loaded tick arrays (keyed by start index). Throws
 * ClmmMathError (program failure), ClmmTickArrayNotLoadedError (a needed array is missing), or
 * ClmmMathError('NeedsClock') for a dynamic-fee pool without `unixTimestamp` whose result depends
 * on the time.
 */
export function clmmSwap(
  pool: ClmmSwapPoolState,
  bitmaps: ClmmBitmaps,
  tickArrays: ReadonlyMap<number, ClmmSwapTickArray>,
  params: ClmmSwapParams,
): ClmmSwapResult {
  const info = pool.dynamicFeeInfo;
  if (!info || params.unixTimestamp !== undefined) {
    const ref = info
      ? dynamicFeeReferenceAt(info, tickSpacingIndexFromTick(pool.tickCurrent, pool.tickSpacing), params.unixTimestamp!)
      : null;
    return swapWithReference(pool, bitmaps, tickArrays, params, ref);
  }
  // no clock: the result is exact only when every possible time window gives the same amounts
  const refs = possibleDynamicFeeReferences(info, tickSpacingIndexFromTick(pool.tickCurrent, pool.tickSpacing));
  const results = refs.map((r) => swapWithReference(pool, bitmaps, tickArrays, params, r));
  const first = results[0];
  for (const r of results.slice(1)) {
    if (r.amountIn !== first.amountIn || r.amountOut !== first.amountOut || r.tradeFee !== first.tradeFee) {
      throw new ClmmMathError(
        'NeedsClock',
        'dynamic-fee pool: the fee depends on the time since the last volatility update ' +
          `(last_update_timestamp ${info.lastUpdateTimestamp}, filter ${info.filterPeriod}s, decay ${info.decayPeriod}s); ` +
          'a block time is needed to quote it exactly',
      );
    }
  }
  return first;
}

function swapWithReference(
  pool: ClmmSwapPoolState,
  bitmaps: ClmmBitmaps,
  tickArrays: ReadonlyMap<number, ClmmSwapTickArray>,
  params: ClmmSwapParams,
  reference: { volatilityReference: bigint; tickSpacingIndexReference: number } | null,
): ClmmSwapResult {
  const { zeroForOne, isBaseInput } = params;
  const amountSpecified = params.amount;
  const tickSpacing = pool.tickSpacing;
  if (amountSpecified <= 0n) throw new ClmmMathError('ZeroAmountSpecified', 'amount must be positive');
  if (amountSpecified > U64_MAX) throw new ClmmMathError('CalculateOverflow', 'amount exceeds u64');
  const limit =
    params.sqrtPriceLimitX64 && params.sqrtPriceLimitX64 !== 0n
      ? params.sqrtPriceLimitX64
      : zeroForOne
        ? MIN_SQRT_PRICE_X64 + 1n
        : MAX_SQRT_PRICE_X64 - 1n;
  if (
    zeroForOne
      ? !(limit < pool.sqrtPriceX64 && limit > MIN_SQRT_PRICE_X64)
      : !(limit > pool.sqrtPriceX64 && limit < MAX_SQRT_PRICE_X64)
  ) {
    throw new ClmmMathError('SqrtPriceLimitOverflow', 'price limit on the wrong side of the current price or out of range');
  }

  let [firstContainsPoolTick, currentStart] = firstInitializedTickArray(bitmaps, pool.tickCurrent, zeroForOne);
  let current = tickArrays.get(currentStart);
  if (!current) throw new ClmmTickArrayNotLoadedError(currentStart);
  const used = [currentStart];

  const feeOn = pool.feeOn;
  const isFeeOnInput = feeOn === 1 ? zeroForOne : feeOn === 2 ? !zeroForOne : true;
  const feeOnToken0 = feeOn === 1 ? true : feeOn === 2 ? false : zeroForOne;
  const protocolRate = BigInt(pool.protocolFeeRate);
  const fundRate = BigInt(pool.fundFeeRate);
  const baseFeeRate = BigInt(pool.tradeFeeRate);

  let remaining = amountSpecified;
  let calculated = 0n;
  let sqrtPrice = pool.sqrtPriceX64;
  let tick = pool.tickCurrent;
  let liquidity = pool.liquidity;
  let lpFee = 0n;
  let protocolFee = 0n;
  let fundFee = 0n;
  let loIn = 0n;
  let loOut = 0n;
  let ticksCrossed = 0;
  const trackGrowth = pool.feeGrowthGlobalX64 !== undefined;
  let feeGrowth = pool.feeGrowthGlobalX64 ?? 0n;
  const crossings: { tick: number; feeGrowthGlobalX64: bigint }[] = [];

  let dyn: DynState | null = null;
  let tickSpacingIndex = 0;
  if (pool.dynamicFeeInfo && reference) {
    const info = pool.dynamicFeeInfo;
    tickSpacingIndex = tickSpacingIndexFromTick(tick, tickSpacing);
    dyn = {
      info,
      max: BigInt(info.maxVolatilityAccumulator),
      reference: reference.volatilityReference,
      accumulator: BigInt(info.volatilityAccumulator),
      indexReference: reference.tickSpacingIndexReference,
    };
  }
  const updateAccumulator = (): void => {
    if (!dyn) return;
    const delta = BigInt(Math.abs(dyn.indexReference - tickSpacingIndex));
    const acc = dyn.reference + delta * VOLATILITY_ACCUMULATOR_SCALE;
    dyn.accumulator = acc < dyn.max ? acc : dyn.max;
  };

  const applyAmounts = (amountIn: bigint, amountOut: bigint, fee: bigint): void => {
    const consumed = isFeeOnInput ? amountIn + fee : amountIn;
    if (isBaseInput) {
      remaining -= consumed;
      calculated += amountOut;
    } else {
      remaining -= amountOut;
      calculated += consumed;
    }
    if (remaining < 0n) throw new ClmmMathError('CalculateOverflow', 'amount_specified_remaining underflows');
    if (calculated > U64_MAX) throw new ClmmMathError('CalculateOverflow', 'amount_calculated overflows u64');
    const p = protocolRate > 0n ? (fee * protocolRate) / FEE_RATE_DENOMINATOR : 0n;
    const f = fundRate > 0n ? (fee * fundRate) / FEE_RATE_DENOMINATOR : 0n;
    protocolFee += p;
    fundFee += f;
    const rest = fee - p - f;
    if (rest < 0n) throw new ClmmMathError('CalculateOverflow', 'fee split underflows');
    if (liquidity > 0n) {
      lpFee += rest;
      if (trackGrowth) feeGrowth += (rest << 64n) / liquidity;
    } else protocolFee += rest;
  };

  let guard = 0;
  // the tick at a price a step stopped inside a tick range is found only when something reads it
  // (the next step, the dynamic fee, the result): the last step of a quote never needs it
  let tickStale = false;
  while (remaining !== 0n && sqrtPrice !== limit) {
    if (tickStale) {
      tick = getTickAtSqrtPrice(sqrtPrice);
      tickStale = false;
    }
    // the next initialized tick in the direction, moving to the next tick array when needed
    let next = nextInitializedTickInArray(current, tick, tickSpacing, zeroForOne);
    if (!next) {
      if (!firstContainsPoolTick) {
        firstContainsPoolTick = true;
        next = firstInitializedTickInArray(current, zeroForOne);
      } else {
        const nextStart = nextInitializedTickArrayStartIndex(bitmaps, currentStart, zeroForOne);
        if (nextStart === null) {
          throw new ClmmMathError('LiquidityInsufficient', 'no more initialized tick arrays in the swap direction');
        }
        const arr = tickArrays.get(nextStart);
        if (!arr) throw new ClmmTickArrayNotLoadedError(nextStart);
        current = arr;
        currentStart = nextStart;
        used.push(nextStart);
        next = firstInitializedTickInArray(current, zeroForOne);
      }
    }
    if (!tickIsInitialized(next)) throw new ClmmMathError('RequireEqViolated', 'next tick is not initialized');

    // target price: the next tick, or the limit when it comes first
    let tickNext = next.tick;
    if (tickNext < MIN_TICK) tickNext = MIN_TICK;
    else if (tickNext > MAX_TICK) tickNext = MAX_TICK;
    const sqrtPriceNext = getSqrtPriceAtTick(tickNext);
    const target = (zeroForOne ? sqrtPriceNext < limit : sqrtPriceNext > limit) ? limit : sqrtPriceNext;
    if (zeroForOne) {
      if (!(tick >= tickNext && sqrtPrice >= sqrtPriceNext && sqrtPrice >= target)) {
        throw new ClmmMathError('RequireGteViolated', 'next tick is not below the current price');
      }
    } else if (!(tickNext > tick && sqrtPriceNext >= sqrtPrice && target >= sqrtPrice)) {
      throw new ClmmMathError('RequireGtViolated', 'next tick is not above the current price');
    }

    let liquidityNext = liquidity;
    for (;;) {
      if (++guard > LOOP_GUARD) throw new ClmmMathError('LoopGuard', 'swap loop did not terminate');
      updateAccumulator();
      let feeRate = baseFeeRate;
      if (dyn) {
        feeRate = baseFeeRate + dynamicFeeRate(dyn.info, dyn.accumulator, tickSpacing);
        if (feeRate > MAX_FEE_RATE_NUMERATOR) feeRate = MAX_FEE_RATE_NUMERATOR;
      }

      // with the dynamic fee, a step ends at the edge of the current tick spacing group
      let skipped = true;
      let bounded = target;
      let boundedTick: number | null = null;
      if (dyn && liquidity !== 0n && dyn.accumulator !== dyn.max) {
        skipped = false;
        let bt = zeroForOne ? tickSpacingIndex * tickSpacing : (tickSpacingIndex + 1) * tickSpacing;
        bt = Math.min(Math.max(bt, MIN_TICK), MAX_TICK);
        const bp = getSqrtPriceAtTick(bt);
        if (zeroForOne ? !(target > bp) : !(target < bp)) {
          bounded = bp;
          boundedTick = bt;
        }
      }

      let step: SwapStepResult;
      if (sqrtPrice !== bounded) {
        step = computeSwapStep(sqrtPrice, bounded, liquidity, remaining, feeRate, isBaseInput, zeroForOne, isFeeOnInput);
        applyAmounts(step.amountIn, step.amountOut, step.feeAmount);
      } else {
        step = { sqrtPriceNextX64: bounded, amountIn: 0n, amountOut: 0n, feeAmount: 0n };
      }

      if (sqrtPriceNext === step.sqrtPriceNextX64) {
        // reached the tick: fill its limit orders first, then cross it if they are gone
        let hasOrders = tickHasLimitOrders(next);
        if (hasOrders) {
          const fill = matchLimitOrders(next, remaining, zeroForOne, isBaseInput, feeRate, isFeeOnInput, sqrtPriceNext);
          if (fill.amountIn !== 0n || fill.amountOut !== 0n || fill.fee !== 0n) {
            applyAmounts(fill.amountIn, fill.amountOut, fill.fee);
            loIn += fill.amountIn + (isFeeOnInput ? fill.fee : 0n);
            loOut += fill.amountOut;
          }
          hasOrders = fill.remainingUnfilled > 0n;
          if (remaining !== 0n && hasOrders) {
            throw new ClmmMathError('RequireEqViolated', 'limit orders left on a tick the swap continues past');
          }
        }
        if (next.liquidityGross > 0n && !hasOrders) {
          liquidityNext = addDelta(liquidity, zeroForOne ? -next.liquidityNet : next.liquidityNet);
          ticksCrossed++;
          if (trackGrowth) crossings.push({ tick: next.tick, feeGrowthGlobalX64: feeGrowth });
        }
        tick = (zeroForOne && !hasOrders) || (!zeroForOne && hasOrders) ? tickNext - 1 : tickNext;
        tickStale = false;
      } else if (sqrtPrice !== step.sqrtPriceNextX64) {
        if (boundedTick !== null && step.sqrtPriceNextX64 === bounded) {
          tick = boundedTick;
          tickStale = false;
        } else tickStale = true;
      }
      sqrtPrice = step.sqrtPriceNextX64;

      if (dyn) {
        if (skipped) {
          if (tickStale && sqrtPrice !== sqrtPriceNext) {
            tick = getTickAtSqrtPrice(sqrtPrice);
            tickStale = false;
          }
          const t = sqrtPrice === sqrtPriceNext ? tickNext : tick;
          tickSpacingIndex = tickSpacingIndexFromTick(t, tickSpacing);
          if (!zeroForOne && t % tickSpacing === 0) tickSpacingIndex -= 1;
          if (dyn.accumulator !== dyn.max) updateAccumulator();
        }
        tickSpacingIndex += zeroForOne ? -1 : 1;
      }
      if (remaining === 0n || sqrtPrice === target) break;
    }
    liquidity = liquidityNext;
  }

  const finalSqrtPrice = sqrtPrice;
  const finalTick = tickStale ? null : tick;
  const consumed = amountSpecified - remaining;
  const amountIn = isBaseInput ? consumed : calculated;
  const amountOut = isBaseInput ? calculated : consumed;
  return {
    zeroForOne,
    amountIn,
    amountOut,
    tradeFee: lpFee + protocolFee + fundFee,
    feeOnInput: isFeeOnInput,
    feeOnToken0,
    lpFee,
    protocolFee,
    fundFee,
    limitOrderAmountIn: loIn,
    limitOrderAmountOut: loOut,
    sqrtPriceX64: sqrtPrice,
    get tickCurrent(): number {
      return finalTick ?? getTickAtSqrtPrice(finalSqrtPrice);
    },
    liquidity,
    filled: remaining === 0n,
    tickArraysUsed: used,
    ticksCrossed,
    feeGrowth: trackGrowth ? { feeGrowthGlobalX64: feeGrowth, crossings } : null,
    dynamicFee: dyn
      ? {
          volatilityReference: Number(dyn.reference),
          volatilityAccumulator: Number(dyn.accumulator),
          tickSpacingIndexReference: dyn.indexReference,
        }
      : null,
  };
}
