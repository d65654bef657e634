/**
 * One token's pools compiled for the float search: the other mint of each pool as a token id,
 * the zero-size rates in both directions and the constant-product guide parameters, packed in
 * typed arrays; and the guide's approxOut / approxIn read from them. Pure.
 */
import type { Pool } from '../pool';

/**
 * The float rate of a pool direction at zero size: spot price after the pool fee, an upper bound
 * of output per input for any trade size (the programs' curves are concave: the marginal rate
 * only falls as the trade grows; transfer fees only lower it). The fee is applied as 1/(1+f),
 * which is above 1−f, so the bound holds whether a program takes its fee on the input or on
 * top of it. 0 when nothing comes out.
 */
function zeroSizeRate(pool: Pool, inputMint: string): number {
  const r = pool.spotPrice(inputMint) / (1 + Math.max(0, pool.feeBps - 0.5) / 10_000);
  return r > 0 ? r : 0;
}

/**
 * One token's pools, compiled: the id of each pool's other mint and the zero-size rates in both
 * directions. `pools` is the graph's own array: for a graph with a topology version it is read
 * once per version; `refs` are the pool objects the rates were computed from (a re-materialised
 * pool gets its rates recomputed, see Compiled.begin and Compiled.rate).
 */
export interface Adjacency {
  pools: readonly Pool[];
  refs: Pool[];
  others: Int32Array;
  /** rate from this token to the other mint of each pool */
  rateOut: Float64Array;
  /** rate from the other mint of each pool to this token */
  rateIn: Float64Array;
  /** 1: a constant-product pool whose guide parameters are in guideOut / guideIn */
  cp: Uint8Array;
  /** per pool x, y, kIn, kOut of trades from this token (out) and from the other mint (in) */
  guideOut: Float64Array;
  guideIn: Float64Array;
}

/** Pool.approxOut of a constant-product guide at offset o of g (x, y, kIn, kOut), operation for operation */
export function guideOut(g: Float64Array, o: number, amountIn: number): number {
  const x = g[o];
  if (x === 0 || !(amountIn > 0)) return 0;
  const net = amountIn * g[o + 2];
  return ((net * g[o + 1]) / (x + net)) * g[o + 3];
}

/** Pool.approxIn of a constant-product guide at offset o of g, operation for operation */
export function guideIn(g: Float64Array, o: number, amountOut: number): number {
  const x = g[o];
  if (x === 0) return Infinity;
  if (!(amountOut > 0)) return 0;
  const gross = amountOut / g[o + 3];
  const y = g[o + 1];
  if (gross >= y) return Infinity;
  return (x * gross) / (y - gross) / g[o + 2];
}

/** cache pool j's zero-size rates and guide parameters in a (the pool trades `mint` and `other`) */
export function compilePool(a: Adjacency, j: number, p: Pool, mint: string, other: string): void {
  a.refs[j] = p;
  a.rateOut[j] = zeroSizeRate(p, mint);
  a.rateIn[j] = zeroSizeRate(p, other);
  if (p.constantProductGuide === undefined) {
    a.cp[j] = 0;
    return;
  }
  a.cp[j] = 1;
  const o = 4 * j;
  const out = p.constantProductGuide(mint);
  a.guideOut[o] = out.x;
  a.guideOut[o + 1] = out.y;
  a.guideOut[o + 2] = out.kIn;
  a.guideOut[o + 3] = out.kOut;
  const inn = p.constantProductGuide(other);
  a.guideIn[o] = inn.x;
  a.guideIn[o + 1] = inn.y;
  a.guideIn[o + 2] = inn.kIn;
  a.guideIn[o + 3] = inn.kOut;
}
