/**
 * The router's side of the live stream: it reads `quote-interest` (what the stream instances'
 * clients subscribed to), follows the projection's pool changes, and writes `quotes-changed`
 * when a tuple's quote is first wanted (or a new stream instance starts to hold it) and whenever
 * it changed (see sameQuote). Each live tuple's quote is computed once, however many connections
 * and stream instances hold it. The design is in docs/live-stream.md.
 *
 * This is the shell: what to push is the decider's (quote-core.ts, on tuple-state.ts), when each
 * piece of work runs is the scheduling's (debounce-windows.ts, window-prewarm.ts,
 * candidate-refresh.ts), the background searches wait in search-queue.ts and may be handed to a
 * searcher (searcher-handoff.ts). A flush runs one slice of each, in this order: first searches,
 * the closing window's replays, checks between windows, pricing ahead of the open window, then
 * background work (answers, refreshes, searches) within its share.
 *
 * Restart: holdings expire by their records' append times (the stream leases every 5 s for
 * 15 s; no hold outlives MAX_INTEREST_TTL_MS), so the subscription starts at the first record of
 * the last INTEREST_REPLAY_MS (positionsSince), not at the beginning of the topic.
 */
import { Logger } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { ContractError } from '@app/contracts';
import { decodeQuoteInterest, sameQuote, tupleKey, type QuotesChanged } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogMessage, LogPort, LogRecord, Subscription } from '@app/log';
import { ProjectionService } from '../projection/projection.service';
import { aggregatorFeeOf } from '../quote/aggregator-fee';
import { CandidateRefresh } from './candidate-refresh';
import { DEBOUNCE_MS, FlushTimer, REPLAY_SLICE_MS, SEARCH_SLICE_MS, SLICE_MS, Windows } from './debounce-windows';
import { DEFAULT_INTEREST_TTL_MS, InterestRegistry, MAX_INTEREST_TTL_MS, type InterestChange } from './interest-registry';
import { positionsSince } from './interest-window';
import { QuoteCore } from './quote-core';
import type { RouteSearcher } from './route-searcher';
import { SearcherHandoff } from './searcher-handoff';
import type { PushKind, Watched } from './tuple-state';
import { WindowPrewarm } from './window-prewarm';

export { CATCH_UP_MAX_MS, DEBOUNCE_MS, STRAGGLER_MS } from './debounce-windows';
export { SEARCH_STALE_MS } from './search-queue';
export type { PushKind } from './tuple-state';

/** a restarting router reads back the interest records of this last stretch of time */
export const INTEREST_REPLAY_MS = MAX_INTEREST_TTL_MS + 5_000;
/** how often expired holdings are swept */
const SWEEP_MS = 1_000;

type Emit = (w: Watched, q: QuotesChanged, cause?: number, by?: PushKind, windowCause?: number) => void;

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
  /** tuples of a window priced ahead while it waited for its deadline (see prewarmWindows) */
  prewarmed: number;
  /** candidate paths searched afresh (see candidate-refresh.ts); their switches count among the switches */
  refreshes: number;
}

/**
 * Not a Nest provider: InterestHost runs it on the main thread or in its workers (interest-worker),
 * constructing it on their log connection and projection, and calls start / close.
 */
export class InterestService {
  private readonly logger = new Logger('InterestService');
  private readonly registry = new InterestRegistry();
  private readonly heldKey = (key: string): boolean => this.registry.has(key);
  /** full search now: first interest, broken route */
  private readonly urgent = new Set<string>();
  /** tuples whose quote must be published even if unchanged (a new holder) */
  private readonly announce = new Set<string>();
  private readonly core: QuoteCore;
  private readonly windows: Windows;
  private readonly prewarmer: WindowPrewarm;
  private readonly refresh: CandidateRefresh;
  private readonly handoff: SearcherHandoff;
  private readonly flushTimer = new FlushTimer(() => this.flush());
  private lastSearchSlice = 0;
  private additions = -1;
  private sweeper: NodeJS.Timeout | null = null;
  private subscription: Subscription | null = null;
  private publishing: Promise<unknown> = Promise.resolve();
  private readonly counters = { published: 0, rejected: 0 };
  private closed = false;
  /**
   * Diagnostics (the stream benchmark): called for every quote published because a pool changed,
   * with the append time of the change it answers (a replay: the first change of a pool of the
   * tuple's route since its previous quote; a background search: the change that queued it) and,
   * for a replay, the append time of its debounce window's first update (undefined for the
   * others), and the time it was computed (before its append to quotes-changed), and the tuple's
   * key. Null: not observed.
   */
  pushObserver: ((q: QuotesChanged, causeAppendedAt: number, by: PushKind, windowAppendedAt: number | undefined, computedAt: number, key: string) => void) | null = null;
  /** an open window's routes are priced ahead while it waits for its deadline (window-prewarm.ts); off only to measure what it buys */
  prewarmWindows = true;

  constructor(
    private readonly log: LogPort,
    private readonly projections: ProjectionService,
    config: AppConfig,
    private readonly shard: { index: number; count: number } = { index: 0, count: 1 },
    /** where background searches run while it is ready (null: in flush's slices on this thread) */
    private readonly searcher: RouteSearcher | null = null,
  ) {
    const wake = (): void => this.flushTimer.schedule(Date.now());
    this.windows = new Windows(
      () => log.endPositions(TOPICS.poolUpdates),
      () => projections.projection.processed,
      wake,
    );
    const pending = { drop: (w: Watched) => this.windows.drop(w), has: (w: Watched) => this.windows.has(w) || this.urgent.has(w.key) };
    this.core = new QuoteCore(() => projections.projection, aggregatorFeeOf(config), config.maxHops, pending, config.intermediateTokens);
    this.prewarmer = new WindowPrewarm(this.windows, this.core);
    this.refresh = new CandidateRefresh(this.core, config.streamRefreshMs, () => this.urgent.size > 0);
    this.handoff = new SearcherHandoff(this.core, wake);
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
    this.flushTimer.stop();
    this.windows.stop();
    if (this.sweeper) clearInterval(this.sweeper);
    const s = this.subscription;
    this.subscription = null;
    if (s) await s.close();
    await this.publishing.catch(() => undefined);
  }

  stats(): InterestStats {
    const c = this.core.counters;
    return {
      tuples: this.core.watched.size,
      recomputes: c.searches + c.replays,
      searches: c.searches,
      replays: c.replays,
      checks: c.checks,
      switches: c.switches,
      published: this.counters.published,
      rejected: this.counters.rejected,
      shedSearches: this.core.queue.shedSearches,
      prewarmed: this.prewarmer.prewarmed,
      refreshes: c.refreshes,
      pendingSearches: this.core.queue.size,
    };
  }

  /** Diagnostics (the stream benchmark): see QuoteCore.routeGaps */
  routeGaps(every = 10): number[] {
    return this.core.routeGaps(every);
  }

  // what the window benchmark reads of the queues (bench/stream-window.bench.ts)
  private get watched(): ReadonlyMap<string, Watched> {
    return this.core.watched;
  }
  private get replays(): { size: number } {
    return this.windows.replays;
  }
  private get nextReplays(): { size: number } {
    return this.windows.nextReplays;
  }
  private get checks(): { size: number } {
    return this.core.checks;
  }
  private get searches(): Set<string> {
    return this.core.queue.searches;
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
      const w = this.core.watched.get(key);
      if (!w) {
        this.core.watch(t, key);
        this.urgent.add(key);
        this.announce.add(key);
      } else if (w.last !== undefined && !this.urgent.has(key)) {
        // another stream instance holds it now: it needs the current quote (a pending replay
        // publishes what changed since)
        again.push(this.core.message(w, w.last));
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
    this.core.queue.sweep(nowMs);
  }

  private unwatch(key: string): void {
    const w = this.core.unwatch(key);
    if (!w) return;
    this.urgent.delete(key);
    this.windows.drop(w);
    this.announce.delete(key);
  }

  // ---- pool changes ----

  /**
   * `appendedAtMs`: the newest append time of the batch that changed them (the log's clock);
   * `changedAt`: per pool, the append time of the batch's first record that changed it
   */
  private onPoolsChanged(changed: ReadonlySet<string>, appendedAtMs: number, changedAt: ReadonlyMap<string, number>): void {
    const core = this.core;
    const windows = this.windows;
    for (const pool of changed) core.poolStamps.changed(pool);
    if (core.watched.size === 0) return;
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
      core.queue.queueAll((key) => this.urgent.has(key), first);
    }
    const closed = windows.closed;
    const into = closed ? windows.nextReplays : windows.replays;
    for (const pool of changed) {
      const onRoute = core.byRoutePool.get(pool);
      const onCandidate = core.byCandidatePool.get(pool);
      if (!onRoute && !onCandidate) continue;
      const at = timeOf(pool);
      if (onRoute) {
        for (const w of onRoute) {
          w.ahead = undefined;
          into.add(w);
          if (w.changedAt === undefined || at < w.changedAt) w.changedAt = at;
        }
      }
      if (onCandidate) for (const w of onCandidate) core.queueCheck(w, at);
    }
    windows.applied();
    // a window runs from the append of its first update
    windows.open(closed, Math.max(now, first + DEBOUNCE_MS), first);
    if (!closed) {
      if (windows.replayDue !== null) this.schedule(windows.replayDue);
      if (windows.replays.size > 0 && this.prewarmWindows) {
        this.prewarmer.warm = 'start';
        this.schedule(now);
      }
    }
    if (core.checks.size > 0 || core.queue.size > 0) this.schedule(now + DEBOUNCE_MS);
  }

  /** run flush at `at` (Unix ms) at the latest */
  private schedule(at: number): void {
    if (!this.closed) this.flushTimer.schedule(at);
  }

  // ---- a flush ----

  /** One slice of work on the current projection, then publish what changed (see the header) */
  flush(): void {
    if (this.closed || !this.projections.isReady) return;
    this.additions = this.projections.projection.additionsVersion;
    const out: LogMessage[] = [];
    const started = Date.now();
    // `cause`: the append time of the pool change this quote answers (none for a subscription's first quote)
    const emit: Emit = (w, q, cause, by = 'search', windowCause) => {
      const announce = this.announce.delete(w.key);
      if (announce || w.last === undefined || !sameQuote(w.last, q)) {
        out.push(this.core.message(w, q));
        if (cause !== undefined && this.pushObserver !== null) this.pushObserver(q, cause, by, windowCause, Date.now(), w.key);
      }
      w.last = q;
    };
    for (const key of this.urgent) {
      if (Date.now() - started >= SLICE_MS) break;
      this.urgent.delete(key);
      const w = this.core.watched.get(key);
      if (w) emit(w, this.core.search(w));
    }
    this.closeWindow(started, emit);
    const waiting = this.windows.waiting;
    this.runChecks(started, emit);
    // a window waiting for the log at its deadline goes on pricing its routes ahead meanwhile
    if (this.prewarmer.warm !== null) this.prewarmer.prewarm(started, waiting);
    const searcher = this.searcher?.ready ? this.searcher : null;
    const idle = this.background(started, waiting, searcher, emit);
    if (out.length > 0) this.publish(out);
    this.reschedule(idle, waiting, searcher);
  }

  /** the due window: caught up with the log, then its replays in a slice; once all ran, the next window becomes current */
  private closeWindow(started: number, emit: Emit): void {
    const windows = this.windows;
    if (windows.replayDue !== null && started >= windows.replayDue && windows.syncedFor !== windows.replayDue) windows.syncWithLog(windows.replayDue);
    if (!windows.replaying(started)) return;
    for (const w of windows.replays) {
      if (Date.now() - started >= REPLAY_SLICE_MS) break;
      // the replay sees every change applied so far, those that queued it for the next window too
      windows.drop(w);
      const windowCause = windows.replayCause;
      const p = this.core.replayPush(w, windowCause);
      emit(w, p.q, p.cause, p.by, p.by === 'replay' ? windowCause : undefined);
      if (p.checkOwed !== undefined) this.core.queueCheck(w, p.checkOwed);
    }
    if (windows.replays.size > 0) return;
    windows.rotate();
    // its routes are priced ahead while it waits for its deadline, as those of a window opened by
    // a change; one already due replays at once
    if (windows.replayDue !== null && windows.replayDue > Date.now() && this.prewarmWindows) this.prewarmer.warm = 'start';
  }

  /** the checks queued, in a slice, between windows: while none is open, or before the open one is due */
  private runChecks(started: number, emit: Emit): void {
    const core = this.core;
    if (!this.windows.checkGap(Date.now())) return;
    for (const w of core.checks) {
      const at = Date.now();
      if (at - started >= SLICE_MS || !this.windows.checkGap(at)) break;
      core.checks.delete(w);
      // a replay is pending: the check is queued again after it, on the route priced on the
      // current pools (checkCause keeps the earliest change behind it)
      if (this.windows.has(w)) continue;
      const cause = w.checkCause;
      w.checkCause = undefined;
      // queued for a search since a pool entered the graph: the check cannot see paths through it
      if (core.queue.has(w.key) && !w.searchForGain) continue;
      const q = this.urgent.has(w.key) ? undefined : core.check(w, cause, w.last);
      if (q !== undefined) emit(w, q, cause, 'check');
    }
  }

  /**
   * Background work, after the pricing ahead of the open window: the searcher's answers, the
   * candidate refreshes owed, then background searches in a slice (or handed to the searcher),
   * and refreshes in the time nothing else wants. Returns whether that idle time was used.
   */
  private background(started: number, waiting: boolean, searcher: RouteSearcher | null, emit: Emit): boolean {
    const windows = this.windows;
    const queue = this.core.queue;
    const searchFrom = Date.now();
    if (searcher && !waiting && !windows.windowBusy(searchFrom)) this.handoff.takeAnswers(searchFrom, emit);
    if (!waiting && this.prewarmer.warm === null && !windows.windowBusy(searchFrom) && searchFrom - this.lastSearchSlice >= this.searchPause() && searchFrom - started < SLICE_MS) {
      this.refresh.refreshSome(emit);
      const searchStart = Date.now();
      while (searcher === null && queue.size > 0 && Date.now() - searchStart < SEARCH_SLICE_MS) {
        const w = queue.next(searchStart);
        if (w === undefined) break;
        // the change the search answers (search() clears it)
        const cause = w.queuedBy;
        emit(w, this.core.search(w), cause);
      }
      this.lastSearchSlice = Date.now();
    }
    if (searcher) this.handoff.askSearcher(searcher, Date.now());
    const idle = this.refresh.owed && this.idle(Date.now(), waiting);
    if (idle) this.refresh.refreshSome(emit);
    return idle;
  }

  /** the next flush: as soon as work is left that may run now, else at the next deadline */
  private reschedule(idle: boolean, waiting: boolean, searcher: RouteSearcher | null): void {
    const windows = this.windows;
    const now = Date.now();
    if (idle && this.refresh.owed && this.idle(now, waiting)) this.schedule(now);
    if (this.urgent.size > 0) this.schedule(now);
    if (windows.replays.size > 0 && !waiting) this.schedule(windows.replayDue ?? now);
    // checks run between windows; searches in the gaps, not while a window waits for the log or
    // runs its replays (the catch-up and the window's own flushes schedule them again): no
    // spinning on the event loop meanwhile
    if (this.core.checks.size > 0 && windows.checkGap(now)) this.schedule(now);
    if (this.prewarmer.warm !== null && windows.replayDue !== null && (now < windows.replayDue || waiting)) this.schedule(now);
    // nor in the last ms before a window closes: its own flush at the deadline comes first
    if (!waiting && !windows.windowBusy(now)) {
      if (searcher && this.handoff.answers.length > 0) this.schedule(now);
      // with a searcher, the slices are the candidate refreshes' (those owed)
      else if (searcher ? this.refresh.owed : this.core.queue.size > 0) this.schedule(this.lastSearchSlice + this.searchPause());
    }
  }

  /**
   * Nothing else is queued: no first quote, check, pricing ahead or background search, and no
   * window due, waiting for the log or about to close. The thread would wait for the next change
   * or deadline: the candidate refreshes owed take that time instead of only their background
   * slices, a slice at a time, so a deadline or a change waits at most about a slice for them.
   */
  private idle(nowMs: number, waiting: boolean): boolean {
    return !waiting && this.prewarmer.warm === null && this.urgent.size === 0 && this.core.checks.size === 0 && this.core.queue.size === 0 && !this.windows.windowBusy(nowMs);
  }

  private searchPause(): number {
    return this.windows.searchPause(this.prewarmer.warm !== null, this.urgent.size);
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
