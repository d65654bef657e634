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

export type SwapMode = 'ExactIn' | 'ExactOut';

/** The liquidity graph the search walks: every routable pool that trades `mint`. */
export interface TokenGraph {
  poolsOf(mint: string): readonly Pool[];
  /**
   * Optional: a number that changes whenever the set of pools of any mint changes (membership,
   * mints or ORDER of `poolsOf`), not on a mere reserve change (a re-materialised Pool object in
   * the same place). When present, token ids and hop distances are cached per version.
   */
  readonly topologyVersion?: number;
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
  /** partial paths kept per token per hop count (default 2) */
  candidatesPerToken?: number;
  /** hops beyond the pair's shortest path that are explored (default 1) */
  hopSlack?: number;
  /** complete candidate paths recomputed exactly (default 12) */
  exactEvaluations?: number;
  /** false: single paths only (default true: splits over pools and paths when they pay) */
  split?: boolean;
  /** increments of the greedy allocation at most (default 128; fewer for small trades) */
  maxSteps?: number;
  /** partial paths kept per token per hop count by the extra candidate searches of large trades (default 6) */
  splitCandidatesPerToken?: number;
  /** path-exchange rounds after the greedy allocation (default 48; none for small trades) */
  polishRounds?: number;
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
/** hop-distance tables kept per topology version (one byte per token each) */
const MAX_CACHED_TARGETS = 4096;
/** tokens with more pools than this get their pools pre-sorted by distance to the target */
const HUB_DEGREE = 64;

/**
 * Integer ids for the graph's tokens, assigned lazily, and per token the id of the other mint of
 * each pool in `poolsOf(mint)` order. Valid for one topology version: the graph promises that
 * the same version means the same pools (by mints and order) for every mint, so only the Pool
 * objects (reserves) are read fresh on every query.
 */
class Compiled {
  readonly ids = new Map<string, number>();
  readonly mints: string[] = [];
  private readonly others: (Int32Array | undefined)[] = [];
  readonly distances = new Map<number, Int8Array>();
  /** per target: per token, its pool indices ordered by the other end's distance to the target */
  private readonly orders = new Map<number, Map<number, TargetOrder>>();

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

  otherIds(token: number, pools: readonly Pool[]): Int32Array {
    let o = this.others[token];
    if (o === undefined || o.length !== pools.length) {
      const mint = this.mints[token];
      o = new Int32Array(pools.length);
      for (let j = 0; j < pools.length; j++) o[j] = this.id(pools[j].mintA === mint ? pools[j].mintB : pools[j].mintA);
      this.others[token] = o;
    }
    return o;
  }

  order(target: number, dist: Int8Array, token: number, pools: readonly Pool[]): TargetOrder {
    let byToken = this.orders.get(target);
    if (!byToken) this.orders.set(target, (byToken = new Map()));
    let o = byToken.get(token);
    if (o) return o;
    const others = this.otherIds(token, pools);
    const count = new Int32Array(MAX_HOPS_LIMIT + 1);
    for (let j = 0; j < others.length; j++) {
      const u = others[j];
      if (u < dist.length && dist[u] <= MAX_HOPS_LIMIT) count[dist[u]]++;
    }
    const ends = new Int32Array(MAX_HOPS_LIMIT + 1);
    let acc = 0;
    for (let d = 0; d <= MAX_HOPS_LIMIT; d++) ends[d] = acc += count[d];
    const pos = new Int32Array(MAX_HOPS_LIMIT + 1);
    for (let d = 1; d <= MAX_HOPS_LIMIT; d++) pos[d] = ends[d - 1];
    const idx = new Int32Array(acc);
    for (let j = 0; j < others.length; j++) {
      const u = others[j];
      if (u < dist.length && dist[u] <= MAX_HOPS_LIMIT) idx[pos[dist[u]]++] = j;
    }
    o = { idx, ends };
    byToken.set(token, o);
    return o;
  }

  private readonly pairIndex: (Map<number, number[]> | undefined)[] = [];

  /** pools of `from` whose other mint is `to` (indices into poolsOf(from)), cached per topology */
  pairPools(from: number, to: number): readonly Pool[] {
    const pools = this.graph.poolsOf(this.mints[from]);
    let idx = this.pairIndex[from];
    if (idx === undefined) {
      const o = this.otherIds(from, pools);
      idx = new Map();
      for (let j = 0; j < o.length; j++) {
        const l = idx.get(o[j]);
        if (l) l.push(j);
        else idx.set(o[j], [j]);
      }
      this.pairIndex[from] = idx;
    }
    const l = idx.get(to);
    return l ? l.map((j) => pools[j]) : [];
  }

  /** BFS hop distances to `target` (UNREACHABLE beyond MAX_HOPS_LIMIT; ids past the end too) */
  distancesTo(target: number): Int8Array {
    let d = this.distances.get(target);
    if (d) return d;
    // breadth-first from the target over token ids (ids may be assigned while walking: grow)
    let dist = new Int8Array(Math.max(1024, this.mints.length * 2)).fill(UNREACHABLE);
    dist[target] = 0;
    let frontier = [target];
    for (let h = 1; h <= MAX_HOPS_LIMIT && frontier.length > 0; h++) {
      const next: number[] = [];
      for (const t of frontier) {
        const o = this.otherIds(t, this.graph.poolsOf(this.mints[t]));
        if (this.mints.length > dist.length) {
          const grown = new Int8Array(this.mints.length * 2).fill(UNREACHABLE);
          grown.set(dist);
          dist = grown;
        }
        for (let j = 0; j < o.length; j++) {
          const u = o[j];
          if (dist[u] === UNREACHABLE) {
            dist[u] = h;
            next.push(u);
          }
        }
      }
      frontier = next;
    }
    d = dist.length === this.mints.length ? dist : dist.slice(0, this.mints.length);
    if (this.distances.size >= MAX_CACHED_TARGETS) {
      this.distances.clear();
      this.orders.clear();
    }
    this.distances.set(target, d);
    return d;
  }
}

/** pool indices of one token whose other end can reach the target; ends[L] = how many within L hops */
interface TargetOrder {
  idx: Int32Array;
  ends: Int32Array;
}

const compiledCache = new WeakMap<TokenGraph, Compiled>();

function compiled(graph: TokenGraph): Compiled {
  const version = graph.topologyVersion;
  if (version === undefined) return new Compiled(graph, undefined);
  let c = compiledCache.get(graph);
  if (!c || c.version !== version) {
    c = new Compiled(graph, version);
    compiledCache.set(graph, c);
  }
  return c;
}

/** hop distance from `start` to `target` (UNREACHABLE when more than MAX_HOPS_LIMIT) */
function hopDistance(c: Compiled, start: string, target: string): number {
  const d = c.distancesTo(c.id(target));
  const s = c.id(start);
  return s < d.length ? d[s] : UNREACHABLE;
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
 */
export function findCandidatePaths(graph: TokenGraph, req: RouteRequest, opts: RouteSearchOptions = {}): CandidatePath[] {
  const k = opts.candidatesPerToken ?? 2;
  let maxHops = Math.max(1, Math.min(MAX_HOPS_LIMIT, Math.floor(req.maxHops)));
  const exactIn = req.mode === 'ExactIn';
  const c = compiled(graph);
  const start = c.id(exactIn ? req.inputMint : req.outputMint);
  const target = c.id(exactIn ? req.outputMint : req.inputMint);
  const dist = c.distancesTo(target);
  if (start >= dist.length || dist[start] > maxHops) return [];
  // paths longer than the shortest by more than `hopSlack` hops pay more fees on more curves and
  // are not explored (the search cost grows with the hub fan-out at every extra layer)
  maxHops = Math.min(maxHops, dist[start] + (opts.hopSlack ?? 1));
  const mints = c.mints;

  const complete: Node[] = [];
  // best amount per token over all shorter hop counts (a longer partial path that is not better
  // than a shorter one at the same token is not worth extending); NaN = none yet
  const n = dist.length;
  // best score (higher is better: the amount for ExactIn, minus the amount for ExactOut)
  const bestSeen = new Float64Array(n).fill(-Infinity);
  const nextIndex = new Int32Array(n).fill(-1);
  let layerTokens: number[] = [start];
  let layerLists: Node[][] = [[{ token: start, amount: Number(req.amount), score: 0, hops: 0, pool: null, prev: null }]];
  for (let h = 1; h <= maxHops && layerTokens.length > 0; h++) {
    const left = maxHops - h; // hops left after this one
    const nextTokens: number[] = [];
    const nextLists: Node[][] = [];
    if (left === 0) {
      // last hop: only pools of the target matter; scan them instead of every layer token's pools
      for (let li = 0; li < layerTokens.length; li++) nextIndex[layerTokens[li]] = li;
      const tpools = graph.poolsOf(mints[target]);
      const tothers = c.otherIds(target, tpools);
      for (let j = 0; j < tpools.length; j++) {
        const o = tothers[j];
        const li = o < n ? nextIndex[o] : -1;
        if (li < 0) continue;
        const pool = tpools[j];
        for (const node of layerLists[li]) {
          const amount = exactIn ? pool.approxOut(mints[o], node.amount) : pool.approxIn(mints[target], node.amount);
          if (!(amount > 0) || amount === Infinity) continue;
          complete.push({ token: target, amount, score: exactIn ? amount : -amount, hops: h, pool, prev: node });
        }
      }
      for (let li = 0; li < layerTokens.length; li++) nextIndex[layerTokens[li]] = -1;
      break;
    }
    for (let li = 0; li < layerTokens.length; li++) {
      const token = layerTokens[li];
      const mint = mints[token];
      const pools = graph.poolsOf(mint);
      const others = c.otherIds(token, pools);
      // high-degree tokens (hubs): only pools whose other end is within `left` hops of the target
      let oidx: Int32Array | null = null;
      let end = pools.length;
      if (pools.length > HUB_DEGREE) {
        const order = c.order(target, dist, token, pools);
        oidx = order.idx;
        end = order.ends[left];
      }
      for (const node of layerLists[li]) {
        for (let e = 0; e < end; e++) {
          const j = oidx === null ? e : oidx[e];
          const u = others[j];
          if (u >= n || dist[u] > left) continue;
          let seen = false;
          for (let x: Node | null = node; x !== null; x = x.prev) {
            if (x.token === u) {
              seen = true;
              break;
            }
          }
          if (seen) continue;
          const pool = pools[j];
          let amount: number;
          if (exactIn) {
            amount = pool.approxOut(mint, node.amount);
            if (!(amount > 0)) continue;
          } else {
            amount = pool.approxIn(mints[u], node.amount);
            if (!(amount > 0) || amount === Infinity) continue;
          }
          if (u === target) {
            complete.push({ token: u, amount, score: exactIn ? amount : -amount, hops: h, pool, prev: node });
            continue;
          }
          // score: higher is better in both modes
          const score = exactIn ? amount : -amount;
          if (!(score > bestSeen[u])) continue;
          let idx = nextIndex[u];
          let list: Node[];
          if (idx < 0) {
            idx = nextTokens.length;
            nextIndex[u] = idx;
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
          if (twin >= 0) list.splice(twin, 1);
          else if (list.length >= k) list.pop();
          list.splice(i, 0, { token: u, amount, score, hops: h, pool, prev: node });
        }
      }
    }
    for (let i = 0; i < nextTokens.length; i++) {
      const u = nextTokens[i];
      nextIndex[u] = -1;
      const top = nextLists[i][0].score;
      if (top > bestSeen[u]) bestSeen[u] = top;
    }
    layerTokens = nextTokens;
    layerLists = nextLists;
  }

  complete.sort((a, b) => (a.score === b.score ? a.hops - b.hops : b.score - a.score));
  const out: CandidatePath[] = [];
  for (const done of complete) {
    const pools: Pool[] = [];
    const path: string[] = [];
    for (let x: Node | null = done; x !== null; x = x.prev) {
      path.push(mints[x.token]);
      if (x.pool) pools.push(x.pool);
    }
    // the list runs target → start; trade order is input → output
    if (exactIn) {
      pools.reverse();
      path.reverse();
    }
    out.push({ pools, mints: path, estimate: done.amount });
  }
  return out;
}

/**
 * Price one path exactly. ExactIn: forwards, each hop's exact output is the next hop's input.
 * ExactOut: backwards from the requested output, each hop's exact input is the previous hop's
 * required output. Throws PoolQuoteError when a hop cannot fill.
 */
export function evaluatePath(path: Pick<CandidatePath, 'pools' | 'mints'>, mode: SwapMode, amount: bigint): Route {
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
 */
export function findBestRoute(graph: TokenGraph, req: RouteRequest, opts: RouteSearchOptions = {}): Route {
  if (req.amount <= 0n) throw new RangeError('amount must be positive');
  if (req.inputMint === req.outputMint) throw new RangeError('inputMint and outputMint must differ');
  if (graph.poolsOf(req.inputMint).length === 0) throw new NoPoolError(req.inputMint);
  if (graph.poolsOf(req.outputMint).length === 0) throw new NoPoolError(req.outputMint);
  const maxHops = Math.max(1, Math.min(MAX_HOPS_LIMIT, Math.floor(req.maxHops)));
  const exactIn = req.mode === 'ExactIn';
  const target = exactIn ? req.outputMint : req.inputMint;
  const start = exactIn ? req.inputMint : req.outputMint;
  const c = compiled(graph);
  if (hopDistance(c, start, target) > maxHops) throw new NoRouteError();

  const candidates = findCandidatePaths(graph, { ...req, maxHops }, opts);
  const limit = opts.exactEvaluations ?? 12;
  let best: Route | null = null;
  let lastFailure = 'no path can carry the amount';
  const tried = new Set<string>();
  for (const cand of candidates) {
    if (tried.size >= limit) break;
    const key = cand.pools.map((p) => p.address).join(',');
    if (tried.has(key)) continue;
    tried.add(key);
    try {
      const r = evaluatePath(cand, req.mode, req.amount);
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
  for (const [minImpact, div] of [
    [1e-3, 1n],
    [1e-3, 16n],
    [3e-2, 256n],
  ] as const) {
    if (impact < minImpact || req.amount / div === 0n) continue;
    all = all.concat(findCandidatePaths(c.graph, { ...req, amount: req.amount / div }, wide));
  }
  const g = buildFlowGraph(all, amount, req.mode, (a, b) => c.pairPools(c.id(a), c.id(b)), { ...opts, maxHops: req.maxHops });
  if (g === null) return null;
  // output lost to the allocation error e (a share of the amount) ≈ impact × e² / 2, with
  // e ≈ 0.07 / steps: aim at a few thousandths of a bp; then path exchanges polish
  const maxSteps = opts.maxSteps ?? 128;
  const steps = Math.max(8, Math.min(maxSteps, Math.ceil(0.07 * Math.sqrt(impact / 5e-7))));
  if (!allocate(g, req.mode, amount, steps, opts.polishRounds ?? 48)) return null;
  const minShare = opts.minShare ?? 0.002;
  // small branches dropped first; when that overloads a pool (the exact math cannot fill its
  // part), the allocation as it is
  let best: Route | null = null;
  for (const share of minShare > 0 ? [minShare, 0] : [0]) {
    try {
      const r = evaluateFlow(g, req.mode, req.amount, share);
      if (r.hops.length === 0 || (req.mode === 'ExactOut' && r.amountOut < req.amount)) continue;
      if (best === null || routeBetter(r, best)) best = r;
      // dropping a branch under minShare costs less than a hundredth of a bp: no need to compare
      break;
    } catch (e) {
      if (!(e instanceof PoolQuoteError)) throw e;
    }
  }
  return best;
}
