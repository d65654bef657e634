/**
 * The live stream's scheduling: when the replays, checks and background work run.
 *   - Debounce windows (Windows): a pool change on a tuple's route queues its replay in the open
 *     window, due DEBOUNCE_MS after the append of the window's first update, so a burst of changes
 *     is one replay. Changes applied while a closed window's replays run go to the next window
 *     (the two queues swap roles), so a burst that goes on meanwhile is debounced too. At its
 *     deadline a window first catches up with the log (see syncWithLog).
 *   - Slices: every run of work is bounded (the *_SLICE_MS below) so the event loop gets a turn
 *     (appends, sockets) and the stream pushes a window's first quotes while the rest are computed.
 *   - Gaps: checks run between windows (checkGap), background searches and refreshes not while a
 *     window is due or about to close (windowBusy), and the pause between background slices is
 *     short only while nothing else waits (searchPause).
 *   - FlushTimer: the next flush, a timer or an immediate.
 * Plain TypeScript: the log and the projection are reached through the functions it is given.
 */
import type { Positions } from '@app/log';
import { TupleQueue } from './tuple-queue';
import { WINDOW_A, WINDOW_B, type Watched } from './tuple-state';

/** bursts of pool changes are coalesced into one recompute after this long */
export const DEBOUNCE_MS = 50;
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
/** longest run of first searches / checks before the event loop gets a turn (appends, sockets) */
export const SLICE_MS = 10;
/** longest run of replays before their quotes are published and the event loop gets a turn */
export const REPLAY_SLICE_MS = 4;
/** the slices of pricing ahead while a closed window waits for the log: short, so its replays start within about this long of the wait's end */
export const WAITING_WARM_SLICE_MS = 1;
/** background searches: at most this long per slice, then at least SEARCH_PAUSE_MS of other work (the windows' replays come first) */
export const SEARCH_SLICE_MS = 5;
export const SEARCH_PAUSE_MS = 40;
/** ... or SEARCH_IDLE_PAUSE_MS while no window is open (a quiet market: nothing else to wait for) */
export const SEARCH_IDLE_PAUSE_MS = 1;
/** at most this long per slice of candidate refreshes (background or idle) */
export const REFRESH_SLICE_MS = 2;

/** the closing window: waiting for the projection to reach `target` (the log's end read at its deadline), or, once there (`edge`), for one more applied batch or STRAGGLER_MS */
interface CatchUp {
  due: number;
  target: Positions | null;
  edge: boolean;
  timer: NodeJS.Timeout;
}

export class Windows {
  /** replay once the debounce is over (the current window) */
  replays = new TupleQueue<Watched>(WINDOW_A);
  replayDue: number | null = null;
  /** replays wanted by pool changes applied after the current window closed (while its replays run): the next window */
  nextReplays = new TupleQueue<Watched>(WINDOW_B);
  nextDue: number | null = null;
  /** the append time of the first pool change of the current / next window (what its quotes answer) */
  replayCause = 0;
  nextCause = 0;
  /** the window (its replayDue) whose records appended by its deadline are applied, or the wait gave up */
  syncedFor: number | null = null;
  catchUp: CatchUp | null = null;

  constructor(
    /** where the pool-updates log ends now */
    private readonly logEnd: () => Promise<Positions>,
    /** the last offset the projection applied, per partition */
    private readonly processed: () => Record<string, string>,
    /** a flush is wanted now */
    private readonly wake: () => void,
  ) {}

  /** the current window is closed (its replays run): later changes open the next one */
  get closed(): boolean {
    return this.replayDue !== null && this.syncedFor === this.replayDue;
  }

  /** the current window is due and caught up with the log: its replays run */
  replaying(nowMs: number): boolean {
    return this.replayDue !== null && nowMs >= this.replayDue && this.syncedFor === this.replayDue;
  }

  /** a closed window waiting for the projection to catch up (caughtUp() wakes the next flush) */
  get waiting(): boolean {
    return this.catchUp !== null && this.catchUp.due === this.replayDue;
  }

  /** a replay of the tuple is pending in either window */
  has(w: Watched): boolean {
    return this.replays.has(w) || this.nextReplays.has(w);
  }

  drop(w: Watched): void {
    this.replays.delete(w);
    this.nextReplays.delete(w);
  }

  /** the window the replays queued by a change open now (`due`, `first`: the change's time) when none is */
  open(closed: boolean, due: number, first: number): void {
    if (closed) {
      if (this.nextReplays.size > 0 && this.nextDue === null) {
        this.nextDue = due;
        this.nextCause = first;
      }
    } else if (this.replays.size > 0 && this.replayDue === null) {
      this.replayDue = due;
      this.replayCause = first;
    }
  }

  /** the current window's replays are all done: the next one (if changes came meanwhile) becomes current */
  rotate(): void {
    const done = this.replays;
    this.replays = this.nextReplays;
    this.nextReplays = done;
    this.replayDue = this.replays.size > 0 ? this.nextDue : null;
    this.replayCause = this.nextCause;
    this.nextDue = null;
  }

  /** checks may run now: no window is open, or the open one is not due yet */
  checkGap(nowMs: number): boolean {
    return this.replays.size === 0 || (this.replayDue !== null && nowMs < this.replayDue);
  }

  /** background work takes the gaps between windows: not while a window's replays run or wait to, nor when one is about to close */
  windowBusy(nowMs: number): boolean {
    return this.replays.size > 0 && (this.replayDue === null || this.replayDue - nowMs < SEARCH_SLICE_MS + 2);
  }

  /**
   * The pause between background search slices: short while no window is open, or while the open
   * one only waits for its deadline with no pass of pricing ahead under way (`warming`), and no
   * first quote waits (`urgent`); windowBusy keeps the slices out of a window's last ms and replays.
   */
  searchPause(warming: boolean, urgent: number): number {
    return (this.replays.size === 0 || !warming) && this.nextReplays.size === 0 && urgent === 0 ? SEARCH_IDLE_PAUSE_MS : SEARCH_PAUSE_MS;
  }

  /**
   * The window `due` reached its deadline: read where the pool-updates log ends; when the
   * projection has not applied all of it yet, hold the window's replays until it has (see
   * applied), else until one more batch is applied or STRAGGLER_MS passed; never longer than
   * CATCH_UP_MAX_MS after the deadline.
   */
  syncWithLog(due: number): void {
    if (this.catchUp?.due === due) return;
    if (this.catchUp) clearTimeout(this.catchUp.timer);
    const timer = setTimeout(() => this.caughtUp(), Math.max(0, due + CATCH_UP_MAX_MS - Date.now()));
    const wait: CatchUp = (this.catchUp = { due, target: null, edge: false, timer });
    this.logEnd().then(
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

  /** a batch of pool updates was applied: a window waiting for it may replay now */
  applied(): void {
    const wait = this.catchUp;
    if (wait && (wait.edge || (wait.target && this.caughtUpWith(wait.target)))) this.caughtUp();
  }

  /** stop waiting (close) */
  stop(): void {
    if (this.catchUp) clearTimeout(this.catchUp.timer);
  }

  /** the waiting window may replay now */
  private caughtUp(): void {
    const wait = this.catchUp;
    if (!wait) return;
    clearTimeout(wait.timer);
    this.catchUp = null;
    this.syncedFor = wait.due;
    this.wake();
  }

  /** the projection has seen every record before `end` (next offsets per partition) */
  private caughtUpWith(end: Positions): boolean {
    const seen = this.processed();
    for (const [partition, next] of Object.entries(end)) {
      if (next === '0') continue;
      const last = seen[partition];
      if (last === undefined || BigInt(last) + 1n < BigInt(next)) return false;
    }
    return true;
  }
}

/** the next flush: a timer, or an immediate when it is due now (no 1 ms timer clamp between slices) */
export class FlushTimer {
  timer: { cancel(): void } | null = null;
  timerAt = Infinity;
  private stopped = false;

  constructor(private readonly flush: () => void) {}

  /** run the flush at `at` (Unix ms) at the latest */
  schedule(at: number): void {
    if (this.stopped) return;
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

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }
}
