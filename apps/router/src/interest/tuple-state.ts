/**
 * The live stream's state of one tuple (Watched: its route, replay plan and memo, candidate paths
 * and their estimates, what is pending for it) and the pure comparisons its checks make. Plain
 * TypeScript: no Nest, no log, no timers.
 *
 * CandidatePath and Watched are classes that set every field in their constructor: each is one
 * hidden class from its creation on, whatever order the events fill its fields in, so the
 * optimised code of the hot paths (the replays, the checks) is not thrown away each time an
 * object shows up with its fields added in a new order.
 */
import { PoolQuoteError, type Pool, type QuoteFailure, type Route, type SwapMode } from '@app/amm';
import type { QuotesChanged, QuoteTuple } from '@app/contracts';
import { NO_PATHS, type PathEstimates } from './path-estimates';
import type { PathInterner } from './path-interner';
import { PoolGoneError, type ReplayMemo, type ReplayPlan, type RouteQuote } from './route-replay';
import type { Found, FoundPath } from './route-searcher';

/**
 * what a push answers: a replay of the route, a check that made a candidate path the route, a
 * background search's better route, a candidate refresh's switch (see QuoteCore.refreshCandidates)
 */
export type PushKind = 'replay' | 'check' | 'search' | 'refresh';
/** a candidate path estimated this much better than the current route is priced exactly (see QuoteCore.check) */
export const RESEARCH_GAIN = 5e-4;
/** a Watched's slots in the TupleQueues (its `pos`): the two windows' replay queues (they swap roles), the checks */
export const WINDOW_A = 0;
export const WINDOW_B = 1;
export const CHECKS = 2;
/** candidate paths kept per tuple for the checks (the search evaluates 12 exactly) */
export const MAX_CANDIDATES = 12;

/** A candidate path of a tuple (its pools' addresses and its mints), what an exact pricing of it needs; its float estimate is kept in the tuple's PathEstimates */
export class CandidatePath {
  /** the pools on which it last failed to carry the amount exactly (not tried again on them) */
  failedOn: Pool[] | undefined = undefined;
  /** why it failed on them (set and cleared with failedOn) */
  failedFor: QuoteFailure | undefined = undefined;
  constructor(
    readonly pools: readonly string[],
    readonly mints: readonly string[],
  ) {}
}

export class Watched {
  readonly amount: bigint;
  readonly mode: SwapMode;
  /** the route of the last search; undefined when the tuple cannot be quoted */
  route: Route | undefined = undefined;
  plan: ReplayPlan | undefined = undefined;
  /** the route's hop quotes of its last replay: hops whose pool did not change are not quoted again */
  memo: ReplayMemo = [];
  /**
   * pools of `route`, and of the candidate paths of the last search not on it (each once): what
   * the tuple is indexed under. Arrays, not sets: a few to a few dozen addresses per tuple, read
   * only when the indexes change
   */
  routeDeps: readonly string[] = [];
  candDeps: readonly string[] = [];
  /** the candidate paths of the last search (pool addresses and mints), best estimate first */
  cands: CandidatePath[] = [];
  /** their float estimates, by candidate */
  candEst: PathEstimates = NO_PATHS;
  /**
   * by candidate: how it compared with the chosen route at the tuple's last search (estimate
   * ratio, > 1: estimated better); for a tuple without a route, its estimate then (0: none)
   */
  candRatio: number[] = [];
  /** the route's float estimate as a path, when it is a single path */
  routeEst: PathEstimates | undefined = undefined;
  last: QuotesChanged | undefined = undefined;
  /** when its last full search ran (Unix ms): its candidate paths are that search's until a refresh */
  searchedAt = 0;
  /** while queued for a background search: the append time of the pool change behind it (what its push answers) */
  queuedBy: number | undefined = undefined;
  /** while queued for a check: the append time of the first pool change since the last check */
  checkCause: number | undefined = undefined;
  /**
   * queued for a background search because a candidate path gained on the route (not because a
   * pool entered the graph): a later check that finds no gain any more withdraws it
   */
  searchForGain: boolean | undefined = undefined;
  /**
   * while queued for a replay: the append time of the first change of a pool of its route that
   * no computed quote reflects yet (what the replay's push answers)
   */
  changedAt: number | undefined = undefined;
  /** the window (its replayDue) whose replay this tuple's memo was warmed for (see WindowPrewarm) */
  warmFor: number | undefined = undefined;
  /** ... and whose check its route's and candidates' float estimates were computed for */
  estimatesWarmFor: number | undefined = undefined;
  /**
   * the route's quote as the pricing ahead of its window found it, while no pool of the route
   * changed since (a change of one clears it): the replay takes it instead of pricing the route
   * again, the same pools giving the same quote (see WindowPrewarm)
   */
  ahead: RouteQuote | undefined = undefined;
  /** its place in each replay and check queue (see TupleQueue; by slot: WINDOW_A, WINDOW_B, CHECKS) */
  readonly pos = [-1, -1, -1];
  constructor(
    readonly tuple: QuoteTuple,
    readonly key: string,
  ) {
    this.amount = BigInt(tuple.amount);
    this.mode = tuple.exactIn ? 'ExactIn' : 'ExactOut';
  }
}

/** a searcher's answer for a tuple, waiting for flush; `at`: when it was asked, `cause`: the change behind a search request */
export class Answer {
  constructor(
    readonly w: Watched,
    readonly at: number,
    readonly cause: number | undefined,
    readonly found: Found,
  ) {}
}

/** an error of pricing a route on the current pools that is an answer, not a bug: a pool left, or cannot fill its part */
export function unpriceable(e: unknown): boolean {
  return e instanceof PoolQuoteError || e instanceof PoolGoneError;
}

/** the earlier of two append times, either of which may be unknown */
export function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** a quote's or a route's amounts (decimal strings or bigints), and its error if any */
export type Amounts = { amountIn: string | bigint; amountOut: string | bigint; error?: string };

/**
 * What a tuple's quote lost from `before` to `after`, as a fraction of `before` (ExactIn: of its
 * output; ExactOut: more input asked); 0 or less when it did not lose, 0 when either is an error
 */
export function lossOf(mode: SwapMode, before: Amounts | undefined, after: Amounts): number {
  if (before === undefined || before.error !== undefined || after.error !== undefined) return 0;
  if (mode === 'ExactIn') {
    const b = Number(before.amountOut);
    return b > 0 ? (b - Number(after.amountOut)) / b : 0;
  }
  const b = Number(before.amountIn);
  return b > 0 ? (Number(after.amountIn) - b) / b : 0;
}

/** a tuple's candidate paths for these paths found by a search (see CandidatePath), their lists shared through `lists` */
export function candidatesOf(found: readonly FoundPath[], lists: PathInterner): CandidatePath[] {
  return found.map((c) => {
    const l = lists.intern(c.pools, c.mints);
    return new CandidatePath(l.pools, l.mints);
  });
}

/** the quote did not lose from `before` to `after` (both are quotes, not errors) */
export function heldUp(mode: SwapMode, before: Amounts | undefined, after: Amounts): boolean {
  if (before === undefined || before.error !== undefined || after.error !== undefined) return false;
  return mode === 'ExactIn' ? BigInt(after.amountOut) >= BigInt(before.amountOut) : BigInt(after.amountIn) <= BigInt(before.amountIn);
}

/** how a candidate's estimate `e` compares with the route's `current` (> 1: the candidate is estimated better) */
export function estimateRatio(mode: SwapMode, e: number, current: number): number {
  return mode === 'ExactIn' ? e / current : current / e;
}
