/**
 * Pricing ahead: while the open debounce window is not due yet (the thread would wait for its
 * deadline), and at its deadline while it waits for the log (`waiting`, see
 * Windows.syncWithLog), its queued tuples' routes are priced on the pools as they are now, into
 * their memos, in slices. A replay then pushes the quote found here when no pool of its route
 * changed since (Watched.ahead), and otherwise quotes again only the hops whose pool changed
 * since, so a window in which a pool on thousands of routes changed spends its debounce
 * computing instead of waiting. A second pass computes the float estimates its checks will read.
 * Nothing is pushed here; a route that fails is left to the replay.
 */
import type { Windows } from './debounce-windows';
import { REPLAY_SLICE_MS, WAITING_WARM_SLICE_MS } from './debounce-windows';
import type { QuoteCore } from './quote-core';
import type { Watched } from './tuple-state';

export class WindowPrewarm {
  /**
   * the pass over the open window: where it stands (its deadline, the pass's iterator, which
   * pass); 'start': a pass is wanted from the top (tuples were queued since); null: none wanted
   */
  warm: { due: number; keys: Iterator<Watched>; estimates: boolean } | 'start' | null = null;
  /** tuples of a window priced ahead */
  prewarmed = 0;

  constructor(
    private readonly windows: Windows,
    private readonly core: QuoteCore,
  ) {}

  /** one slice of the pass, from `started` (the flush's start) */
  prewarm(started: number, waiting: boolean): void {
    const windows = this.windows;
    const due = windows.replayDue;
    if (due === null || windows.syncedFor === due) {
      this.warm = null;
      return;
    }
    // the routes first (the window's pushes), then the float estimates of the checks after it;
    // the pass goes on where the last slice stopped (a change that queued more tuples starts it over)
    if (this.warm === null || this.warm === 'start' || this.warm.due !== due) this.warm = { due, keys: windows.replays.values(), estimates: false };
    const cursor = this.warm;
    // a slice prices at least one route: the clock counts whole ms, so a slice of 1 ms may have
    // run out as soon as it starts (and the flush before it took some of it)
    let priced = false;
    for (;;) {
      const now = Date.now();
      // while the window waits for the log, in short slices: the catch-up runs between them
      if ((priced && now - started >= (waiting ? WAITING_WARM_SLICE_MS : REPLAY_SLICE_MS)) || (!waiting && now >= due)) return;
      const next = cursor.keys.next();
      if (next.done) {
        if (cursor.estimates) break;
        cursor.estimates = true;
        cursor.keys = windows.replays.values();
        continue;
      }
      const w = next.value;
      if (!w.route) continue;
      if (!cursor.estimates) {
        if (w.warmFor === due) continue;
        w.warmFor = due;
        this.prewarmed++;
        w.ahead = this.core.priceRoute(w, w.route) ?? undefined;
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
}
