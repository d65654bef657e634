/**
 * Liquidity shapes for the simulated concentrated-liquidity pools (Orca Whirlpool, Raydium CLMM):
 * a wide base position around the price plus a handful of narrower ones scattered over a few tick
 * arrays, each sized in USD at the latent prices. Floats only decide the shape; the positions
 * are integer ticks and liquidity, and the vault balances they need are computed with the
 * program's own amount math by the caller.
 */
import { NOISE_SHRINK, buyA, towards, type SimContext, type SwapDraw } from '../context';
import type { Prng } from '../prng';

export interface ClPosition {
  lower: number;
  upper: number;
  liquidity: bigint;
}

export interface ClShapeSpec {
  tickCurrent: number;
  tickSpacing: number;
  /** ticks covered by one tick array (88 × spacing for Whirlpool, 60 × spacing for CLMM) */
  arraySpan: number;
  minTick: number;
  maxTick: number;
  /** USD the positions hold in total at the current price */
  depthUsd: number;
  /** USD value of one smallest unit of token 0 (A) and token 1 (B) */
  usd0: number;
  usd1: number;
  /** sqrt of the raw price (token1 units per token0 unit) at the current price */
  sqrtPrice: number;
}

function sqrtAt(tick: number): number {
  return Math.pow(1.0001, tick / 2);
}

/** USD held by one unit of liquidity over [lower, upper) at the current price */
function usdPerLiquidity(spec: ClShapeSpec, lower: number, upper: number): number {
  const s = spec.sqrtPrice;
  const sa = sqrtAt(lower);
  const sb = sqrtAt(upper);
  let a0 = 0;
  let a1 = 0;
  if (s <= sa) a0 = 1 / sa - 1 / sb;
  else if (s >= sb) a1 = sb - sa;
  else {
    a0 = 1 / s - 1 / sb;
    a1 = s - sa;
  }
  return a0 * spec.usd0 + a1 * spec.usd1;
}

export function planPositions(rng: Prng, spec: ClShapeSpec): ClPosition[] {
  const ts = spec.tickSpacing;
  const lowest = Math.ceil(spec.minTick / ts) * ts;
  const highest = Math.floor(spec.maxTick / ts) * ts;
  const down = (t: number): number => Math.min(highest - ts, Math.max(lowest, Math.floor(t / ts) * ts));
  const up = (t: number): number => Math.max(lowest + ts, Math.min(highest, Math.ceil(t / ts) * ts));
  const c = spec.tickCurrent;
  const span = spec.arraySpan;
  const ranges: { lower: number; upper: number; share: number }[] = [];
  // the base: about two tick arrays each way, always holding the current price
  const h0 = span * rng.range(1.5, 2.5);
  ranges.push({ lower: down(c - h0), upper: up(c + h0 + ts), share: 0.35 });
  const n = rng.int(6, 16);
  const weights: number[] = [];
  for (let k = 0; k < n; k++) {
    const center = c + span * rng.range(-1.2, 1.2);
    const half = span * rng.logUniform(0.04, 1.2);
    let lower = down(center - half);
    let upper = up(center + half);
    if (upper <= lower) upper = lower + ts;
    ranges.push({ lower, upper, share: 0 });
    weights.push(rng.logUniform(0.2, 5));
  }
  const total = weights.reduce((a, b) => a + b, 0);
  for (let k = 0; k < n; k++) ranges[k + 1].share = (0.65 * weights[k]) / total;
  const out: ClPosition[] = [];
  for (const r of ranges) {
    const per = usdPerLiquidity(spec, r.lower, r.upper);
    const l = per > 0 ? (spec.depthUsd * r.share) / per : 0;
    if (!(l >= 1) || !Number.isFinite(l)) continue;
    out.push({ lower: r.lower, upper: r.upper, liquidity: BigInt(Math.floor(Math.min(l, 1e36))) });
  }
  return out;
}

/** liquidityNet / liquidityGross per initialized tick, and the liquidity active at `tickCurrent` */
export function tickLiquidity(positions: readonly ClPosition[], tickCurrent: number): { ticks: Map<number, { net: bigint; gross: bigint }>; active: bigint } {
  const ticks = new Map<number, { net: bigint; gross: bigint }>();
  const at = (t: number) => {
    let v = ticks.get(t);
    if (!v) {
      v = { net: 0n, gross: 0n };
      ticks.set(t, v);
    }
    return v;
  };
  let active = 0n;
  for (const p of positions) {
    const lo = at(p.lower);
    lo.net += p.liquidity;
    lo.gross += p.liquidity;
    const hi = at(p.upper);
    hi.net -= p.liquidity;
    hi.gross += p.liquidity;
    if (p.lower <= tickCurrent && tickCurrent < p.upper) active += p.liquidity;
  }
  return { ticks, active };
}

/** token amounts (rounded up) the positions hold at `sqrtPrice`, with the program's own delta math */
export function positionAmounts(
  positions: readonly ClPosition[],
  tickCurrent: number,
  sqrtPrice: bigint,
  sqrtAtTick: (t: number) => bigint,
  delta0: (a: bigint, b: bigint, l: bigint) => bigint,
  delta1: (a: bigint, b: bigint, l: bigint) => bigint,
): { amount0: bigint; amount1: bigint } {
  let amount0 = 0n;
  let amount1 = 0n;
  for (const p of positions) {
    const sa = sqrtAtTick(p.lower);
    const sb = sqrtAtTick(p.upper);
    if (tickCurrent < p.lower) amount0 += delta0(sa, sb, p.liquidity);
    else if (tickCurrent >= p.upper) amount1 += delta1(sa, sb, p.liquidity);
    else {
      amount0 += delta0(sqrtPrice, sb, p.liquidity);
      amount1 += delta1(sa, sqrtPrice, p.liquidity);
    }
  }
  return { amount0, amount1 };
}

/** Q64.64 sqrt price of a raw price (token1 units per token0 unit), clamped into [min, max] */
export function sqrtPriceX64Of(priceRaw: number, min: bigint, max: bigint): bigint {
  const s = Math.sqrt(priceRaw) * 2 ** 64;
  let v = Number.isFinite(s) && s > 0 ? BigInt(Math.floor(s)) : min;
  if (v < min) v = min;
  if (v > max) v = max;
  return v;
}

/** the swap's size basis for a CL pool: virtual reserves L/√p (token 0) and L·√p (token 1), raw */
export function virtualReserves(liquidity: bigint, sqrtPriceX64: bigint): { r0: number; r1: number } {
  const s = Number(sqrtPriceX64) / 2 ** 64;
  const l = Number(liquidity);
  return { r0: l / s, r1: l * s };
}

export const U128 = 1n << 128n;
/** wrapping u128 subtraction (fee growth outside flips) */
export function wrapSub128(a: bigint, b: bigint): bigint {
  return (((a - b) % U128) + U128) % U128;
}

export interface ClSwapPlan {
  /** token A (the pool's first mint) in */
  aToB: boolean;
  /** the specified amount (input for ExactIn, output for ExactOut) */
  amount: bigint;
  /** sqrt price limit: the latent price for a trade towards it, 0n (none) otherwise */
  limit: bigint;
}

/**
 * Draw one swap on a concentrated-liquidity pool (both programs): direction leaning towards the
 * latent price, size a fraction of the virtual reserves at the current liquidity (at least a
 * quarter of the reference liquidity), noise trades shrunk, an ExactOut never asking for the
 * whole vault, and a trade towards the latent price limited to it. Null when nothing trades.
 */
export function planClSwap(
  ctx: SimContext,
  draw: SwapDraw,
  pool: { tokenA: number; tokenB: number; sqrtPriceX64: bigint; liquidity: bigint; refLiquidity: bigint; vaultAAmount: bigint; vaultBAmount: bigint },
  limits: { min: bigint; max: bigint },
): ClSwapPlan | null {
  const ta = ctx.tokens[pool.tokenA];
  const tb = ctx.tokens[pool.tokenB];
  const sp = Number(pool.sqrtPriceX64) / 2 ** 64;
  const poolPrice = sp * sp * 10 ** (ta.decimals - tb.decimals);
  const latent = ctx.latent(pool.tokenA, pool.tokenB);
  const aToB = !buyA(poolPrice, latent, draw.u);
  const toward = towards(poolPrice, latent, !aToB);
  const { r0, r1 } = virtualReserves(pool.liquidity > pool.refLiquidity / 4n ? pool.liquidity : pool.refLiquidity / 4n, pool.sqrtPriceX64);
  const base = draw.exactIn ? (aToB ? r0 : r1) : aToB ? r1 : r0;
  const vaultOut = aToB ? pool.vaultBAmount : pool.vaultAAmount;
  let amount = BigInt(Math.floor(Math.min(base * draw.fraction, 1e19)));
  if (!toward) amount /= NOISE_SHRINK;
  if (!draw.exactIn && amount >= vaultOut) amount = vaultOut / 2n;
  if (amount <= 0n) return null;
  let limit = 0n;
  if (toward) {
    limit = sqrtPriceX64Of(ctx.latentRaw(pool.tokenA, pool.tokenB), limits.min, limits.max);
    if (aToB ? limit >= pool.sqrtPriceX64 : limit <= pool.sqrtPriceX64) return null;
  }
  return { aToB, amount, limit };
}
