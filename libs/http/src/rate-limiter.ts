/**
 * Request rate limits per client (API.md §8: 60 requests per minute, burst 10 per second):
 * sliding windows over the times of the requests a client was allowed, so "N per window" holds
 * over every window of that length, not per calendar minute or second. A refused request does
 * not count. Plain TypeScript: no Nest, no HTTP; the clock is injected.
 */

/** at most `max` allowed requests in any `windowMs` */
export interface RateWindow {
  max: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** refused: how long until a request of this client would be allowed (ms, > 0); allowed: 0 */
  retryAfterMs: number;
}

/** the times of a client's last allowed requests, oldest first, in a ring of the largest window's size */
interface History {
  times: Float64Array;
  /** index of the oldest entry */
  head: number;
  length: number;
}

/** how many clients are kept before the idle ones are swept (a client idle for the longest window is forgotten) */
const SWEEP_EVERY = 10_000;

export class RateLimiter {
  private readonly clients = new Map<string, History>();
  private readonly capacity: number;
  private readonly longestMs: number;
  private sinceSweep = 0;

  constructor(
    private readonly windows: readonly RateWindow[],
    private readonly now: () => number = Date.now,
  ) {
    for (const w of windows) {
      if (!Number.isSafeInteger(w.max) || w.max < 1) throw new RangeError(`a rate window allows at least 1 request, got ${w.max}`);
      if (!(w.windowMs > 0)) throw new RangeError(`a rate window lasts more than 0 ms, got ${w.windowMs}`);
    }
    this.capacity = Math.max(0, ...windows.map((w) => w.max));
    this.longestMs = Math.max(0, ...windows.map((w) => w.windowMs));
  }

  /** true when there is no limit at all (no window) */
  get unlimited(): boolean {
    return this.windows.length === 0;
  }

  /** how many clients are tracked (those with a request allowed in the longest window, at most) */
  get size(): number {
    return this.clients.size;
  }

  /** one request of `client`: allowed (and counted) or refused with how long to wait */
  take(client: string): RateDecision {
    if (this.windows.length === 0) return { allowed: true, retryAfterMs: 0 };
    const t = this.now();
    if (++this.sinceSweep >= SWEEP_EVERY) this.sweep(t);
    let h = this.clients.get(client);
    if (h === undefined) {
      h = { times: new Float64Array(this.capacity), head: 0, length: 0 };
      this.clients.set(client, h);
    }
    let wait = 0;
    for (const w of this.windows) {
      if (h.length < w.max) continue;
      // the w.max-th most recent allowed request: while it is inside the window, the window is full
      const nth = h.times[(h.head + h.length - w.max) % this.capacity];
      // (a clock set back never makes the wait longer than the window)
      if (t - nth < w.windowMs) wait = Math.max(wait, Math.min(w.windowMs, nth + w.windowMs - t));
    }
    if (wait > 0) return { allowed: false, retryAfterMs: wait };
    if (h.length === this.capacity) {
      h.times[h.head] = t;
      h.head = (h.head + 1) % this.capacity;
    } else {
      h.times[(h.head + h.length) % this.capacity] = t;
      h.length++;
    }
    return { allowed: true, retryAfterMs: 0 };
  }

  /** forget the clients whose last allowed request is older than the longest window (they start afresh) */
  sweep(t: number = this.now()): void {
    this.sinceSweep = 0;
    for (const [client, h] of this.clients) {
      const last = h.times[(h.head + h.length - 1) % this.capacity];
      if (h.length === 0 || t - last >= this.longestMs) this.clients.delete(client);
    }
  }
}
