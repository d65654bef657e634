/**
 * Single-path route search over a token graph of `Pool`s. Pure: no Nest, no log, no HTTP.
 *
 * 1. Candidate generation (floating point, a guide only): a layered Bellman-Ford-like DP. Layer h
 *    holds, per token, the best few partial paths of exactly h hops from the start token
 *    (ExactIn: forwards from the input mint, most output first; ExactOut: backwards from the
 *    output mint, least input first). A path never repeats a token. Tokens that cannot reach the
 *    target within the hops left (BFS hop distance) are not expanded.
 * 2. Every candidate path that reaches the target is recomputed EXACTLY with the pools' integer
 *    math hop by hop (ExactOut backwards), and the best exact one is returned. Every amount in a
 *    `Route` comes from `quoteExactIn` / `quoteExactOut`.
 *
 * Split routes (a later issue) can reuse both halves: `findCandidatePaths` yields the distinct
 * paths, `evaluatePath` prices one path for a given amount exactly; a splitter distributes the
 * amount over several candidate paths and evaluates each part exactly.
 */
import { PoolQuoteError, type HopQuote, type Pool } from '../pool';
import { allocate, buildFlowGraph, evaluateFlow, type SplitOptions } from './split';
import { filteredGraph, type PoolFilter } from './pool-filter';

export type SwapMode = 'ExactIn' | 'ExactOut';

/** The liquidity graph the search walks: every routable pool that trades `mint`. */
export interface TokenGraph {
  poolsOf(mint: string): readonly Pool[];
  /**
   * Optional: a number that changes whenever the set of pools of any mint changes (membership,
   * mints or ORDER of `poolsOf`), not on a mere reserve change (a re-materialised Pool object in
   * the same place). When present, token ids and hop distances are cached per version, and
   * `poolsOf` must return the same array object for a mint during a version (updated in place
   * when a pool is re-materialised).
   */
  readonly topologyVersion?: number;
  /**
   * Optional, with topologyVersion: the pools re-materialised in place (same mints, same index
   * in both mints' `poolsOf` lists) since `since`, a `next` this method returned before, and
   * the `next` to ask with later; `replaced: null` when it cannot tell (`since` null or too
   * old). Lets the search keep per-pool float data up to date without re-reading every list.
   */
  replacedSince?(since: number | null): { next: number; replaced: readonly ReplacedPool[] | null };
}

/** a pool object that took its predecessor's place at `indexA` of poolsOf(mintA), `indexB` of poolsOf(mintB) */
export interface ReplacedPool {
  pool: Pool;
  indexA: number;
  indexB: number;
}

export interface RouteHop {
  pool: Pool;
  inputMint: string;
  outputMint: string;
  /**
   * the input handed to the pool: ExactIn, the amount the quote was asked for (what the swap
   * instruction must carry); it can exceed `amountIn` when the program keeps part of a budget
   * back (pump.fun / PumpSwap buys with an input budget). ExactOut: equal to `amountIn`.
   */
  amountGiven: bigint;
  amountIn: bigint;
  amountOut: bigint;
  feeAmount: bigint;
}

/**
 * An exact route. `hops` are the edges of the route's flow graph in topological order of their
 * input token (the input mint's first): a single path is a chain (hop i's output is hop i+1's
 * input); a split route has several hops with the same input mint (the amount held in that
 * token is divided among them) and several with the same output mint (their outputs add up).
 */
export interface Route {
  mode: SwapMode;
  inputMint: string;
  outputMint: string;
  /** exact input the user pays (ExactIn: the requested amount) */
  amountIn: bigint;
  /** exact output the user receives (ExactOut: the requested amount) */
  amountOut: bigint;
  hops: RouteHop[];
}

export interface RouteRequest {
  inputMint: string;
  outputMint: string;
  amount: bigint;
  mode: SwapMode;
  /** 1..5 */
  maxHops: number;
}

export interface RouteSearchOptions extends SplitOptions {
  /** partial paths kept per token per hop count (default 4) */
  candidatesPerToken?: number;
  /**
   * tokens a layer of the candidate search passes on at most, where the rate tables rank them
   * (within two hops of the target; default 1024)
   */
  beamWidth?: number;
  /** hops beyond the pair's shortest path that the near search explores (default 1) */
  hopSlack?: number;
  /**
   * true: every hop count up to the request's limit (the deep search below, after the near
   * search), and each hop of the exact evaluations in the best of its pair's parallel pools;
   * default false (the near search only, each candidate's own pools)
   */
  fullHopLimit?: boolean;
  /**
   * the deep search (paths more than one hop longer than the pair's shortest, up to the hop
   * limit): tokens a layer passes on at most, ranked by their bounds (default 32), and partial
   * paths kept per token per hop count (default 2)
   */
  deepBeamWidth?: number;
  deepCandidatesPerToken?: number;
  /** complete candidate paths recomputed exactly (default 12) */
  exactEvaluations?: number;
  /** candidate paths one search returns at most, best estimate first (default 64) */
  candidatePaths?: number;
  /** false: single paths only (default true: splits over pools and paths when they pay) */
  split?: boolean;
  /** increments of the greedy allocation at most (default 64; fewer for small trades) */
  maxSteps?: number;
  /** partial paths kept per token per hop count by the extra candidate searches of large trades (default 6) */
  splitCandidatesPerToken?: number;
  /** path-exchange rounds after the greedy allocation (default 96) */
  polishRounds?: number;
  /** only the pools this accepts are searched (a request's route controls; see pool-filter.ts) */
  poolFilter?: PoolFilter;
}

/** Route errors; `message` is the API's error text. */
export abstract class RouteError extends Error {}

/** There is no path in the graph between the mints (within the hop limit). */
export class NoRouteError extends RouteError {
  constructor() {
    super('no route found');
    this.name = 'NoRouteError';
  }
}

/** One of the mints has no pool at all. */
export class NoPoolError extends RouteError {
  constructor(readonly mint: string) {
    super('no pool found');
    this.name = 'NoPoolError';
  }
}

/** Paths exist but none of them can fill the amount. */
export class InsufficientLiquidityError extends RouteError {
  constructor(readonly detail: string) {
    super('insufficient liquidity');
    this.name = 'InsufficientLiquidityError';
  }
}

export const MAX_HOPS_LIMIT = 5;

/** A partial path as a linked list from the start token. */
interface Node {
  token: number;
  /** ExactIn: amount of `token` held; ExactOut: amount of `token` needed */
  amount: number;
  /** higher is better: amount (ExactIn) or -amount (ExactOut) */
  score: number;
  hops: number;
  pool: Pool | null;
  prev: Node | null;
}

export interface CandidatePath {
  /** pools in trade order (input → output) */
  pools: Pool[];
  /** mints in trade order: [inputMint, ..., outputMint] */
  mints: string[];
  /** the float estimate that selected the path (ExactIn: output; ExactOut: input) */
  estimate: number;
}

const UNREACHABLE = 127;
/**
 * slack of the pruning bound: a partial path is dropped when even its zero-impact completion
 * falls short of the best complete estimate by more than this share (covers fee rates reported
 * rounded to the basis point and float noise)
 */
const PRUNE_SLACK = 1e-4;

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
interface Adjacency {
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
function guideOut(g: Float64Array, o: number, amountIn: number): number {
  const x = g[o];
  if (x === 0 || !(amountIn > 0)) return 0;
  const net = amountIn * g[o + 2];
  return ((net * g[o + 1]) / (x + net)) * g[o + 3];
}

/** Pool.approxIn of a constant-product guide at offset o of g, operation for operation */
function guideIn(g: Float64Array, o: number, amountOut: number): number {
  const x = g[o];
  if (x === 0) return Infinity;
  if (!(amountOut > 0)) return 0;
  const gross = amountOut / g[o + 3];
  const y = g[o + 1];
  if (gross >= y) return Infinity;
  return (x * gross) / (y - gross) / g[o + 2];
}

/** cache pool j's zero-size rates and guide parameters in a (the pool trades `mint` and `other`) */
function compilePool(a: Adjacency, j: number, p: Pool, mint: string, other: string): void {
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

/**
 * Integer ids for the graph's tokens, assigned lazily, and per token its compiled pools. Valid
 * for one topology version: the graph promises that the same version means the same pools (by
 * mints and order) in the same arrays for every mint, so only the Pool objects (reserves) are
 * read fresh on every search.
 */
class Compiled {
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
function compiled(graph: TokenGraph): Compiled {
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
function at(table: Float64Array, u: number): number {
  return u < table.length ? table[u] : 0;
}

/**
 * Hops of the shortest path from `start` to the DP target (UNREACHABLE beyond MAX_HOPS_LIMIT):
 * the rate tables answer up to their depth; beyond, breadth-first from the start side until a
 * token the deepest table reaches is met.
 */
function shortestHops(c: Compiled, start: number, tables: Float64Array[]): number {
  const depth = tables.length - 1;
  for (let j = 0; j <= depth; j++) if (at(tables[j], start) > 0) return j;
  const deepest = tables[depth];
  const seen = new Set<number>([start]);
  let frontier = [start];
  for (let d = 1; d + depth <= MAX_HOPS_LIMIT && frontier.length > 0; d++) {
    const next: number[] = [];
    for (const t of frontier) {
      const o = c.adj(t).others;
      for (let j = 0; j < o.length; j++) {
        const u = o[j];
        if (seen.has(u)) continue;
        if (at(deepest, u) > 0) return d + depth;
        seen.add(u);
        next.push(u);
      }
    }
    frontier = next;
  }
  return UNREACHABLE;
}

/**
 * Whether a float output is the whole of what the pool can pay out of `outputMint`: a
 * concentrated pool or a curve pushed past the end of its liquidity (or of its loaded tick
 * arrays) cannot take the input exactly, its guide just stops growing. Constant-product pools
 * never get there.
 */
function saturated(pool: Pool, outputMint: string, amountOut: number): boolean {
  return pool.kind !== 'constant-product' && !(amountOut < pool.reserve(outputMint) * (1 - 1e-9));
}

/** the k-th largest of vals[0 .. m) (1-based k ≤ m), by quickselect; reorders vals */
function kthLargest(vals: Float64Array, m: number, k: number): number {
  let lo = 0;
  let hi = m - 1;
  const want = k - 1;
  while (lo < hi) {
    const pivot = vals[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (vals[i] > pivot) i++;
      while (vals[j] < pivot) j--;
      if (i <= j) {
        const t = vals[i];
        vals[i] = vals[j];
        vals[j] = t;
        i++;
        j--;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else return vals[want];
  }
  return vals[want];
}

/** list.splice(i, 1) without the array of removed elements */
function removeAt<T>(list: T[], i: number): void {
  for (let m = i + 1; m < list.length; m++) list[m - 1] = list[m];
  list.length--;
}

/** list.splice(i, 0, x) without the array of removed elements */
function insertAt<T>(list: T[], i: number, x: T): void {
  list.push(x);
  for (let m = list.length - 1; m > i; m--) list[m] = list[m - 1];
  list[i] = x;
}

/** whether two partial paths walk the same tokens (same length by construction of a layer) */
function sameTokens(a: Node | null, b: Node | null): boolean {
  while (a !== null && b !== null) {
    if (a === b) return true;
    if (a.token !== b.token) return false;
    a = a.prev;
    b = b.prev;
  }
  return a === b;
}

/**
 * Float-guided candidate paths from inputMint to outputMint, best estimate first. ExactIn walks
 * forwards with approxOut; ExactOut walks backwards from the output with approxIn.
 *
 * Layered DP: layer h holds, per token, the best few partial paths of exactly h hops from the
 * start token (ExactIn: forwards from the input mint, most output first; ExactOut: backwards
 * from the output mint, least input first). A path never repeats a token.
 *
 * Rate tables: for every token within two hops of the target, the best product of zero-size
 * rates (spot price after fees, which no trade size beats) to the target in one and in two hops.
 * They tell which tokens can still reach the target in the hops left, and bound the best
 * completion of a partial path: its float amount times the token's rate.
 *
 * Pruning, when the search goes beyond the pair's shortest hop count: the shortest paths are
 * searched first and the best of them bounds the rest; a partial path whose completion bound
 * falls short of the best complete estimate so far is not extended, and a hub's pools are
 * checked against the same bound before their curves are evaluated. Beam: where the tables rank
 * tokens (within two hops of the target), a layer passes on at most `beamWidth` tokens, the
 * ones with the best completion bounds, and a hub evaluates at most that many of its pools.
 * This cuts the fan-out through hubs (a hub → a minor token → another hub rarely beats the hubs'
 * own pools).
 *
 * Hop counts: the search above covers paths up to `hopSlack` (1) hops longer than the pair's
 * shortest; with `fullHopLimit`, a second, narrower one (deepBeamWidth tokens a layer, deepCandidatesPerToken paths per token)
 * covers the longer ones up to the hop limit, bounded by the best path found and by rate tables
 * of three hops (and four, around the start token), so no path is left out by its length alone.
 */
export function findCandidatePaths(graph: TokenGraph, req: RouteRequest, opts: RouteSearchOptions = {}): CandidatePath[] {
  if (opts.poolFilter) graph = filteredGraph(graph, opts.poolFilter);
  return searchCandidates(compiled(graph), req, opts);
}

/**
 * `floor`: a fixed pruning bound in score units (output, or minus the input) instead of the best
 * complete estimate: the split's searches keep every path that could carry a part of the amount.
 */
function searchCandidates(c: Compiled, req: RouteRequest, opts: RouteSearchOptions, floor?: number): CandidatePath[] {
  const k = opts.candidatesPerToken ?? 4;
  const beam = opts.beamWidth ?? 1024;
  const maxHops = Math.max(1, Math.min(MAX_HOPS_LIMIT, Math.floor(req.maxHops)));
  const exactIn = req.mode === 'ExactIn';
  const start = c.id(exactIn ? req.inputMint : req.outputMint);
  const target = c.id(exactIn ? req.outputMint : req.inputMint);
  let tables = c.nearRates(target, exactIn);
  const shortest = shortestHops(c, start, tables);
  if (shortest > maxHops) return [];
  // the near search: paths up to `hopSlack` hops longer than the shortest, wide; the deep search
  // (fullHopLimit): every hop count up to the limit, pruned by the deep rate tables' bounds, narrow
  const near = Math.min(maxHops, shortest + Math.max(0, opts.hopSlack ?? 1));
  // (the split's searches for parts of the amount stay near: the main search's deep candidates
  // join their flow graph)
  const deep = maxHops > near && floor === undefined && opts.fullHopLimit === true;
  if (deep) {
    tables = c.nearRates(target, exactIn, maxHops - 1);
    if (maxHops - 1 >= tables.length) tables = c.deeperAround(tables, start, exactIn);
  }
  const root: Node = { token: start, amount: Number(req.amount), score: 0, hops: 0, pool: null, prev: null };
  const complete: Node[] = [];
  let bound = floor ?? -Infinity;
  if (floor === undefined && near > shortest) {
    // the shortest paths first (the strict hop limit keeps their search narrow): their best
    // estimate bounds the longer ones
    layered(c, root, target, shortest, k, exactIn, tables, complete, -Infinity, false, beam, 1);
    for (const x of complete) if (x.score > bound) bound = x.score;
  }
  layered(c, root, target, near, k, exactIn, tables, complete, bound, floor === undefined, beam, 1);
  if (deep) {
    for (const x of complete) if (x.score > bound) bound = x.score;
    // only the paths longer than the near search's are completed (it found the shorter ones)
    layered(c, root, target, maxHops, Math.min(k, opts.deepCandidatesPerToken ?? 2), exactIn, tables, complete, bound, true, opts.deepBeamWidth ?? 32, near + 1);
  }

  complete.sort((a, b) => (a.score === b.score ? a.hops - b.hops : b.score - a.score));
  const out: CandidatePath[] = [];
  const seen = new Set<string>();
  // the best few are what the exact evaluations and the flow graph take: the long tail of a wide
  // search is not materialised
  const cap = opts.candidatePaths ?? 64;
  for (const done of complete) {
    if (out.length >= cap) break;
    const pools: Pool[] = [];
    const path: string[] = [];
    for (let x: Node | null = done; x !== null; x = x.prev) {
      path.push(c.mints[x.token]);
      if (x.pool) pools.push(x.pool);
    }
    // the list runs target → start; trade order is input → output
    if (exactIn) {
      pools.reverse();
      path.reverse();
    }
    const key = pools.map((p) => p.address).join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pools, mints: path, estimate: done.amount });
  }
  return out;
}

/**
 * One layered DP from `root` up to `maxHops` hops (see findCandidatePaths); complete paths of
 * at least `minHops` hops are pushed to `complete`. `bound` (score units: higher is better) prunes partial paths within
 * reach of the rate tables; `raise`: complete paths found raise it.
 */
function layered(
  c: Compiled,
  root: Node,
  target: number,
  maxHops: number,
  k: number,
  exactIn: boolean,
  tables: Float64Array[],
  complete: Node[],
  bound: number,
  raise: boolean,
  beam: number,
  minHops: number,
): void {
  const mints = c.mints;
  const slack = (s: number): number => s - PRUNE_SLACK * Math.abs(s);
  const finish = (node: Node): void => {
    if (node.hops < minHops) return;
    complete.push(node);
    if (raise && node.score > bound) bound = node.score;
  };
  // best score per token over all shorter hop counts (a longer partial path that is not better
  // than a shorter one at the same token is not worth extending), and the index of a token's
  // list in the next layer; both restored on the way out
  let { best: bestSeen, index: nextIndex } = c.scratch(mints.length);
  const grow = (u: number): void => {
    ({ best: bestSeen, index: nextIndex } = c.scratch(u + 1));
  };
  const seenTokens: number[] = [];
  const indexed: number[] = [];
  // a layer token's nodes within the bound (reused; at most k)
  const kept: Node[] = [];
  try {
    let layerTokens: number[] = [root.token];
    let layerLists: Node[][] = [[root]];
    for (let h = 1; h <= maxHops && layerTokens.length > 0; h++) {
      const left = maxHops - h; // hops left after this one
      const nextTokens: number[] = [];
      const nextLists: Node[][] = [];
      if (left === 0) {
        // last hop: only pools of the target matter; scan them instead of every layer token's pools
        for (let li = 0; li < layerTokens.length; li++) {
          nextIndex[layerTokens[li]] = li;
          indexed.push(layerTokens[li]);
        }
        const ta = c.adj(target);
        if (!c.exact) c.refreshStale(ta, target);
        const tpools = ta.pools;
        const tothers = ta.others;
        // trades into the target (ExactIn: from the other mint) or out of it (ExactOut, backwards)
        const tguide = exactIn ? ta.guideIn : ta.guideOut;
        for (let j = 0; j < tpools.length; j++) {
          const o = tothers[j];
          const li = o < nextIndex.length ? nextIndex[o] : -1;
          if (li < 0) continue;
          const pool = tpools[j];
          const cp = ta.cp[j] === 1;
          for (const node of layerLists[li]) {
            const amount = cp
              ? exactIn
                ? guideOut(tguide, 4 * j, node.amount)
                : guideIn(tguide, 4 * j, node.amount)
              : exactIn
                ? pool.approxOut(mints[o], node.amount)
                : pool.approxIn(mints[target], node.amount);
            if (!(amount > 0) || amount === Infinity || (exactIn && !cp && saturated(pool, mints[target], amount))) continue;
            finish({ token: target, amount, score: exactIn ? amount : -amount, hops: h, pool, prev: node });
          }
        }
        for (let li = 0; li < layerTokens.length; li++) nextIndex[layerTokens[li]] = -1;
        break;
      }
      // within two hops of the target the tables tell reach and bound completions; farther, any
      // token may still get there
      const R = left < tables.length ? tables[left] : null;
      const Rhere = left + 1 < tables.length ? tables[left + 1] : null;
      for (let li = 0; li < layerTokens.length; li++) {
        const token = layerTokens[li];
        const mint = mints[token];
        const a = c.adj(token);
        const pools = a.pools;
        const others = a.others;
        const end = pools.length;
        // the nodes still within the bound (it may have risen since they were kept), best first
        let nodes = layerLists[li];
        if (Rhere !== null && h > 1) {
          const Rt = at(Rhere, token);
          const floor = slack(bound);
          // into a reused array (the layer's list stays as it is)
          const all = nodes;
          kept.length = 0;
          for (let i = 0; i < all.length; i++) {
            const node = all[i];
            if ((exactIn ? node.amount * Rt : -(node.amount / Rt)) >= floor) kept.push(node);
          }
          if (kept.length === 0) continue;
          nodes = kept;
        }
        // ExactIn: the most held; ExactOut: the least needed (lists are kept best first)
        const lead = nodes[0].amount;
        // the zero-size rates of the token's pools in the walk's direction, up to date
        if (!c.exact) c.refreshStale(a, token);
        const hopRates = exactIn ? a.rateOut : a.rateIn;
        // ExactIn trades from the token to u; ExactOut, walking backwards, from u to the token
        const guide = exactIn ? a.guideOut : a.guideIn;
        const Rlen = R === null ? 0 : R.length;
        // zero-size bound of the best completion through a pool (ExactIn: the hop token → u;
        // ExactOut, walking backwards: u → token), for the token's best node: below `cut`, the
        // pool is skipped for all of them
        let cut = slack(bound);
        let picked: Int32Array | null = null;
        let count = end;
        if (R !== null && end > beam) {
          // a hub: only the `beam` pools with the best completion bounds are evaluated (the
          // beam would drop what the others lead to)
          const vals = c.floats(end);
          const idx = c.ints(end);
          let m = 0;
          for (let j = 0; j < end; j++) {
            const o = others[j];
            const r = o < Rlen ? R[o] : 0;
            if (!(r > 0)) continue;
            const hop = hopRates[j];
            const v = exactIn ? lead * hop * r : -(lead / hop / r);
            if (v >= cut) {
              vals[m] = v;
              idx[m++] = j;
            }
          }
          if (m > beam) {
            const sorted = c.floats(2 * end).subarray(end, end + m);
            sorted.set(vals.subarray(0, m));
            cut = kthLargest(sorted, m, beam);
            let w = 0;
            for (let i = 0; i < m; i++) if (vals[i] >= cut) idx[w++] = idx[i];
            m = w;
          }
          // the scratch itself: nothing else takes c.ints() until this token's pools are done
          picked = idx;
          count = m;
        }
        for (let e = 0; e < count; e++) {
          const j = picked === null ? e : picked[e];
          const u = others[j];
          let r = 0;
          if (R !== null) {
            r = u < Rlen ? R[u] : 0;
            if (!(r > 0)) continue;
            if (picked === null) {
              const hop = hopRates[j];
              if (!((exactIn ? lead * hop * r : -(lead / hop / r)) >= cut)) continue;
            }
          }
          const pool = pools[j];
          const cp = a.cp[j] === 1;
          for (const node of nodes) {
            let seen = false;
            for (let x: Node | null = node; x !== null; x = x.prev) {
              if (x.token === u) {
                seen = true;
                break;
              }
            }
            if (seen) continue;
            let amount: number;
            if (exactIn) {
              if (cp) amount = guideOut(guide, 4 * j, node.amount);
              else {
                amount = pool.approxOut(mint, node.amount);
                if (saturated(pool, mints[u], amount)) continue;
              }
              if (!(amount > 0)) continue;
            } else {
              amount = cp ? guideIn(guide, 4 * j, node.amount) : pool.approxIn(mints[u], node.amount);
              if (!(amount > 0) || amount === Infinity) continue;
            }
            // score: higher is better in both modes
            const score = exactIn ? amount : -amount;
            if (u === target) {
              finish({ token: u, amount, score, hops: h, pool, prev: node });
              continue;
            }
            if (u >= bestSeen.length) grow(u);
            if (!(score > bestSeen[u])) continue;
            // the same bound with this hop's price impact
            if (R !== null && !((exactIn ? amount * r : -(amount / r)) >= slack(bound))) continue;
            let idx = nextIndex[u];
            let list: Node[];
            if (idx < 0) {
              idx = nextTokens.length;
              nextIndex[u] = idx;
              indexed.push(u);
              nextTokens.push(u);
              nextLists.push((list = []));
            } else list = nextLists[idx];
            // insert into the list kept best-first, capped at k, one entry per token sequence: a
            // second pool sequence over the same tokens would crowd out a different path (the
            // flow graph adds a pair's parallel pools anyway)
            let i = list.length;
            while (i > 0 && score > list[i - 1].score) i--;
            if (i >= k) continue;
            let twin = -1;
            for (let m = 0; m < list.length; m++) {
              if (sameTokens(list[m].prev, node)) {
                twin = m;
                break;
              }
            }
            if (twin >= 0 && twin < i) continue; // the same tokens already, with a better pool sequence
            if (twin >= 0) removeAt(list, twin);
            else if (list.length >= k) list.pop();
            insertAt(list, i, { token: u, amount, score, hops: h, pool, prev: node });
          }
        }
      }
      // beam: where the rate tables make tokens comparable (their best node's zero-size bound
      // in target units), at most `beam` tokens go on to the next layer
      if (R !== null && nextTokens.length > beam) {
        const opt = nextTokens.map((u, i) => {
          const x = nextLists[i][0].amount;
          const r = at(R, u);
          return exactIn ? x * r : -(x / r);
        });
        const order = nextTokens.map((_, i) => i).sort((x, y) => opt[y] - opt[x] || nextTokens[x] - nextTokens[y]);
        for (const u of nextTokens) nextIndex[u] = -1;
        const keep = order.slice(0, beam).sort((x, y) => x - y);
        const tokens = keep.map((i) => nextTokens[i]);
        const lists = keep.map((i) => nextLists[i]);
        nextTokens.length = 0;
        nextLists.length = 0;
        nextTokens.push(...tokens);
        nextLists.push(...lists);
      }
      for (let i = 0; i < nextTokens.length; i++) {
        const u = nextTokens[i];
        nextIndex[u] = -1;
        const top = nextLists[i][0].score;
        if (bestSeen[u] === -Infinity) seenTokens.push(u);
        if (top > bestSeen[u]) bestSeen[u] = top;
      }
      layerTokens = nextTokens;
      layerLists = nextLists;
    }
  } finally {
    // the scratch arrays go back as they came, whatever happened
    for (const u of seenTokens) bestSeen[u] = -Infinity;
    for (const u of indexed) nextIndex[u] = -1;
  }
}

/**
 * Price one path exactly. ExactIn: forwards, each hop's exact output is the next hop's input.
 * ExactOut: backwards from the requested output, each hop's exact input is the previous hop's
 * required output. Throws PoolQuoteError when a hop cannot fill.
 */
export function evaluatePath(path: { readonly pools: readonly Pool[]; readonly mints: readonly string[] }, mode: SwapMode, amount: bigint): Route {
  const n = path.pools.length;
  const quotes: HopQuote[] = new Array(n);
  const given: bigint[] = new Array(n);
  if (mode === 'ExactIn') {
    let a = amount;
    for (let i = 0; i < n; i++) {
      given[i] = a;
      const q = path.pools[i].quoteExactIn(path.mints[i], a);
      if (q.amountOut <= 0n) throw new PoolQuoteError('zero-output', `hop ${i + 1} returns nothing`);
      quotes[i] = q;
      a = q.amountOut;
    }
  } else {
    let a = amount;
    for (let i = n - 1; i >= 0; i--) {
      const q = path.pools[i].quoteExactOut(path.mints[i], a);
      quotes[i] = q;
      a = q.amountIn;
    }
  }
  const hops: RouteHop[] = quotes.map((q, i) => ({
    pool: path.pools[i],
    inputMint: path.mints[i],
    outputMint: path.mints[i + 1],
    amountGiven: mode === 'ExactIn' ? given[i] : q.amountIn,
    amountIn: q.amountIn,
    amountOut: q.amountOut,
    feeAmount: q.feeAmount,
  }));
  return {
    mode,
    inputMint: path.mints[0],
    outputMint: path.mints[n],
    amountIn: hops[0].amountIn,
    amountOut: hops[n - 1].amountOut,
    hops,
  };
}

/** parallel pools of a hop whose exact quotes exactPools compares at most */
const PARALLEL_EXACT = 8;

/**
 * The candidate's token path with, at every hop, the parallel pool whose exact quote is best for
 * what the hop carries (ExactIn forwards: the most output for the hop's input; ExactOut backwards:
 * the least input for the hop's output). Every pool's quote is monotone in its amount, so this is
 * the best exact pool sequence over those tokens; the float guide alone can pick another one where
 * the integer rounding of small amounts decides. Beyond PARALLEL_EXACT parallel pools, the
 * candidate's own and those with the best float quotes are compared.
 */
function exactPools(c: Compiled, cand: CandidatePath, mode: SwapMode, amount: bigint): CandidatePath {
  const n = cand.pools.length;
  const pools = cand.pools.slice();
  const options = (i: number, floatAmount: number): readonly Pool[] => {
    const all = c.pairPools(c.id(cand.mints[i]), c.id(cand.mints[i + 1]));
    if (all.length <= PARALLEL_EXACT) return all;
    const from = cand.mints[i];
    const scored = all.map((q) => ({ q, v: mode === 'ExactIn' ? q.approxOut(from, floatAmount) : -q.approxIn(from, floatAmount) }));
    scored.sort((x, y) => y.v - x.v);
    const picked = scored.slice(0, PARALLEL_EXACT - 1).map((x) => x.q);
    if (!picked.includes(cand.pools[i])) picked.push(cand.pools[i]);
    return picked;
  };
  if (mode === 'ExactIn') {
    let a = amount;
    for (let i = 0; i < n; i++) {
      let best: bigint = -1n;
      for (const q of options(i, Number(a))) {
        try {
          const out = q.quoteExactIn(cand.mints[i], a).amountOut;
          if (out > best || (out === best && q === cand.pools[i])) {
            best = out;
            pools[i] = q;
          }
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
        }
      }
      // no pool fills the hop: evaluatePath reports the candidate's own failure
      if (best <= 0n) return { ...cand, pools };
      a = best;
    }
  } else {
    let b = amount;
    for (let i = n - 1; i >= 0; i--) {
      let best: bigint | null = null;
      for (const q of options(i, Number(b))) {
        try {
          const inn = q.quoteExactOut(cand.mints[i], b).amountIn;
          if (best === null || inn < best || (inn === best && q === cand.pools[i])) {
            best = inn;
            pools[i] = q;
          }
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
        }
      }
      if (best === null) return { ...cand, pools };
      b = best;
    }
  }
  return { ...cand, pools };
}

/** true when route a is strictly better than b (ties: fewer hops, then pool addresses) */
function routeBetter(a: Route, b: Route): boolean {
  if (a.mode === 'ExactIn') {
    if (a.amountOut !== b.amountOut) return a.amountOut > b.amountOut;
  } else if (a.amountIn !== b.amountIn) return a.amountIn < b.amountIn;
  if (a.hops.length !== b.hops.length) return a.hops.length < b.hops.length;
  const ka = a.hops.map((h) => h.pool.address).join(',');
  const kb = b.hops.map((h) => h.pool.address).join(',');
  return ka < kb;
}

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
 * The best route: the best single path, or a split over several pools and paths when it gives
 * more (ExactIn) or asks less (ExactOut). Never worse than the best single path found. Throws
 * NoPoolError (a mint with no pool), NoRouteError (no path within maxHops),
 * InsufficientLiquidityError (paths exist, none fills the amount, nor does a split).
 * `searched` is given the candidate paths of its first step (what findCandidatePaths returns for
 * the request and options) before they are evaluated; it is not called when an error is thrown
 * before that step (a mint without pools, no path within maxHops: findCandidatePaths finds none).
 */
export function findBestRoute(graph: TokenGraph, req: RouteRequest, opts: RouteSearchOptions = {}, searched?: (candidates: readonly CandidatePath[]) => void): Route {
  if (req.amount <= 0n) throw new RangeError('amount must be positive');
  if (req.inputMint === req.outputMint) throw new RangeError('inputMint and outputMint must differ');
  if (opts.poolFilter) graph = filteredGraph(graph, opts.poolFilter);
  if (graph.poolsOf(req.inputMint).length === 0) throw new NoPoolError(req.inputMint);
  if (graph.poolsOf(req.outputMint).length === 0) throw new NoPoolError(req.outputMint);
  const maxHops = Math.max(1, Math.min(MAX_HOPS_LIMIT, Math.floor(req.maxHops)));
  const exactIn = req.mode === 'ExactIn';
  const target = exactIn ? req.outputMint : req.inputMint;
  const start = exactIn ? req.inputMint : req.outputMint;
  const c = compiled(graph);
  const targetId = c.id(target);
  if (shortestHops(c, c.id(start), c.nearRates(targetId, exactIn)) > maxHops) throw new NoRouteError();

  const candidates = searchCandidates(c, { ...req, maxHops }, opts);
  searched?.(candidates);
  const limit = opts.exactEvaluations ?? 12;
  let best: Route | null = null;
  let lastFailure = 'no path can carry the amount';
  const tried = new Set<string>();
  for (const cand of candidates) {
    // past the limit only while nothing fills: a refusal needs every candidate tried
    if (tried.size >= limit && best !== null) break;
    const key = cand.pools.map((p) => p.address).join(',');
    if (tried.has(key)) continue;
    tried.add(key);
    try {
      const r = evaluatePath(opts.fullHopLimit ? exactPools(c, cand, req.mode, req.amount) : cand, req.mode, req.amount);
      if (best === null || routeBetter(r, best)) best = r;
    } catch (e) {
      if (!(e instanceof PoolQuoteError)) throw e;
      lastFailure = e.message;
    }
  }

  if (opts.split !== false) {
    const split = trySplit(c, candidates, { ...req, maxHops }, best, opts);
    if (split !== null && (best === null || routeBetter(split, best))) best = split;
  }
  if (best === null) throw new InsufficientLiquidityError(lastFailure);
  return best;
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

function trySplit(c: Compiled, candidates: CandidatePath[], req: RouteRequest, single: Route | null, opts: RouteSearchOptions): Route | null {
  const impact = single === null ? 1 : pathImpact(single);
  if (impact < SPLIT_MIN_IMPACT) return null;
  const amount = Number(req.amount);
  // paths that are poor for the whole amount can be good for a part of it: for large trades the
  // candidates of a sixteenth (and a 256th) of the amount join
  let all = candidates;
  const wide = { ...opts, candidatesPerToken: opts.splitCandidatesPerToken ?? 6 };
  // a path whose zero-size rate is below the best single path's marginal rate at the whole
  // amount gets no flow in the optimal split (the common marginal rate of the split is at least
  // that): the searches for split candidates prune against it
  const marginal = single === null ? NaN : marginalRate(single);
  for (const [minImpact, div] of [
    [1e-3, 1n],
    [1e-3, 16n],
    [3e-2, 256n],
  ] as const) {
    const part = req.amount / div;
    if (impact < minImpact || part === 0n) continue;
    const floor = marginal > 0 && marginal < Infinity ? (req.mode === 'ExactIn' ? Number(part) * marginal : -Number(part) * marginal) : -Infinity;
    all = all.concat(searchCandidates(c, { ...req, amount: part }, wide, floor));
  }
  const g = buildFlowGraph(all, amount, req.mode, (a, b) => c.pairPools(c.id(a), c.id(b)), { ...opts, maxHops: req.maxHops });
  if (g === null) return null;
  // output lost to the allocation error e (a share of the amount) ≈ impact × e² / 2, with
  // e ≈ 0.07 / steps: aim at a few thousandths of a bp; then path exchanges polish
  const maxSteps = opts.maxSteps ?? 64;
  const steps = Math.max(8, Math.min(maxSteps, Math.ceil(0.07 * Math.sqrt(impact / 5e-7))));
  if (!allocate(g, req.mode, amount, steps, opts.polishRounds ?? 96)) return null;
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

/** internals for benchmarks and tests */
/** for tests: the compiled form of a graph as the next search sees it (begins a search) */
export const _testing = { compiled, guideOut, guideIn };
