/**
 * The Whirlpool swap loop (manager/swap_manager.rs), the tick-array sequence it walks
 * (util/swap_tick_sequence.rs, util/sparse_swap.rs) and the adaptive fee
 * (manager/fee_rate_manager.rs, state/oracle.rs), re-derived in TypeScript.
 *
 * A swap can only use the (up to three) tick arrays the instruction is given. The sequence is
 * chosen from the pool's current tick exactly as the program's SparseSwapTickSequenceBuilder does:
 * a_to_b takes the array holding the current tick and the two below it; b_to_a takes the array
 * holding the current tick (or the next one when the current tick is within one tick spacing of
 * the array's end) and the two above. A missing array ends the sequence; an array known not to
 * exist on chain is used as an all-uninitialized ("zeroed") array, as the program does when the
 * PDA is passed without data. The swap fails with TickArraySequenceInvalidIndex when it needs an
 * array beyond the sequence.
 */
import {
  MAX_SQRT_PRICE_X64,
  MAX_TICK_INDEX,
  MIN_SQRT_PRICE_X64,
  MIN_TICK_INDEX,
  PROTOCOL_FEE_RATE_MUL_VALUE,
  TICK_ARRAY_SIZE,
  U128_MAX,
  U64_MAX,
  WhirlpoolMathError,
  computeSwapStep,
  floorDiv,
  sqrtPriceFromTickIndex,
  tickIndexFromSqrtPrice,
} from './math';

/** What the swap loop needs of a tick. */
export interface SwapTick {
  initialized: boolean;
  liquidityNet: bigint;
}

/** A tick array as the swap sees it: 88 ticks from `startTickIndex`; `ticks: null` = zeroed array. */
export interface SwapTickArray {
  startTickIndex: number;
  ticks: ReadonlyArray<SwapTick> | null;
}

/** The pool state the swap reads. */
export interface SwapPoolState {
  tickSpacing: number;
  feeRate: number;
  protocolFeeRate: number;
  liquidity: bigint;
  sqrtPrice: bigint;
  tickCurrentIndex: number;
  feeGrowthGlobalA: bigint;
  feeGrowthGlobalB: bigint;
}

export interface AdaptiveFeeConstantsLike {
  filterPeriod: number;
  decayPeriod: number;
  reductionFactor: number;
  adaptiveFeeControlFactor: number;
  maxVolatilityAccumulator: number;
  tickGroupSize: number;
  majorSwapThresholdTicks: number;
}

export interface AdaptiveFeeVariablesLike {
  lastReferenceUpdateTimestamp: bigint;
  lastMajorSwapTimestamp: bigint;
  volatilityReference: number;
  tickGroupIndexReference: number;
  volatilityAccumulator: number;
}

export interface AdaptiveFeeInfo {
  constants: AdaptiveFeeConstantsLike;
  variables: AdaptiveFeeVariablesLike;
}

export interface SwapParams {
  amount: bigint;
  /** 0n = no explicit limit (MIN/MAX sqrt price; ExactOut partial fills are then rejected) */
  sqrtPriceLimit: bigint;
  amountSpecifiedIsInput: boolean;
  aToB: boolean;
  /** unix seconds; needed by the adaptive fee */
  timestamp: bigint;
  adaptiveFee: AdaptiveFeeInfo | null;
  /**
   * false: the fee growth is not followed (a quote needs none of it; without its 128-bit
   * division per step a quote of the SAMO/USDC capture took 4-15% less time, measured
   * interleaved in one process): the result's nextFeeGrowthGlobal is then the pool's and
   * crossedFeeGrowth is empty; every other field is the same. Default true.
   */
  trackFeeGrowth?: boolean;
}

export interface SwapResult {
  amountA: bigint;
  amountB: bigint;
  /** fee to LPs (total fee minus protocol fee), input-token units */
  lpFee: bigint;
  /** total fee, input-token units */
  feeAmount: bigint;
  nextLiquidity: bigint;
  nextTickIndex: number;
  nextSqrtPrice: bigint;
  nextFeeGrowthGlobal: bigint;
  nextProtocolFee: bigint;
  /** initialized ticks crossed, in order */
  crossedTicks: number[];
  /**
   * the input token's fee growth global (in-flight value) at each crossing, same order as
   * crossedTicks: what the program's tick cross flips the tick's fee_growth_outside against
   */
  crossedFeeGrowth: bigint[];
  nextAdaptiveFeeVariables: AdaptiveFeeVariablesLike | null;
}

// ---------------------------------------------------------------- tick arrays

function inSearchRange(start: number, tick: number, ts: number, shifted: boolean): boolean {
  let lower = start;
  let upper = start + TICK_ARRAY_SIZE * ts;
  if (shifted) {
    lower -= ts;
    upper -= ts;
  }
  return tick >= lower && tick < upper;
}

function tickOffset(start: number, tick: number, ts: number): number {
  return floorDiv(tick - start, ts);
}

/** get_next_init_tick_index of one array; null = none in this array. */
function nextInitTickInArray(ta: SwapTickArray, tick: number, ts: number, aToB: boolean): number | null {
  if (!inSearchRange(ta.startTickIndex, tick, ts, !aToB)) throw new WhirlpoolMathError('InvalidTickArraySequence');
  const ticks = ta.ticks;
  if (ticks === null) return null;
  let off = tickOffset(ta.startTickIndex, tick, ts);
  if (aToB) {
    for (; off >= 0; off--) if (ticks[off].initialized) return ta.startTickIndex + off * ts;
  } else {
    for (off += 1; off < TICK_ARRAY_SIZE; off++) if (ticks[off].initialized) return ta.startTickIndex + off * ts;
  }
  return null;
}

function isMinTickArray(ta: SwapTickArray): boolean {
  return ta.startTickIndex <= MIN_TICK_INDEX;
}

function isMaxTickArray(ta: SwapTickArray, ts: number): boolean {
  return ta.startTickIndex + TICK_ARRAY_SIZE * ts > MAX_TICK_INDEX;
}

/** SwapTickSequence::get_next_initialized_tick_index */
function nextInitializedTick(arrays: ReadonlyArray<SwapTickArray>, tick: number, ts: number, aToB: boolean, startArray: number): [number, number] {
  const ticksInArray = TICK_ARRAY_SIZE * ts;
  let search = tick;
  let idx = startArray;
  for (;;) {
    const ta = arrays[idx];
    if (ta === undefined) throw new WhirlpoolMathError('TickArraySequenceInvalidIndex');
    const next = nextInitTickInArray(ta, search, ts, aToB);
    if (next !== null) return [idx, next];
    if (aToB && isMinTickArray(ta)) return [idx, MIN_TICK_INDEX];
    if (!aToB && isMaxTickArray(ta, ts)) return [idx, MAX_TICK_INDEX];
    if (idx + 1 === arrays.length) return [idx, aToB ? ta.startTickIndex : ta.startTickIndex + ticksInArray - 1];
    search = aToB ? ta.startTickIndex - 1 : ta.startTickIndex + ticksInArray - 1;
    idx++;
  }
}

/** get_tick; null when the program's get_tick fails (out of bounds / unusable tick) */
function getTick(ta: SwapTickArray, tick: number, ts: number): SwapTick | null {
  if (!inSearchRange(ta.startTickIndex, tick, ts, false)) return null;
  if (tick < MIN_TICK_INDEX || tick > MAX_TICK_INDEX || tick % ts !== 0) return null;
  const off = tickOffset(ta.startTickIndex, tick, ts);
  if (off < 0) return null;
  return ta.ticks === null ? null : ta.ticks[off];
}

/** Tick-array start index holding `tick`. */
export function tickArrayStartIndex(tick: number, tickSpacing: number): number {
  const n = TICK_ARRAY_SIZE * tickSpacing;
  return floorDiv(tick, n) * n;
}

/** Tick::check_is_valid_start_tick */
export function isValidTickArrayStart(start: number, tickSpacing: number): boolean {
  const n = TICK_ARRAY_SIZE * tickSpacing;
  if (start < MIN_TICK_INDEX || start > MAX_TICK_INDEX) {
    if (start > MIN_TICK_INDEX) return false;
    const minStart = MIN_TICK_INDEX - ((MIN_TICK_INDEX % n) + n);
    return start === minStart;
  }
  return start % n === 0;
}

/**
 * The start indexes of the (up to 3) tick arrays the program uses for a swap from this state
 * (sparse_swap.rs get_start_tick_indexes), invalid starts dropped.
 */
export function swapTickArrayStartIndexes(tickCurrentIndex: number, tickSpacing: number, aToB: boolean): number[] {
  const n = TICK_ARRAY_SIZE * tickSpacing;
  const base = floorDiv(tickCurrentIndex, n) * n;
  let offsets: number[];
  if (aToB) offsets = [0, -1, -2];
  else offsets = tickCurrentIndex + tickSpacing >= base + n ? [1, 2, 3] : [0, 1, 2];
  return offsets.map((o) => base + o * n).filter((s) => isValidTickArrayStart(s, tickSpacing));
}

/**
 * Build the swap's sequence from what is known: `lookup(start)` returns the array, `null` when
 * the account is known not to exist (a zeroed array), `undefined` when unknown (sequence stops).
 * Throws InvalidTickArraySequence when not even the first array is available.
 */
export function buildSwapTickSequence(
  tickCurrentIndex: number,
  tickSpacing: number,
  aToB: boolean,
  lookup: (startTickIndex: number) => SwapTickArray | null | undefined,
): SwapTickArray[] {
  const out: SwapTickArray[] = [];
  for (const start of swapTickArrayStartIndexes(tickCurrentIndex, tickSpacing, aToB)) {
    const ta = lookup(start);
    if (ta === undefined) break;
    out.push(ta ?? { startTickIndex: start, ticks: null });
  }
  if (out.length === 0) throw new WhirlpoolMathError('InvalidTickArraySequence');
  return out;
}

// ---------------------------------------------------------------- adaptive fee

const VOLATILITY_ACCUMULATOR_SCALE_FACTOR = 10_000;
const REDUCTION_FACTOR_DENOMINATOR = 10_000n;
const ADAPTIVE_FEE_CONTROL_FACTOR_DENOMINATOR = 100_000n;
const MAX_REFERENCE_AGE = 3_600n;
export const FEE_RATE_HARD_LIMIT = 100_000;

/** FeeRateManager (static or adaptive) */
class FeeRateManager {
  private tickGroupIndex = 0;
  private readonly v: AdaptiveFeeVariablesLike | null;
  private readonly c: AdaptiveFeeConstantsLike | null;
  private lowerBound: [number, bigint] | null = null;
  private upperBound: [number, bigint] | null = null;

  constructor(
    private readonly aToB: boolean,
    currentTickIndex: number,
    timestamp: bigint,
    private readonly staticFeeRate: number,
    info: AdaptiveFeeInfo | null,
  ) {
    if (info === null) {
      this.v = null;
      this.c = null;
      return;
    }
    const c = info.constants;
    this.c = c;
    this.v = { ...info.variables };
    this.tickGroupIndex = floorDiv(currentTickIndex, c.tickGroupSize);
    this.updateReference(this.tickGroupIndex, timestamp);
    // u32 subtraction (wrapping in the release build) then ceil division
    const diff = (c.maxVolatilityAccumulator - this.v.volatilityReference) >>> 0;
    const delta = Math.ceil(diff / VOLATILITY_ACCUMULATOR_SCALE_FACTOR);
    const lowerIndex = this.v.tickGroupIndexReference - delta;
    const upperIndex = this.v.tickGroupIndexReference + delta;
    const lowerTick = lowerIndex * c.tickGroupSize;
    const upperTick = upperIndex * c.tickGroupSize + c.tickGroupSize;
    this.lowerBound = lowerTick > MIN_TICK_INDEX ? [lowerIndex, sqrtPriceFromTickIndex(lowerTick)] : null;
    this.upperBound = upperTick < MAX_TICK_INDEX ? [upperIndex, sqrtPriceFromTickIndex(upperTick)] : null;
  }

  get adaptive(): boolean {
    return this.c !== null;
  }

  private updateReference(tickGroupIndex: number, now: bigint): void {
    const v = this.v!;
    const c = this.c!;
    const maxTs = v.lastReferenceUpdateTimestamp > v.lastMajorSwapTimestamp ? v.lastReferenceUpdateTimestamp : v.lastMajorSwapTimestamp;
    if (now < maxTs) throw new WhirlpoolMathError('InvalidTimestamp');
    if (now - v.lastReferenceUpdateTimestamp > MAX_REFERENCE_AGE) {
      v.tickGroupIndexReference = tickGroupIndex;
      v.volatilityReference = 0;
      v.lastReferenceUpdateTimestamp = now;
      return;
    }
    const elapsed = now - maxTs;
    if (elapsed < BigInt(c.filterPeriod)) {
      // high-frequency trading: no change
    } else if (elapsed < BigInt(c.decayPeriod)) {
      v.tickGroupIndexReference = tickGroupIndex;
      v.volatilityReference = Number((BigInt(v.volatilityAccumulator) * BigInt(c.reductionFactor)) / REDUCTION_FACTOR_DENOMINATOR);
      v.lastReferenceUpdateTimestamp = now;
    } else {
      v.tickGroupIndexReference = tickGroupIndex;
      v.volatilityReference = 0;
      v.lastReferenceUpdateTimestamp = now;
    }
  }

  private updateVolatilityAccumulatorAt(tickGroupIndex: number): void {
    const v = this.v!;
    const indexDelta = Math.abs(v.tickGroupIndexReference - tickGroupIndex);
    const acc = v.volatilityReference + indexDelta * VOLATILITY_ACCUMULATOR_SCALE_FACTOR;
    v.volatilityAccumulator = Math.min(acc, this.c!.maxVolatilityAccumulator);
  }

  updateVolatilityAccumulator(): void {
    if (this.c !== null) this.updateVolatilityAccumulatorAt(this.tickGroupIndex);
  }

  totalFeeRate(): number {
    if (this.c === null) return this.staticFeeRate;
    const c = this.c;
    const crossed = BigInt(Math.imul(this.v!.volatilityAccumulator, c.tickGroupSize) >>> 0);
    const squared = crossed * crossed;
    const num = BigInt(c.adaptiveFeeControlFactor) * squared;
    const den = ADAPTIVE_FEE_CONTROL_FACTOR_DENOMINATOR * 10_000n * 10_000n;
    let rate = num / den;
    if (rate * den !== num) rate += 1n;
    const adaptive = rate > BigInt(FEE_RATE_HARD_LIMIT) ? FEE_RATE_HARD_LIMIT : Number(rate);
    const total = this.staticFeeRate + adaptive;
    return total > FEE_RATE_HARD_LIMIT ? FEE_RATE_HARD_LIMIT : total;
  }

  /** [bounded target, skip] */
  boundedTarget(target: bigint, liquidity: bigint): [bigint, boolean] {
    const c = this.c;
    if (c === null) return [target, false];
    if (c.adaptiveFeeControlFactor === 0) return [target, true];
    if (liquidity === 0n) return [target, true];
    if (this.lowerBound !== null && this.tickGroupIndex < this.lowerBound[0]) {
      if (this.aToB) return [target, true];
      return [target < this.lowerBound[1] ? target : this.lowerBound[1], true];
    }
    if (this.upperBound !== null && this.tickGroupIndex > this.upperBound[0]) {
      if (this.aToB) return [target > this.upperBound[1] ? target : this.upperBound[1], true];
      return [target, true];
    }
    const boundaryTick = this.aToB ? this.tickGroupIndex * c.tickGroupSize : this.tickGroupIndex * c.tickGroupSize + c.tickGroupSize;
    const clamped = boundaryTick < MIN_TICK_INDEX ? MIN_TICK_INDEX : boundaryTick > MAX_TICK_INDEX ? MAX_TICK_INDEX : boundaryTick;
    const boundary = sqrtPriceFromTickIndex(clamped);
    if (this.aToB) return [target > boundary ? target : boundary, false];
    return [target < boundary ? target : boundary, false];
  }

  advanceTickGroup(): void {
    if (this.c !== null) this.tickGroupIndex += this.aToB ? -1 : 1;
  }

  advanceTickGroupAfterSkip(sqrtPrice: bigint, nextTickSqrtPrice: bigint, nextTickIndex: number): void {
    const c = this.c!;
    const size = c.tickGroupSize;
    let tickIndex: number;
    let onBoundary: boolean;
    if (sqrtPrice === nextTickSqrtPrice) {
      tickIndex = nextTickIndex;
      onBoundary = nextTickIndex % size === 0;
    } else {
      tickIndex = tickIndexFromSqrtPrice(sqrtPrice);
      onBoundary = tickIndex % size === 0 && sqrtPrice === sqrtPriceFromTickIndex(tickIndex);
    }
    const last = onBoundary && !this.aToB ? Math.trunc(tickIndex / size) - 1 : floorDiv(tickIndex, size);
    if ((this.aToB && last < this.tickGroupIndex) || (!this.aToB && last > this.tickGroupIndex)) {
      this.tickGroupIndex = last;
      this.updateVolatilityAccumulatorAt(last);
    }
    this.tickGroupIndex += this.aToB ? -1 : 1;
  }

  updateMajorSwapTimestamp(now: bigint, pre: bigint, post: bigint): void {
    if (this.c === null) return;
    const smaller = pre < post ? pre : post;
    const larger = pre < post ? post : pre;
    const factor = sqrtPriceFromTickIndex(this.c.majorSwapThresholdTicks);
    const target = (smaller * factor) >> 64n;
    if (target > U128_MAX) throw new WhirlpoolMathError('NumberDownCastError');
    if (larger >= target) this.v!.lastMajorSwapTimestamp = now;
  }

  nextVariables(): AdaptiveFeeVariablesLike | null {
    return this.v === null ? null : { ...this.v };
  }
}

// ---------------------------------------------------------------- the swap

/**
 * swap_manager::swap over a given tick-array sequence. Throws WhirlpoolMathError with the
 * program's error name where the program fails. Amounts are what enters and leaves the vaults
 * (Token-2022 transfer fees are not applied here).
 */
export function whirlpoolSwap(pool: SwapPoolState, arrays: ReadonlyArray<SwapTickArray>, p: SwapParams): SwapResult {
  const aToB = p.aToB;
  const isInput = p.amountSpecifiedIsInput;
  const limit = p.sqrtPriceLimit === 0n ? (aToB ? MIN_SQRT_PRICE_X64 : MAX_SQRT_PRICE_X64) : p.sqrtPriceLimit;
  if (limit < MIN_SQRT_PRICE_X64 || limit > MAX_SQRT_PRICE_X64) throw new WhirlpoolMathError('SqrtPriceOutOfBounds');
  if ((aToB && limit >= pool.sqrtPrice) || (!aToB && limit <= pool.sqrtPrice)) {
    throw new WhirlpoolMathError('InvalidSqrtPriceLimitDirection');
  }
  if (p.amount === 0n) throw new WhirlpoolMathError('ZeroTradableAmount');
  if (arrays.length === 0) throw new WhirlpoolMathError('InvalidTickArraySequence');

  const ts = pool.tickSpacing;
  const protocolFeeRate = BigInt(pool.protocolFeeRate);
  let amountRemaining = p.amount;
  let amountCalculated = 0n;
  let currSqrtPrice = pool.sqrtPrice;
  let currTickIndex = pool.tickCurrentIndex;
  let currLiquidity = pool.liquidity;
  let currProtocolFee = 0n;
  let currArrayIndex = 0;
  let feeGrowth = aToB ? pool.feeGrowthGlobalA : pool.feeGrowthGlobalB;
  const trackFeeGrowth = p.trackFeeGrowth !== false;
  let feeSum = 0n;
  const crossed: number[] = [];
  const crossedFeeGrowth: bigint[] = [];
  const frm = new FeeRateManager(aToB, pool.tickCurrentIndex, p.timestamp, pool.feeRate, p.adaptiveFee);

  // the tick at a price a step stopped inside a tick range is found only when something reads it
  // (the next step, the result): the last step of a quote never needs it
  let tickStale = false;
  while (amountRemaining > 0n && limit !== currSqrtPrice) {
    if (tickStale) {
      currTickIndex = tickIndexFromSqrtPrice(currSqrtPrice);
      tickStale = false;
    }
    const [nextArrayIndex, nextTickIndex] = nextInitializedTick(arrays, currTickIndex, ts, aToB, currArrayIndex);
    const nextTickSqrtPrice = sqrtPriceFromTickIndex(nextTickIndex);
    const target = aToB ? (limit > nextTickSqrtPrice ? limit : nextTickSqrtPrice) : limit < nextTickSqrtPrice ? limit : nextTickSqrtPrice;
    for (;;) {
      frm.updateVolatilityAccumulator();
      const feeRate = frm.totalFeeRate();
      const [bounded, skipped] = frm.boundedTarget(target, currLiquidity);
      const step = computeSwapStep(amountRemaining, feeRate, currLiquidity, currSqrtPrice, bounded, isInput, aToB);
      if (isInput) {
        amountRemaining -= step.amountIn;
        if (amountRemaining < 0n) throw new WhirlpoolMathError('AmountRemainingOverflow');
        amountRemaining -= step.feeAmount;
        if (amountRemaining < 0n) throw new WhirlpoolMathError('AmountRemainingOverflow');
        amountCalculated += step.amountOut;
        if (amountCalculated > U64_MAX) throw new WhirlpoolMathError('AmountCalcOverflow');
      } else {
        amountRemaining -= step.amountOut;
        if (amountRemaining < 0n) throw new WhirlpoolMathError('AmountRemainingOverflow');
        amountCalculated += step.amountIn;
        if (amountCalculated > U64_MAX) throw new WhirlpoolMathError('AmountCalcOverflow');
        amountCalculated += step.feeAmount;
        if (amountCalculated > U64_MAX) throw new WhirlpoolMathError('AmountCalcOverflow');
      }
      feeSum += step.feeAmount;
      if (feeSum > U64_MAX) throw new WhirlpoolMathError('AmountCalcOverflow');
      // calculate_fees
      let globalFee = step.feeAmount;
      if (protocolFeeRate > 0n) {
        const delta = (globalFee * protocolFeeRate) / PROTOCOL_FEE_RATE_MUL_VALUE;
        globalFee -= delta;
        currProtocolFee = (currProtocolFee + delta) & U64_MAX;
      }
      if (trackFeeGrowth && currLiquidity > 0n) feeGrowth = (feeGrowth + (globalFee << 64n) / currLiquidity) & U128_MAX;

      if (step.nextPrice === nextTickSqrtPrice) {
        const ta = arrays[nextArrayIndex];
        const tick = getTick(ta, nextTickIndex, ts);
        if (tick !== null && tick.initialized) {
          const net = aToB ? -tick.liquidityNet : tick.liquidityNet;
          const next = currLiquidity + net;
          if (next < 0n) throw new WhirlpoolMathError('LiquidityUnderflow');
          if (next > U128_MAX) throw new WhirlpoolMathError('LiquidityOverflow');
          currLiquidity = next;
          crossed.push(nextTickIndex);
          if (trackFeeGrowth) crossedFeeGrowth.push(feeGrowth);
        }
        const off = tickOffset(ta.startTickIndex, nextTickIndex, ts);
        currArrayIndex = (aToB && off === 0) || (!aToB && off === TICK_ARRAY_SIZE - 1) ? nextArrayIndex + 1 : nextArrayIndex;
        currTickIndex = aToB ? nextTickIndex - 1 : nextTickIndex;
        tickStale = false;
      } else if (step.nextPrice !== currSqrtPrice) {
        tickStale = true;
      }
      currSqrtPrice = step.nextPrice;
      if (!skipped) frm.advanceTickGroup();
      else frm.advanceTickGroupAfterSkip(currSqrtPrice, nextTickSqrtPrice, nextTickIndex);
      if (amountRemaining === 0n || currSqrtPrice === target) break;
    }
  }

  if (amountRemaining > 0n && !isInput && p.sqrtPriceLimit === 0n) throw new WhirlpoolMathError('PartialFillError');
  const [amountA, amountB] = aToB === isInput ? [p.amount - amountRemaining, amountCalculated] : [amountCalculated, p.amount - amountRemaining];
  frm.updateMajorSwapTimestamp(p.timestamp, pool.sqrtPrice, currSqrtPrice);
  const finalSqrtPrice = currSqrtPrice;
  const finalTick = tickStale ? null : currTickIndex;
  return {
    amountA,
    amountB,
    lpFee: (feeSum - currProtocolFee) & U64_MAX,
    feeAmount: feeSum,
    nextLiquidity: currLiquidity,
    get nextTickIndex(): number {
      return finalTick ?? tickIndexFromSqrtPrice(finalSqrtPrice);
    },
    nextSqrtPrice: currSqrtPrice,
    nextFeeGrowthGlobal: feeGrowth,
    nextProtocolFee: currProtocolFee,
    crossedTicks: crossed,
    crossedFeeGrowth,
    nextAdaptiveFeeVariables: frm.nextVariables(),
  };
}

