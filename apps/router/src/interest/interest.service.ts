/**
 * The router's side of the live stream: it reads `quote-interest` (what the stream instances'
 * clients subscribed to), computes each live tuple's quote once — however many connections and
 * stream instances hold it — and writes `quotes-changed` when the quote is first wanted (or a
 * new stream instance starts to hold it) and whenever it changed (see sameQuote).
 *
 * Work per tuple, driven by the projection's pool changes (ProjectionService.onPoolsChanged):
 *   - a full route search (findBestRoute, split routes included) on first interest, when the
 *     current route broke (a pool left the graph or cannot fill its part), and in the background
 *     when a pool entered the graph;
 *   - a replay of its current route (replayQuote: the same pools and flow division, exact
 *     integer math on the current pools; a few pool quotes) when a pool of that route changed,
 *     after the debounce: a burst of changes within DEBOUNCE_MS is one replay; while the window
 *     waits for its deadline, the time the checks leave prices its routes ahead into their
 *     memos (see prewarm), so the replays at the deadline quote only what changed since;
 *   - a check (see check) after a change of a pool on its route or its candidate paths, between
 *     debounce windows: after the window that replayed the route (its replays are all pushed
 *     first), or as soon as a window closes or before the next is due when only candidate pools
 *     changed; right after its replay, within the window, when the replay found that the route
 *     lost more than 5 bp since its last quote (a candidate path that did not share the change
 *     then gained about as much: about 30% of these checks switch, against under 3% of the
 *     others, and their switch is pushed instead of the replay's quote).
 *     A candidate path estimated (the search's own float guide) to beat the route by more than
 *     5 bp, relative to how they compared at the search, is priced exactly; when it beats the
 *     route's exact quote it becomes the route at once (a switch, pushed when found) and, when
 *     its price impact leaves a split room to gain, a full search refines it in the background.
 *     A tuple without a route has its candidate paths whose estimate gained more than 5 bp
 *     since its last search priced exactly: one that carries the amount becomes its route; when
 *     none does it is searched again, unless each of them gives nothing out (a dust amount).
 *   - a candidate refresh (refreshCandidates): its candidate paths searched again (the route
 *     search's first step, not its split search) at most every STREAM_REFRESH_MS, in the
 *     background slices and whenever the thread has nothing else to do (see idle); a better
 *     path the last search did not keep becomes the route.
 *     Background searches run in short slices that take at most about a fifth of the time, so
 *     their cost is bounded whatever the rate of pool changes: searches for a gain newest request
 *     first, withdrawn unrun after SEARCH_STALE_MS (the next check queues them again while a
 *     gain lasts), then those of a pool that entered the graph, oldest first. With a searcher
 *     (SEARCH_WORKER=on, see route-searcher.ts) they are handed to it instead, a few at a time,
 *     and its answers, priced again on this thread's pools, are taken between windows; the
 *     slices are then the candidate refreshes'.
 * So every push is an exact quote of the current state along a route no older than its last
 * search or switch, pushes follow pool changes within the debounce plus the replay time, and the
 * cost of a pool update is proportional to the tuples whose route or candidate paths use that
 * pool, not to all tuples.
 *
 * Indexes: pool address → tuples whose current route uses it (replay) and → tuples whose
 * candidate paths use it (background search); refreshed on every search.
 *
 * Restart: holdings expire by their records' append times (the stream leases every 5 s for
 * 15 s; no hold outlives MAX_INTEREST_TTL_MS), so the subscription starts at the first record of
 * the last INTEREST_REPLAY_MS (positionsSince: a binary search by append time), not at the
 * beginning of the topic; after catching up only the live interest remains and gets its quotes.
 */
import { Logger } from '@nestjs/common';
import { PoolQuoteError, type Pool, type QuoteFailure } from '@app/amm';
import { evaluatePath, RouteError, type Route, type RouteRequest, type SwapMode } from '@app/amm';
import type { AppConfig } from '@app/config';
import { ContractError } from '@app/contracts';
import { decodeQuoteInterest, encodeQuotesChanged, sameQuote, tupleKey, type QuotesChanged, type QuoteTuple } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogMessage, LogPort, LogRecord, Positions, Subscription } from '@app/log';
import { ProjectionService } from '../projection/projection.service';
import { DEFAULT_INTEREST_TTL_MS, InterestRegistry, MAX_INTEREST_TTL_MS, type InterestChange } from './interest-registry';
import { positionsSince } from './interest-window';
import { aggregatorFeeOf, betterNet, charge, feeBpsFor, findBestNetRoute, type FeeSchedule } from '../quote/aggregator-fee';
import { impactBps, quoteFields } from './quote-fields';
import { NO_PATHS, PathEstimates, PoolStamps, type EstimablePath } from './path-estimates';
import { planReplay, PoolGoneError, replayQuote, replayRoute, type ReplayMemo, type ReplayPlan, type RouteQuote } from './route-replay';
import { PathInterner, type PathLists } from './path-interner';
import { candidatePathsOn, fromWire, searchRoute, type Found, type FoundPath, type RouteSearcher } from './route-searcher';
import { TupleQueue } from './tuple-queue';

/** bursts of pool changes are coalesced into one recompute after this long */
export const DEBOUNCE_MS = 50;
/** a restarting router reads back the interest records of this last stretch of time */
export const INTEREST_REPLAY_MS = MAX_INTEREST_TTL_MS + 5_000;
/**
 * Closing a debounce window (DEBOUNCE_MS after the append time of the pool update that opened
 * it): pool updates already in the log but not applied yet (the projection's tail has not woken
 * up to them) are applied first, so the recompute sees the log as it is at the deadline; when
 * the projection is already there, the window stays open up to STRAGGLER_MS for an update
 * appended right at its edge (another process's append is visible a few ms after its time
 * stamp) and closes as soon as one has been applied. Either wait ends CATCH_UP_MAX_MS after the
 * deadline at the latest.
 */
export const STRAGGLER_MS = 5;
export const CATCH_UP_MAX_MS = 15;
/** how often expired holdings are swept */
const SWEEP_MS = 1_000;
/** longest run of first searches / checks before the event loop gets a turn (appends, sockets) */
const SLICE_MS = 10;
/**
 * longest run of replays before their quotes are published and the event loop gets a turn: the
 * stream pushes a window's first quotes while the router computes the rest (a window of a few
 * hundred replays takes tens of ms)
 */
const REPLAY_SLICE_MS = 4;
/**
 * the slices of pricing ahead while a closed window waits for the log (see syncWithLog): short,
 * so its replays start within about this long of the wait's end
 */
const WAITING_WARM_SLICE_MS = 1;
/** background searches: at most this long per slice, then at least SEARCH_PAUSE_MS of other work (replays of the debounce windows come first) */
const SEARCH_SLICE_MS = 5;
const SEARCH_PAUSE_MS = 40;
/** ... or SEARCH_IDLE_PAUSE_MS while no window is open (a quiet market: nothing else to wait for) */
const SEARCH_IDLE_PAUSE_MS = 1;
/**
 * a search queued for a candidate's gain and not run within this long is withdrawn unrun (the
 * tuple's next check queues it again while the gain lasts): under a load that leaves searches
 * less time than their requests need, the newest requests are served (see nextSearch) and the
 * oldest shed, instead of every search being served seconds after the change behind it
 */
export const SEARCH_STALE_MS = 1_000;
/** at most this long per background slice for those refreshes (and per slice of idle time) */
const REFRESH_SLICE_MS = 2;
/**
 * what a push answers: a replay of the route, a check that made a candidate path the route, a
 * background search's better route, a candidate refresh's switch (see refreshCandidates)
 */
export type PushKind = 'replay' | 'check' | 'search' | 'refresh';
/** a candidate path estimated this much better than the current route is priced exactly (see InterestService.check) */
const RESEARCH_GAIN = 5e-4;
/** no pools: what an unwatched tuple is indexed under */
const NO_POOLS: ReadonlySet<string> = new Set();
/** a Watched's slots in the TupleQueues (its `pos`): the two windows' replay queues (they swap roles), the checks */
const WINDOW_A = 0;
const WINDOW_B = 1;
const CHECKS = 2;
/** candidate paths kept per tuple for those checks (the search evaluates 12 exactly) */
const MAX_CANDIDATES = 12;
/** background searches out to the searcher at most (see askSearcher) */
const MAX_ASKED = 4;

/**
 * A candidate path of a tuple (its pools' addresses and its mints), what an exact pricing of it
 * needs; its float estimate is kept in the tuple's PathEstimates.
 *
 * It and Watched are classes that set every field in their constructor: each is one hidden class
 * from its creation on, whatever order the events fill its fields in, so the optimised code of
 * the hot paths (flush, check) is not thrown away each time an object shows up with its fields
 * added in a new order.
 */
class CandidatePath {
  /** the pools on which it last failed to carry the amount exactly (not tried again on them) */
  failedOn: Pool[] | undefined = undefined;
  /** why it failed on them (set and cleared with failedOn) */
  failedFor: QuoteFailure | undefined = undefined;
  constructor(
    readonly pools: readonly string[],
    readonly mints: readonly string[],
  ) {}
}

class Watched {
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
  /** the window (its replayDue) whose replay this tuple's memo was warmed for (see InterestService.prewarm) */
  warmFor: number | undefined = undefined;
  /** ... and whose check its route's and candidates' float estimates were computed for */
  estimatesWarmFor: number | undefined = undefined;
  /**
   * the route's quote as the pricing ahead of its window found it, while no pool of the route
   * changed since (a change of one clears it): the replay takes it instead of pricing the route
   * again, the same pools giving the same quote (see InterestService.prewarm)
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
class Answer {
  constructor(
    readonly w: Watched,
    readonly at: number,
    readonly cause: number | undefined,
    readonly found: Found,
  ) {}
}

/** an error of pricing a route on the current pools that is an answer, not a bug: a pool left, or cannot fill its part */
function unpriceable(e: unknown): boolean {
  return e instanceof PoolQuoteError || e instanceof PoolGoneError;
}

/** the earlier of two append times, either of which may be unknown */
function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** a quote's or a route's amounts (decimal strings or bigints), and its error if any */
type Amounts = { amountIn: string | bigint; amountOut: string | bigint; error?: string };

/**
 * What a tuple's quote lost from `before` to `after`, as a fraction of `before` (ExactIn: of its
 * output; ExactOut: more input asked); 0 or less when it did not lose, 0 when either is an error
 */
function lossOf(mode: SwapMode, before: Amounts | undefined, after: Amounts): number {
  if (before === undefined || before.error !== undefined || after.error !== undefined) return 0;
  if (mode === 'ExactIn') {
    const b = Number(before.amountOut);
    return b > 0 ? (b - Number(after.amountOut)) / b : 0;
  }
  const b = Number(before.amountIn);
  return b > 0 ? (Number(after.amountIn) - b) / b : 0;
}

/** a tuple's candidate paths for these paths found by a search (see CandidatePath), their lists shared through `lists` */
function candidatesOf(found: readonly FoundPath[], lists: PathInterner): CandidatePath[] {
  return found.map((c) => {
    const l = lists.intern(c.pools, c.mints);
    return new CandidatePath(l.pools, l.mints);
  });
}

/** the quote did not lose from `before` to `after` (both are quotes, not errors) */
function heldUp(mode: SwapMode, before: Amounts | undefined, after: Amounts): boolean {
  if (before === undefined || before.error !== undefined || after.error !== undefined) return false;
  return mode === 'ExactIn' ? BigInt(after.amountOut) >= BigInt(before.amountOut) : BigInt(after.amountIn) <= BigInt(before.amountIn);
}

/** how a candidate's estimate `e` compares with the route's `current` (> 1: the candidate is estimated better) */
function estimateRatio(mode: SwapMode, e: number, current: number): number {
  return mode === 'ExactIn' ? e / current : current / e;
}

export interface InterestStats {
  /** live tuples (the union over all stream instances) */
  tuples: number;
  /** searches + replays */
  recomputes: number;
  searches: number;
  replays: number;
  /** float checks of the candidate paths against the current route */
  checks: number;
  /** checks that made a candidate path the route (it priced better exactly) */
  switches: number;
  published: number;
  rejected: number;
  /** tuples waiting for a background search */
  pendingSearches: number;
  /** searches for a candidate's gain withdrawn unrun after waiting SEARCH_STALE_MS */
  shedSearches: number;
  /** tuples of a window priced into their memos while it waited for its deadline (see prewarmWindows) */
  prewarmed: number;
  /** candidate paths searched afresh (see refreshMs); their switches count among the switches */
  refreshes: number;
}

/**
 * Not a Nest provider: InterestHost runs it on the main thread or in its workers (interest-worker),
 * constructing it on their log connection and projection, and calls start / close.
 */
export class InterestService {
  private readonly logger = new Logger('InterestService');
  /** the aggregator fee the pushed amounts include, as the REST quote's (null: none) */
  private readonly fee: FeeSchedule | null;
  private readonly registry = new InterestRegistry();
  private readonly heldKey = (key: string): boolean => this.registry.has(key);
  private readonly watched = new Map<string, Watched>();
  /** pool address → the tuples whose current route uses it */
  private readonly byRoutePool = new Map<string, Set<Watched>>();
  /** pool address → the tuples whose candidate paths use it */
  private readonly byCandidatePool = new Map<string, Set<Watched>>();
  /** full search now: first interest, broken route */
  private readonly urgent = new Set<string>();
  /** replay once the debounce is over (the current window) */
  private replays = new TupleQueue<Watched>(WINDOW_A);
  private replayDue: number | null = null;
  /**
   * replays wanted by pool changes applied after the current window closed (while its replays
   * run): the next window, due DEBOUNCE_MS after the first of them, so a burst that goes on
   * while a window is being computed is debounced too instead of being replayed change by change
   */
  private nextReplays = new TupleQueue<Watched>(WINDOW_B);
  /**
   * prewarm's pass over the open window (see prewarm): where it stands (its deadline, the pass's
   * iterator, which pass); 'start': a pass is wanted from the top (tuples were queued since);
   * null: none wanted (nothing of the open window is left to warm)
   */
  private warm: { due: number; keys: Iterator<Watched>; estimates: boolean } | 'start' | null = null;
  private nextDue: number | null = null;
  /** the append time of the first pool change of the current / next window (what its quotes answer) */
  private replayCause = 0;
  private nextCause = 0;
  /** the window (its replayDue) whose records appended by its deadline are applied, or the wait gave up */
  private syncedFor: number | null = null;
  /**
   * the closing window: waiting for the projection to reach `target` (the log's end read at its
   * deadline), or, once there (`edge`), for one more applied batch or STRAGGLER_MS
   */
  private catchUp: { due: number; target: Positions | null; edge: boolean; timer: NodeJS.Timeout } | null = null;
  /** a candidate path's pool changed: does a candidate now beat the current route? */
  private readonly checks = new TupleQueue<Watched>(CHECKS);
  /** tuples queued for a background search (both kinds: a candidate's gain, a pool that entered the graph) */
  private readonly searches = new Set<string>();
  /**
   * the searches queued for a candidate's gain, newest on top (served first; an entry whose
   * tuple is no longer queued for a gain is skipped); those queued because a pool entered the
   * graph are served after them, oldest first, from `searches`
   */
  private gainSearches: string[] = [];
  private lastSearchSlice = 0;
  /** tuples whose quote must be published even if unchanged (a new holder) */
  private readonly announce = new Set<string>();
  /**
   * Diagnostics (the stream benchmark): called for every quote published because a pool changed,
   * with the append time of the change it answers (a replay: the first change of a pool of the
   * tuple's route since its previous quote; a background search: the change that queued it) and,
   * for a replay, the append time of its debounce window's first update (undefined for the
   * others), and the time it was computed (before its append to quotes-changed: the rest of a
   * push's latency is the log, the stream app and the client's), and the tuple's key (tupleKey:
   * what the observer would otherwise compute again per push). Null: not observed.
   */
  pushObserver: ((q: QuotesChanged, causeAppendedAt: number, by: PushKind, windowAppendedAt: number | undefined, computedAt: number, key: string) => void) | null = null;
  /**
   * While an open window waits for its deadline, its tuples' routes and candidate paths are
   * priced on the current pools (see prewarm). On by default; off only to measure what it buys
   * (the window benchmark).
   */
  prewarmWindows = true;
  /** a stamp per pool on a watched path, bumped by each change of it: what the paths' estimates test (see PathEstimates) */
  private readonly poolStamps = new PoolStamps(() => this.projections.projection);
  /** the candidate paths' address lists, one copy per path shared by the tuples that keep it */
  private readonly pathLists = new PathInterner();
  /** the current pool at an address (what replays read) */
  private readonly poolLookup = (address: string): Pool | undefined => this.projections.projection.pool(address);
  private additions = -1;
  /** the next flush: a timer, or an immediate when it is due now (no 1 ms timer clamp between slices) */
  private timer: { cancel(): void } | null = null;
  private timerAt = Infinity;
  private sweeper: NodeJS.Timeout | null = null;
  private subscription: Subscription | null = null;
  private publishing: Promise<unknown> = Promise.resolve();
  private readonly counters = { searches: 0, replays: 0, checks: 0, switches: 0, published: 0, rejected: 0, shedSearches: 0, prewarmed: 0, refreshes: 0 };
  private closed = false;
  /** the tuples' candidate refreshes: where the round is, how many are owed, since when */
  private refreshCursor: Iterator<Watched> | null = null;
  private refreshOwed = 0;
  private refreshedAt = Date.now();
  /**
   * Each tuple's candidate paths are searched afresh about this often (STREAM_REFRESH_MS; 0:
   * never), in the background slices, before the background searches, and in the time nothing
   * else wants (see idle): the paths that pay best move with the market, and a tuple's checks
   * only compare the paths of its last search with its route.
   */
  private readonly refreshMs: number;
  /** background searches out to the searcher, and its answers waiting for flush (see askSearcher) */
  private asked = 0;
  private answers: Answer[] = [];

  constructor(
    private readonly log: LogPort,
    private readonly projections: ProjectionService,
    private readonly config: AppConfig,
    private readonly shard: { index: number; count: number } = { index: 0, count: 1 },
    /** where background searches run while it is ready (null: in flush's slices on this thread) */
    private readonly searcher: RouteSearcher | null = null,
  ) {
    this.fee = aggregatorFeeOf(config);
    this.refreshMs = config.streamRefreshMs;
  }

  /** reads quote-interest and follows the projection's pool changes from now on */
  async start(): Promise<void> {
    await this.log.ensureTopic(TOPICS.quoteInterest);
    await this.log.ensureTopic(TOPICS.quotesChanged);
    this.projections.onPoolsChanged((changed, _slot, appendedAtMs, changedAt) => this.onPoolsChanged(changed, appendedAtMs, changedAt));
    const from = await positionsSince(this.log, TOPICS.quoteInterest, Date.now() - INTEREST_REPLAY_MS);
    this.subscription = await this.log.subscribe(
      TOPICS.quoteInterest,
      { from, maxBatch: 2000, onError: (e) => this.logger.error(`quote-interest subscription stopped: ${e.message}`) },
      (records) => this.onInterest(records),
    );
    this.sweeper = setInterval(() => this.sweep(Date.now()), SWEEP_MS);
    this.sweeper.unref();
    // quotes wanted before the projection caught up are computed once it has
    void this.projections.whenReady().then(() => this.schedule(Date.now()));
  }

  /** stops reading and computing; resolves once what was handed to the log is written */
  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    if (this.catchUp) clearTimeout(this.catchUp.timer);
    if (this.sweeper) clearInterval(this.sweeper);
    const s = this.subscription;
    this.subscription = null;
    if (s) await s.close();
    await this.publishing.catch(() => undefined);
  }

  stats(): InterestStats {
    const c = this.counters;
    return { tuples: this.watched.size, recomputes: c.searches + c.replays, ...c, pendingSearches: this.searches.size };
  }

  /**
   * Diagnostics (the stream benchmark): for every `every`-th live tuple whose last quote has a
   * route, how much better a full search on the current pools quotes it than that last quote,
   * in bp of the search's amount (ExactIn: the output; ExactOut: the input); 0: as good. The
   * quotes pushed follow the tuple's route and candidate paths, not a search per change: this
   * is what that costs the client. Runs the searches at once (a few ms each).
   */
  routeGaps(every = 10): number[] {
    const projection = this.projections.projection;
    const gaps: number[] = [];
    let i = 0;
    for (const w of this.watched.values()) {
      if (i++ % every !== 0) continue;
      const last = w.last;
      if (last === undefined || last.error !== undefined) continue;
      let fresh: Route;
      try {
        fresh = findBestNetRoute(projection, this.request(w), this.fee);
      } catch (e) {
        if (!(e instanceof RouteError)) throw e;
        continue;
      }
      // what the last quote loses against the search's route
      gaps.push(Math.max(0, lossOf(w.mode, fresh, last) * 10_000));
    }
    return gaps;
  }

  // ---- interest ----

  private onInterest(records: LogRecord[]): void {
    const change: InterestChange = { added: [], removed: [], joined: [] };
    const now = Date.now();
    let stale = false;
    for (const r of records) {
      if (r.timestamp < now - DEFAULT_INTEREST_TTL_MS) stale = true;
      try {
        // a lease's keys held already are valid: only the others are validated
        this.registry.apply(decodeQuoteInterest(r.value, this.heldKey), r.timestamp, change);
      } catch (e) {
        if (!(e instanceof ContractError)) throw e;
        this.counters.rejected++;
        this.logger.warn(`rejected quote-interest record ${r.partition}/${r.offset}: ${e.reason}`);
      }
    }
    for (const t of change.removed) this.unwatch(tupleKey(t));
    // catching up (records older than a lease): holdings that lapsed must not cost a quote
    if (stale) for (const t of this.registry.expire(now)) this.unwatch(tupleKey(t));
    const again: LogMessage[] = [];
    for (const t of [...change.added, ...change.joined]) {
      const key = tupleKey(t);
      if (!this.registry.has(key) || !this.inShard(key)) continue;
      const w = this.watched.get(key);
      if (!w) {
        this.watched.set(key, new Watched(t, key));
        this.urgent.add(key);
        this.announce.add(key);
      } else if (w.last !== undefined && !this.urgent.has(key)) {
        // another stream instance holds it now: it needs the current quote (a pending replay
        // publishes what changed since)
        again.push(this.message(w, w.last));
      } else this.announce.add(key);
    }
    if (again.length > 0) this.publish(again);
    // a first quote is wanted now: no debounce
    if (this.urgent.size > 0) this.schedule(Date.now());
  }

  /** the tuples of this instance's shard (see InterestHost): a hash of the key, modulo the shard count */
  private inShard(key: string): boolean {
    if (this.shard.count === 1) return true;
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    return (h >>> 0) % this.shard.count === this.shard.index;
  }

  private sweep(nowMs: number): void {
    for (const t of this.registry.expire(nowMs)) this.unwatch(tupleKey(t));
    // the gain stack keeps only what is still queued and fresh (stale entries below newer ones are never reached)
    this.gainSearches = this.gainSearches.filter((key) => this.queuedForGain(key, nowMs) !== undefined);
  }

  private unwatch(key: string): void {
    const w = this.watched.get(key);
    if (!w) return;
    this.watched.delete(key);
    this.urgent.delete(key);
    this.replays.delete(w);
    this.nextReplays.delete(w);
    this.checks.delete(w);
    this.searches.delete(key);
    this.announce.delete(key);
    this.index(this.byRoutePool, w, w.routeDeps, NO_POOLS);
    this.index(this.byCandidatePool, w, w.candDeps, NO_POOLS);
    w.candEst.release();
    w.routeEst?.release();
  }

  // ---- pool changes ----

  /**
   * `appendedAtMs`: the newest append time of the batch that changed them (the log's clock);
   * `changedAt`: per pool, the append time of the batch's first record that changed it
   */
  private onPoolsChanged(changed: ReadonlySet<string>, appendedAtMs: number, changedAt: ReadonlyMap<string, number>): void {
    for (const pool of changed) this.poolStamps.changed(pool);
    if (this.watched.size === 0) return;
    const now = Date.now();
    // a change's time, bounded by this process's clock (a record stamped by a skewed clock
    // neither skips nor stretches the debounce)
    const timeOf = (pool: string): number => {
      const at = changedAt.get(pool);
      return Math.min(at === undefined || Number.isNaN(at) ? appendedAtMs : at, now);
    };
    let first = Math.min(appendedAtMs, now);
    for (const pool of changed) first = Math.min(first, timeOf(pool));
    const additions = this.projections.projection.additionsVersion;
    if (additions !== this.additions) {
      // a pool entered the graph: any tuple may have a new best route (a pool that left only
      // breaks the routes through it: their replays fail and search again at once)
      this.additions = additions;
      for (const key of this.watched.keys()) {
        if (this.urgent.has(key)) continue;
        this.searches.add(key);
        const w = this.watched.get(key)!;
        w.searchForGain = undefined;
        w.queuedBy ??= first;
      }
    }
    // the current window is closed once its replays run: later changes open the next one
    const closed = this.replayDue !== null && this.syncedFor === this.replayDue;
    const into = closed ? this.nextReplays : this.replays;
    for (const pool of changed) {
      const onRoute = this.byRoutePool.get(pool);
      const onCandidate = this.byCandidatePool.get(pool);
      if (!onRoute && !onCandidate) continue;
      const at = timeOf(pool);
      if (onRoute) {
        for (const w of onRoute) {
          w.ahead = undefined;
          into.add(w);
          if (w.changedAt === undefined || at < w.changedAt) w.changedAt = at;
        }
      }
      if (onCandidate) for (const w of onCandidate) this.queueCheck(w, at);
    }
    const wait = this.catchUp;
    if (wait && (wait.edge || (wait.target && this.caughtUpWith(wait.target)))) this.caughtUp();
    // a window runs from the append of its first update
    const due = Math.max(now, first + DEBOUNCE_MS);
    if (closed) {
      if (this.nextReplays.size > 0 && this.nextDue === null) {
        this.nextDue = due;
        this.nextCause = first;
      }
    } else {
      if (this.replays.size > 0 && this.replayDue === null) {
        this.replayDue = due;
        this.replayCause = first;
      }
      if (this.replayDue !== null) this.schedule(this.replayDue);
      if (this.replays.size > 0 && this.prewarmWindows) {
        this.warm = 'start';
        this.schedule(now);
      }
    }
    if (this.checks.size > 0 || this.searches.size > 0) this.schedule(now + DEBOUNCE_MS);
  }

  /** run flush at `at` (Unix ms) at the latest */
  private schedule(at: number): void {
    if (this.closed) return;
    if (this.timer) {
      if (this.timerAt <= at) return;
      this.timer.cancel();
    }
    this.timerAt = at;
    const run = (): void => {
      this.timer = null;
      this.timerAt = Infinity;
      this.flush();
    };
    const delay = at - Date.now();
    if (delay <= 0) {
      const immediate = setImmediate(run);
      this.timer = { cancel: () => clearImmediate(immediate) };
    } else {
      const timeout = setTimeout(run, delay);
      this.timer = { cancel: () => clearTimeout(timeout) };
    }
  }

  /**
   * One slice of work on the current projection, then publish what changed: first searches,
   * then replays (once the debounce is over), then background searches within their share.
   */
  flush(): void {
    if (this.closed || !this.projections.isReady) return;
    this.additions = this.projections.projection.additionsVersion;
    const out: LogMessage[] = [];
    const started = Date.now();
    // `cause`: the append time of the pool change this quote answers (none for a subscription's first quote)
    const emit = (w: Watched, q: QuotesChanged, cause?: number, by: PushKind = 'search', windowCause?: number): void => {
      const announce = this.announce.delete(w.key);
      if (announce || w.last === undefined || !sameQuote(w.last, q)) {
        out.push(this.message(w, q));
        if (cause !== undefined && this.pushObserver !== null) this.pushObserver(q, cause, by, windowCause, Date.now(), w.key);
      }
      w.last = q;
    };
    for (const key of this.urgent) {
      if (Date.now() - started >= SLICE_MS) break;
      this.urgent.delete(key);
      const w = this.watched.get(key);
      if (w) emit(w, this.search(w));
    }
    if (this.replayDue !== null && started >= this.replayDue && this.syncedFor !== this.replayDue) this.syncWithLog(this.replayDue);
    if (this.replayDue !== null && started >= this.replayDue && this.syncedFor === this.replayDue) {
      for (const w of this.replays) {
        if (Date.now() - started >= REPLAY_SLICE_MS) break;
        this.replays.delete(w);
        // the replay sees every change applied so far, those that queued it for the next window too
        this.nextReplays.delete(w);
        const cause = w.changedAt ?? this.replayCause;
        const before = w.last;
        const q = this.replay(w);
        // the route moved: a candidate may beat it now (with any check queued meanwhile;
        // `since`: the earliest change behind it)
        const checkCause = w.checkCause;
        const since = Math.min(cause, checkCause ?? cause);
        const checkable = w.route !== undefined && (w.cands.length > 1 || checkCause !== undefined) && !(this.searches.has(w.key) && !w.searchForGain);
        // the route lost more than a check's threshold: a candidate path that did not share the
        // change now compares better by about as much, which is what a check looks for. It is
        // checked now, on the pools just replayed, and a switch is pushed instead of the
        // replay's quote (about one replay in seven under the benchmark's load; three in ten of
        // them switch)
        const lost = checkable && lossOf(w.mode, before, q) > RESEARCH_GAIN;
        const switched = lost ? this.checkNow(w, since, q) : undefined;
        if (switched !== undefined) emit(w, switched, since, 'check');
        else emit(w, q, cause, 'replay', this.replayCause);
        // any other check runs after the window's replays, between windows, so every replay of
        // the window is pushed first: most such checks find no better path, and a window of
        // thousands of replays is not held up by them. None is needed when the route did not
        // lose since the tuple's last quote and no check is owed: its candidates' pools did not
        // change (that queues a check of its own), so none compares better with it than at the
        // last check, which left none gaining
        if (checkable && !lost && (checkCause !== undefined || !heldUp(w.mode, before, q))) this.queueCheck(w, since);
      }
      if (this.replays.size === 0) {
        // the window is done: the next one (if changes came meanwhile) becomes current
        const done = this.replays;
        this.replays = this.nextReplays;
        this.nextReplays = done;
        this.replayDue = this.replays.size > 0 ? this.nextDue : null;
        this.replayCause = this.nextCause;
        this.nextDue = null;
        // its routes are priced ahead while it waits for its deadline, as those of a window
        // opened by a change (otherwise only a change after this would start its pricing ahead);
        // one already due replays at once
        if (this.replayDue !== null && this.replayDue > Date.now() && this.prewarmWindows) this.warm = 'start';
      }
    }
    // a closed window waiting for the projection to catch up: caughtUp() schedules the next flush
    const waiting = this.catchUp !== null && this.catchUp.due === this.replayDue;
    // checks run between windows: while none is open, or before the open one is due
    if (this.checkGap(Date.now())) {
      for (const w of this.checks) {
        const at = Date.now();
        if (at - started >= SLICE_MS || !this.checkGap(at)) break;
        this.checks.delete(w);
        const key = w.key;
        // a replay is pending: the check is queued again after it, on the route priced on the
        // current pools (checkCause keeps the earliest change behind it)
        if (this.replays.has(w) || this.nextReplays.has(w)) continue;
        const cause = w.checkCause;
        w.checkCause = undefined;
        // queued for a search since a pool entered the graph: the check cannot see paths through it
        if (this.searches.has(key) && !w.searchForGain) continue;
        const q = this.urgent.has(key) ? undefined : this.check(w, cause, w.last);
        if (q !== undefined) emit(w, q, cause, 'check');
      }
    }
    // a window waiting for the log at its deadline goes on pricing its routes ahead meanwhile
    if (this.warm !== null) this.prewarm(started, waiting);
    const searchFrom = Date.now();
    // background work comes after the pricing ahead of the open window's routes: the candidate
    // refreshes owed, then background searches (handed to the searcher when one is ready; its
    // answers are taken between windows)
    const searcher = this.searcher?.ready ? this.searcher : null;
    if (searcher && !waiting && !this.windowBusy(searchFrom)) this.takeAnswers(searchFrom, emit);
    if (!waiting && this.warm === null && !this.windowBusy(searchFrom) && searchFrom - this.lastSearchSlice >= this.searchPause() && searchFrom - started < SLICE_MS) {
      this.refreshSome(emit);
      const searchStart = Date.now();
      while (searcher === null && this.searches.size > 0 && Date.now() - searchStart < SEARCH_SLICE_MS) {
        const w = this.nextSearch(searchStart);
        if (w === undefined) break;
        // the change the search answers (search() clears it)
        const cause = w.queuedBy;
        emit(w, this.search(w), cause);
      }
      this.lastSearchSlice = Date.now();
    }
    if (searcher) this.askSearcher(searcher, Date.now());
    // nothing else may run now: the candidate refreshes owed take the time, a slice at a time
    const idle = this.refreshOwed >= 1 && this.idle(Date.now(), waiting);
    if (idle) this.refreshSome(emit);
    if (out.length > 0) this.publish(out);
    const now = Date.now();
    if (idle && this.refreshOwed >= 1 && this.idle(now, waiting)) this.schedule(now);
    if (this.urgent.size > 0) this.schedule(now);
    if (this.replays.size > 0 && !waiting) this.schedule(this.replayDue ?? now);
    // checks run between windows; searches in the gaps, not while a window waits for the log or
    // runs its replays (caughtUp() and the window's own flushes schedule them again): no spinning
    // on the event loop meanwhile
    if (this.checks.size > 0 && this.checkGap(now)) this.schedule(now);
    if (this.warm !== null && this.replayDue !== null && (now < this.replayDue || waiting)) this.schedule(now);
    // nor in the last ms before a window closes: its own flush at the deadline comes first (a
    // search slice due meanwhile would otherwise be retried on every turn of the event loop)
    if (!waiting && !this.windowBusy(now)) {
      if (searcher && this.answers.length > 0) this.schedule(now);
      // with a searcher, the slices are the candidate refreshes' (those owed)
      else if (searcher ? this.refreshOwed >= 1 : this.searches.size > 0) this.schedule(this.lastSearchSlice + this.searchPause());
    }
  }

  /**
   * The next background search: the newest request for a candidate's gain (those that waited
   * longer than SEARCH_STALE_MS are withdrawn on the way), else the oldest request of a pool
   * that entered the graph.
   */
  private nextSearch(nowMs: number): Watched | undefined {
    while (this.gainSearches.length > 0) {
      const w = this.queuedForGain(this.gainSearches.pop()!, nowMs);
      if (w !== undefined) return w;
    }
    for (const key of this.searches) {
      const w = this.watched.get(key);
      if (w) return w; // search() takes it off the queue
      this.searches.delete(key);
    }
    return undefined;
  }

  /** the tuple when it is still queued for a candidate's gain and not stale; a stale one is withdrawn */
  private queuedForGain(key: string, nowMs: number): Watched | undefined {
    const w = this.watched.get(key);
    if (w === undefined || !w.searchForGain || !this.searches.has(key)) return undefined;
    if (w.queuedBy !== undefined && nowMs - w.queuedBy > SEARCH_STALE_MS) {
      this.unqueueSearch(w);
      this.counters.shedSearches++;
      return undefined;
    }
    return w;
  }

  /** the tuple's check run now (see check), taken off the check queue with the change behind it */
  private checkNow(w: Watched, cause: number, routeQuote: QuotesChanged): QuotesChanged | undefined {
    this.checks.delete(w);
    w.checkCause = undefined;
    return this.check(w, cause, routeQuote);
  }

  /** queue a check of the tuple's candidates; `cause`: the append time of the change behind it (the earliest kept) */
  private queueCheck(w: Watched, cause: number): void {
    this.checks.add(w);
    w.checkCause ??= cause;
  }

  /**
   * Nothing else is queued: no first quote, check, pricing ahead or background search, and no
   * window due, waiting for the log or about to close (see windowBusy: a window open further from
   * its deadline is a gap). The thread would wait for the next change or deadline: the candidate
   * refreshes owed take that time instead of only their background slices (which under load come
   * 40 ms apart and reach a fraction of the tuples every refreshMs), in slices of
   * REFRESH_SLICE_MS, so a deadline or a change waits at most about that long for them.
   */
  private idle(nowMs: number, waiting: boolean): boolean {
    return !waiting && this.warm === null && this.urgent.size === 0 && this.checks.size === 0 && this.searches.size === 0 && !this.windowBusy(nowMs);
  }

  /**
   * background searches take the gaps between windows: not while a window's replays run or wait
   * to, nor when one is about to close
   */
  private windowBusy(nowMs: number): boolean {
    return this.replays.size > 0 && (this.replayDue === null || this.replayDue - nowMs < SEARCH_SLICE_MS + 2);
  }

  /**
   * the pause between background search slices: short while no debounce window is open, or while
   * the open one only waits for its deadline with no pass of pricing ahead under way (its routes
   * priced, or pricing ahead off: the thread would idle until then; windowBusy keeps the slices
   * out of its last ms and out of its replays)
   */
  private searchPause(): number {
    return (this.replays.size === 0 || this.warm === null) && this.nextReplays.size === 0 && this.urgent.size === 0 ? SEARCH_IDLE_PAUSE_MS : SEARCH_PAUSE_MS;
  }

  /**
   * The debounce window `due` reached its deadline: read where the pool-updates log ends; when the
   * projection has not applied all of it yet, hold the window's replays until it has (see
   * onPoolsChanged), else until one more batch is applied or STRAGGLER_MS passed; never longer
   * than CATCH_UP_MAX_MS after the deadline.
   */
  private syncWithLog(due: number): void {
    if (this.catchUp?.due === due) return;
    if (this.catchUp) clearTimeout(this.catchUp.timer);
    const timer = setTimeout(() => this.caughtUp(), Math.max(0, due + CATCH_UP_MAX_MS - Date.now()));
    const wait: NonNullable<InterestService['catchUp']> = (this.catchUp = { due, target: null, edge: false, timer });
    this.log.endPositions(TOPICS.poolUpdates).then(
      (end) => {
        if (this.catchUp !== wait) return;
        if (!this.caughtUpWith(end)) {
          wait.target = end;
          return;
        }
        wait.edge = true;
        const left = due + CATCH_UP_MAX_MS - Date.now();
        if (left > STRAGGLER_MS) {
          clearTimeout(wait.timer);
          wait.timer = setTimeout(() => this.caughtUp(), STRAGGLER_MS);
        }
      },
      () => {
        if (this.catchUp === wait) this.caughtUp();
      },
    );
  }

  /** the waiting window may replay now */
  private caughtUp(): void {
    const wait = this.catchUp;
    if (!wait) return;
    clearTimeout(wait.timer);
    this.catchUp = null;
    this.syncedFor = wait.due;
    this.schedule(Date.now());
  }

  /** the projection has seen every record before `end` (next offsets per partition) */
  private caughtUpWith(end: Positions): boolean {
    const seen = this.projections.projection.processed;
    for (const [partition, next] of Object.entries(end)) {
      if (next === '0') continue;
      const last = seen[partition];
      if (last === undefined || BigInt(last) + 1n < BigInt(next)) return false;
    }
    return true;
  }

  /** checks may run now: no window is open, or the open one is not due yet */
  private checkGap(nowMs: number): boolean {
    return this.replays.size === 0 || (this.replayDue !== null && nowMs < this.replayDue);
  }

  /**
   * A check of the tuple's candidate paths against its route, after a change of a pool on
   * either. The float estimate (the route search's own guide) picks the candidates that compare
   * better with the route than they did when it was chosen, by more than RESEARCH_GAIN
   * (comparing with the ratio at search time cancels the estimate's own bias: a candidate
   * estimated a little better than the route the exact evaluation preferred stays a little
   * better; the route is estimated the same way when it is a single path, and taken at its last
   * exact amounts when it is a split). Those are priced exactly on the current pools:
   *   - the best of them, when it beats the route's last exact quote (more out, or less in),
   *     becomes the route at once and its quote is returned (pushed now); a full search, split
   *     routes included, is queued in the background to refine it when its price impact is
   *     over twice RESEARCH_GAIN (a split wins back at most about half of it);
   *   - when none does, the estimate erred: their ratios are taken as they are now (the same
   *     estimate does not fire again) and a search queued for an earlier gain is withdrawn.
   * A tuple whose route cannot be estimated is queued for a search; one without a route, see
   * checkWithoutRoute.
   */
  private check(w: Watched, cause: number | undefined, routeQuote: QuotesChanged | undefined): QuotesChanged | undefined {
    this.counters.checks++;
    if (!w.route) return this.checkWithoutRoute(w, cause);
    const exactIn = w.mode === 'ExactIn';
    const last = routeQuote !== undefined && routeQuote.error === undefined ? routeQuote : undefined;
    const current = last ? this.routeEstimate(w, last) : undefined;
    if (current === undefined || !(current > 0)) {
      this.queueGainSearch(w, cause);
      return undefined;
    }
    // the candidates that gained (by index), and how they compare with the route now
    let gaining: number[] | undefined;
    let ratios: number[] | undefined;
    const estimates = w.candEst.all();
    const baseline = w.candRatio;
    for (let i = 0; i < w.candEst.count; i++) {
      const e = estimates[i];
      if (e !== e) continue;
      const ratio = estimateRatio(w.mode, e, current);
      if (ratio > Math.max(1, baseline[i]) * (1 + RESEARCH_GAIN)) {
        (gaining ??= []).push(i);
        (ratios ??= []).push(ratio);
      }
    }
    if (gaining === undefined) {
      this.unqueueSearch(w);
      return undefined;
    }
    // the route's exact amount on the current pools (no replay is pending: see flush)
    const routeAmount = BigInt(exactIn ? last!.amountOut : last!.amountIn);
    const best = this.priceExactly(w, gaining.map((i) => w.cands[i]));
    if (best !== undefined && (exactIn ? best.amountOut > routeAmount : best.amountIn < routeAmount)) return this.switchTo(w, best, cause);
    for (let i = 0; i < gaining.length; i++) baseline[gaining[i]] = ratios![i];
    this.unqueueSearch(w);
    return undefined;
  }

  /**
   * A check of a tuple without a route: its last search found none. Only the candidates whose
   * estimate moved in the tuple's favour by more than RESEARCH_GAIN since then (the baseline in
   * `candRatio`: the candidate's estimate at that search or at the last such check; 0: it had
   * none, and gains when it has one) are looked at, not every change of a candidate pool. They are priced exactly:
   *   - the best that carries the amount becomes the route at once (a switch, see switchTo);
   *   - when each of them gives nothing out (the amount is dust for it: the float estimate sees
   *     a fraction of a unit that the program's integer math rounds to zero), no search could do
   *     better (an output does not grow when the amount is split), so their estimates now are
   *     the new baseline and nothing is queued;
   *   - else (a pool cannot fill the amount: a split of paths might) a full search is queued.
   * Tuples subscribed with such dust amounts were most of those without a route in the stream
   * benchmark; searching them again whenever an estimate rose took most of the background
   * searches, and they found a route 2 times in about 1,500.
   */
  private checkWithoutRoute(w: Watched, cause: number | undefined): QuotesChanged | undefined {
    const exactIn = w.mode === 'ExactIn';
    let gaining: number[] | undefined;
    for (let i = 0; i < w.candEst.count; i++) {
      const e = w.candEst.estimate(i);
      const base = w.candRatio[i];
      if (e !== undefined && (base <= 0 ? e > 0 : exactIn ? e > base * (1 + RESEARCH_GAIN) : e * (1 + RESEARCH_GAIN) < base)) (gaining ??= []).push(i);
    }
    if (gaining === undefined) {
      this.unqueueSearch(w);
      return undefined;
    }
    const paths = gaining.map((i) => w.cands[i]);
    const best = this.priceExactly(w, paths);
    if (best !== undefined) return this.switchTo(w, best, cause);
    if (paths.every((c) => c.failedFor === 'zero-output')) {
      for (const i of gaining) w.candRatio[i] = w.candEst.estimate(i) ?? 0;
      this.unqueueSearch(w);
    } else this.queueGainSearch(w, cause);
    return undefined;
  }

  /** the best of these candidate paths priced exactly on the current pools (undefined: none carries the amount) */
  private priceExactly(w: Watched, paths: CandidatePath[]): Route | undefined {
    const projection = this.projections.projection;
    const exactIn = w.mode === 'ExactIn';
    let best: Route | undefined;
    for (const c of paths) {
      const pools: Pool[] = [];
      for (const a of c.pools) {
        const p = projection.pool(a);
        if (p === undefined) break;
        pools.push(p);
      }
      if (pools.length !== c.pools.length) continue;
      const failed = c.failedOn;
      if (failed !== undefined && pools.every((p, i) => p === failed[i])) continue;
      let r: Route;
      try {
        r = evaluatePath({ pools, mints: c.mints }, w.mode, w.amount);
      } catch (e) {
        if (!(e instanceof PoolQuoteError)) throw e;
        c.failedOn = pools;
        c.failedFor = e.reason;
        continue;
      }
      c.failedOn = undefined;
      c.failedFor = undefined;
      if (best === undefined || (exactIn ? r.amountOut > best.amountOut : r.amountIn < best.amountIn)) best = r;
    }
    return best;
  }

  /**
   * A check's switch: the candidate path `route` becomes the tuple's route; its quote is pushed
   * now. What a full search adds to the best candidate path is mostly a split, and a split wins
   * back at most about half the path's price impact (impactBps is net of fees): a search refines
   * the switch only when that can beat RESEARCH_GAIN.
   */
  private switchTo(w: Watched, route: Route, cause: number | undefined): QuotesChanged {
    this.counters.switches++;
    const q = this.adopt(w, route);
    if (q.priceImpactBps / 10_000 / 2 > RESEARCH_GAIN) this.queueGainSearch(w, cause);
    else this.unqueueSearch(w);
    return q;
  }

  /** queue a background search for a candidate's gain; `cause`: the change behind it (a search already queued keeps its earlier one) */
  private queueGainSearch(w: Watched, cause: number | undefined): void {
    if (!this.searches.has(w.key)) w.queuedBy = cause;
    this.searches.add(w.key);
    w.searchForGain = true;
    this.gainSearches.push(w.key);
  }

  /**
   * The tuple off the background search queue (a search queued for an earlier gain is withdrawn:
   * a later gain queues it again from its own change); returns the append time of the change
   * behind its request
   */
  private unqueueSearch(w: Watched): number | undefined {
    const cause = w.queuedBy;
    this.searches.delete(w.key);
    w.searchForGain = undefined;
    w.queuedBy = undefined;
    return cause;
  }

  /** float estimates of these paths for the tuple's amount and mode */
  private estimates(w: Watched, paths: readonly EstimablePath[]): PathEstimates {
    return new PathEstimates(paths, this.poolStamps, Number(w.amount), w.mode === 'ExactIn');
  }

  /** the route's estimate: a single path's float guide, a split's last exact amounts (`quote`: the last quote) */
  private routeEstimate(w: Watched, quote: QuotesChanged | undefined = w.last): number | undefined {
    const r = w.route;
    if (!r) return undefined;
    if (w.routeEst) return w.routeEst.estimate(0);
    const last = quote && quote.error === undefined ? quote : undefined;
    const exact = w.mode === 'ExactIn' ? (last?.amountOut ?? r.amountOut.toString()) : (last?.amountIn ?? r.amountIn.toString());
    return Number(exact);
  }

  /** the route request of the tuple */
  private request(w: Watched): RouteRequest {
    return { inputMint: w.tuple.in, outputMint: w.tuple.out, amount: w.amount, mode: w.mode, maxHops: this.config.maxHops };
  }

  /** a full route search; refreshes the tuple's route and both pool indexes */
  private search(w: Watched): QuotesChanged {
    this.unqueueSearch(w);
    const at = Date.now();
    // the candidate paths are those of the search's own first step
    const found = searchRoute(this.projections.projection, this.request(w), MAX_CANDIDATES, this.fee);
    this.searched(w, at, candidatesOf(found.cands, this.pathLists));
    return this.adopt(w, found.route, found.error);
  }

  /** the tuple's candidate paths on the current pools (the route search's first step), at most MAX_CANDIDATES */
  private candidatePaths(w: Watched): CandidatePath[] {
    return candidatesOf(candidatePathsOn(this.projections.projection, this.request(w), MAX_CANDIDATES), this.pathLists);
  }

  /** these become the tuple's candidate paths, with their own estimates (not yet indexed) */
  private setCandidates(w: Watched, cands: CandidatePath[]): void {
    w.cands = cands;
    // the new estimates take their pools' ids before the old ones give theirs back: the ids of the
    // pools both have stay as they are
    const before = w.candEst;
    w.candEst = this.estimates(w, cands);
    before.release();
  }

  /**
   * The next tuples' candidate paths searched afresh (refreshCandidates), as many as are owed
   * for each tuple's to come about every refreshMs, within REFRESH_SLICE_MS; not while first
   * quotes are waiting, nor for a tuple searched in full within that time; none when refreshMs
   * is 0.
   */
  private refreshSome(emit: (w: Watched, q: QuotesChanged, cause: number, by: PushKind) => void): void {
    if (this.refreshMs === 0) return;
    const now = Date.now();
    const n = this.watched.size;
    this.refreshOwed = Math.min(n, this.refreshOwed + ((now - this.refreshedAt) * n) / this.refreshMs);
    this.refreshedAt = now;
    // first quotes come first
    if (this.urgent.size > 0) return;
    let looped = false;
    while (this.refreshOwed >= 1 && Date.now() - now < REFRESH_SLICE_MS) {
      const next = (this.refreshCursor ??= this.watched.values()).next();
      if (next.done) {
        this.refreshCursor = null;
        // round every tuple and none left to refresh (each searched within refreshMs):
        // nothing is owed, so no idle slice comes back for it
        if (looped) {
          this.refreshOwed = 0;
          break;
        }
        looped = true;
        continue;
      }
      const w = next.value;
      // searched since the last round: its candidates are fresh enough
      if (now - w.searchedAt < this.refreshMs) continue;
      this.refreshOwed--;
      const q = this.refreshCandidates(w);
      if (q !== undefined) emit(w, q, Date.now(), 'refresh');
    }
  }

  /**
   * The tuple's candidate paths searched again on the current pools: when they differ from those
   * of its last search, the new ones replace them and are checked against the route at once (a
   * path new to them compares with the route from scratch: one estimated more than 5 bp better
   * is priced exactly; a path it had keeps how it compared). Returns the switch's quote, if one
   * priced better than the route. Not for a tuple with a replay, check or search pending (they
   * come first), nor one without a route (see checkWithoutRoute).
   */
  private refreshCandidates(w: Watched): QuotesChanged | undefined {
    if (!w.route || w.last === undefined || w.last.error !== undefined) return undefined;
    if (this.replays.has(w) || this.nextReplays.has(w) || this.checks.has(w) || this.urgent.has(w.key) || this.searches.has(w.key)) return undefined;
    this.counters.refreshes++;
    const cands = this.candidatePaths(w);
    const keyOf = (c: CandidatePath): string => c.pools.join(',');
    const kept = new Map<string, number>();
    w.cands.forEach((c, i) => kept.set(keyOf(c), w.candRatio[i]));
    if (cands.length === w.cands.length && cands.every((c) => kept.has(keyOf(c)))) return undefined;
    this.setCandidates(w, cands);
    w.candRatio = cands.map((c) => kept.get(keyOf(c)) ?? 1);
    this.indexCandidates(w, new Set(w.routeDeps));
    return this.check(w, Date.now(), w.last);
  }

  // ---- the searcher (SEARCH_WORKER) ----

  /**
   * Background searches (the queue nextSearch takes from) handed to the searcher, at most
   * MAX_ASKED out at a time: it answers on its own pools, so a request sent long before its turn
   * would come back searched on pools older than needed.
   */
  private askSearcher(searcher: RouteSearcher, now: number): void {
    while (this.asked < MAX_ASKED) {
      const w = this.nextSearch(now);
      if (w === undefined) break;
      // off the queue: the answer is its search (the change behind the request is what it answers)
      this.ask(searcher, w, this.unqueueSearch(w));
    }
  }

  private ask(searcher: RouteSearcher, w: Watched, cause: number | undefined): void {
    this.asked++;
    const at = Date.now();
    searcher.search(this.request(w), MAX_CANDIDATES).then(
      (found) => {
        this.asked--;
        this.answers.push(new Answer(w, at, cause, found));
        this.schedule(Date.now());
      },
      (e: unknown) => {
        // the searcher failed (a worker that died): a gain or a new pool queues the search again
        this.asked--;
        this.logger.warn(`background search lost: ${(e as Error).message}`);
      },
    );
  }

  /** the searcher's answers, oldest first, within SEARCH_SLICE_MS */
  private takeAnswers(started: number, emit: (w: Watched, q: QuotesChanged, cause: number | undefined) => void): void {
    const answers = this.answers;
    let i = 0;
    for (; i < answers.length && Date.now() - started < SEARCH_SLICE_MS; i++) {
      const a = answers[i];
      const w = a.w;
      // unsubscribed meanwhile, or searched in full on this thread since (a first quote, a broken route)
      if (this.watched.get(w.key) !== w || w.searchedAt > a.at) continue;
      // a replay pending is answered by this push too (it quotes the current pools)
      const cause = earliest(a.cause, w.changedAt);
      emit(w, this.takeSearch(w, a), cause);
    }
    answers.splice(0, i);
  }

  /**
   * A full search's answer taken as search() takes its own: its candidate paths become the
   * tuple's, and its route, priced again on this thread's pools, becomes the tuple's route unless
   * the current route, priced on them too, nets the user as much (the searcher's pools may be a
   * few ms behind or ahead).
   */
  private takeSearch(w: Watched, a: Answer): QuotesChanged {
    const found = a.found.route && this.repriced(w, fromWire(a.found.route, this.poolLookup));
    const current = w.route && this.repriced(w, w.route);
    const route = found && current ? betterNet(current, found, this.fee) : (found ?? current);
    // the searcher's route does not carry the amount on these pools, nor does the one in place:
    // the search this thread would run says why, and what does
    if (route === undefined && a.found.route !== undefined) return this.search(w);
    this.searched(w, a.at, candidatesOf(a.found.cands, this.pathLists));
    return this.adopt(w, route, a.found.error ?? 'no route found');
  }

  /**
   * What a full search (this thread's at `at`, or the searcher's asked then) settles before its
   * route is adopted: the tuple's pending replay and check (its quote is of the current pools),
   * and its candidate paths, which become `cands` (their ratios set against the route by adopt).
   */
  private searched(w: Watched, at: number, cands: CandidatePath[]): void {
    this.counters.searches++;
    w.searchedAt = at;
    this.replays.delete(w);
    this.nextReplays.delete(w);
    w.changedAt = undefined;
    this.setCandidates(w, cands);
    w.candRatio = new Array<number>(cands.length).fill(NaN);
    this.checks.delete(w);
    w.checkCause = undefined;
  }

  /** `route` priced again for the tuple on the current pools; undefined when it cannot be (a pool left, or cannot fill its part) */
  private repriced(w: Watched, route: Route | undefined): Route | undefined {
    if (route === undefined) return undefined;
    try {
      return replayRoute(route, w.amount, this.poolLookup);
    } catch (e) {
      if (!unpriceable(e)) throw e;
      return undefined;
    }
  }

  /**
   * Make `route` the tuple's route (undefined: it has none, `error` says why): its replay plan,
   * both pool indexes, and its candidates' ratios against it. Returns its quote.
   */
  private adopt(w: Watched, route: Route | undefined, error = 'no route'): QuotesChanged {
    const projection = this.projections.projection;
    let q: QuotesChanged;
    w.memo = [];
    w.ahead = undefined;
    w.route = route;
    const routeBefore = w.routeEst;
    // a single path's lists, shared with the tuples that keep the same path
    let lists: PathLists | undefined;
    if (route) {
      w.plan = planReplay(route);
      lists = w.plan.single ? this.pathLists.intern(route.hops.map((h) => h.pool.address), [route.inputMint, ...route.hops.map((h) => h.outputMint)]) : undefined;
      w.routeEst = lists !== undefined ? this.estimates(w, [lists]) : undefined;
      q = this.quote(w, route.amountIn, route.amountOut, quoteFields(route, w.plan.single));
    } else {
      w.plan = undefined;
      w.routeEst = undefined;
      q = { tuple: w.tuple, amountOut: '0', amountIn: '0', priceImpactBps: 0, hops: 0, slot: projection.slot, error };
    }
    // after the new route's estimates took their ids (see search)
    routeBefore?.release();
    const routeDeps = new Set(route ? route.hops.map((h) => h.pool.address) : []);
    const estimates = w.candEst.all();
    if (route) {
      const current = this.routeEstimate(w, q);
      for (let i = 0; i < w.candEst.count; i++) {
        const e = estimates[i];
        w.candRatio[i] = current === undefined || e !== e ? 1 : estimateRatio(w.mode, e, current);
      }
    } else {
      // without a route: each candidate's own estimate now (0: none), what checkWithoutRoute compares with
      for (let i = 0; i < w.candEst.count; i++) w.candRatio[i] = estimates[i] === estimates[i] ? estimates[i] : 0;
    }
    this.index(this.byRoutePool, w, w.routeDeps, routeDeps);
    // a path through distinct pools depends on its pool list as it is
    w.routeDeps = lists !== undefined && lists.pools.length === routeDeps.size ? lists.pools : [...routeDeps];
    this.indexCandidates(w, routeDeps);
    return q;
  }

  /** the tuple indexed under the pools of its candidate paths (not those of its route: see adopt) */
  private indexCandidates(w: Watched, routeDeps: ReadonlySet<string>): void {
    // a route pool's change is a replay; its candidate entry would only add a check
    const cand = new Set<string>();
    for (const c of w.cands) for (const p of c.pools) if (!routeDeps.has(p)) cand.add(p);
    this.index(this.byCandidatePool, w, w.candDeps, cand);
    w.candDeps = [...cand];
  }

  /**
   * While the open window is not due yet (the thread would wait for its deadline), and at its
   * deadline while it waits for the log (`waiting`, see syncWithLog), its queued tuples' routes
   * are priced on the pools as they are now, into their memos, in slices: a replay then pushes
   * the quote found here when no pool of its route changed since (Watched.ahead), and otherwise
   * quotes again only the hops whose pool changed since, so a window in which a pool on thousands
   * of routes changed spends its debounce computing instead of waiting. It comes before background
   * searches. Nothing is pushed here (the stats count the tuples warmed); a route that fails is
   * left to the replay.
   */
  private prewarm(started: number, waiting: boolean): void {
    const due = this.replayDue;
    if (due === null || this.syncedFor === due) {
      this.warm = null;
      return;
    }
    // the routes first (the window's pushes), then the float estimates of the checks after it;
    // the pass goes on where the last slice stopped (a change that queued more tuples starts it over)
    if (this.warm === null || this.warm === 'start' || this.warm.due !== due) this.warm = { due, keys: this.replays.values(), estimates: false };
    const cursor = this.warm;
    // a slice prices at least one route: the clock counts whole ms, so a slice of 1 ms may have
    // run out as soon as it starts (and the flush before it took some of it)
    let priced = false;
    for (;;) {
      const now = Date.now();
      // while the window waits for the log, in short slices: caughtUp() runs between them
      if ((priced && now - started >= (waiting ? WAITING_WARM_SLICE_MS : REPLAY_SLICE_MS)) || (!waiting && now >= due)) return;
      const next = cursor.keys.next();
      if (next.done) {
        if (cursor.estimates) break;
        cursor.estimates = true;
        cursor.keys = this.replays.values();
        continue;
      }
      const w = next.value;
      if (!w.route) continue;
      if (!cursor.estimates) {
        if (w.warmFor === due) continue;
        w.warmFor = due;
        this.counters.prewarmed++;
        w.ahead = this.priceRoute(w, w.route) ?? undefined;
        priced = true;
      } else if (w.estimatesWarmFor !== due) {
        w.estimatesWarmFor = due;
        w.routeEst?.estimate(0);
        w.candEst.all();
        priced = true;
      }
    }
    this.warm = null;
  }

  /** the current route re-priced exactly on the current pools; a search when it broke */
  private replay(w: Watched): QuotesChanged {
    if (!w.route) return this.search(w);
    this.counters.replays++;
    w.changedAt = undefined;
    // priced ahead on the pools the route has now (no change of them since), or priced now
    const q = w.ahead ?? this.priceRoute(w, w.route);
    w.ahead = undefined;
    if (q === null) return this.search(w);
    return this.quote(w, q.amountIn, q.amountOut, { priceImpactBps: impactBps(q.amountIn, q.amountOut, q.ideal), hops: q.hops });
  }

  /**
   * The amounts, price and main path of the tuple's route on the current pools, without building
   * it (see replayQuote), its memo refreshed; null when a pool left or cannot fill its part
   */
  private priceRoute(w: Watched, route: Route): RouteQuote | null {
    try {
      return replayQuote(route, w.amount, this.poolLookup, w.plan, w.memo);
    } catch (e) {
      if (!unpriceable(e)) throw e;
      return null;
    }
  }

  /** the tuple's quote of these amounts and fields on the current projection */
  private quote(w: Watched, amountIn: bigint, amountOut: bigint, fields: { priceImpactBps: number; hops: number }): QuotesChanged {
    const { priceImpactBps, hops } = fields;
    return { tuple: w.tuple, amountOut: amountOut.toString(), amountIn: amountIn.toString(), priceImpactBps, hops, slot: this.projections.projection.slot };
  }

  /** the tuple `w`, indexed under the pools `prev`, is indexed under `next` instead */
  private index(idx: Map<string, Set<Watched>>, w: Watched, prev: readonly string[], next: ReadonlySet<string>): void {
    for (const d of prev) {
      if (next.has(d)) continue;
      const s = idx.get(d);
      if (s) {
        s.delete(w);
        if (s.size === 0) idx.delete(d);
      }
    }
    for (const d of next) {
      let s = idx.get(d);
      if (!s) idx.set(d, (s = new Set()));
      s.add(w);
    }
  }

  /**
   * The quotes-changed record of the tuple's quote (keyed by the tuple): its amounts are the user's, the aggregator fee included as the REST
   * quote includes it (`q` itself, what the checks compare, keeps the route's own amounts).
   */
  private message(w: Watched, q: QuotesChanged): LogMessage {
    const feeBps = q.error === undefined && w.route ? feeBpsFor(this.fee, w.route.hops.length) : 0;
    if (feeBps === 0) return { key: w.key, value: encodeQuotesChanged(q) };
    const user = charge(w.mode, BigInt(q.amountIn), BigInt(q.amountOut), feeBps, 0);
    return { key: w.key, value: encodeQuotesChanged({ ...q, amountIn: user.amountIn.toString(), amountOut: user.amountOut.toString() }) };
  }

  private publish(messages: LogMessage[]): void {
    this.publishing = this.publishing
      .then(() => this.log.append(TOPICS.quotesChanged, messages))
      .then(() => {
        this.counters.published += messages.length;
      })
      .catch((e: unknown) => this.logger.error(`could not publish ${messages.length} quote change(s): ${(e as Error).message}`));
  }
}
