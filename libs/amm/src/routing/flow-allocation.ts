/**
 * The float allocation of a split over its flow graph (a guide only): greedy marginal
 * equalisation. The amount is pushed in `steps` geometrically shrinking increments, each along the
 * path of the flow graph that gives the most for the increment at the current flows (a DP over
 * the DAG in topological order; ExactOut: backwards, the path that needs the least input for the
 * next slice of output). In the limit of small increments every used path ends at the same
 * marginal price (the optimality condition of the convex routing problem); the allocation error
 * is about the last increments and the output lost is second order in it. Path exchanges then
 * polish it. Pure.
 */
import type { FlowEdge, FlowGraph } from './flow-graph';
import type { Route, SwapMode } from './types';

/** the correction of an edge's float curve at input x (see calibrate) */
function correction(e: FlowEdge, x: number): number {
  return Math.min(1.5, Math.max(0.5, 1 - e.k * x));
}

/** the edge's output for input x on its (corrected) float curve */
function outOf(e: FlowEdge, from: string, x: number): number {
  const out = e.pool.approxOut(from, x);
  return e.k === 0 ? out : out * correction(e, x);
}

/** the edge's input for output y on its (corrected) float curve (a few fixed-point steps) */
function inOf(e: FlowEdge, from: string, y: number): number {
  let x = e.pool.approxIn(from, y);
  if (e.k === 0) return x;
  for (let i = 0; i < 4 && x < Infinity; i++) x = e.pool.approxIn(from, y / correction(e, x));
  return x;
}

/** scratch arrays of the DPs */
interface Scratch {
  best: Float64Array;
  via: Int32Array;
}

/** ExactIn: the path that turns `a` more input into the most output; returns the output or 0 */
function bestAddIn(g: FlowGraph, a: number, s: Scratch): number {
  const n = g.mints.length;
  const { best, via } = s;
  best.fill(0);
  via.fill(-1);
  best[0] = a;
  for (let t = 0; t < n - 1; t++) {
    const b = best[t];
    if (!(b > 0)) continue;
    const from = g.mints[t];
    for (const ei of g.outs[t]) {
      const e = g.edges[ei];
      const out = outOf(e, from, e.x + b);
      // a pool pushed to the end of its liquidity cannot fill exactly: not a candidate
      if (!(out < e.cap)) continue;
      const gain = out - e.y;
      if (gain > best[e.to]) {
        best[e.to] = gain;
        via[e.to] = ei;
      }
    }
  }
  return best[n - 1] > 0 ? best[n - 1] : 0;
}

/** ExactIn: the used path where taking `a` input away loses the least output; returns the loss or Infinity */
function bestRemoveIn(g: FlowGraph, a: number, s: Scratch): number {
  const n = g.mints.length;
  const { best, via } = s;
  best.fill(Infinity);
  via.fill(-1);
  best[0] = a;
  for (let t = 0; t < n - 1; t++) {
    const b = best[t];
    if (b === Infinity) continue;
    const from = g.mints[t];
    for (const ei of g.outs[t]) {
      const e = g.edges[ei];
      if (!(e.x > b)) continue;
      const loss = e.y - outOf(e, from, e.x - b);
      if (loss < best[e.to]) {
        best[e.to] = loss;
        via[e.to] = ei;
      }
    }
  }
  return best[n - 1];
}

/** ExactOut: the path that delivers `b` more output for the least input; returns the input or Infinity */
function bestAddOut(g: FlowGraph, b: number, s: Scratch): number {
  const n = g.mints.length;
  const { best, via } = s;
  best.fill(Infinity);
  via.fill(-1);
  best[n - 1] = b;
  for (let h = n - 1; h > 0; h--) {
    const need = best[h];
    if (need === Infinity) continue;
    for (const ei of g.ins[h]) {
      const e = g.edges[ei];
      const more = inOf(e, g.mints[e.from], e.y + need) - e.x;
      if (more < best[e.from]) {
        best[e.from] = more;
        via[e.from] = ei;
      }
    }
  }
  return best[0];
}

/** ExactOut: the used path where delivering `b` less output saves the most input; returns the saving or -Infinity */
function bestRemoveOut(g: FlowGraph, b: number, s: Scratch): number {
  const n = g.mints.length;
  const { best, via } = s;
  best.fill(-Infinity);
  via.fill(-1);
  best[n - 1] = b;
  for (let h = n - 1; h > 0; h--) {
    const r = best[h];
    if (r === -Infinity) continue;
    for (const ei of g.ins[h]) {
      const e = g.edges[ei];
      if (!(e.y > r)) continue;
      const saved = e.x - inOf(e, g.mints[e.from], e.y - r);
      if (saved > best[e.from]) {
        best[e.from] = saved;
        via[e.from] = ei;
      }
    }
  }
  return best[0];
}

/** edges changed by a tentative exchange, with their flows before it (to undo it) */
interface Journal {
  edges: FlowEdge[];
  flows: number[];
}

function record(j: Journal | undefined, e: FlowEdge): void {
  if (!j) return;
  j.edges.push(e);
  j.flows.push(e.x, e.y);
}

/** apply the path the last DP found: ExactIn walks back from the target, ExactOut forwards from the input */
function applyIn(g: FlowGraph, s: Scratch, sign: 1 | -1, journal?: Journal): void {
  for (let t = g.mints.length - 1; t > 0; ) {
    const e = g.edges[s.via[t]];
    record(journal, e);
    e.x = Math.max(0, e.x + sign * s.best[e.from]);
    e.y = e.x > 0 ? outOf(e, g.mints[e.from], e.x) : 0;
    t = e.from;
  }
}

function applyOut(g: FlowGraph, s: Scratch, sign: 1 | -1, journal?: Journal): void {
  const T = g.mints.length - 1;
  for (let t = 0; t < T; ) {
    const e = g.edges[s.via[t]];
    record(journal, e);
    e.y = Math.max(0, e.y + sign * s.best[e.to]);
    e.x = e.y > 0 ? inOf(e, g.mints[e.from], e.y) : 0;
    t = e.to;
  }
}

/** ExactIn: output at the target; ExactOut: input at the source */
function objective(g: FlowGraph, mode: SwapMode): number {
  let v = 0;
  if (mode === 'ExactIn') for (const ei of g.ins[g.mints.length - 1]) v += g.edges[ei].y;
  else for (const ei of g.outs[0]) v += g.edges[ei].x;
  return v;
}

/**
 * Greedy marginal equalisation (see the file comment), then `polish` rounds of path exchange: a
 * slice is taken off the used path where it is worth least and put on the path where it is worth
 * most, kept when the objective improves, the slice halved when not (undoing the greedy's
 * overshoots). Fills edge flows x (input) and y (output) of `g`. Returns false when the graph
 * cannot carry the amount (ExactOut beyond the depth).
 */
export function allocate(g: FlowGraph, mode: SwapMode, amount: number, steps: number, polish = 0): boolean {
  const n = g.mints.length;
  for (const e of g.edges) e.x = e.y = 0;
  const s: Scratch = { best: new Float64Array(n), via: new Int32Array(n) };
  // geometrically shrinking increments: the later small ones correct the earlier big ones
  // (every increment is at most the sum of the ones after it)
  const r = Math.max(0.6, 1 - 5 / steps);
  const scale = (amount * (1 - r)) / (1 - r ** steps);
  const exactIn = mode === 'ExactIn';
  for (let k = 0; k < steps; k++) {
    const a = scale * r ** k;
    if (exactIn) {
      if (!(bestAddIn(g, a, s) > 0)) {
        if (k === 0) return false;
        break;
      }
      applyIn(g, s, 1);
    } else {
      if (!(bestAddOut(g, a, s) < Infinity)) return false;
      applyOut(g, s, 1);
    }
  }
  let slice = scale * r ** Math.max(0, steps - 6);
  const floor = amount * 1e-7;
  let cur = objective(g, mode);
  const journal: Journal = { edges: [], flows: [] };
  for (let round = 0; round < polish && slice > floor; round++) {
    journal.edges.length = 0;
    journal.flows.length = 0;
    if (exactIn) {
      if (bestRemoveIn(g, slice, s) === Infinity) {
        slice /= 2;
        continue;
      }
      applyIn(g, s, -1, journal);
      if (bestAddIn(g, slice, s) > 0) applyIn(g, s, 1, journal);
    } else {
      if (bestRemoveOut(g, slice, s) === -Infinity) {
        slice /= 2;
        continue;
      }
      applyOut(g, s, -1, journal);
      if (bestAddOut(g, slice, s) < Infinity) applyOut(g, s, 1, journal);
    }
    const next = objective(g, mode);
    const better = exactIn ? next > cur * (1 + 1e-13) : next < cur * (1 - 1e-13);
    if (better) {
      // a trust region: an exchange that paid is tried at twice the size next
      cur = next;
      slice = Math.min(slice * 2, amount / 4);
    } else {
      for (let i = journal.edges.length - 1; i >= 0; i--) {
        journal.edges[i].x = journal.flows[2 * i];
        journal.edges[i].y = journal.flows[2 * i + 1];
      }
      slice /= 2;
    }
  }
  return true;
}

/** an exact hop this far from its float curve has its edge's curve scaled (integer rounding stays under it) */
const CALIBRATE_MIN = 1e-5;

/**
 * Correct the float curves of the edges whose exact hops in `route` (an exact pricing of this
 * graph's allocation) depart from them (a pool whose float curve is only an approximation, e.g. a
 * fee that grows with the swap): the edge's curve becomes the float one times (1 − k x), k such
 * that it meets the exact output at the hop's exact input (no correction at zero size, the
 * departure growing with the size). Returns true when some edge changed (an allocation again
 * can do better).
 */
export function calibrate(g: FlowGraph, route: Route): boolean {
  const hops = new Map<string, { amountIn: bigint; amountOut: bigint }>();
  for (const h of route.hops) hops.set(`${h.pool.address}:${h.inputMint}`, h);
  let changed = false;
  for (const e of g.edges) {
    const from = g.mints[e.from];
    const h = hops.get(`${e.pool.address}:${from}`);
    if (!h || h.amountIn <= 0n || h.amountOut <= 0n) continue;
    const x = Number(h.amountIn);
    const float = e.pool.approxOut(from, x);
    if (!(float > 0)) continue;
    const ratio = Number(h.amountOut) / float;
    if (Math.abs(ratio - correction(e, x)) <= CALIBRATE_MIN || Math.abs(ratio - 1) <= CALIBRATE_MIN) continue;
    e.k = (1 - Math.min(1.5, Math.max(0.5, ratio))) / x;
    changed = true;
  }
  return changed;
}
