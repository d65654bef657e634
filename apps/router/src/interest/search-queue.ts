/**
 * The live stream's queue of background route searches: which tuples wait for a full search
 * (split routes included), and which is served next. Two kinds of request:
 *   - for a candidate's gain (a check found a candidate path gaining on the route, or a switch
 *     that a split may refine): served newest first, and withdrawn unrun after SEARCH_STALE_MS
 *     (the tuple's next check queues it again while the gain lasts), so under a load that leaves
 *     searches less time than their requests need the newest are served and the oldest shed,
 *     instead of every search being served seconds after the change behind it;
 *   - because a pool entered the graph (any tuple may have a new best route): served after
 *     those, oldest first.
 * What runs the searches, and when, is the caller's (InterestService's slices, or a searcher).
 */
import type { Watched } from './tuple-state';

/** a search queued for a candidate's gain and not run within this long is withdrawn unrun */
export const SEARCH_STALE_MS = 1_000;

export class SearchQueue {
  /** tuples queued for a background search (both kinds), by key */
  readonly searches = new Set<string>();
  /**
   * the searches queued for a candidate's gain, newest on top (an entry whose tuple is no longer
   * queued for a gain is skipped); those queued because a pool entered the graph are served
   * after them, oldest first, from `searches`
   */
  gainSearches: string[] = [];
  /** searches for a gain withdrawn unrun after waiting SEARCH_STALE_MS */
  shedSearches = 0;

  constructor(private readonly watched: ReadonlyMap<string, Watched>) {}

  get size(): number {
    return this.searches.size;
  }

  has(key: string): boolean {
    return this.searches.has(key);
  }

  /** the tuple is no longer watched: off the queue (its gain entries are skipped when reached) */
  forget(key: string): void {
    this.searches.delete(key);
  }

  /** a pool entered the graph: every tuple (but those about to be searched anyway) queued, `first` the change behind it */
  queueAll(skip: (key: string) => boolean, first: number): void {
    for (const [key, w] of this.watched) {
      if (skip(key)) continue;
      this.searches.add(key);
      w.searchForGain = undefined;
      w.queuedBy ??= first;
    }
  }

  /** queue a search for a candidate's gain; `cause`: the change behind it (a search already queued keeps its earlier one) */
  queueForGain(w: Watched, cause: number | undefined): void {
    if (!this.searches.has(w.key)) w.queuedBy = cause;
    this.searches.add(w.key);
    w.searchForGain = true;
    this.gainSearches.push(w.key);
  }

  /**
   * The tuple off the queue (a search queued for an earlier gain is withdrawn: a later gain
   * queues it again from its own change); returns the append time of the change behind its request
   */
  unqueue(w: Watched): number | undefined {
    const cause = w.queuedBy;
    this.searches.delete(w.key);
    w.searchForGain = undefined;
    w.queuedBy = undefined;
    return cause;
  }

  /**
   * The next search: the newest request for a candidate's gain (those that waited longer than
   * SEARCH_STALE_MS are withdrawn on the way), else the oldest request of a pool that entered
   * the graph. It stays queued: the search (or unqueue) takes it off.
   */
  next(nowMs: number): Watched | undefined {
    while (this.gainSearches.length > 0) {
      const w = this.queuedForGain(this.gainSearches.pop()!, nowMs);
      if (w !== undefined) return w;
    }
    for (const key of this.searches) {
      const w = this.watched.get(key);
      if (w) return w;
      this.searches.delete(key);
    }
    return undefined;
  }

  /** the gain stack keeps only what is still queued and fresh (stale entries below newer ones are never reached) */
  sweep(nowMs: number): void {
    this.gainSearches = this.gainSearches.filter((key) => this.queuedForGain(key, nowMs) !== undefined);
  }

  /** the tuple when it is still queued for a candidate's gain and not stale; a stale one is withdrawn */
  private queuedForGain(key: string, nowMs: number): Watched | undefined {
    const w = this.watched.get(key);
    if (w === undefined || !w.searchForGain || !this.searches.has(key)) return undefined;
    if (w.queuedBy !== undefined && nowMs - w.queuedBy > SEARCH_STALE_MS) {
      this.unqueue(w);
      this.shedSearches++;
      return undefined;
    }
    return w;
  }
}
