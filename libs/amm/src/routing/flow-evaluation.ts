/**
 * The exact route of a split: the float flows of the allocation become split fractions per
 * token, edges carrying less than `minShare` of the amount dropped; then the route is recomputed
 * with the pools' integer math over the whole DAG (ExactIn forwards: each token's exact amount is
 * divided among its out-edges, remainder to the largest; ExactOut backwards: each token's exact
 * requirement is divided among its in-edges and every edge is quoted for exactly its part). Pure.
 */
import { PoolQuoteError } from '../pool';
import type { FlowGraph } from './flow-graph';
import type { Route, RouteHop, SwapMode } from './types';

/**
 * Split fractions per token from the float flows, edges under `minShare` of the amount dropped
 * (a token that receives flow keeps at least its largest edge). ExactIn: fractions of each
 * token's outflow (by input x); ExactOut: fractions of each token's inflow (by output y).
 */
function fractions(g: FlowGraph, mode: SwapMode, minShare: number): Float64Array {
  const n = g.mints.length;
  const frac = new Float64Array(g.edges.length);
  const share = new Float64Array(n);
  if (mode === 'ExactIn') {
    share[0] = 1;
    for (let t = 0; t < n - 1; t++) {
      if (!(share[t] > 0)) continue;
      const outs = g.outs[t];
      let total = 0;
      for (const ei of outs) total += g.edges[ei].x;
      if (!(total > 0)) continue;
      const keep = outs.filter((ei) => (share[t] * g.edges[ei].x) / total >= minShare);
      if (keep.length === 0) keep.push(outs.reduce((a, b) => (g.edges[b].x > g.edges[a].x ? b : a)));
      let kept = 0;
      for (const ei of keep) kept += g.edges[ei].x;
      for (const ei of keep) {
        frac[ei] = g.edges[ei].x / kept;
        share[g.edges[ei].to] += share[t] * frac[ei];
      }
    }
  } else {
    share[n - 1] = 1;
    for (let h = n - 1; h > 0; h--) {
      if (!(share[h] > 0)) continue;
      const ins = g.ins[h];
      let total = 0;
      for (const ei of ins) total += g.edges[ei].y;
      if (!(total > 0)) continue;
      const keep = ins.filter((ei) => (share[h] * g.edges[ei].y) / total >= minShare);
      if (keep.length === 0) keep.push(ins.reduce((a, b) => (g.edges[b].y > g.edges[a].y ? b : a)));
      let kept = 0;
      for (const ei of keep) kept += g.edges[ei].y;
      for (const ei of keep) {
        frac[ei] = g.edges[ei].y / kept;
        share[g.edges[ei].from] += share[h] * frac[ei];
      }
    }
  }
  return frac;
}

/** divide `total` by the fractions (floor each, remainder to the largest); same order as `fr` */
function divide(total: bigint, fr: number[]): bigint[] {
  const parts = fr.map((f) => {
    if (f >= 1) return total;
    // exact enough: f has 53 bits; the remainder fixes the sum
    const scaled = BigInt(Math.floor(f * 2 ** 52));
    return (total * scaled) >> 52n;
  });
  let sum = 0n;
  for (const p of parts) sum += p;
  let big = 0;
  for (let i = 1; i < fr.length; i++) if (fr[i] > fr[big]) big = i;
  parts[big] += total - sum;
  return parts;
}

/**
 * The exact route of the float allocation in `g` (see the file comment). Throws PoolQuoteError
 * when an edge cannot be quoted for its part.
 */
export function evaluateFlow(g: FlowGraph, mode: SwapMode, amount: bigint, minShare = 0.002): Route {
  const n = g.mints.length;
  const frac = fractions(g, mode, minShare);
  const hopOf: (RouteHop | null)[] = new Array(g.edges.length).fill(null);
  if (mode === 'ExactIn') {
    const held: bigint[] = new Array(n).fill(0n);
    held[0] = amount;
    for (let t = 0; t < n - 1; t++) {
      if (held[t] === 0n) continue;
      const outs = g.outs[t].filter((ei) => frac[ei] > 0);
      if (outs.length === 0) throw new PoolQuoteError('insufficient-liquidity', `split: ${g.mints[t]} has flow and no edge`);
      const parts = divide(
        held[t],
        outs.map((ei) => frac[ei]),
      );
      outs.forEach((ei, i) => {
        if (parts[i] === 0n) return;
        const e = g.edges[ei];
        const q = e.pool.quoteExactIn(g.mints[t], parts[i]);
        if (q.amountOut <= 0n) throw new PoolQuoteError('zero-output', `split: pool ${e.pool.address} returns nothing`);
        held[e.to] += q.amountOut;
        hopOf[ei] = {
          pool: e.pool,
          inputMint: g.mints[t],
          outputMint: g.mints[e.to],
          amountGiven: parts[i],
          amountIn: q.amountIn,
          amountOut: q.amountOut,
          feeAmount: q.feeAmount,
        };
      });
    }
    const hops = hopOf.filter((h): h is RouteHop => h !== null);
    // what the user pays: the inputs the first hops take (a budget-style hop may keep a unit back)
    let spent = 0n;
    for (const h of hops) if (h.inputMint === g.mints[0]) spent += h.amountIn;
    return { mode, inputMint: g.mints[0], outputMint: g.mints[n - 1], amountIn: spent, amountOut: held[n - 1], hops };
  }
  const need: bigint[] = new Array(n).fill(0n);
  need[n - 1] = amount;
  let delivered = 0n;
  for (let h = n - 1; h > 0; h--) {
    if (need[h] === 0n) continue;
    const ins = g.ins[h].filter((ei) => frac[ei] > 0);
    if (ins.length === 0) throw new PoolQuoteError('insufficient-liquidity', `split: ${g.mints[h]} is needed and has no edge`);
    const parts = divide(
      need[h],
      ins.map((ei) => frac[ei]),
    );
    ins.forEach((ei, i) => {
      if (parts[i] === 0n) return;
      const e = g.edges[ei];
      const q = e.pool.quoteExactOut(g.mints[e.from], parts[i]);
      need[e.from] += q.amountIn;
      if (h === n - 1) delivered += q.amountOut;
      hopOf[ei] = {
        pool: e.pool,
        inputMint: g.mints[e.from],
        outputMint: g.mints[h],
        amountGiven: q.amountIn,
        amountIn: q.amountIn,
        amountOut: q.amountOut,
        feeAmount: q.feeAmount,
      };
    });
  }
  const hops = hopOf.filter((h): h is RouteHop => h !== null);
  return { mode, inputMint: g.mints[0], outputMint: g.mints[n - 1], amountIn: need[0], amountOut: delivered, hops };
}
