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
  /** partial paths kept per token per hop count (default 4) */
  candidatesPerToken?: number;
  /** hops beyond the pair's shortest path that are explored (default 1) */
  hopSlack?: number;
  /** complete candidate paths recomputed exactly (default 12) */
  exactEvaluations?: number;
  /** false: single paths only (default true: splits over pools and paths when they pay) */
  split?: boolean;
  /** increments of the greedy allocation at most (default 64; fewer for small trades) */
  maxSteps?: number;
  /** partial paths kept per token per hop count by the extra candidate searches of large trades (default 6) */
  splitCandidatesPerToken?: number;
  /** path-exchange rounds after the greedy allocation (default 96) */
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
 * once per version and the pool objects in it are compared with `refs` on every search, so a
 * re-materialised pool (new reserves) gets its rates recomputed and nothing else is touched.
 */
interface Adjacency {
  pools: readonly Pool[];
  refs: Pool[];
  others: Int32Array;
  /** rate from this token to the other mint of each pool */
  rateOut: Float64Array;
  /** rate from the other mint of each pool to this token */
  rateIn: Float64Array;
}

/**
 * Integer ids for the graph's tokens, assigned lazily, and per token its compiled pools. Valid
 * for one topology version: the graph promises that the same version means the same pools (by
 * mints and order) in the same arrays for every mint, so only the Pool objects (reserves) are
 * read fresh on every query (`rate` compares them with the ones its cached rates come from).
 */
class Compiled {
  readonly ids = new Map<string, number>();
  readonly mints: string[] = [];
  private readonly adjacency: (Adjacency | undefined)[] = [];
  /** tokens whose adjacency is compiled */
  private readonly compiledTokens: number[] = [];
  readonly distances = new Map<number, Int8Array>();
  /** per target: tokens grouped by hop distance (index d: the tokens at distance d) */
  private readonly layers = new Map<number, number[][]>();
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

  adj(token: number): Adjacency {
    let a = this.adjacency[token];
    if (a === undefined) {
      const mint = this.mints[token];
      const pools = this.graph.poolsOf(mint);
      const n = pools.length;
      a = { pools, refs: new Array<Pool>(n), others: new Int32Array(n), rateOut: new Float64Array(n), rateIn: new Float64Array(n) };
      for (let j = 0; j < n; j++) {
        const p = pools[j];
        const other = p.mintA === mint ? p.mintB : p.mintA;
        a.others[j] = this.id(other);
        a.refs[j] = p;
        a.rateOut[j] = zeroSizeRate(p, mint);
        a.rateIn[j] = zeroSizeRate(p, other);
      }
      this.adjacency[token] = a;
      this.compiledTokens.push(token);
    }
    return a;
  }

  /**
   * The zero-size rate of pool j of `token`: out (token → the other mint) or in (the other mint →
   * token); recomputed when the graph holds another pool object there than the cached rate's.
   */
  rate(a: Adjacency, token: number, j: number, out: boolean): number {
    const p = a.pools[j];
    if (p !== a.refs[j]) {
      const mint = this.mints[token];
      a.refs[j] = p;
      a.rateOut[j] = zeroSizeRate(p, mint);
      a.rateIn[j] = zeroSizeRate(p, mint === p.mintA ? p.mintB : p.mintA);
    }
    return out ? a.rateOut[j] : a.rateIn[j];
  }

  order(target: number, dist: Int8Array, token: number): TargetOrder {
    let byToken = this.orders.get(target);
    if (!byToken) this.orders.set(target, (byToken = new Map()));
    let o = byToken.get(token);
    if (o) return o;
    const others = this.adj(token).others;
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
    return l ? l.map((j) => a.pools[j]) : [];
  }

  /** BFS hop distances to `target` (UNREACHABLE beyond MAX_HOPS_LIMIT; ids past the end too) */
  distancesTo(target: number): Int8Array {
    let d = this.distances.get(target);
    if (d) return d;
    // breadth-first from the target over token ids (ids may be assigned while walking: grow)
    let dist = new Int8Array(Math.max(1024, this.mints.length * 2)).fill(UNREACHABLE);
    dist[target] = 0;
    let frontier = [target];
    const byDistance: number[][] = [frontier];
    for (let h = 1; h <= MAX_HOPS_LIMIT && frontier.length > 0; h++) {
      const next: number[] = [];
      for (const t of frontier) {
        const o = this.adj(t).others;
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
      if (next.length > 0) byDistance.push(next);
      frontier = next;
    }
    d = dist.length === this.mints.length ? dist : dist.slice(0, this.mints.length);
    if (this.distances.size >= MAX_CACHED_TARGETS) {
      this.distances.clear();
      this.layers.clear();
      this.orders.clear();
    }
    this.distances.set(target, d);
    this.layers.set(target, byDistance);
    return d;
  }

  /**
   * Zero-size rate tables of a DP target for 0, 1 and (when `two`) 2 hops, from the pools as they
   * are now. Toward the target (ExactIn): tables[j][u] is the most of the target one unit of u
   * can become within j hops; from the target (ExactOut, the target is the input mint): the most
   * of u one unit of the target can become within j hops; 0 when out of reach. The first over
   * the target's own pools, the second over its neighbours' pools (a hub's list at most).
   */
  nearRates(target: number, towardTarget: boolean, n: number, two: boolean): Float64Array[] {
    const r0 = new Float64Array(n);
    r0[target] = 1;
    const r1 = r0.slice();
    const a = this.adj(target);
    const near: number[] = [];
    for (let j = 0; j < a.others.length; j++) {
      const u = a.others[j];
      if (u >= n) continue;
      const x = this.rate(a, target, j, !towardTarget);
      if (x > r1[u]) {
        if (r1[u] === 0) near.push(u);
        r1[u] = x;
      }
    }
    if (!two) return [r0, r1];
    const r2 = r1.slice();
    for (const u of near) {
      const b = this.adj(u);
      const ru = r1[u];
      for (let e = 0; e < b.others.length; e++) {
        const w = b.others[e];
        if (w >= n) continue;
        const x = ru * this.rate(b, u, e, !towardTarget);
        if (x > r2[w]) r2[w] = x;
      }
    }
    return [r0, r1, r2];
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

/**
 * Whether a float output is the whole of what the pool can pay out of `outputMint`: a
 * concentrated pool or a curve pushed past the end of its liquidity (or of its loaded tick
 * arrays) cannot take the input exactly, its guide just stops growing. Constant-product pools
 * never get there.
 */
function saturated(pool: Pool, outputMint: string, amountOut: number): boolean {
  return pool.kind !== 'constant-product' && !(amountOut < pool.reserve(outputMint) * (1 - 1e-9));
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
 * from the output mint, least input first). A path never repeats a token; tokens that cannot
 * reach the target within the hops left (BFS hop distance) are not expanded.
 *
 * Pruning, when the search goes beyond the pair's shortest hop count: the shortest paths are
 * searched first and the best of them bounds the rest. A partial path within two hops of the
 * target has a zero-size bound of its best completion (its float amount times the best rate
 * product to the target, spot price after fees, which no trade size can beat); when even that
 * falls short of the best complete path estimated so far, it is not extended, and a hub's
 * pools are checked against the same bound before their curves are evaluated. This cuts the
 * fan-out through hubs (a hub → a minor token → another hub rarely beats the hubs' own pools).
 */
export function findCandidatePaths(graph: TokenGraph, req: RouteRequest, opts: RouteSearchOptions = {}): CandidatePath[] {
  return searchCandidates(compiled(graph), req, opts);
}

/**
 * `floor`: a fixed pruning bound in score units (output, or minus the input) instead of the best
 * complete estimate: the split's searches keep every path that could carry a part of the amount.
 */
function searchCandidates(c: Compiled, req: RouteRequest, opts: RouteSearchOptions, floor?: number): CandidatePath[] {
  const k = opts.candidatesPerToken ?? 4;
  let maxHops = Math.max(1, Math.min(MAX_HOPS_LIMIT, Math.floor(req.maxHops)));
  const exactIn = req.mode === 'ExactIn';
  const start = c.id(exactIn ? req.inputMint : req.outputMint);
  const target = c.id(exactIn ? req.outputMint : req.inputMint);
  const dist = c.distancesTo(target);
  if (start >= dist.length || dist[start] > maxHops) return [];
  const shortest = dist[start];
  // paths longer than the shortest by more than `hopSlack` hops pay more fees on more curves and
  // are not explored (the search cost grows with the hub fan-out at every extra layer)
  maxHops = Math.min(maxHops, shortest + (opts.hopSlack ?? 1));
  const tables = maxHops >= 2 ? c.nearRates(target, exactIn, dist.length, maxHops >= 3) : [];
  const root: Node = { token: start, amount: Number(req.amount), score: 0, hops: 0, pool: null, prev: null };
  const complete: Node[] = [];
  let bound = floor ?? -Infinity;
  if (floor === undefined && maxHops > shortest) {
    // the shortest paths first (the strict hop limit keeps their search narrow): their best
    // estimate bounds the longer ones
    layered(c, root, target, shortest, k, exactIn, dist, tables, complete, -Infinity, false);
    for (const x of complete) if (x.score > bound) bound = x.score;
  }
  layered(c, root, target, maxHops, k, exactIn, dist, tables, complete, bound, floor === undefined);

  complete.sort((a, b) => (a.score === b.score ? a.hops - b.hops : b.score - a.score));
  const out: CandidatePath[] = [];
  const seen = new Set<string>();
  for (const done of complete) {
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
 * One layered DP from `root` up to `maxHops` hops (see findCandidatePaths); complete paths are
 * pushed to `complete`. `bound` (score units: higher is better) prunes partial paths within
 * reach of the rate tables; `raise`: complete paths found raise it.
 */
function layered(
  c: Compiled,
  root: Node,
  target: number,
  maxHops: number,
  k: number,
  exactIn: boolean,
  dist: Int8Array,
  tables: Float64Array[],
  complete: Node[],
  bound: number,
  raise: boolean,
): void {
  const mints = c.mints;
  const n = dist.length;
  const slack = (s: number): number => s - PRUNE_SLACK * Math.abs(s);
  const finish = (node: Node): void => {
    complete.push(node);
    if (raise && node.score > bound) bound = node.score;
  };
  // best score per token over all shorter hop counts (a longer partial path that is not better
  // than a shorter one at the same token is not worth extending)
  const bestSeen = new Float64Array(n).fill(-Infinity);
  const nextIndex = new Int32Array(n).fill(-1);
  let layerTokens: number[] = [root.token];
  let layerLists: Node[][] = [[root]];
  for (let h = 1; h <= maxHops && layerTokens.length > 0; h++) {
    const left = maxHops - h; // hops left after this one
    const nextTokens: number[] = [];
    const nextLists: Node[][] = [];
    if (left === 0) {
      // last hop: only pools of the target matter; scan them instead of every layer token's pools
      for (let li = 0; li < layerTokens.length; li++) nextIndex[layerTokens[li]] = li;
      const ta = c.adj(target);
      const tpools = ta.pools;
      const tothers = ta.others;
      for (let j = 0; j < tpools.length; j++) {
        const o = tothers[j];
        const li = o < n ? nextIndex[o] : -1;
        if (li < 0) continue;
        const pool = tpools[j];
        for (const node of layerLists[li]) {
          const amount = exactIn ? pool.approxOut(mints[o], node.amount) : pool.approxIn(mints[target], node.amount);
          if (!(amount > 0) || amount === Infinity || (exactIn && saturated(pool, mints[target], amount))) continue;
          finish({ token: target, amount, score: exactIn ? amount : -amount, hops: h, pool, prev: node });
        }
      }
      for (let li = 0; li < layerTokens.length; li++) nextIndex[layerTokens[li]] = -1;
      break;
    }
    // zero-size rates onwards from this layer's new tokens, and from the tokens it expands
    const R = left < tables.length ? tables[left] : null;
    const Rhere = left + 1 < tables.length ? tables[left + 1] : null;
    for (let li = 0; li < layerTokens.length; li++) {
      const token = layerTokens[li];
      const mint = mints[token];
      const a = c.adj(token);
      const pools = a.pools;
      const others = a.others;
      // high-degree tokens (hubs): only pools whose other end is within `left` hops of the target
      let oidx: Int32Array | null = null;
      let end = pools.length;
      if (pools.length > HUB_DEGREE) {
        const order = c.order(target, dist, token);
        oidx = order.idx;
        end = order.ends[left];
      }
      for (const node of layerLists[li]) {
        // the node may have fallen behind the bound since it was kept
        if (Rhere !== null && h > 1 && !((exactIn ? node.amount * Rhere[token] : -(node.amount / Rhere[token])) >= slack(bound))) continue;
        for (let e = 0; e < end; e++) {
          const j = oidx === null ? e : oidx[e];
          const u = others[j];
          if (u >= n || dist[u] > left) continue;
          let r = 0;
          if (R !== null) {
            r = R[u];
            // zero-size bound of the best completion through this pool (ExactIn: the hop
            // token → u; ExactOut, walking backwards: u → token): too low, skip the pool
            const hop = c.rate(a, token, j, exactIn);
            if (!((exactIn ? node.amount * hop * r : -(node.amount / hop / r)) >= slack(bound))) continue;
          }
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
            if (!(amount > 0) || saturated(pool, mints[u], amount)) continue;
          } else {
            amount = pool.approxIn(mints[u], node.amount);
            if (!(amount > 0) || amount === Infinity) continue;
          }
          // score: higher is better in both modes
          const score = exactIn ? amount : -amount;
          if (u === target) {
            finish({ token: u, amount, score, hops: h, pool, prev: node });
            continue;
          }
          if (!(score > bestSeen[u])) continue;
          // the same bound with this hop's price impact
          if (R !== null && !((exactIn ? amount * r : -(amount / r)) >= slack(bound))) continue;
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

  const candidates = searchCandidates(c, { ...req, maxHops }, opts);
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
