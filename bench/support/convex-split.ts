/**
 * The convex optimum's own split on a market of real pools, priced exactly: each pool direction's
 * curve is sampled with its exact quotes (`quoteExactIn` at sizes a third of an octave apart, from
 * what the pool can take down to one unit), its upper concave hull made continuous in the
 * marginal rate (support/dual-optimum.ts needs the input and output a direction takes at every
 * rate); the dual descent finds the optimal flow over the tokens within the hop limit of both
 * sides; that flow, when it is a DAG of at most the hop limit, becomes a flow graph whose split
 * fractions are priced with the pools' integer math (the router's own `evaluateFlow`).
 */
import { PoolQuoteError, type Pool, type Route, type SwapMode, type TokenGraph } from '@app/amm';
import { evaluateFlow } from '@app/amm/routing/flow-evaluation';
import type { FlowEdge, FlowGraph } from '@app/amm/routing/flow-graph';
import { dualSolve, type DualProblem, type Edge, type Oracle } from './dual-optimum';

/** exact output of a pool direction as a float; 0 when it cannot fill */
function outOf(pool: Pool, from: string, x: bigint): number {
  try {
    return Number(pool.quoteExactIn(from, x).amountOut);
  } catch (e) {
    if (e instanceof PoolQuoteError) return 0;
    throw e;
  }
}

/** the continuous concave curve of one pool direction (see the file comment); null: nothing fills */
export function sampledOracle(pool: Pool, from: string): Oracle | null {
  let hi = BigInt(Math.max(2, Math.round(pool.reserve(from) * 16)));
  while (hi > 1n && outOf(pool, from, hi) <= 0) hi /= 2n;
  if (hi <= 1n) return null;
  // what the pool can take: between hi and 2 hi
  let lo = hi;
  let top = hi * 2n;
  for (let k = 0; k < 8; k++) {
    const mid = (lo + top) / 2n;
    if (outOf(pool, from, mid) > 0) lo = mid;
    else top = mid;
  }
  const pts: [number, number][] = [];
  for (let k = 0; k < 150; k++) {
    const x = Math.round(Number(lo) * 2 ** (-k / 3));
    if (x < 1) break;
    const y = outOf(pool, from, BigInt(x));
    if (y > 0) pts.push([x, y]);
  }
  pts.push([0, 0]);
  pts.sort((a, b) => a[0] - b[0]);
  // upper concave hull from (0, 0)
  const hull: [number, number][] = [];
  for (const p of pts) {
    while (hull.length >= 2) {
      const [x1, y1] = hull[hull.length - 2];
      const [x2, y2] = hull[hull.length - 1];
      if ((y2 - y1) * (p[0] - x1) <= (p[1] - y1) * (x2 - x1)) hull.pop();
      else break;
    }
    if (hull.length === 0 || p[0] > hull[hull.length - 1][0]) hull.push(p);
  }
  const m = hull.length - 1;
  if (m < 1) return null;
  const slope = (j: number) => (hull[j][1] - hull[j - 1][1]) / (hull[j][0] - hull[j - 1][0]);
  // the marginal rate at each vertex: between its two segments' slopes
  const rate: number[] = [slope(1)];
  for (let j = 1; j < m; j++) rate.push(Math.sqrt(slope(j) * slope(j + 1)));
  rate.push(slope(m) / 2);
  return (r) => {
    if (r >= rate[0]) return { x: 0, y: 0 };
    if (r <= rate[m]) return { x: hull[m][0], y: hull[m][1] };
    let a = 0;
    let b = m;
    while (b - a > 1) {
      const c = (a + b) >> 1;
      if (rate[c] >= r) a = c;
      else b = c;
    }
    const t = Math.log(rate[a] / r) / Math.log(rate[a] / rate[b]);
    return { x: hull[a][0] + t * (hull[b][0] - hull[a][0]), y: hull[a][1] + t * (hull[b][1] - hull[a][1]) };
  };
}

/** oracles of a market's pool directions, sampled once per market */
export class OracleCache {
  private readonly cache = new Map<string, Oracle | null>();
  get(pool: Pool, from: string): Oracle | null {
    const key = `${pool.address}:${from}`;
    let o = this.cache.get(key);
    if (o === undefined) {
      o = sampledOracle(pool, from);
      this.cache.set(key, o);
    }
    return o;
  }
}

/**
 * Kahn's order of the kept edges' tokens: null when there is a cycle; empty when the order does
 * not run from the source to the target
 */
function topological(kept: number[], edges: Edge[], source: number, target: number): number[] | null {
  const nodes = [...new Set(kept.flatMap((i) => [edges[i].from, edges[i].to]))];
  const indeg = new Map(nodes.map((t) => [t, 0]));
  for (const i of kept) indeg.set(edges[i].to, indeg.get(edges[i].to)! + 1);
  const order: number[] = [];
  const queue = nodes.filter((t) => indeg.get(t) === 0);
  while (queue.length > 0) {
    const t = queue.shift()!;
    order.push(t);
    for (const i of kept) {
      if (edges[i].from !== t) continue;
      const u = edges[i].to;
      indeg.set(u, indeg.get(u)! - 1);
      if (indeg.get(u) === 0) queue.push(u);
    }
  }
  if (order.length !== nodes.length) return null;
  return order[0] === source && order[order.length - 1] === target ? order : [];
}

/** the kept edges among the tokens Kahn's order cannot place (those on or after a cycle) */
function cycleEdges(kept: number[], edges: Edge[]): number[] {
  let left = kept.slice();
  for (let moved = true; moved; ) {
    moved = false;
    const hasIn = new Set(left.map((i) => edges[i].to));
    const hasOut = new Set(left.map((i) => edges[i].from));
    const next = left.filter((i) => hasIn.has(edges[i].from) && hasOut.has(edges[i].to));
    moved = next.length !== left.length;
    left = next;
  }
  return left;
}

/** the most edges on one chain of the DAG in topological `order` */
function longest(kept: number[], edges: Edge[], order: number[]): number {
  const depth = new Map(order.map((t) => [t, 0]));
  for (const t of order) for (const i of kept) if (edges[i].from === t) depth.set(edges[i].to, Math.max(depth.get(edges[i].to)!, depth.get(t)! + 1));
  return Math.max(...depth.values());
}

/** hop distances from `start` over the graph, up to `max` */
function distances(graph: TokenGraph, start: string, max: number): Map<string, number> {
  const d = new Map([[start, 0]]);
  let frontier = [start];
  for (let h = 1; h <= max; h++) {
    const next: string[] = [];
    for (const t of frontier)
      for (const p of graph.poolsOf(t)) {
        const o = p.mintA === t ? p.mintB : p.mintA;
        if (!d.has(o)) {
          d.set(o, h);
          next.push(o);
        }
      }
    frontier = next;
  }
  return d;
}

export interface ConvexRequest {
  inputMint: string;
  outputMint: string;
  mode: SwapMode;
  amount: bigint;
  /** ExactIn: the amount; ExactOut: an input about what the output costs (the flow's shape is solved at it) */
  input: bigint;
}

/**
 * The convex optimum's split of the request priced exactly, or null (no flow, a cycle, a chain
 * longer than the hop limit, or a part an edge cannot fill). `price(mint)` is a latent value per
 * unit (any scale); `warm` a feasible route whose flows warm-start the descent.
 */
export function convexSplit(graph: TokenGraph, oracles: OracleCache, req: ConvexRequest, price: (mint: string) => number, maxHops: number, support: readonly string[], warm?: Route): Route | null {
  const fromIn = distances(graph, req.inputMint, maxHops);
  const toOut = distances(graph, req.outputMint, maxHops);
  const mints = [...new Set([req.inputMint, ...support, req.outputMint])].filter((t) => toOut.has(t) && fromIn.has(t) && fromIn.get(t)! + toOut.get(t)! <= maxHops);
  const id = new Map(mints.map((t, i) => [t, i]));
  const source = id.get(req.inputMint);
  const target = id.get(req.outputMint);
  if (source === undefined || target === undefined) return null;
  const edges: Edge[] = [];
  const pools: Pool[] = [];
  const seen = new Set<Pool>();
  for (const t of mints)
    for (const p of graph.poolsOf(t)) {
      if (seen.has(p) || !id.has(p.mintA) || !id.has(p.mintB) || p.mintA === p.mintB) continue;
      seen.add(p);
      for (const [a, b] of [
        [p.mintA, p.mintB],
        [p.mintB, p.mintA],
      ]) {
        const from = id.get(a)!;
        const to = id.get(b)!;
        if (from === target || to === source) continue;
        const oracle = oracles.get(p, a);
        if (oracle === null) continue;
        edges.push({ from, to, oracle });
        pools.push(p);
      }
    }
  const problem: DualProblem = { n: mints.length, edges, price: mints.map(price), source, target, amount: Number(req.input) };
  const flows = warm ? edges.map((e, i) => warm.hops.filter((h) => h.pool === pools[i] && h.inputMint === mints[e.from]).reduce((s, h) => s + Number(h.amountIn), 0)) : undefined;
  const sol = dualSolve(problem, flows);
  // the edges that carry value, the smaller of a pool's two directions dropped
  const value = (i: number) => sol.flows[i].x * sol.prices[edges[i].from];
  const floor = 1e-7 * problem.amount * sol.prices[source];
  const best = new Map<Pool, number>();
  edges.forEach((_, i) => {
    if (!(value(i) > floor)) return;
    const j = best.get(pools[i]);
    if (j === undefined || value(i) > value(j)) best.set(pools[i], i);
  });
  let kept = [...best.values()];
  // only edges on a road from the source to the target
  const reach = (start: number, fwd: boolean): Set<number> => {
    const s = new Set([start]);
    for (let moved = true; moved; ) {
      moved = false;
      for (const i of kept) {
        const [a, b] = fwd ? [edges[i].from, edges[i].to] : [edges[i].to, edges[i].from];
        if (s.has(a) && !s.has(b)) {
          s.add(b);
          moved = true;
        }
      }
    }
    return s;
  };
  const f = reach(source, true);
  const g = reach(target, false);
  kept = kept.filter((i) => f.has(edges[i].from) && g.has(edges[i].to));
  if (kept.length === 0) return null;
  // topological order; a cycle (flow round an arbitrage loop) loses its smallest edge until none is left
  let order = topological(kept, edges, source, target);
  while (order === null || order.length === 0) {
    if (order !== null) return null;
    const cyc = cycleEdges(kept, edges);
    if (cyc.length === 0) return null;
    const drop = cyc.reduce((x, y) => (value(y) < value(x) ? y : x));
    kept = kept.filter((i) => i !== drop);
    const f2 = reach(source, true);
    const g2 = reach(target, false);
    kept = kept.filter((i) => f2.has(edges[i].from) && g2.has(edges[i].to));
    if (kept.length === 0) return null;
    order = topological(kept, edges, source, target);
  }
  if (longest(kept, edges, order) > maxHops) return null;
  const pos = new Map(order.map((t, k) => [t, k]));
  const fe: FlowEdge[] = kept.map((i) => ({ pool: pools[i], from: pos.get(edges[i].from)!, to: pos.get(edges[i].to)!, x: sol.flows[i].x, y: sol.flows[i].y, cap: Infinity, k: 0 }));
  const fg: FlowGraph = {
    mints: order.map((t) => mints[t]),
    edges: fe,
    outs: order.map((_, k) => fe.flatMap((e, j) => (e.from === k ? [j] : []))),
    ins: order.map((_, k) => fe.flatMap((e, j) => (e.to === k ? [j] : []))),
    crossed: [],
  };
  let out: Route | null = null;
  for (const minShare of [0, 0.002]) {
    try {
      const r = evaluateFlow(fg, req.mode, req.amount, minShare);
      if (req.mode === 'ExactIn' ? r.amountOut > 0n && (out === null || r.amountOut > out.amountOut) : out === null || r.amountIn < out.amountIn) out = r;
    } catch (e) {
      if (!(e instanceof PoolQuoteError)) throw e;
    }
  }
  return out;
}
