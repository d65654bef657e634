/**
 * Orca Whirlpool integer math, as the on-chain program computes it (programs/whirlpool/src/math):
 * Q64.64 sqrt prices, the tick <-> sqrt price conversions, the token deltas with the program's
 * rounding and its overflow checks (u64 / u128 / u256 bounds raise the same error names), and one
 * swap step (compute_swap). Pure bigint; no floating point.
 */

/** An error the program would return; `code` is the program's ErrorCode variant name. */
export class WhirlpoolMathError extends Error {
  constructor(readonly code: string) {
    super(`Whirlpool program error ${code}`);
    this.name = 'WhirlpoolMathError';
  }
}

export const MAX_TICK_INDEX = 443636;
export const MIN_TICK_INDEX = -443636;
export const TICK_ARRAY_SIZE = 88;
export const MAX_SQRT_PRICE_X64 = 79226673515401279992447579055n;
export const MIN_SQRT_PRICE_X64 = 4295048016n;
/** fee rates are hundredths of a basis point */
export const FEE_RATE_MUL_VALUE = 1_000_000n;
/** protocol fee rates are basis points of the fee */
export const PROTOCOL_FEE_RATE_MUL_VALUE = 10_000n;
export const MAX_FEE_RATE = 60_000;
export const MAX_PROTOCOL_FEE_RATE = 2_500;
/** pools with a tick spacing at or above this only allow full-range positions (splash pools) */
export const FULL_RANGE_ONLY_TICK_SPACING_THRESHOLD = 32768;

export const U64_MAX = (1n << 64n) - 1n;
export const U128_MAX = (1n << 128n) - 1n;
const U64_LIMIT = 1n << 64n;
const U128_LIMIT = 1n << 128n;
const U192_LIMIT = 1n << 192n;
const Q64_MASK = U64_MAX;

// ---------------------------------------------------------------- tick math

const POS_TICK_FACTORS: bigint[] = [
  79236085330515764027303304731n, // 2
  79244008939048815603706035061n, // 4
  79259858533276714757314932305n, // 8
  79291567232598584799939703904n, // 16
  79355022692464371645785046466n, // 32
  79482085999252804386437311141n, // 64
  79736823300114093921829183326n, // 128
  80248749790819932309965073892n, // 256
  81282483887344747381513967011n, // 512
  83390072131320151908154831281n, // 1024
  87770609709833776024991924138n, // 2048
  97234110755111693312479820773n, // 4096
  119332217159966728226237229890n, // 8192
  179736315981702064433883588727n, // 16384
  407748233172238350107850275304n, // 32768
  2098478828474011932436660412517n, // 65536
  55581415166113811149459800483533n, // 131072
  38992368544603139932233054999993551n, // 262144
];

const NEG_TICK_FACTORS: bigint[] = [
  18444899583751176498n,
  18443055278223354162n,
  18439367220385604838n,
  18431993317065449817n,
  18417254355718160513n,
  18387811781193591352n,
  18329067761203520168n,
  18212142134806087854n,
  17980523815641551639n,
  17526086738831147013n,
  16651378430235024244n,
  15030750278693429944n,
  12247334978882834399n,
  8131365268884726200n,
  3584323654723342297n,
  696457651847595233n,
  26294789957452057n,
  37481735321082n,
];

function sqrtPriceFromTickUncached(tick: number): bigint {
  if (tick >= 0) {
    let ratio = tick & 1 ? 79232123823359799118286999567n : 79228162514264337593543950336n;
    for (let i = 0; i < 18; i++) {
      if (tick & (2 << i)) ratio = (ratio * POS_TICK_FACTORS[i]) >> 96n;
    }
    return ratio >> 32n;
  }
  const abs = -tick;
  let ratio = abs & 1 ? 18445821805675392311n : 18446744073709551616n;
  for (let i = 0; i < 18; i++) {
    if (abs & (2 << i)) ratio = (ratio * NEG_TICK_FACTORS[i]) >> 64n;
  }
  return ratio;
}

// A bounded memo: swaps revisit the same tick boundaries (tick array ends, initialized ticks).
const SQRT_CACHE = new Map<number, bigint>();
const SQRT_CACHE_MAX = 50_000;

/** sqrt_price_from_tick_index: Q64.64 sqrt(1.0001^tick), exact to the program's bits. */
export function sqrtPriceFromTickIndex(tick: number): bigint {
  let v = SQRT_CACHE.get(tick);
  if (v === undefined) {
    v = sqrtPriceFromTickUncached(tick);
    if (SQRT_CACHE.size >= SQRT_CACHE_MAX) SQRT_CACHE.clear();
    SQRT_CACHE.set(tick, v);
  }
  return v;
}

const LOG_B_2_X32 = 59543866431248n;
const BIT_PRECISION = 14;
const LOG_B_P_ERR_MARGIN_LOWER_X64 = 184467440737095516n;
const LOG_B_P_ERR_MARGIN_UPPER_X64 = 15793534762490258745n;

function bitLength(x: bigint): number {
  // x > 0
  let n = 0;
  let v = x;
  while (v >= 1n << 64n) {
    v >>= 64n;
    n += 64;
  }
  while (v >= 1n << 16n) {
    v >>= 16n;
    n += 16;
  }
  let s = Number(v);
  while (s > 0) {
    s >>>= 1;
    n++;
  }
  return n;
}

/** tick_index_from_sqrt_price: the greatest tick whose sqrt price is <= the given one. */
export function tickIndexFromSqrtPrice(sqrtPriceX64: bigint): number {
  const msb = bitLength(sqrtPriceX64) - 1;
  const log2pIntegerX32 = BigInt(msb - 64) << 32n;
  let bit = 0x8000_0000_0000_0000n;
  let precision = 0;
  let log2pFractionX64 = 0n;
  let r = msb >= 64 ? sqrtPriceX64 >> BigInt(msb - 63) : sqrtPriceX64 << BigInt(63 - msb);
  while (bit > 0n && precision < BIT_PRECISION) {
    r *= r;
    const more = r >> 127n;
    r >>= 63n + more;
    log2pFractionX64 += bit * more;
    bit >>= 1n;
    precision++;
  }
  const log2pX32 = log2pIntegerX32 + (log2pFractionX64 >> 32n);
  const logbpX64 = log2pX32 * LOG_B_2_X32;
  const tickLow = Number((logbpX64 - LOG_B_P_ERR_MARGIN_LOWER_X64) >> 64n);
  const tickHigh = Number((logbpX64 + LOG_B_P_ERR_MARGIN_UPPER_X64) >> 64n);
  if (tickLow === tickHigh) return tickLow;
  return sqrtPriceFromTickIndex(tickHigh) <= sqrtPriceX64 ? tickHigh : tickLow;
}

/** floor division for i32 with a positive divisor */
export function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

// ---------------------------------------------------------------- token math

/** A token delta that may exceed u64: `value` or the error the non-try variant would raise. */
type AmountDelta = bigint | WhirlpoolMathError;

/** try_get_amount_delta_a: |Δ(1/sqrtP)| * L with optional round up; errors other than "exceeds" throw. */
export function tryGetAmountDeltaA(p0: bigint, p1: bigint, liquidity: bigint, roundUp: boolean): AmountDelta {
  const lower = p0 > p1 ? p1 : p0;
  const upper = p0 > p1 ? p0 : p1;
  const prod = liquidity * (upper - lower);
  if (prod >= U192_LIMIT) throw new WhirlpoolMathError('MultiplicationOverflow');
  const numerator = prod << 64n;
  const denominator = upper * lower;
  let q = numerator / denominator;
  if (roundUp && q * denominator !== numerator) q += 1n;
  if (q >= U128_LIMIT) return new WhirlpoolMathError('NumberDownCastError');
  if (q > U64_MAX) return new WhirlpoolMathError('TokenMaxExceeded');
  return q;
}

/** try_get_amount_delta_b: |ΔsqrtP| * L >> 64 with optional round up. */
export function tryGetAmountDeltaB(p0: bigint, p1: bigint, liquidity: bigint, roundUp: boolean): AmountDelta {
  const diff = p0 > p1 ? p0 - p1 : p1 - p0;
  if (liquidity === 0n || diff === 0n) return 0n;
  const p = liquidity * diff;
  if (p >= U128_LIMIT) return new WhirlpoolMathError('MultiplicationShiftRightOverflow');
  const result = p >> 64n;
  const shouldRound = roundUp && (p & Q64_MASK) > 0n;
  if (shouldRound && result === U64_MAX) return new WhirlpoolMathError('MultiplicationOverflow');
  return shouldRound ? result + 1n : result;
}

function unwrap(d: AmountDelta): bigint {
  if (typeof d === 'bigint') return d;
  throw d;
}

export function getAmountDeltaA(p0: bigint, p1: bigint, liquidity: bigint, roundUp: boolean): bigint {
  return unwrap(tryGetAmountDeltaA(p0, p1, liquidity, roundUp));
}

export function getAmountDeltaB(p0: bigint, p1: bigint, liquidity: bigint, roundUp: boolean): bigint {
  return unwrap(tryGetAmountDeltaB(p0, p1, liquidity, roundUp));
}

/** get_next_sqrt_price_from_a_round_up */
export function getNextSqrtPriceFromARoundUp(sqrtPrice: bigint, liquidity: bigint, amount: bigint, isInput: boolean): bigint {
  if (amount === 0n) return sqrtPrice;
  const product = sqrtPrice * amount;
  const lp = liquidity * sqrtPrice;
  if (lp >= U192_LIMIT) throw new WhirlpoolMathError('MultiplicationOverflow');
  const numerator = lp << 64n;
  const liquidityShiftLeft = liquidity << 64n;
  if (!isInput && liquidityShiftLeft <= product) throw new WhirlpoolMathError('DivideByZero');
  const denominator = isInput ? liquidityShiftLeft + product : liquidityShiftLeft - product;
  let price = numerator / denominator;
  if (price * denominator !== numerator) price += 1n;
  if (price >= U128_LIMIT) throw new WhirlpoolMathError('NumberDownCastError');
  if (price < MIN_SQRT_PRICE_X64) throw new WhirlpoolMathError('TokenMinSubceeded');
  if (price > MAX_SQRT_PRICE_X64) throw new WhirlpoolMathError('TokenMaxExceeded');
  return price;
}

/** get_next_sqrt_price_from_b_round_down */
export function getNextSqrtPriceFromBRoundDown(sqrtPrice: bigint, liquidity: bigint, amount: bigint, isInput: boolean): bigint {
  if (liquidity === 0n) throw new WhirlpoolMathError('DivideByZero');
  const amountX64 = amount << 64n;
  let delta = amountX64 / liquidity;
  if (!isInput && delta * liquidity !== amountX64) delta += 1n;
  if (isInput) {
    const next = sqrtPrice + delta;
    if (next >= U128_LIMIT) throw new WhirlpoolMathError('SqrtPriceOutOfBounds');
    return next;
  }
  if (delta > sqrtPrice) throw new WhirlpoolMathError('SqrtPriceOutOfBounds');
  return sqrtPrice - delta;
}

export function getNextSqrtPrice(sqrtPrice: bigint, liquidity: bigint, amount: bigint, isInput: boolean, aToB: boolean): bigint {
  return isInput === aToB
    ? getNextSqrtPriceFromARoundUp(sqrtPrice, liquidity, amount, isInput)
    : getNextSqrtPriceFromBRoundDown(sqrtPrice, liquidity, amount, isInput);
}

// ---------------------------------------------------------------- swap step

export interface SwapStep {
  amountIn: bigint;
  amountOut: bigint;
  nextPrice: bigint;
  feeAmount: bigint;
}

/** compute_swap: one step from `sqrtPriceCurrent` toward `sqrtPriceTarget` at constant liquidity. */
export function computeSwapStep(
  amountRemaining: bigint,
  feeRate: number,
  liquidity: bigint,
  sqrtPriceCurrent: bigint,
  sqrtPriceTarget: bigint,
  isInput: boolean,
  aToB: boolean,
): SwapStep {
  const fixedIsA = aToB === isInput;
  const initialFixed = fixedIsA
    ? tryGetAmountDeltaA(sqrtPriceCurrent, sqrtPriceTarget, liquidity, isInput)
    : tryGetAmountDeltaB(sqrtPriceCurrent, sqrtPriceTarget, liquidity, isInput);
  const fee = BigInt(feeRate);
  // amount_remaining * (1e6 - fee) fits u128 and the quotient fits u64
  const amountCalc = isInput ? (amountRemaining * (FEE_RATE_MUL_VALUE - fee)) / FEE_RATE_MUL_VALUE : amountRemaining;
  const initialExceeds = typeof initialFixed !== 'bigint';
  const nextPrice =
    !initialExceeds && initialFixed <= amountCalc
      ? sqrtPriceTarget
      : getNextSqrtPrice(sqrtPriceCurrent, liquidity, amountCalc, isInput, aToB);
  const isMaxSwap = nextPrice === sqrtPriceTarget;
  const unfixed = fixedIsA
    ? getAmountDeltaB(sqrtPriceCurrent, nextPrice, liquidity, !isInput)
    : getAmountDeltaA(sqrtPriceCurrent, nextPrice, liquidity, !isInput);
  const fixed =
    !isMaxSwap || initialExceeds
      ? fixedIsA
        ? getAmountDeltaA(sqrtPriceCurrent, nextPrice, liquidity, isInput)
        : getAmountDeltaB(sqrtPriceCurrent, nextPrice, liquidity, isInput)
      : (initialFixed as bigint);
  const amountIn = isInput ? fixed : unfixed;
  let amountOut = isInput ? unfixed : fixed;
  if (!isInput && amountOut > amountRemaining) amountOut = amountRemaining;
  let feeAmount: bigint;
  if (isInput && !isMaxSwap) {
    feeAmount = (amountRemaining - amountIn) & U64_MAX; // u64, wrapping in the release build
  } else {
    const den = FEE_RATE_MUL_VALUE - fee;
    const p = amountIn * fee;
    feeAmount = p / den;
    if (feeAmount * den !== p) feeAmount += 1n;
    if (feeAmount > U64_MAX) throw new WhirlpoolMathError('NumberCastError');
  }
  return { amountIn, amountOut, nextPrice, feeAmount };
}
