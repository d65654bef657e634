/**
 * Raydium CLMM integer math, re-derived from the program's libraries (tick_math.rs,
 * sqrt_price_math.rs, liquidity_math.rs, swap_math.rs, full_math.rs): Q64.64 sqrt prices,
 * u64 amounts, u128 liquidity, with the program's rounding and its error conditions. Where the
 * program would fail (an overflow, a `require!`), these functions throw ClmmMathError with the
 * program's error name.
 */

export const Q64 = 1n << 64n;
export const U32_MAX = 0xffffffffn;
export const U64_MAX = (1n << 64n) - 1n;
export const U128_MAX = (1n << 128n) - 1n;
export const U256_MAX = (1n << 256n) - 1n;

export const MIN_TICK = -443636;
export const MAX_TICK = 443636;
/** get_sqrt_price_at_tick(MIN_TICK) */
export const MIN_SQRT_PRICE_X64 = 4295048016n;
/** get_sqrt_price_at_tick(MAX_TICK) */
export const MAX_SQRT_PRICE_X64 = 79226673521066979257578248091n;

/** fee rates are in millionths */
export const FEE_RATE_DENOMINATOR = 1_000_000n;
/** cap of base + dynamic fee rate (10%) */
export const MAX_FEE_RATE_NUMERATOR = 100_000n;

/** A failure the program would report (its ErrorCode name in `code`). */
export class ClmmMathError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'ClmmMathError';
  }
}

function overflow(what: string): never {
  throw new ClmmMathError('CalculateOverflow', what);
}

// ---- full math ----

/** floor(a * b / d), failing (as the program's mul_div_floor → None) when d = 0 or the result exceeds `max`. */
export function mulDivFloor(a: bigint, b: bigint, d: bigint, max: bigint): bigint {
  if (d === 0n) overflow('division by zero');
  const r = (a * b) / d;
  if (r > max) overflow('mul_div_floor result out of range');
  return r;
}

/** ceil(a * b / d), failing when d = 0 or the result exceeds `max`. */
export function mulDivCeil(a: bigint, b: bigint, d: bigint, max: bigint): bigint {
  if (d === 0n) overflow('division by zero');
  const r = (a * b + d - 1n) / d;
  if (r > max) overflow('mul_div_ceil result out of range');
  return r;
}

// ---- tick math ----

const TICK_FACTORS: readonly bigint[] = [
  0xfffcb933bd6fb800n,
  0xfff97272373d4000n,
  0xfff2e50f5f657000n,
  0xffe5caca7e10f000n,
  0xffcb9843d60f7000n,
  0xff973b41fa98e800n,
  0xff2ea16466c9b000n,
  0xfe5dee046a9a3800n,
  0xfcbe86c7900bb000n,
  0xf987a7253ac65800n,
  0xf3392b0822bb6000n,
  0xe7159475a2caf000n,
  0xd097f3bdfd2f2000n,
  0xa9f746462d9f8000n,
  0x70d869a156f31c00n,
  0x31be135f97ed3200n,
  0x9aa508b5b85a500n,
  0x5d6af8dedc582cn,
  0x2216e584f5fan,
];

const sqrtPriceCache = new Map<number, bigint>();

function sqrtPriceAtTickUncached(tick: number): bigint {
  const abs = Math.abs(tick);
  let ratio = abs & 1 ? TICK_FACTORS[0] : Q64;
  for (let i = 1; i < 19; i++) {
    if (abs & (1 << i)) ratio = (ratio * TICK_FACTORS[i]) >> 64n;
  }
  if (tick > 0) ratio = U128_MAX / ratio;
  return ratio;
}

/** sqrt(1.0001^tick) as Q64.64, exactly as the program's get_sqrt_price_at_tick. */
export function getSqrtPriceAtTick(tick: number): bigint {
  if (!Number.isInteger(tick) || tick < MIN_TICK || tick > MAX_TICK) {
    throw new ClmmMathError('TickUpperOverflow', `tick ${tick} outside [${MIN_TICK}, ${MAX_TICK}]`);
  }
  let r = sqrtPriceCache.get(tick);
  if (r === undefined) {
    r = sqrtPriceAtTickUncached(tick);
    if (sqrtPriceCache.size >= 200_000) sqrtPriceCache.clear();
    sqrtPriceCache.set(tick, r);
  }
  return r;
}

function bitLength(x: bigint): number {
  // x > 0, at most 128 bits here
  let n = 0;
  let v = x;
  if (v >> 64n) {
    n += 64;
    v >>= 64n;
  }
  const hi = Number(v >> 32n);
  if (hi) return n + 32 + (32 - Math.clz32(hi));
  return n + (32 - Math.clz32(Number(v & 0xffffffffn)));
}

/**
 * The program's get_tick_at_sqrt_price: a 16-bit-precision log2, then the choice between the two
 * candidate ticks by get_sqrt_price_at_tick. Requires MIN_SQRT_PRICE_X64 <= p < MAX_SQRT_PRICE_X64.
 */
export function getTickAtSqrtPrice(sqrtPriceX64: bigint): number {
  if (sqrtPriceX64 < MIN_SQRT_PRICE_X64 || sqrtPriceX64 >= MAX_SQRT_PRICE_X64) {
    throw new ClmmMathError('SqrtPriceX64', `sqrt price ${sqrtPriceX64} outside [MIN, MAX)`);
  }
  const msb = bitLength(sqrtPriceX64) - 1;
  const log2pIntegerX32 = BigInt(msb - 64) << 32n;
  let bit = 0x8000000000000000n;
  let fractionX64 = 0n;
  let r = msb >= 64 ? sqrtPriceX64 >> BigInt(msb - 63) : sqrtPriceX64 << BigInt(63 - msb);
  for (let precision = 0; precision < 16 && bit > 0n; precision++) {
    r *= r;
    const more = r >> 127n;
    r >>= 63n + more;
    if (more) fractionX64 += bit;
    bit >>= 1n;
  }
  const log2pX32 = log2pIntegerX32 + (fractionX64 >> 32n);
  const logSqrt10001X64 = log2pX32 * 59543866431248n;
  const tickLow = Number(BigInt.asIntN(32, (logSqrt10001X64 - 184467440737095516n) >> 64n));
  const tickHigh = Number(BigInt.asIntN(32, (logSqrt10001X64 + 15793534762490258745n) >> 64n));
  if (tickLow === tickHigh) return tickLow;
  return getSqrtPriceAtTick(tickHigh) <= sqrtPriceX64 ? tickHigh : tickLow;
}

/** price (token1 per token0) as Q64.64 from a sqrt price, rounded as asked (get_price_from_sqrt_price). */
export function getPriceFromSqrtPrice(sqrtPriceX64: bigint, roundUp: boolean): bigint {
  let prod = sqrtPriceX64 * sqrtPriceX64;
  if (roundUp) prod += Q64 - 1n;
  const price = prod >> 64n;
  if (price > U128_MAX) overflow('price exceeds u128');
  return price;
}

// ---- liquidity math ----

/** liquidity + signed delta, failing on underflow/overflow (add_delta). */
export function addDelta(x: bigint, y: bigint): bigint {
  if (y < 0n) {
    const z = x + y;
    if (z < 0n) throw new ClmmMathError('LiquiditySubValueErr', `liquidity ${x} - ${-y} underflows`);
    return z;
  }
  const z = x + y;
  if (z > U128_MAX) throw new ClmmMathError('LiquidityAddValueErr', `liquidity ${x} + ${y} overflows`);
  return z;
}

/**
 * (amount_in, amount_out) for moving between two sqrt prices with liquidity L
 * (get_delta_amounts_for_swap): input rounded up, output rounded down. Throws MaxTokenOverflow
 * when either does not fit u64.
 */
export function getDeltaAmountsForSwap(
  sqrtA: bigint,
  sqrtB: bigint,
  liquidity: bigint,
  zeroForOne: boolean,
): [bigint, bigint] {
  let a = sqrtA;
  let b = sqrtB;
  if (a > b) [a, b] = [b, a];
  if (a <= 0n) throw new ClmmMathError('ZeroSqrtPrice', 'sqrt price is zero');
  const amount1X64 = liquidity * (b - a);
  const product = a * b;
  let amountIn: bigint;
  let amountOut: bigint;
  if (zeroForOne) {
    amountIn = ((amount1X64 << 64n) + product - 1n) / product;
    if (amountIn > U256_MAX) overflow('amount_in exceeds u256');
    amountOut = amount1X64 >> 64n;
  } else {
    amountIn = (amount1X64 + U64_MAX) >> 64n;
    amountOut = (amount1X64 << 64n) / product;
    if (amountOut > U256_MAX) overflow('amount_out exceeds u256');
  }
  if (amountIn > U64_MAX || amountOut > U64_MAX) throw new ClmmMathError('MaxTokenOverflow', 'amount exceeds u64');
  return [amountIn, amountOut];
}

/** Δtoken0 between two prices (get_delta_amount_0_unsigned). */
export function getDeltaAmount0(sqrtA: bigint, sqrtB: bigint, liquidity: bigint, roundUp: boolean): bigint {
  let a = sqrtA;
  let b = sqrtB;
  if (a > b) [a, b] = [b, a];
  if (a <= 0n) throw new ClmmMathError('ZeroSqrtPrice', 'sqrt price is zero');
  const num = (liquidity << 64n) * (b - a);
  const den = a * b;
  const r = roundUp ? (num + den - 1n) / den : num / den;
  if (r > U64_MAX) throw new ClmmMathError('MaxTokenOverflow', 'amount exceeds u64');
  return r;
}

/** Δtoken1 between two prices (get_delta_amount_1_unsigned). */
export function getDeltaAmount1(sqrtA: bigint, sqrtB: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const diff = sqrtA > sqrtB ? sqrtA - sqrtB : sqrtB - sqrtA;
  const num = liquidity * diff;
  const r = roundUp ? (num + Q64 - 1n) >> 64n : num >> 64n;
  if (r > U64_MAX) throw new ClmmMathError('MaxTokenOverflow', 'amount exceeds u64');
  return r;
}

// ---- sqrt price math ----

/** √P' = √P·L / (L ± Δx·√P), rounded up (get_next_sqrt_price_from_amount_0_rounding_up). */
export function getNextSqrtPriceFromAmount0RoundingUp(
  sqrtPriceX64: bigint,
  liquidity: bigint,
  amount: bigint,
  add: boolean,
): bigint {
  if (amount === 0n) return sqrtPriceX64;
  const numerator1 = liquidity << 64n;
  const product = amount * sqrtPriceX64;
  let r: bigint;
  if (add) {
    // the U256 sum cannot overflow for u128 liquidity, u64 amount and u128 price
    const denominator = numerator1 + product;
    r = (numerator1 * sqrtPriceX64 + denominator - 1n) / denominator;
  } else {
    const denominator = numerator1 - product;
    if (denominator < 0n) overflow('L - Δx·√P underflows');
    if (denominator === 0n) overflow('division by zero');
    r = (numerator1 * sqrtPriceX64 + denominator - 1n) / denominator;
    if (r > U256_MAX) overflow('next sqrt price exceeds u256');
  }
  if (r > U128_MAX) overflow('next sqrt price exceeds u128');
  return r;
}

/** √P' = √P ± Δy/L, rounded down (get_next_sqrt_price_from_amount_1_rounding_down). */
export function getNextSqrtPriceFromAmount1RoundingDown(
  sqrtPriceX64: bigint,
  liquidity: bigint,
  amount: bigint,
  add: boolean,
): bigint {
  if (amount === 0n) return sqrtPriceX64;
  const shifted = amount << 64n;
  if (add) {
    const r = sqrtPriceX64 + shifted / liquidity;
    if (r > U128_MAX) overflow('next sqrt price exceeds u128');
    return r;
  }
  const quotient = (shifted + liquidity - 1n) / liquidity;
  const r = sqrtPriceX64 - quotient;
  if (r < 0n) overflow('next sqrt price underflows');
  return r;
}

function checkPriceAndLiquidity(sqrtPriceX64: bigint, liquidity: bigint): void {
  if (sqrtPriceX64 < MIN_SQRT_PRICE_X64 || sqrtPriceX64 >= MAX_SQRT_PRICE_X64) {
    throw new ClmmMathError('SqrtPriceX64', `sqrt price ${sqrtPriceX64} outside [MIN, MAX)`);
  }
  if (liquidity <= 0n) throw new ClmmMathError('ZeroLiquidity', 'liquidity is zero');
}

export function getNextSqrtPriceFromInput(
  sqrtPriceX64: bigint,
  liquidity: bigint,
  amountIn: bigint,
  zeroForOne: boolean,
): bigint {
  checkPriceAndLiquidity(sqrtPriceX64, liquidity);
  return zeroForOne
    ? getNextSqrtPriceFromAmount0RoundingUp(sqrtPriceX64, liquidity, amountIn, true)
    : getNextSqrtPriceFromAmount1RoundingDown(sqrtPriceX64, liquidity, amountIn, true);
}

export function getNextSqrtPriceFromOutput(
  sqrtPriceX64: bigint,
  liquidity: bigint,
  amountOut: bigint,
  zeroForOne: boolean,
): bigint {
  checkPriceAndLiquidity(sqrtPriceX64, liquidity);
  return zeroForOne
    ? getNextSqrtPriceFromAmount1RoundingDown(sqrtPriceX64, liquidity, amountOut, false)
    : getNextSqrtPriceFromAmount0RoundingUp(sqrtPriceX64, liquidity, amountOut, false);
}

// ---- one swap step ----

export interface SwapStepResult {
  sqrtPriceNextX64: bigint;
  /** amount entering the pool's price math (fee excluded when the fee is on the input) */
  amountIn: bigint;
  /** amount the user receives (net of the fee when the fee is on the output) */
  amountOut: bigint;
  /** trade fee of this step, in the fee token (input or output per `isFeeOnInput`) */
  feeAmount: bigint;
}

/**
 * One step of the swap between the current price and a target price (compute_swap): fee on the
 * input or on the output, exact input (`isBaseInput`) or exact output.
 */
export function computeSwapStep(
  sqrtPriceCurrentX64: bigint,
  sqrtPriceTargetX64: bigint,
  liquidity: bigint,
  amountRemaining: bigint,
  feeRate: bigint,
  isBaseInput: boolean,
  zeroForOne: boolean,
  isFeeOnInput: boolean,
): SwapStepResult {
  const keep = FEE_RATE_DENOMINATOR - feeRate;
  let amountForPriceCalc: bigint;
  if (isBaseInput) {
    amountForPriceCalc = isFeeOnInput ? mulDivFloor(amountRemaining, keep, FEE_RATE_DENOMINATOR, U64_MAX) : amountRemaining;
  } else {
    amountForPriceCalc = isFeeOnInput ? amountRemaining : mulDivCeil(amountRemaining, FEE_RATE_DENOMINATOR, keep, U64_MAX);
  }

  let reached: [bigint, bigint] | null = null;
  try {
    const atTarget = getDeltaAmountsForSwap(sqrtPriceTargetX64, sqrtPriceCurrentX64, liquidity, zeroForOne);
    const userLimit = isBaseInput ? atTarget[0] : atTarget[1];
    if (amountForPriceCalc >= userLimit) reached = atTarget;
  } catch (e) {
    if (!(e instanceof ClmmMathError && e.code === 'MaxTokenOverflow')) throw e;
  }

  let sqrtPriceNextX64: bigint;
  let amountIn: bigint;
  let amountOut: bigint;
  if (reached) {
    sqrtPriceNextX64 = sqrtPriceTargetX64;
    [amountIn, amountOut] = reached;
  } else {
    sqrtPriceNextX64 = isBaseInput
      ? getNextSqrtPriceFromInput(sqrtPriceCurrentX64, liquidity, amountForPriceCalc, zeroForOne)
      : getNextSqrtPriceFromOutput(sqrtPriceCurrentX64, liquidity, amountForPriceCalc, zeroForOne);
    [amountIn, amountOut] = getDeltaAmountsForSwap(sqrtPriceNextX64, sqrtPriceCurrentX64, liquidity, zeroForOne);
  }

  if (zeroForOne ? sqrtPriceNextX64 < sqrtPriceTargetX64 : sqrtPriceTargetX64 < sqrtPriceNextX64) {
    throw new ClmmMathError('RequireGteViolated', 'swap step passed its target price');
  }

  let feeAmount: bigint;
  if (isBaseInput) {
    if (isFeeOnInput) {
      if (sqrtPriceNextX64 !== sqrtPriceTargetX64) {
        feeAmount = amountRemaining - amountIn;
        if (feeAmount < 0n) overflow('fee underflows');
      } else {
        feeAmount = mulDivCeil(amountIn, feeRate, keep, U64_MAX);
      }
    } else {
      feeAmount = mulDivCeil(amountOut, feeRate, FEE_RATE_DENOMINATOR, U64_MAX);
      amountOut -= feeAmount;
      // partial step with the fee on the output: the whole remaining input is charged
      if (sqrtPriceNextX64 !== sqrtPriceTargetX64) amountIn = amountRemaining;
    }
  } else if (isFeeOnInput) {
    if (amountOut > amountRemaining) amountOut = amountRemaining;
    feeAmount = mulDivCeil(amountIn, feeRate, keep, U64_MAX);
  } else {
    feeAmount = mulDivCeil(amountOut, feeRate, FEE_RATE_DENOMINATOR, U64_MAX);
    const net = amountOut - feeAmount;
    if (net < 0n) overflow('net output underflows');
    if (net > amountRemaining) {
      feeAmount = amountOut - amountRemaining;
      amountOut = amountRemaining;
    } else {
      amountOut = net;
    }
  }
  return { sqrtPriceNextX64, amountIn, amountOut, feeAmount };
}
