/**
 * Split routing: the amount is spread over a small flow graph (a DAG of pools between tokens)
 * built from the candidate paths of the single-path search. Pure: no Nest, no log, no HTTP.
 *
 * 1. `buildFlowGraph`: the distinct token paths among the candidates (best first), kept while
 *    their union stays acyclic, and for every token pair on them up to `parallelPools` pools
 *    between the same two tokens (ranked by float output at the size the pair sees).
 * 2. `allocate` (floating point, a guide only): greedy marginal equalisation. The amount is
 *    pushed in `steps` geometrically shrinking increments, each along the path of the flow graph that gives the
 *    most for the increment at the current flows (a DP over the DAG in topological order;
 *    ExactOut: backwards, the path that needs the least input for the next slice of output).
 *    In the limit of small increments every used path ends at the same marginal price (the
 *    optimality condition of the convex routing problem); the allocation error is about the last
 *    increments and the output lost is second order in it.
 * 3. `evaluateFlow` (exact): the float flows become split fractions per token; edges carrying
 *    less than `minShare` of the amount are dropped; then the route is recomputed with the pools'
 *    integer math over the whole DAG (ExactIn forwards: each token's exact amount is divided
 *    among its out-edges, remainder to the largest; ExactOut backwards: each token's exact
 *    requirement is divided among its in-edges and every edge is quoted for exactly its part).
 */
import { PoolQuoteError, type Pool } from '../pool';
import type { CandidatePath, Route, RouteHop, SwapMode } from './route-search';

export interface SplitOptions {
  /** distinct token paths taken into the flow graph (default 20) */
  maxPaths?: number;
  /** pools kept per token pair (default 8) */
  parallelPools?: number;
  /** edges of the flow graph at most (default 128) */
  maxEdges?: number;
  /** edges carrying less than this share of the amount are dropped (default 0.002) */
  minShare?: number;
  /**
   * the longest chain of pools from the input to the output (the request's hop limit): candidate
   * paths and cross links that would make a longer chain are left out (default: no limit)
   */
  maxHops?: number;
}

export interface FlowEdge {
  pool: Pool;
  /** token indices into FlowGraph.mints */
  from: number;
  to: number;
  /** float flow: input of the edge (from-token units) and its output (to-token units) */
  x: number;
  y: number;
  /** ExactIn: an output this edge cannot reach (just under the pool's reserve of `to`; read once, as the pool does not change during a search) */
  cap: number;
}

export interface FlowGraph {
  /** tokens in topological order: the input mint first, the output mint last */
  mints: string[];
  edges: FlowEdge[];
  /** edge indices leaving / entering each token */
  outs: number[][];
  ins: number[][];
}

/** parallel pools between two mints, as the graph lists them (callers cache per topology) */
export type PairPools = (from: string, to: string) => readonly Pool[];

/** n empty lists (a loop: Array.from with a length object costs more than the lists) */
function lists(n: number): number[][] {
  const l: number[][] = [];
  for (let i = 0; i < n; i++) l.push([]);
  return l;
}

/** the longest chain (in edges) of the directed graph, or -1 when it has a cycle */
function longestChain(n: number, pairs: Iterable<{ from: number; to: number }>): number {
  const adj: number[][] = lists(n);
  const indeg = new Int32Array(n);
  for (const { from, to } of pairs) {
    adj[from].push(to);
    indeg[to]++;
  }
  const depth = new Int32Array(n);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) queue.push(i);
  let seen = 0;
  let longest = 0;
  while (queue.length > 0) {
    const t = queue.pop()!;
    seen++;
    if (depth[t] > longest) longest = depth[t];
    for (const u of adj[t]) {
      if (depth[t] + 1 > depth[u]) depth[u] = depth[t] + 1;
      if (--indeg[u] === 0) queue.push(u);
    }
  }
  return seen === n ? longest : -1;
}

/**
 * The flow graph of the candidate paths (see the file comment). Returns null when fewer than two
 * edges result (nothing to split).
 */
export function buildFlowGraph(candidates: readonly CandidatePath[], amount: number, mode: SwapMode, pairPools: PairPools, opts: SplitOptions = {}): FlowGraph | null {
  const maxPaths = opts.maxPaths ?? 20;
  const parallel = opts.parallelPools ?? 8;
  const maxEdges = opts.maxEdges ?? 128;
  const maxHops = opts.maxHops ?? Infinity;
  const ids = new Map<string, number>();
  const names: string[] = [];
  const id = (m: string): number => {
    let i = ids.get(m);
    if (i === undefined) {
      i = names.length;
      ids.set(m, i);
      names.push(m);
    }
    return i;
  };
  // every mint met gets a small number (kept when a path is left out, unlike the graph's ids), so
  // pairs and token paths are keyed by numbers and short strings, not by joined addresses
  const numbers = new Map<string, number>();
  const num = (m: string): number => {
    let k = numbers.get(m);
    if (k === undefined) {
      k = numbers.size;
      numbers.set(m, k);
    }
    return k;
  };
  /** pair (from × 2^21 + to, by mint number: a search's candidates hold a few hundred mints, far under 2^21) → graph ids, the float amount the pair sees, the candidates' pools */
  const pairs = new Map<number, { from: number; to: number; amount: number; pools: Set<Pool> }>();
  const pairKey = (a: string, b: string): number => num(a) * 2_097_152 + num(b);
  const seenPaths = new Set<string>();
  let paths = 0;
  for (const c of candidates) {
    if (paths >= maxPaths) break;
    // the token path: two UTF-16 units per mint number
    let key = '';
    for (const m of c.mints) key += String.fromCharCode(num(m) & 0xffff, num(m) >>> 16);
    if (seenPaths.has(key)) {
      // another pool sequence over the same tokens: its pools join the pairs
      for (let i = 0; i < c.pools.length; i++) pairs.get(pairKey(c.mints[i], c.mints[i + 1]))?.pools.add(c.pools[i]);
      continue;
    }
    // float amounts along the path at the candidate's size
    const amounts: number[] = [mode === 'ExactIn' ? amount : c.estimate];
    for (let i = 0; i < c.pools.length; i++) amounts.push(c.pools[i].approxOut(c.mints[i], amounts[i]));
    const before = names.length;
    const added: number[] = [];
    for (let i = 0; i < c.pools.length; i++) {
      const k = pairKey(c.mints[i], c.mints[i + 1]);
      const p = pairs.get(k);
      if (p) {
        p.amount = Math.max(p.amount, amounts[i]);
        p.pools.add(c.pools[i]);
      } else {
        pairs.set(k, { from: id(c.mints[i]), to: id(c.mints[i + 1]), amount: amounts[i], pools: new Set([c.pools[i]]) });
        added.push(k);
      }
    }
    // the union must stay acyclic, and merging paths at a shared token must not chain the head of
    // one and the tail of another into more hops than the request allows
    const chain = added.length > 0 ? longestChain(names.length, pairs.values()) : 0;
    if (chain < 0 || chain > maxHops) {
      for (const k of added) pairs.delete(k);
      names.length = before;
      for (const [m, i] of ids) if (i >= before) ids.delete(m);
      continue;
    }
    seenPaths.add(key);
    paths++;
  }
  if (pairs.size === 0) return null;

  // topological order (Kahn; ties by first appearance, so the input mint comes first)
  const n = names.length;
  const adj: number[][] = lists(n);
  const indeg = new Int32Array(n);
  for (const p of pairs.values()) {
    adj[p.from].push(p.to);
    indeg[p.to]++;
  }
  const order: number[] = [];
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) ready.push(i);
  while (ready.length > 0) {
    ready.sort((a, b) => b - a);
    const t = ready.pop()!;
    order.push(t);
    for (const u of adj[t]) if (--indeg[u] === 0) ready.push(u);
  }
  const rank = new Int32Array(n);
  order.forEach((t, r) => (rank[t] = r));
  const mints = order.map((t) => names[t]);

  // cross links: pairs of the graph's tokens that trade directly, oriented along the order
  const tokenAmount = new Float64Array(n);
  for (const p of pairs.values()) tokenAmount[rank[p.from]] = Math.max(tokenAmount[rank[p.from]], p.amount);
  const linkPairs: { from: number; to: number; amount: number; pools: Set<Pool> }[] = [];
  // hop limit: a link i → j makes chains of (longest chain into i) + 1 + (longest chain out of j)
  const into = new Int32Array(n);
  const outOf = new Int32Array(n);
  const byRank: number[][] = lists(n);
  for (const p of pairs.values()) byRank[rank[p.from]].push(rank[p.to]);
  const chains = (): void => {
    into.fill(0);
    outOf.fill(0);
    for (let i = 0; i < n; i++) for (const j of byRank[i]) if (into[i] + 1 > into[j]) into[j] = into[i] + 1;
    for (let i = n - 1; i >= 0; i--) for (const j of byRank[i]) if (outOf[j] + 1 > outOf[i]) outOf[i] = outOf[j] + 1;
  };
  if (Number.isFinite(maxHops)) chains();
  // the graph's pairs by token ids (no key strings in the loop below)
  const pairIds = new Set<number>();
  for (const p of pairs.values()) pairIds.add(p.from * n + p.to);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = order[i];
      const b = order[j];
      if (pairIds.has(a * n + b)) continue;
      if (into[i] + 1 + outOf[j] > maxHops) continue;
      if (pairPools(names[a], names[b]).length === 0) continue;
      linkPairs.push({ from: a, to: b, amount: tokenAmount[i], pools: new Set() });
      if (Number.isFinite(maxHops)) {
        byRank[i].push(j);
        chains();
      }
    }
  }

  // pools per pair: the candidates' own, then the best parallel ones at the pair's size
  const edges: FlowEdge[] = [];
  const pairList = [...pairs.values()].sort((a, b) => rank[a.from] - rank[b.from] || rank[a.to] - rank[b.to]);
  const perPair = Math.max(1, Math.min(parallel, Math.floor(maxEdges / pairList.length)));
  const addPools = (p: { from: number; to: number; amount: number; pools: Set<Pool> }, cap: number): void => {
    const fromMint = names[p.from];
    const chosen = new Set<Pool>();
    // the candidates' own pools first (they carry the single-path answer)
    for (const pool of p.pools) if (chosen.size < cap) chosen.add(pool);
    const all = pairPools(fromMint, names[p.to]);
    if (all.length > 0 && chosen.size < cap) {
      const probe = p.amount > 0 ? p.amount : 1;
      const scored = all.filter((q) => !chosen.has(q)).map((q) => ({ q, out: q.approxOut(fromMint, probe) }));
      scored.sort((a, b) => b.out - a.out || (a.q.address < b.q.address ? -1 : 1));
      for (const sc of scored) {
        if (chosen.size >= cap || !(sc.out > 0)) break;
        chosen.add(sc.q);
      }
    }
    const toMint = names[p.to];
    for (const pool of chosen) edges.push({ pool, from: rank[p.from], to: rank[p.to], x: 0, y: 0, cap: pool.reserve(toMint) * (1 - 1e-9) });
  };
  for (const p of pairList) addPools(p, perPair);
  for (const p of linkPairs) {
    if (edges.length + 2 > maxEdges) break;
    addPools(p, 2);
  }
  edges.sort((a, b) => a.from - b.from || a.to - b.to);
  if (edges.length < 2) return null;
  const outs: number[][] = lists(n);
  const ins: number[][] = lists(n);
  edges.forEach((e, i) => {
    outs[e.from].push(i);
    ins[e.to].push(i);
  });
  return { mints, edges, outs, ins };
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
      const out = e.pool.approxOut(from, e.x + b);
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
      const loss = e.y - e.pool.approxOut(from, e.x - b);
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
      const more = e.pool.approxIn(g.mints[e.from], e.y + need) - e.x;
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
      const saved = e.x - e.pool.approxIn(g.mints[e.from], e.y - r);
      if (saved > best[e.from]) {
        best[e.from] = saved;
        via[e.from] = ei;
      }
    }
  }
  return best[0];
}

/** apply the path the last DP found: ExactIn walks back from the target, ExactOut forwards from the input */
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

function applyIn(g: FlowGraph, s: Scratch, sign: 1 | -1, journal?: Journal): void {
  for (let t = g.mints.length - 1; t > 0; ) {
    const e = g.edges[s.via[t]];
    record(journal, e);
    e.x = Math.max(0, e.x + sign * s.best[e.from]);
    e.y = e.x > 0 ? e.pool.approxOut(g.mints[e.from], e.x) : 0;
    t = e.from;
  }
}

function applyOut(g: FlowGraph, s: Scratch, sign: 1 | -1, journal?: Journal): void {
  const T = g.mints.length - 1;
  for (let t = 0; t < T; ) {
    const e = g.edges[s.via[t]];
    record(journal, e);
    e.y = Math.max(0, e.y + sign * s.best[e.to]);
    e.x = e.y > 0 ? e.pool.approxIn(g.mints[e.from], e.y) : 0;
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

/**
 * Price impact of a route as a fraction (see quote-response): 1 − (amountOut / amountIn) / ideal,
 * where ideal is what the same route (same pools, same split fractions at each token) gives per
 * unit of input at zero size: Σ over the flow of Π spotPrice × (1 − fee). Clamped to [0, 1].
 * Also returns the route's input shares per hop (the `percent` of the API) and the weighted fee.
 */
export function routeShares(route: Route): { shares: number[]; ideal: number; feeBps: number } {
  const held = new Map<string, number>([[route.inputMint, 1]]);
  const value = new Map<string, number>([[route.inputMint, 1]]);
  const outTotal = new Map<string, bigint>();
  for (const h of route.hops) outTotal.set(h.inputMint, (outTotal.get(h.inputMint) ?? 0n) + h.amountIn);
  const shares: number[] = [];
  let fee = 0;
  for (const h of route.hops) {
    const total = outTotal.get(h.inputMint)!;
    const f = total > 0n ? Number(h.amountIn) / Number(total) : 0;
    const s = (held.get(h.inputMint) ?? 0) * f;
    shares.push(s);
    fee += s * h.pool.feeBps;
    held.set(h.outputMint, (held.get(h.outputMint) ?? 0) + s);
    const v = (value.get(h.inputMint) ?? 0) * f * h.pool.spotPrice(h.inputMint) * (1 - h.pool.feeBps / 10_000);
    value.set(h.outputMint, (value.get(h.outputMint) ?? 0) + v);
  }
  return { shares, ideal: value.get(route.outputMint) ?? 0, feeBps: fee };
}
