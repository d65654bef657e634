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
import { StringInterner } from '@app/contracts';
import { tupleKey, tupleOfKey, type QuoteInterest, type QuoteTuple } from '@app/contracts';

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

/**
 * A held tuple and its holders with their expiries (ms). Nearly every tuple has one holder (one
 * stream instance, or one behind a load balancer): it is kept in the entry itself, and a map is
 * made only for the others, so 10,000 tuples are 10,000 small objects, not also 10,000 maps.
 */
interface Held {
  tuple: QuoteTuple;
  /** the first holder ('' once it let go while others hold) and its expiry */
  instance: string;
  until: number;
  /** the other holders, instance → expiry; undefined while there are none */
  others: Map<string, number> | undefined;
}

/** the holder's expiry, undefined when it does not hold the tuple */
function expiryOf(h: Held, instance: string): number | undefined {
  if (h.instance === instance) return h.until;
  return h.others?.get(instance);
}

function setExpiry(h: Held, instance: string, until: number): void {
  if (h.instance === instance) h.until = until;
  else if (h.others !== undefined && h.others.has(instance)) h.others.set(instance, until);
  else if (h.instance === '') {
    // the entry's own slot is free: a new holder takes it
    h.instance = instance;
    h.until = until;
  } else (h.others ??= new Map()).set(instance, until);
}

/** the holder lets go; false when it did not hold the tuple */
function letGo(h: Held, instance: string): boolean {
  if (h.instance === instance) {
    h.instance = '';
    return true;
  }
  return h.others?.delete(instance) ?? false;
}

function heldByNone(h: Held): boolean {
  return h.instance === '' && (h.others === undefined || h.others.size === 0);
}

export class InterestRegistry {
  private readonly held = new Map<string, Held>();
  /**
   * one copy of each instance id and mint the holdings keep: every record parsed or key split
   * makes new strings, which a held tuple would otherwise keep one copy of each for its life
   */
  private readonly strings = new StringInterner();

  constructor(private readonly defaultTtlMs = DEFAULT_INTEREST_TTL_MS) {}

  /** Apply one interest record appended at `atMs`. */
  apply(i: QuoteInterest, atMs: number, change: InterestChange = { added: [], removed: [], joined: [] }): InterestChange {
    if (i.op === 'remove') {
      const key = tupleKey(i.tuple);
      const h = this.held.get(key);
      if (h && letGo(h, i.instance) && heldByNone(h)) {
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
      const kept: QuoteTuple = { ...tuple, in: this.strings.intern(tuple.in), out: this.strings.intern(tuple.out) };
      h = { tuple: kept, instance: '', until: 0, others: undefined };
      this.held.set(key, h);
      change.added.push(kept);
    }
    const prev = expiryOf(h, instance);
    if (prev === undefined && !created) change.joined.push(h.tuple);
    if (expiry > (prev ?? 0)) setExpiry(h, prev === undefined ? this.strings.intern(instance) : instance, expiry);
  }

  /** Drop holdings that expired before `nowMs`; returns the tuples nobody holds any more. */
  expire(nowMs: number): QuoteTuple[] {
    const gone: QuoteTuple[] = [];
    for (const [key, h] of this.held) {
      if (h.instance !== '' && h.until < nowMs) h.instance = '';
      if (h.others !== undefined) {
        for (const [instance, until] of h.others) if (until < nowMs) h.others.delete(instance);
        if (h.others.size === 0) h.others = undefined;
      }
      if (heldByNone(h)) {
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
