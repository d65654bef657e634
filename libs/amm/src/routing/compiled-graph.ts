/**
 * The compiled form of a token graph the float search walks: integer token ids, each token's
 * compiled pools, the zero-size rate tables toward (or from) a search's target and the scratch
 * arrays of the layered DP; cached per topology version of the graph, kept up to date with the
 * graph's replacement feed. Pure.
 */
import type { Pool } from '../pool';
import { compilePool, guideIn, guideOut, type Adjacency } from './compiled-pools';
import { MAX_HOPS_LIMIT, type TokenGraph } from './types';

/**
 * Integer ids for the graph's tokens, assigned lazily, and per token its compiled pools. Valid
 * for one topology version: the graph promises that the same version means the same pools (by
 * mints and order) in the same arrays for every mint, so only the Pool objects (reserves) are
 * read fresh on every search.
 */
export class Compiled {
  readonly ids = new Map<string, number>();
  readonly mints: string[] = [];
  private readonly adjacency: (Adjacency | undefined)[] = [];
  /** one search (findBestRoute or findCandidatePaths) at a time: its rate tables, its scratch */
  private query = 0;
  /** the graph's replacement feed read up to here (see TokenGraph.replacedSince) */
  private synced: number | null = null;
  /**
   * every cached rate is up to date (the graph's replacement feed was applied when the search
   * began): the hot loops read rates without comparing pool objects
   */
  exact = false;
  private near: { query: number; key: number; tables: Float64Array[] } | null = null;
  private readonly nearScratch = {
    /** levels[j][u]: the rate table of j hops (0 .. MAX_HOPS_LIMIT − 1), grown as tokens get ids */
    levels: [] as Float64Array[],
    /** the tokens the current tables set, set[0 .. setLen) (never shrunk: no reallocation per search) */
    set: [] as number[],
    setLen: 0,
    /** the tokens improved at the level before, and at this one (reused, never shrunk) */
    frontier: [] as number[],
    next: [] as number[],
  };
  private scratchBest = new Float64Array(0);
  private scratchIndex = new Int32Array(0);
  private scratchFloats = new Float64Array(0);
  private scratchInts = new Int32Array(0);
  private readonly pairIndex: (Map<number, number[]> | undefined)[] = [];

  constructor(
    readonly graph: TokenGraph,
    readonly version: number | undefined,
  ) {}

  id(mint: string): number {
    let i = this.ids.get(mint);
    if (i === undefined) {
      i = this.mints.length;
      this.ids.set(mint, i);
      this.mints.push(mint);
    }
    return i;
  }

  adj(token: number): Adjacency {
    let a = this.adjacency[token];
    if (a === undefined) {
      const mint = this.mints[token];
      const pools = this.graph.poolsOf(mint);
      const n = pools.length;
      // refs filled by push: a packed array, like the graph's own (one element kind for the
      // optimiser to see in the loops that compare them)
      a = {
        pools,
        refs: [],
        others: new Int32Array(n),
        rateOut: new Float64Array(n),
        rateIn: new Float64Array(n),
        cp: new Uint8Array(n),
        guideOut: new Float64Array(4 * n),
        guideIn: new Float64Array(4 * n),
      };
      for (let j = 0; j < n; j++) {
        const p = pools[j];
        const other = p.mintA === mint ? p.mintB : p.mintA;
        a.others[j] = this.id(other);
        a.refs.push(p);
        compilePool(a, j, p, mint, other);
      }
      this.adjacency[token] = a;
    }
    return a;
  }

  /** a new search begins: tables memoised for the previous one are stale; replaced pools are applied */
  begin(): void {
    this.query++;
    const feed = this.graph.replacedSince;
    if (feed === undefined) return;
    const r = feed.call(this.graph, this.synced);
    if (r.replaced === null) {
      // nothing to go by: check every compiled pool against its cached rates once
      if (this.synced !== null) for (let t = 0; t < this.adjacency.length; t++) if (this.adjacency[t]) this.refreshAll(t);
    } else {
      for (const { pool, indexA, indexB } of r.replaced) {
        this.refreshAt(pool.mintA, indexA);
        this.refreshAt(pool.mintB, indexB);
      }
    }
    this.synced = r.next;
    this.exact = true;
  }

  /** compiled pools whose cached rates are of another pool object than the graph's (tests: 0 after begin() with a feed) */
  staleRates(): number {
    let n = 0;
    for (const a of this.adjacency) if (a !== undefined) for (let j = 0; j < a.refs.length; j++) if (a.pools[j] !== a.refs[j]) n++;
    return n;
  }

  private refreshAt(mint: string, index: number): void {
    const t = this.ids.get(mint);
    const a = t === undefined ? undefined : this.adjacency[t];
    if (a !== undefined && index < a.refs.length) this.rate(a, t!, index, true);
  }

  /** the cached rates of token t's pools brought up to date (the graph may hold other pool objects now) */
  refreshStale(a: Adjacency, t: number): void {
    const pools = a.pools;
    const refs = a.refs;
    for (let j = 0; j < refs.length; j++) if (pools[j] !== refs[j]) this.rate(a, t, j, true);
  }

  private refreshAll(t: number): void {
    const a = this.adjacency[t]!;
    for (let j = 0; j < a.refs.length; j++) if (a.pools[j] !== a.refs[j]) this.rate(a, t, j, true);
  }

  /**
   * The zero-size rate of pool j of `token`: out (token → the other mint) or in (the other mint →
   * token); recomputed when the graph holds another pool object there than the cached rate's.
   */
  rate(a: Adjacency, token: number, j: number, out: boolean): number {
    const p = a.pools[j];
    if (p !== a.refs[j]) {
      const mint = this.mints[token];
      compilePool(a, j, p, mint, mint === p.mintA ? p.mintB : p.mintA);
    }
    return out ? a.rateOut[j] : a.rateIn[j];
  }

  /** a scratch float array and a scratch int array of at least `n` entries (contents undefined) */
  floats(n: number): Float64Array {
    if (this.scratchFloats.length < n) this.scratchFloats = new Float64Array(Math.max(n, 2 * this.scratchFloats.length));
    return this.scratchFloats;
  }

  ints(n: number): Int32Array {
    if (this.scratchInts.length < n) this.scratchInts = new Int32Array(Math.max(n, 2 * this.scratchInts.length));
    return this.scratchInts;
  }

  /**
   * Scratch arrays of at least `n` entries for one layered DP: best score per token (-Infinity
   * when untouched) and list index per token (-1 when untouched); the caller restores the entries
   * it changed. Growing keeps what the arrays hold.
   */
  scratch(n: number): { best: Float64Array; index: Int32Array } {
    if (this.scratchBest.length < n) {
      const size = Math.max(n, 2 * this.scratchBest.length, 1024);
      const best = new Float64Array(size).fill(-Infinity);
      const index = new Int32Array(size).fill(-1);
      best.set(this.scratchBest);
      index.set(this.scratchIndex);
      this.scratchBest = best;
      this.scratchIndex = index;
    }
    return { best: this.scratchBest, index: this.scratchIndex };
  }

  /** pools of `from` whose other mint is `to` (indices into poolsOf(from)), cached per topology */
  pairPools(from: number, to: number): readonly Pool[] {
    const a = this.adj(from);
    let idx = this.pairIndex[from];
    if (idx === undefined) {
      const o = a.others;
      idx = new Map();
      for (let j = 0; j < o.length; j++) {
        const l = idx.get(o[j]);
        if (l) l.push(j);
        else idx.set(o[j], [j]);
      }
      this.pairIndex[from] = idx;
    }
    const l = idx.get(to);
    return l ? l.map((j) => a.pools[j]) : NO_POOLS;
  }

  /**
   * Zero-size rate tables of a DP target for 0 .. `depth` hops (2 or 3: what a search of
   * `depth` + 1 hops bounds its partial paths with; see deeperAround for one more), from the
   * pools as they are now.
   * Toward the target (ExactIn): tables[j][u] is the most of the target one unit of u can become
   * within j hops; from the target (ExactOut, the target is the input mint): the most of u one
   * unit of the target can become within j hops; 0 when out of reach (a token with an id past an
   * array's end too). Level j relaxes, from level j − 1, only the pools of the tokens that level
   * improved (Bellman-Ford by frontier). Memoised for the search (a deeper request computes
   * again); the arrays are reused by the next one.
   */
  nearRates(target: number, towardTarget: boolean, depth = 2): Float64Array[] {
    const key = target * 2 + (towardTarget ? 1 : 0);
    depth = Math.max(2, Math.min(3, depth));
    const memo = this.near;
    if (memo !== null && memo.query === this.query && memo.key === key && memo.tables.length > depth) return memo.tables;
    const tables = this.computeNearRates(target, towardTarget, depth);
    this.near = { query: this.query, key, tables };
    return tables;
  }

  /**
   * The tables of nearRates and one level more, for the neighbours of `start` only (0 at every
   * other token): the first hop of a search from `start` is all that reads it, and it costs the
   * pools of those neighbours instead of a relaxation over the whole graph.
   */
  deeperAround(tables: Float64Array[], start: number, towardTarget: boolean): Float64Array[] {
    const depth = tables.length - 1;
    const a = this.adj(start);
    for (let j = 0; j < a.others.length; j++) this.adj(a.others[j]);
    const sc = this.nearScratch;
    // compiling may have given tokens ids past the arrays' end: the grown arrays hold the tables
    const L = this.growNear(this.mints.length);
    const prev = L[depth];
    const cur = L[depth + 1];
    const set = sc.set;
    for (let i = 0; i < sc.setLen; i++) cur[set[i]] = 0;
    for (let j = 0; j < a.others.length; j++) {
      const u = a.others[j];
      const b = this.adj(u);
      const others = b.others;
      let best = prev[u];
      for (let e = 0; e < others.length; e++) {
        // toward the target: u → the other mint, then on; from the target: on to the other mint, then → u
        const x = this.rate(b, u, e, towardTarget) * prev[others[e]];
        if (x > best) best = x;
      }
      if (best > cur[u]) {
        if (prev[u] === 0 && cur[u] === 0) set[sc.setLen++] = u;
        cur[u] = best;
      }
    }
    return L.slice(0, depth + 2);
  }

  /** the level arrays of the rate tables hold at least n tokens (contents kept) */
  private growNear(n: number): Float64Array[] {
    const sc = this.nearScratch;
    if (sc.levels.length > 0 && sc.levels[0].length >= n) return sc.levels;
    const size = Math.max(n, 2 * (sc.levels.length > 0 ? sc.levels[0].length : 0), 1024);
    const levels: Float64Array[] = [];
    for (let j = 0; j < MAX_HOPS_LIMIT; j++) {
      const x = new Float64Array(size);
      if (j < sc.levels.length) x.set(sc.levels[j]);
      levels.push(x);
    }
    sc.levels = levels;
    return levels;
  }

  private computeNearRates(target: number, towardTarget: boolean, depth: number): Float64Array[] {
    this.adj(target);
    const sc = this.nearScratch;
    let L = this.growNear(this.mints.length);
    // reused arrays: the entries the previous tables set go back to 0 first
    const set = sc.set;
    for (let i = 0; i < sc.setLen; i++) {
      const u = set[i];
      for (let j = 0; j < L.length; j++) L[j][u] = 0;
    }
    let setLen = 0;
    try {
      for (let j = 0; j <= depth; j++) L[j][target] = 1;
      set[setLen++] = target;
      const outward = !towardTarget;
      const exact = this.exact;
      let frontier = sc.frontier;
      let next = sc.next;
      let frontierLen = 1;
      frontier[0] = target;
      for (let j = 1; j <= depth; j++) {
        // level j starts as level j − 1 (a path within j − 1 hops is within j)
        if (j > 1) {
          const prev = L[j - 1];
          const cur = L[j];
          for (let i = 0; i < setLen; i++) cur[set[i]] = prev[set[i]];
        }
        let nextLen = 0;
        for (let i = 0; i < frontierLen; i++) {
          const u = frontier[i];
          const b = this.adj(u);
          // compiling u gave its neighbours ids
          if (this.mints.length > L[0].length) L = this.growNear(this.mints.length);
          const prev = L[j - 1];
          const cur = L[j];
          const ru = prev[u];
          const pools = b.pools;
          const refs = b.refs;
          const others = b.others;
          const rates = outward ? b.rateOut : b.rateIn;
          for (let e = 0; e < others.length; e++) {
            const w = others[e];
            if (!exact && pools[e] !== refs[e]) this.rate(b, u, e, outward);
            const x = ru * rates[e];
            const c = cur[w];
            if (x > c && w !== target) {
              if (c === 0) set[setLen++] = w;
              // the first improvement at this level: the next level relaxes from w
              if (c === prev[w]) next[nextLen++] = w;
              cur[w] = x;
            }
          }
        }
        const t = frontier;
        frontier = next;
        next = t;
        frontierLen = nextLen;
      }
      sc.frontier = frontier;
      sc.next = next;
    } finally {
      // what the next tables clear (never shrunk: no reallocation per search)
      sc.setLen = setLen;
    }
    return L.slice(0, depth + 1);
  }
}

const compiledCache = new WeakMap<TokenGraph, Compiled>();

/** the compiled graph for its current topology, a new search begun on it */
export function compiled(graph: TokenGraph): Compiled {
  const version = graph.topologyVersion;
  if (version === undefined) {
    const c = new Compiled(graph, undefined);
    c.begin();
    return c;
  }
  let c = compiledCache.get(graph);
  if (!c || c.version !== version) {
    c = new Compiled(graph, version);
    compiledCache.set(graph, c);
  }
  c.begin();
  return c;
}

const NO_POOLS: readonly Pool[] = Object.freeze([]);

/** the rate table value of token u (0 past the table's end: out of reach) */
export function at(table: Float64Array, u: number): number {
  return u < table.length ? table[u] : 0;
}

/** for tests: the compiled form of a graph as the next search sees it (begins a search), the packed guides */
export const _testing = { compiled, guideOut, guideIn };
