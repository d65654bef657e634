/**
 * The stream's caps per owner (an API key, or a client address with keys off), across all of its
 * connections to this instance: at most `maxConnections` open connections, at most
 * `maxSubscriptions` live pairs in all, and at most CHURN_FACTOR × `maxSubscriptions` new pairs
 * accepted a minute (room for reconnections; subscribing and unsubscribing in a loop cannot flood
 * the quote-interest topic).
 * Plain TypeScript; the clock is injected.
 */
export interface OwnerCapsLimits {
  maxConnections: number;
  maxSubscriptions: number;
}

interface Tally {
  connections: number;
  subscriptions: number;
  /** new pairs accepted in the current minute, and when that minute started */
  added: number;
  since: number;
}

const MINUTE_MS = 60_000;
/** new pairs a minute, in live caps: a client may resubscribe all it holds a few times a minute */
export const CHURN_FACTOR = 4;

export class OwnerCaps {
  private readonly owners = new Map<string, Tally>();

  constructor(
    readonly limits: OwnerCapsLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** one more connection of `owner`: false (and nothing counted) when it has the most it may */
  open(owner: string): boolean {
    const t = this.tally(owner);
    if (t.connections >= this.limits.maxConnections) return false;
    t.connections++;
    return true;
  }

  /** a connection of `owner` closed, holding `subscriptions` pairs */
  close(owner: string, subscriptions: number): void {
    const t = this.owners.get(owner);
    if (t === undefined) return;
    t.connections = Math.max(0, t.connections - 1);
    t.subscriptions = Math.max(0, t.subscriptions - subscriptions);
    this.forgetIdle(owner, t);
  }

  /** how many new pairs `owner` may subscribe now, and which cap binds when none */
  room(owner: string): { left: number; why: 'live' | 'rate' } {
    const t = this.tally(owner);
    if (this.now() - t.since >= MINUTE_MS) {
      t.added = 0;
      t.since = this.now();
    }
    const live = this.limits.maxSubscriptions - t.subscriptions;
    const rate = CHURN_FACTOR * this.limits.maxSubscriptions - t.added;
    return live <= rate ? { left: Math.max(0, live), why: 'live' } : { left: Math.max(0, rate), why: 'rate' };
  }

  subscribed(owner: string, n: number): void {
    const t = this.tally(owner);
    t.subscriptions += n;
    t.added += n;
  }

  unsubscribed(owner: string, n: number): void {
    const t = this.owners.get(owner);
    if (t !== undefined) t.subscriptions = Math.max(0, t.subscriptions - n);
  }

  /** the message for pairs refused by a cap */
  message(why: 'live' | 'rate', rejected: number): string {
    return why === 'live'
      ? `subscription limit reached: at most ${this.limits.maxSubscriptions} live pairs per key (per address without keys); ${rejected} pair(s) rejected`
      : `subscription rate limit reached: at most ${CHURN_FACTOR * this.limits.maxSubscriptions} new pairs a minute per key (per address without keys); ${rejected} pair(s) rejected`;
  }

  private tally(owner: string): Tally {
    let t = this.owners.get(owner);
    if (t === undefined) this.owners.set(owner, (t = { connections: 0, subscriptions: 0, added: 0, since: this.now() }));
    return t;
  }

  private forgetIdle(owner: string, t: Tally): void {
    if (t.connections === 0 && t.subscriptions === 0 && (t.added === 0 || this.now() - t.since >= MINUTE_MS)) this.owners.delete(owner);
  }

  /** forget the owners with no connection whose minute is over (call now and then) */
  sweep(): void {
    for (const [owner, t] of this.owners) this.forgetIdle(owner, t);
  }

  get size(): number {
    return this.owners.size;
  }
}
