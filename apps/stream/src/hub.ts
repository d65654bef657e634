import { StringInterner } from '@app/contracts';
import { hasControls, parseTuple, plainQuote, sameQuote, tupleKey, type QuoteTuple, type QuotesChanged } from '@app/contracts';

/**
 * The stream's state, plain TypeScript: connections, their subscriptions, the last quote per
 * tuple, and what each connection was last sent (so identical re-quotes are suppressed per
 * connection). IO is injected: a connection is anything with `send`, interest changes go to
 * `onInterest`.
 */
export interface StreamConnection {
  readonly id: number;
  /**
   * queue a message (an object to serialize, or its JSON text already serialized); returns false
   * when the connection was dropped (slow reader)
   */
  send(message: object | string): boolean;
}

export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 256;

export interface SubscribeOutcome {
  count: number;
  /** messages explaining rejected pairs (limit reached); invalid and duplicate pairs are skipped silently */
  errors: string[];
  /** the distinct new pairs refused because `room` was used up (the caller explains those) */
  overRoom: number;
}

/**
 * A tuple some connection holds. Most tuples have one connection: it is kept in the state itself,
 * and a set is made only for more (10,000 tuples on 100 connections are 10,000 small objects,
 * not also 10,000 sets)
 */
interface TupleState {
  tuple: QuoteTuple;
  /** its key (tupleKey), the one copy the hub keeps: every connection's maps use it */
  key: string;
  /** the first connection that holds it (null once it let go while others hold it) */
  conn: StreamConnection | null;
  /** the other connections that hold it; undefined while there are none */
  others: Set<StreamConnection> | undefined;
  last?: LastQuote;
}

/**
 * a tuple's last quote, the number of its content (equal for two quotes that are the same, see
 * sameQuote) and, once a connection needed it, its message as JSON text (shared by all its
 * connections)
 */
interface LastQuote {
  quote: QuotesChanged;
  version: number;
  text?: string;
}

interface ConnState {
  subs: Set<string>;
  /** per tuple key: the version of the last quote sent */
  lastSent: Map<string, number>;
}

export type InterestListener = (op: 'add' | 'remove', tuple: QuoteTuple) => void;

/**
 * The quote event of the API (section 6), plus `exactIn` and `amountIn` so ExactOut tuples are
 * unambiguous, and a pair's route controls (normalised: program ids, maxHops) when it has any.
 */
export function quoteMessage(q: QuotesChanged): object {
  const t = q.tuple;
  // a pair with route controls: they say which of the client's subscriptions the message is for
  const controls = hasControls(t) ? { dexes: t.dexes, excludeDexes: t.excludeDexes, maxHops: t.maxHops, restrictIntermediateTokens: t.restrictIntermediateTokens } : {};
  if (q.error !== undefined) {
    return { type: 'error', message: q.error, in: t.in, out: t.out, amount: t.amount, exactIn: t.exactIn, ...controls, slot: q.slot };
  }
  return {
    type: 'quote',
    in: t.in,
    out: t.out,
    amount: t.amount,
    exactIn: t.exactIn,
    ...controls,
    amountIn: q.amountIn,
    amountOut: q.amountOut,
    priceImpactBps: q.priceImpactBps,
    hops: q.hops,
    slot: q.slot,
  };
}

/**
 * The text of quoteMessage(q), as JSON.stringify writes it; written out directly when every
 * field is plain (plainQuote), the common case, once per quote change.
 */
export function quoteText(q: QuotesChanged): string {
  if (q.error !== undefined || !plainQuote(q)) return JSON.stringify(quoteMessage(q));
  const t = q.tuple;
  return `{"type":"quote","in":"${t.in}","out":"${t.out}","amount":"${t.amount}","exactIn":${t.exactIn},"amountIn":"${q.amountIn}","amountOut":"${q.amountOut}","priceImpactBps":${q.priceImpactBps},"hops":${q.hops},"slot":${q.slot}}`;
}

export class StreamHub {
  private readonly tuples = new Map<string, TupleState>();
  private readonly conns = new Map<StreamConnection, ConnState>();
  /** the last version given to a quote's content (hub-wide, so versions are never reused) */
  private versions = 0;
  /** one copy of each mint the tuples name (every frame parsed makes new strings) */
  private readonly mints = new StringInterner();

  constructor(
    private readonly onInterest: InterestListener,
    private readonly maxPerConnection = MAX_SUBSCRIPTIONS_PER_CONNECTION,
  ) {}

  connect(conn: StreamConnection): void {
    this.conns.set(conn, { subs: new Set(), lastSent: new Map() });
  }

  /**
   * Accept valid, new pairs up to the limit, and at most `room` of them (the caller's own cap,
   * e.g. per API key); push the cached quote of each accepted pair at once.
   */
  subscribe(conn: StreamConnection, pairs: unknown[], room = Infinity): SubscribeOutcome {
    const state = this.conns.get(conn);
    if (!state) return { count: 0, errors: [], overRoom: 0 };
    let count = 0;
    /** the distinct pairs refused for the limit (a pair repeated in the frame is one pair) */
    let limited: Set<string> | undefined;
    let overRoom: Set<string> | undefined;
    for (const raw of pairs) {
      const tuple = parseTuple(raw);
      if (!tuple) continue;
      const key = tupleKey(tuple);
      if (state.subs.has(key)) continue;
      if (state.subs.size >= this.maxPerConnection) {
        (limited ??= new Set()).add(key);
        continue;
      }
      if (count >= room) {
        (overRoom ??= new Set()).add(key);
        continue;
      }
      count++;
      let t = this.tuples.get(key);
      if (!t) {
        // the hub's one copy of the tuple: its mints shared with the other tuples that name them
        const kept: QuoteTuple = { ...tuple, in: this.mints.intern(tuple.in), out: this.mints.intern(tuple.out) };
        t = { tuple: kept, key, conn: null, others: undefined };
        this.tuples.set(key, t);
        this.onInterest('add', kept);
      }
      state.subs.add(t.key);
      if (t.conn === null) t.conn = conn;
      else (t.others ??= new Set()).add(conn);
      if (t.last) {
        this.deliver(conn, state, t.key, t.last);
        // the first quote found the connection's queue full: it was dropped, stop here
        if (this.conns.get(conn) !== state) return { count, errors: [], overRoom: 0 };
      }
    }
    const errors = limited
      ? [`subscription limit reached: at most ${this.maxPerConnection} pairs per connection; ${limited.size} pair(s) rejected`]
      : [];
    return { count, errors, overRoom: overRoom?.size ?? 0 };
  }

  unsubscribe(conn: StreamConnection, pairs: unknown[]): number {
    const state = this.conns.get(conn);
    if (!state) return 0;
    let count = 0;
    for (const raw of pairs) {
      const tuple = parseTuple(raw);
      if (!tuple) continue;
      const key = tupleKey(tuple);
      if (!state.subs.delete(key)) continue;
      state.lastSent.delete(key);
      count++;
      this.release(key, conn);
    }
    return count;
  }

  disconnect(conn: StreamConnection): void {
    const state = this.conns.get(conn);
    if (!state) return;
    this.conns.delete(conn);
    for (const key of state.subs) this.release(key, conn);
  }

  /** A quote from the router: push it to every subscriber whose last message differs (`key`: tupleKey of its tuple). */
  onQuote(q: QuotesChanged, key: string = tupleKey(q.tuple)): void {
    const t = this.tuples.get(key);
    if (!t) return;
    const prev = t.last;
    const last: LastQuote = { quote: q, version: prev !== undefined && sameQuote(prev.quote, q) ? prev.version : ++this.versions };
    t.last = last;
    // a connection dropped for a full queue leaves the tuple after the loop, not during it
    let dropped: StreamConnection[] | undefined;
    if (t.conn !== null && !this.offer(t.conn, t.key, last)) (dropped ??= []).push(t.conn);
    if (t.others !== undefined) for (const conn of t.others) if (!this.offer(conn, t.key, last)) (dropped ??= []).push(conn);
    if (dropped) for (const conn of dropped) this.disconnect(conn);
  }

  /** the tuple with this key (see tupleKey) when a client of this hub holds it */
  held(key: string): QuoteTuple | undefined {
    return this.tuples.get(key)?.tuple;
  }

  /** the keys (tupleKey) of the tuples its clients hold, what a lease lists */
  activeKeys(): string[] {
    return [...this.tuples.keys()];
  }

  stats(): { connections: number; tuples: number; subscriptions: number } {
    let subscriptions = 0;
    for (const s of this.conns.values()) subscriptions += s.subs.size;
    return { connections: this.conns.size, tuples: this.tuples.size, subscriptions };
  }

  /** send a tuple's last quote to a connected connection (see send); false when its queue is full */
  private offer(conn: StreamConnection, key: string, last: LastQuote): boolean {
    const state = this.conns.get(conn);
    return state === undefined || this.send(conn, state, key, last);
  }

  /** send a tuple's last quote and drop the connection when its queue is full */
  private deliver(conn: StreamConnection, state: ConnState, key: string, last: LastQuote): void {
    if (!this.send(conn, state, key, last)) this.disconnect(conn);
  }

  /**
   * send a tuple's last quote unless it is what this connection was last sent (its text
   * serialized once for all connections); false when the connection's queue is full
   */
  private send(conn: StreamConnection, state: ConnState, key: string, last: LastQuote): boolean {
    if (state.lastSent.get(key) === last.version) return true;
    state.lastSent.set(key, last.version);
    return conn.send((last.text ??= quoteText(last.quote)));
  }

  private release(key: string, conn: StreamConnection): void {
    const t = this.tuples.get(key);
    if (!t) return;
    if (t.conn === conn) t.conn = null;
    else t.others?.delete(conn);
    if (t.others !== undefined && t.others.size === 0) t.others = undefined;
    if (t.conn === null && t.others === undefined) {
      this.tuples.delete(key);
      this.onInterest('remove', t.tuple);
    }
  }
}
