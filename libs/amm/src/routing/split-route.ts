/**
 * The split attempt of a search: when the best single path moves the price enough for a split
 * to pay, more candidate paths are searched for parts of the amount, their flow graph is built
 * (flow-graph.ts), the amount allocated over it (flow-allocation.ts) and the allocation priced
 * exactly (flow-evaluation.ts), its dust branches dropped unless keeping them pays. Pure.
 */
import { PoolQuoteError } from '../pool';
import { searchCandidates } from './candidate-paths';
import type { Compiled } from './compiled-graph';
import { allocate, calibrate } from './flow-allocation';
import { evaluateFlow } from './flow-evaluation';
import { buildFlowGraph, type FlowGraph } from './flow-graph';
import type { CandidatePath, Route, RouteRequest, RouteSearchOptions } from './types';

/** a split's dust branches are kept only when they pay more than this share (0.1 bp) */
const DUST_GAIN = 1e-5;

/** `a` beats `b` by more than DUST_GAIN (ExactIn: more output; ExactOut: less input) */
function paysMore(a: Route, b: Route): boolean {
  if (a.mode === 'ExactIn') return Number(a.amountOut - b.amountOut) > DUST_GAIN * Number(b.amountOut);
  return Number(b.amountIn - a.amountIn) > DUST_GAIN * Number(b.amountIn);
}

/**
 * Relative price impact of an exact single-path route against its spot prices after fees
 * (float; used to size the split search).
 */
function pathImpact(r: Route): number {
  let ideal = 1;
  for (const h of r.hops) ideal *= h.pool.spotPrice(h.inputMint) * (1 - h.pool.feeBps / 10_000);
  const rate = Number(r.amountOut) / Number(r.amountIn);
  if (!(ideal > 0)) return 1;
  return Math.min(1, Math.max(0, 1 - rate / ideal));
}

/**
 * The float marginal rate of a single-path route at its amount: ExactIn, output per unit of
 * input added; ExactOut, input per unit of output added. NaN when the curves say nothing.
 */
function marginalRate(r: Route): number {
  const pools = r.hops.map((h) => h.pool);
  const mints = [r.inputMint, ...r.hops.map((h) => h.outputMint)];
  const delta = 1e-3;
  if (r.mode === 'ExactIn') {
    const f = (x: number): number => {
      for (let i = 0; i < pools.length; i++) x = pools[i].approxOut(mints[i], x);
      return x;
    };
    const a = Number(r.amountIn);
    return (f(a) - f(a * (1 - delta))) / (a * delta);
  }
  const g = (y: number): number => {
    for (let i = pools.length - 1; i >= 0; i--) y = pools[i].approxIn(mints[i], y);
    return y;
  };
  const b = Number(r.amountOut);
  return (g(b) - g(b * (1 - delta))) / (b * delta);
}

/** below this relative impact of the best single path a split cannot gain a hundredth of a bp */
const SPLIT_MIN_IMPACT = 1e-6;

/** the split searches' sizes: [least impact of the single path, divisor of the amount] */
const PART_SEARCHES = [
  [1e-3, 1n],
  [1e-3, 16n],
  [3e-2, 256n],
] as const;

/**
 * ExactOut: the forward (ExactIn) searches for an input (what the single path asks, or a first
 * split when no single path fills) and its parts. A
 * search backwards from the output prunes against rates towards the input and can miss branches
 * that a forward search from the input keeps; so the ExactOut split sees every branch the ExactIn
 * search would for the same input. Their estimates become inputs (what an ExactOut candidate's
 * estimate is): the part searched.
 */
function forwardCandidates(c: Compiled, req: RouteRequest, input: bigint, impact: number, marginal: number, opts: RouteSearchOptions, wide: RouteSearchOptions): { near: CandidatePath[]; longer: CandidatePath[] } {
  const forward: RouteRequest = { ...req, mode: 'ExactIn', amount: input };
  const sized = (list: CandidatePath[], amount: bigint) => list.map((cand) => ({ ...cand, estimate: Number(amount) }));
  // the main search first (with the deep one on the full hop limit), then the parts'
  const near = sized(searchCandidates(c, forward, opts), input);
  let longer: CandidatePath[] = [];
  for (const [minImpact, div] of PART_SEARCHES) {
    const part = input / div;
    if (impact < minImpact || part === 0n) continue;
    // output per unit of input at the whole amount: the inverse of the ExactOut marginal rate
    const floor = marginal > 0 && marginal < Infinity ? Number(part) / marginal : -Infinity;
    near.push(...sized(searchCandidates(c, { ...forward, amount: part }, wide, floor), part));
    longer = longer.concat(sized(searchCandidates(c, { ...forward, amount: part }, wide, floor, true), part));
  }
  return { near, longer };
}

/** a, b, a, b, ...: neither list's best paths crowd the other's out of the flow graph */
function interleave<T>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i]);
    if (i < b.length) out.push(b[i]);
  }
  return out;
}

export function trySplit(c: Compiled, candidates: CandidatePath[], req: RouteRequest, single: Route | null, opts: RouteSearchOptions): Route | null {
  const impact = single === null ? 1 : pathImpact(single);
  if (impact < SPLIT_MIN_IMPACT) return null;
  // paths that are poor for the whole amount can be good for a part of it: for large trades the
  // candidates of a sixteenth (and a 256th) of the amount join
  let all = candidates;
  const wide = { ...opts, candidatesPerToken: opts.splitCandidatesPerToken ?? 6 };
  // a path whose zero-size rate is below the best single path's marginal rate at the whole
  // amount gets no flow in the optimal split (the common marginal rate of the split is at least
  // that): the searches for split candidates prune against it
  const marginal = single === null ? NaN : marginalRate(single);
  // and, on the full hop limit, the longer roads for those parts, after the near ones (they
  // join the flow graph while it has room)
  let longer: CandidatePath[] = [];
  for (const [minImpact, div] of PART_SEARCHES) {
    const part = req.amount / div;
    if (impact < minImpact || part === 0n) continue;
    const floor = marginal > 0 && marginal < Infinity ? (req.mode === 'ExactIn' ? Number(part) * marginal : -Number(part) * marginal) : -Infinity;
    all = all.concat(searchCandidates(c, { ...req, amount: part }, wide, floor));
    longer = longer.concat(searchCandidates(c, { ...req, amount: part }, wide, floor, true));
  }
  if (req.mode !== 'ExactOut') return firstSplit(c, [all.concat(longer), all], req, impact, opts);
  const withForward = (input: bigint, m: number): CandidatePath[] => {
    const fwd = forwardCandidates(c, req, input, impact, m, opts, wide);
    return interleave(all, fwd.near).concat(longer, fwd.longer);
  };
  if (single !== null) return firstSplit(c, [withForward(single.amountIn, marginal), all], req, impact, opts);
  // no single path fills: the forward searches run for the input of a first split, then again
  const first = firstSplit(c, [all.concat(longer), all], req, impact, opts);
  if (first === null) return null;
  const again = splitOver(c, withForward(first.amountIn, NaN), req, impact, opts);
  return again !== null && again.amountIn < first.amountIn ? again : first;
}

/**
 * The split over the first candidate list that gives one: a wider list can fail where a narrower
 * one fills (its flow graph keeps other paths, or a part its exact math cannot fill)
 */
function firstSplit(c: Compiled, lists: CandidatePath[][], req: RouteRequest, impact: number, opts: RouteSearchOptions): Route | null {
  for (let i = 0; i < lists.length; i++) {
    if (i > 0 && lists[i].length === lists[i - 1].length) continue;
    const r = splitOver(c, lists[i], req, impact, opts);
    if (r !== null) return r;
  }
  return null;
}

/**
 * The flow graph of the candidates, the amount allocated over it and priced exactly (see
 * trySplit). The first paths fix the order of the graph's tokens, and a later path that runs
 * against it is left out (it would close a cycle); for a large trade the graph is built again
 * with those paths first and the better split is kept.
 */
function splitOver(c: Compiled, all: CandidatePath[], req: RouteRequest, impact: number, opts: RouteSearchOptions): Route | null {
  const first = allocated(c, all, req, impact, opts);
  if (first === null || impact < REORDER_MIN_IMPACT || first.crossed.length === 0) return first?.route ?? null;
  const ahead = new Set(first.crossed);
  const other = allocated(c, [...first.crossed.map((i) => all[i]), ...all.filter((_, i) => !ahead.has(i))], req, impact, opts);
  const a = first.route;
  const b = other?.route ?? null;
  if (a === null || b === null) return a ?? b;
  return (req.mode === 'ExactIn' ? b.amountOut > a.amountOut : b.amountIn < a.amountIn) ? b : a;
}

/** a split's relative price impact from which the paths against the order are tried first too */
const REORDER_MIN_IMPACT = 1e-3;

/** the split over one candidate list, and which candidates its graph left out for their order; null without a graph */
function allocated(c: Compiled, all: CandidatePath[], req: RouteRequest, impact: number, opts: RouteSearchOptions): { route: Route | null; crossed: number[] } | null {
  const amount = Number(req.amount);
  const g = buildFlowGraph(all, amount, req.mode, (a, b) => c.pairPools(c.id(a), c.id(b)), { ...opts, maxHops: req.maxHops });
  if (g === null) return null;
  const crossed = g.crossed;
  // output lost to the allocation error e (a share of the amount) ≈ impact × e² / 2, with
  // e ≈ 0.07 / steps: aim at a few thousandths of a bp; then path exchanges polish
  const maxSteps = opts.maxSteps ?? 64;
  const steps = Math.max(8, Math.min(maxSteps, Math.ceil(0.07 * Math.sqrt(impact / 5e-7))));
  if (!allocate(g, req.mode, amount, steps, opts.polishRounds ?? 96)) return { route: null, crossed };
  let best = priced(g, req, opts);
  // where a pool's exact math departs from its float curve, the allocation runs again on the
  // curves scaled to the exact hops (calibrate): kept while it pays
  for (let round = 0; round < CALIBRATION_ROUNDS && best !== null && calibrate(g, best); round++) {
    if (!allocate(g, req.mode, amount, steps, opts.polishRounds ?? 96)) break;
    const again = priced(g, req, opts);
    if (again === null || !(req.mode === 'ExactIn' ? again.amountOut > best.amountOut : again.amountIn < best.amountIn)) break;
    best = again;
  }
  return { route: best, crossed };
}

/** allocations again on calibrated curves at most */
const CALIBRATION_ROUNDS = 2;

/** the exact route of the allocation in `g` (see splitOver) */
function priced(g: FlowGraph, req: RouteRequest, opts: RouteSearchOptions): Route | null {
  const minShare = opts.minShare ?? 0.002;
  // small branches dropped (fewer instructions and accounts) unless keeping them pays more than
  // DUST_GAIN: what a dropped branch carried is spread over its siblings, which costs little at
  // equal marginal rates but a lot when a sibling is a concentrated pool near the end of its
  // loaded ticks; when dropping overloads a pool (the exact math cannot fill its part), the
  // allocation as it is
  let best: Route | null = null;
  let dropped: Route | null = null;
  for (const share of minShare > 0 ? [minShare, 0] : [0]) {
    try {
      const r = evaluateFlow(g, req.mode, req.amount, share);
      if (r.hops.length === 0 || (req.mode === 'ExactOut' && r.amountOut < req.amount)) continue;
      if (share > 0) {
        best = dropped = r;
        continue;
      }
      if (dropped === null) best = r;
      else if (r.hops.length !== dropped.hops.length && paysMore(r, dropped)) best = r;
    } catch (e) {
      if (!(e instanceof PoolQuoteError)) throw e;
    }
  }
  return best;
}
