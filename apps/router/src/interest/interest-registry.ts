/**
 * Who wants which quote tuples: the union of the stream instances' interest, read from the
 * `quote-interest` topic. Plain TypeScript (no Nest, no log): time is passed in (the records'
 * append times), so replaying the topic gives the same set.
 *
 * Each (instance, tuple) holding has its own expiry: `add` and `lease` set it to time + ttl,
 * `remove` drops it. Leases are therefore additive refreshes (a lease may be split over several
 * records), and records of one instance read out of order across partitions cannot drop a
 * tuple another record added: the worst case is that a removed tuple lives until its lease ends.
 */
import { tupleKey, tupleOfKey, type QuoteInterest, type QuoteTuple } from '../../../../libs/contracts/src/stream';

/** how long an `add` holds without a lease (the stream leases every 5 s with a 15 s ttl) */
export const DEFAULT_INTEREST_TTL_MS = 15_000;
/**
 * the longest a lease holds, whatever its record asks: a restarting router reads only the
 * records of the last MAX_INTEREST_TTL_MS (plus a margin), so a longer hold would not survive it
 */
export const MAX_INTEREST_TTL_MS = 60_000;

export interface InterestChange {
  /** tuples that got their first holder */
  added: QuoteTuple[];
  /** tuples that lost their last holder */
  removed: QuoteTuple[];
  /** tuples an instance started to hold that others held already (it needs a first quote) */
  joined: QuoteTuple[];
}

interface Held {
  tuple: QuoteTuple;
  /** instance → expiry (ms) */
  holders: Map<string, number>;
}

export class InterestRegistry {
  private readonly held = new Map<string, Held>();

  constructor(private readonly defaultTtlMs = DEFAULT_INTEREST_TTL_MS) {}

  /** Apply one interest record appended at `atMs`. */
  apply(i: QuoteInterest, atMs: number, change: InterestChange = { added: [], removed: [], joined: [] }): InterestChange {
    if (i.op === 'remove') {
      const key = tupleKey(i.tuple);
      const h = this.held.get(key);
      if (h && h.holders.delete(i.instance) && h.holders.size === 0) {
        this.held.delete(key);
        change.removed.push(h.tuple);
      }
      return change;
    }
    const expiry = atMs + Math.min(MAX_INTEREST_TTL_MS, i.op === 'lease' ? i.ttlMs : this.defaultTtlMs);
    if (i.op !== 'lease') {
      this.hold(tupleKey(i.tuple), i.tuple, i.instance, expiry, change);
      return change;
    }
    // a lease names its tuples by key, validated by its decoder (decodeQuoteInterest): a key held
    // already needs no tuple; another one is read back into its fields
    for (const key of i.keys) {
      const h = this.held.get(key);
      const tuple = h !== undefined ? h.tuple : tupleOfKey(key);
      if (tuple === null) throw new Error(`lease key ${key} names no tuple (a lease must come from decodeQuoteInterest)`);
      this.hold(key, tuple, i.instance, expiry, change, h);
    }
    return change;
  }

  /** `instance` holds the tuple until `expiry` at least (`h`: its entry, when the caller looked it up) */
  private hold(key: string, tuple: QuoteTuple, instance: string, expiry: number, change: InterestChange, h = this.held.get(key)): void {
    const created = h === undefined;
    if (h === undefined) {
      h = { tuple, holders: new Map() };
      this.held.set(key, h);
      change.added.push(tuple);
    }
    const prev = h.holders.get(instance);
    if (prev === undefined && !created) change.joined.push(tuple);
    if (expiry > (prev ?? 0)) h.holders.set(instance, expiry);
  }

  /** Drop holdings that expired before `nowMs`; returns the tuples nobody holds any more. */
  expire(nowMs: number): QuoteTuple[] {
    const gone: QuoteTuple[] = [];
    for (const [key, h] of this.held) {
      for (const [instance, until] of h.holders) if (until < nowMs) h.holders.delete(instance);
      if (h.holders.size === 0) {
        this.held.delete(key);
        gone.push(h.tuple);
      }
    }
    return gone;
  }

  has(key: string): boolean {
    return this.held.has(key);
  }

  tuples(): QuoteTuple[] {
    return [...this.held.values()].map((h) => h.tuple);
  }

  get size(): number {
    return this.held.size;
  }
}
