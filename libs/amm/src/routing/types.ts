/**
 * The route search's shared vocabulary: the token graph it walks, the request, the options, the
 * candidate paths of its float search and the exact routes it returns. Types only, and the hop
 * limit a request is clamped to.
 */
import type { Pool } from '../pool';

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

/** the most hops a route may have (a request's maxHops is clamped to 1 .. this) */
export const MAX_HOPS_LIMIT = 5;

/** how the split of a search builds its flow graph (see flow-graph.ts) and prices it (see flow-evaluation.ts) */
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

/** which pools a search may use: true keeps the pool (see pool-filter.ts) */
export type PoolFilter = (pool: Pool) => boolean;

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

export interface CandidatePath {
  /** pools in trade order (input → output) */
  pools: Pool[];
  /** mints in trade order: [inputMint, ..., outputMint] */
  mints: string[];
  /** the float estimate that selected the path (ExactIn: output; ExactOut: input) */
  estimate: number;
}
