/**
 * The flow graph of a split: a small DAG of pools between tokens built from the candidate paths
 * of the float search. The distinct token paths among the candidates (best first) are kept while
 * their union stays acyclic and within the hop limit; cross links join tokens of the graph that
 * trade directly; every token pair gets up to `parallelPools` pools between the same two tokens
 * (the candidates' own, then the best by float output at the size the pair sees). Pure.
 */
import type { Pool } from '../pool';
import type { CandidatePath, SplitOptions, SwapMode } from './types';

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
  /**
   * the correction of the pool's float curve: the allocation's curve is the float one times
   * (1 − k x) at input x (0 until an exact pricing of the split says otherwise; see calibrate in
   * flow-allocation.ts)
   */
  k: number;
}

export interface FlowGraph {
  /** tokens in topological order: the input mint first, the output mint last */
  mints: string[];
  edges: FlowEdge[];
  /** edge indices leaving / entering each token */
  outs: number[][];
  ins: number[][];
  /** indices of the candidates left out because they ran against the order of earlier ones (a cycle) */
  crossed: number[];
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
  const crossed: number[] = [];
  let paths = 0;
  for (let ci = 0; ci < candidates.length; ci++) {
    const c = candidates[ci];
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
      if (chain < 0) crossed.push(ci);
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
    for (const pool of chosen) edges.push({ pool, from: rank[p.from], to: rank[p.to], x: 0, y: 0, cap: pool.reserve(toMint) * (1 - 1e-9), k: 0 });
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
  return { mints, edges, outs, ins, crossed };
}
