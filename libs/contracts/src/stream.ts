import { isPublicKey } from '@app/solana';
import { parseDexList } from './dexes';
import { ContractError } from './errors';
import { TOPICS } from './topics';

/**
 * The subscription tuple of the live stream: (in, out, amount, exactIn) and the pair's route
 * controls, if any. Two tuples that differ only in amount, or only in their controls, are
 * distinct. The controls are kept normalised, so that two spellings of the same controls are the
 * same tuple: `dexes` / `excludeDexes` as sorted program ids, `onlyDirectRoutes` as maxHops 1,
 * `restrictIntermediateTokens` only when true; absent when not asked for.
 */
export interface QuoteTuple {
  in: string;
  out: string;
  /** smallest units, decimal string without leading zeros */
  amount: string;
  exactIn: boolean;
  dexes?: string[];
  excludeDexes?: string[];
  maxHops?: number;
  restrictIntermediateTokens?: true;
}

/** the most hops a pair may ask for (the router caps it at its MAX_HOPS) */
export const TUPLE_MAX_HOPS = 5;

/** whether a tuple carries route controls */
export function hasControls(t: QuoteTuple): boolean {
  return t.dexes !== undefined || t.excludeDexes !== undefined || t.maxHops !== undefined || t.restrictIntermediateTokens !== undefined;
}

/** the controls part of a key: `d=<ids>;x=<ids>;h=<n>;r=1`, the fields present in that order */
function controlsKey(t: QuoteTuple): string {
  const parts: string[] = [];
  if (t.dexes !== undefined) parts.push(`d=${t.dexes.join(',')}`);
  if (t.excludeDexes !== undefined) parts.push(`x=${t.excludeDexes.join(',')}`);
  if (t.maxHops !== undefined) parts.push(`h=${t.maxHops}`);
  if (t.restrictIntermediateTokens) parts.push('r=1');
  return parts.join(';');
}

/** The log key of a tuple (also its identity in memory): `in:out:amount:in|out`, then `:controls` when it has any. */
export function tupleKey(t: QuoteTuple): string {
  const base = `${t.in}:${t.out}:${t.amount}:${t.exactIn ? 'in' : 'out'}`;
  return hasControls(t) ? `${base}:${controlsKey(t)}` : base;
}

/**
 * `quote-interest` records are written at version 2: a lease lists its tuples by key (see
 * QuoteInterest). Version 1 records (a lease listing tuple objects) are still read.
 */
export const QUOTE_INTEREST_VERSION = 2;
export const QUOTES_CHANGED_VERSION = 1;

/**
 * `quote-interest`: a stream instance says which tuples its clients hold. `add`/`remove` for
 * one tuple; `lease` refreshes the instance's hold on the listed tuples for `ttlMs` (sent
 * periodically, possibly split over several records: leases add up, they never remove), so a
 * router started later, or an instance that died, converges without manual cleanup. A lease
 * names its tuples by their keys (tupleKey): every few seconds it lists everything an instance
 * holds, which the router mostly holds already, and a key is read and looked up at a fraction of
 * the cost of a tuple object parsed and validated.
 */
export type QuoteInterest =
  | { op: 'add' | 'remove'; instance: string; tuple: QuoteTuple }
  | { op: 'lease'; instance: string; keys: string[]; ttlMs: number };

/** `quotes-changed`: the router's latest quote for a tuple. */
export interface QuotesChanged {
  tuple: QuoteTuple;
  amountOut: string;
  /** for ExactOut tuples: the input the quote asks for */
  amountIn: string;
  priceImpactBps: number;
  hops: number;
  slot: number;
  /** set when the tuple cannot be quoted right now (no route, insufficient liquidity) */
  error?: string;
}

const AMOUNT = /^[1-9][0-9]{0,19}$/;
const U64_MAX = (1n << 64n) - 1n;

/** the fields a pair may have: the tuple's own and the route controls that make sense for a live quote */
const PAIR_FIELDS = new Set(['in', 'out', 'amount', 'exactIn', 'dexes', 'excludeDexes', 'onlyDirectRoutes', 'maxHops', 'restrictIntermediateTokens']);

/**
 * Validate a tuple from any source (client frame or log record); returns null when invalid: a
 * field out of shape, or one a pair does not take (maxAccounts and platformFeeBps are not stream
 * controls). `dexes` / `excludeDexes` take labels or program ids, as an array or one
 * comma-separated string, as the REST controls do.
 */
export function parseTuple(p: unknown): QuoteTuple | null {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return null;
  const o = p as Record<string, unknown>;
  if (!isPublicKey(o.in) || !isPublicKey(o.out) || o.in === o.out) return null;
  if (typeof o.amount !== 'string' || !AMOUNT.test(o.amount) || BigInt(o.amount) > U64_MAX) return null;
  if (typeof o.exactIn !== 'boolean') return null;
  const t: QuoteTuple = { in: o.in, out: o.out, amount: o.amount, exactIn: o.exactIn };
  let extra = false;
  for (const k in o) {
    if (!PAIR_FIELDS.has(k)) return null;
    if (k !== 'in' && k !== 'out' && k !== 'amount' && k !== 'exactIn') extra = true;
  }
  return extra ? withControls(t, o) : t;
}

/** `t` with the controls of `o` normalised (see QuoteTuple); null when one is invalid */
function withControls(t: QuoteTuple, o: Record<string, unknown>): QuoteTuple | null {
  for (const k of ['dexes', 'excludeDexes'] as const) {
    if (o[k] === undefined) continue;
    const ids = parseDexList(o[k]);
    if (ids === null) return null;
    t[k] = ids.sort();
  }
  if (o.maxHops !== undefined) {
    if (typeof o.maxHops !== 'number' || !Number.isInteger(o.maxHops) || o.maxHops < 1 || o.maxHops > TUPLE_MAX_HOPS) return null;
    t.maxHops = o.maxHops;
  }
  if (o.onlyDirectRoutes !== undefined) {
    if (typeof o.onlyDirectRoutes !== 'boolean') return null;
    if (o.onlyDirectRoutes) t.maxHops = 1;
  }
  if (o.restrictIntermediateTokens !== undefined) {
    if (typeof o.restrictIntermediateTokens !== 'boolean') return null;
    if (o.restrictIntermediateTokens) t.restrictIntermediateTokens = true;
  }
  return t;
}

/**
 * The fields of a key as tupleKey writes them, not validated (for a key validated already, see
 * parseTupleKey); null when the key does not have that shape.
 */
export function tupleOfKey(key: string): QuoteTuple | null {
  const parts = key.split(':');
  if ((parts.length !== 4 && parts.length !== 5) || (parts[3] !== 'in' && parts[3] !== 'out')) return null;
  const t: QuoteTuple = { in: parts[0], out: parts[1], amount: parts[2], exactIn: parts[3] === 'in' };
  if (parts.length === 4) return t;
  const fields = t as unknown as Record<string, unknown>;
  for (const part of parts[4].split(';')) {
    const [name, value] = part.split('=');
    if (name === 'd') fields.dexes = value.split(',');
    else if (name === 'x') fields.excludeDexes = value.split(',');
    else if (name === 'h') fields.maxHops = /^[0-9]$/.test(value) ? Number(value) : value;
    else if (name === 'r' && value === '1') fields.restrictIntermediateTokens = true;
    else return null;
  }
  return t;
}

/** The tuple a key names (the inverse of tupleKey), validated as parseTuple does; null when the key names none, or names it in another spelling than its own. */
export function parseTupleKey(key: unknown): QuoteTuple | null {
  const fields = typeof key === 'string' ? tupleOfKey(key) : null;
  const t = fields === null ? null : parseTuple(fields);
  return t !== null && tupleKey(t) === key ? t : null;
}

function parseJson(topic: string, value: Buffer): Record<string, unknown> {
  let obj: unknown;
  try {
    obj = JSON.parse(value.toString());
  } catch {
    throw new ContractError(topic, 'malformed record: not JSON');
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new ContractError(topic, 'malformed record: not an object');
  return obj as Record<string, unknown>;
}

export function encodeQuoteInterest(i: QuoteInterest): Buffer {
  return Buffer.from(JSON.stringify({ v: QUOTE_INTEREST_VERSION, ...i }));
}

/**
 * A quote-interest record, validated. A lease's keys are validated one by one (parseTupleKey)
 * except those `known` says are valid already (the router passes the keys it holds: a lease
 * mostly repeats them); any invalid one rejects the whole record. A version 1 lease (tuple
 * objects) is read as the same lease by key.
 */
export function decodeQuoteInterest(value: Buffer, known?: (key: string) => boolean): QuoteInterest {
  const topic = TOPICS.quoteInterest;
  const o = parseJson(topic, value);
  if (o.v !== QUOTE_INTEREST_VERSION && o.v !== 1) throw new ContractError(topic, `unsupported schema version ${JSON.stringify(o.v)}`);
  if (typeof o.instance !== 'string' || o.instance.length === 0 || o.instance.length > 128) throw new ContractError(topic, 'malformed record: instance');
  if (o.op === 'add' || o.op === 'remove') {
    const tuple = parseTuple(o.tuple);
    if (!tuple) throw new ContractError(topic, 'malformed record: tuple');
    return { op: o.op, instance: o.instance, tuple };
  }
  if (o.op === 'lease') {
    if (typeof o.ttlMs !== 'number' || !Number.isSafeInteger(o.ttlMs) || o.ttlMs <= 0) throw new ContractError(topic, 'malformed record: ttlMs');
    const keys: string[] = [];
    if (o.v === 1) {
      if (!Array.isArray(o.tuples)) throw new ContractError(topic, 'malformed record: tuples');
      for (const t of o.tuples) {
        const tuple = parseTuple(t);
        if (!tuple) throw new ContractError(topic, 'malformed record: tuple in lease');
        keys.push(tupleKey(tuple));
      }
    } else {
      if (!Array.isArray(o.keys)) throw new ContractError(topic, 'malformed record: keys');
      for (const k of o.keys as unknown[]) {
        if (typeof k !== 'string' || !((known !== undefined && known(k)) || parseTupleKey(k) !== null)) {
          throw new ContractError(topic, `malformed record: key in lease ${JSON.stringify(k).slice(0, 120)}`);
        }
        keys.push(k);
      }
    }
    return { op: 'lease', instance: o.instance, keys, ttlMs: o.ttlMs };
  }
  throw new ContractError(topic, `malformed record: unknown op ${JSON.stringify(o.op)}`);
}

/** letters and digits only (base58 mints, decimal amounts): a JSON string of them needs no escape */
const PLAIN = /^[0-9A-Za-z]*$/;

/**
 * The quote's fields are all plain (see PLAIN; integer numbers; a boolean exactIn), so the JSON
 * of a record or message built from them can be written out directly: the same text
 * JSON.stringify gives, at a third of its cost (the stream writes one per push).
 */
export function plainQuote(q: QuotesChanged): boolean {
  const t = q.tuple;
  return (
    !hasControls(t) &&
    PLAIN.test(t.in) &&
    PLAIN.test(t.out) &&
    PLAIN.test(t.amount) &&
    typeof t.exactIn === 'boolean' &&
    PLAIN.test(q.amountOut) &&
    PLAIN.test(q.amountIn) &&
    Number.isSafeInteger(q.priceImpactBps) &&
    Number.isSafeInteger(q.hops) &&
    Number.isSafeInteger(q.slot)
  );
}

/** the pieces of a record's head around its tuple's fields, as encodeQuotesChanged writes them */
const HEAD_OPEN = `{"v":${QUOTES_CHANGED_VERSION},"tuple":{"in":"`;
const HEAD_OUT = '","out":"';
const HEAD_AMOUNT = '","amount":"';
const headClose = (exactIn: boolean): string => (exactIn ? '","exactIn":true},' : '","exactIn":false},');

/** the record's text up to its amounts for a tuple: what decodeQuotesChanged expects of a record under its key */
function recordHead(t: QuoteTuple): string {
  return `${HEAD_OPEN}${t.in}${HEAD_OUT}${t.out}${HEAD_AMOUNT}${t.amount}${headClose(t.exactIn)}`;
}

/** `at` + piece's length when `text` has `piece` at `at`, else -1 (also when `at` is already -1) */
function follows(text: string, piece: string, at: number): number {
  return at >= 0 && text.startsWith(piece, at) ? at + piece.length : -1;
}

/**
 * The length of recordHead(t) when `text` starts with it, else -1: its pieces compared in place
 * (the stream reads one record per push; nothing is built for the comparison)
 */
function headLength(text: string, t: QuoteTuple): number {
  let at = follows(text, HEAD_OPEN, 0);
  at = follows(text, t.in, at);
  at = follows(text, HEAD_OUT, at);
  at = follows(text, t.out, at);
  at = follows(text, HEAD_AMOUNT, at);
  at = follows(text, t.amount, at);
  return follows(text, headClose(t.exactIn), at);
}

export function encodeQuotesChanged(q: QuotesChanged): Buffer {
  if (q.error === undefined && plainQuote(q)) {
    return Buffer.from(`${recordHead(q.tuple)}"amountOut":"${q.amountOut}","amountIn":"${q.amountIn}","priceImpactBps":${q.priceImpactBps},"hops":${q.hops},"slot":${q.slot}}`, 'latin1');
  }
  const record = { v: QUOTES_CHANGED_VERSION, tuple: q.tuple, amountOut: q.amountOut, amountIn: q.amountIn, priceImpactBps: q.priceImpactBps, hops: q.hops, slot: q.slot, error: q.error };
  return Buffer.from(JSON.stringify(record));
}

/** the rest of a record as encodeQuotesChanged writes a quote without error: amounts, price impact, hops, slot (sticky: matched from lastIndex to the end) */
const RECORD_TAIL = /"amountOut":"(0|[1-9][0-9]*)","amountIn":"(0|[1-9][0-9]*)","priceImpactBps":(-?(?:0|[1-9][0-9]*)),"hops":(0|[1-9][0-9]*),"slot":(0|[1-9][0-9]*)}$/y;

/**
 * A record under its key's tuple in the exact form encodeQuotesChanged writes it: its quote, as
 * the full decode would return it (the tuple shared, every field valid); undefined for any other
 * text (the full decode then accepts or rejects it).
 */
function decodeCanonical(value: Buffer, t: QuoteTuple): QuotesChanged | undefined {
  const text = value.toString('latin1');
  const at = headLength(text, t);
  if (at < 0) return undefined;
  RECORD_TAIL.lastIndex = at;
  const m = RECORD_TAIL.exec(text);
  if (m === null) return undefined;
  const priceImpactBps = Number(m[3]);
  const hops = Number(m[4]);
  const slot = Number(m[5]);
  if (!Number.isSafeInteger(priceImpactBps) || !Number.isSafeInteger(hops) || !Number.isSafeInteger(slot)) return undefined;
  return { tuple: t, amountOut: m[1], amountIn: m[2], priceImpactBps, hops, slot };
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;

function isAmount(x: unknown): x is string {
  return typeof x === 'string' && DECIMAL.test(x);
}

/** the record's tuple is `t` (a valid tuple), field by field (a tuple with controls: as its key says) */
function isTuple(p: unknown, t: QuoteTuple): boolean {
  if (typeof p !== 'object' || p === null) return false;
  const o = p as Record<string, unknown>;
  if (!(o.in === t.in && o.out === t.out && o.amount === t.amount && o.exactIn === t.exactIn)) return false;
  if (!hasControls(t)) return Object.keys(o).length === 4;
  const parsed = parseTuple(o);
  return parsed !== null && tupleKey(parsed) === tupleKey(t);
}

/**
 * `keyTuple`: the tuple the record's key names, when the reader already holds it validated (the
 * stream: a tuple its clients subscribed to); the record's tuple must be that one, and the quote
 * shares that object. Without it the record's tuple is validated on its own.
 */
export function decodeQuotesChanged(value: Buffer, keyTuple?: QuoteTuple): QuotesChanged {
  if (keyTuple !== undefined) {
    // the router's own form of a quote (nearly every record): read without a JSON parse
    const q = decodeCanonical(value, keyTuple);
    if (q !== undefined) return q;
  }
  const topic = TOPICS.quotesChanged;
  const o = parseJson(topic, value);
  if (o.v !== QUOTES_CHANGED_VERSION) throw new ContractError(topic, `unsupported schema version ${JSON.stringify(o.v)}`);
  let tuple: QuoteTuple | null;
  if (keyTuple !== undefined && isTuple(o.tuple, keyTuple)) tuple = keyTuple;
  else {
    tuple = parseTuple(o.tuple);
    if (!tuple) throw new ContractError(topic, 'malformed record: tuple');
    if (keyTuple !== undefined) throw new ContractError(topic, 'malformed record: its key is not its tuple');
  }
  if (!isAmount(o.amountOut) || !isAmount(o.amountIn)) throw new ContractError(topic, 'malformed record: amounts');
  if (typeof o.priceImpactBps !== 'number' || !Number.isSafeInteger(o.priceImpactBps)) throw new ContractError(topic, 'malformed record: priceImpactBps');
  if (typeof o.hops !== 'number' || !Number.isSafeInteger(o.hops) || o.hops < 0) throw new ContractError(topic, 'malformed record: hops');
  if (typeof o.slot !== 'number' || !Number.isSafeInteger(o.slot) || o.slot < 0) throw new ContractError(topic, 'malformed record: slot');
  if (o.error !== undefined && typeof o.error !== 'string') throw new ContractError(topic, 'malformed record: error');
  const out: QuotesChanged = { tuple, amountOut: o.amountOut, amountIn: o.amountIn, priceImpactBps: o.priceImpactBps, hops: o.hops, slot: o.slot };
  if (typeof o.error === 'string') out.error = o.error;
  return out;
}

/**
 * What makes a quote of a tuple "changed" (API §6: `amountOut`, `priceImpactBps` or `hops`):
 * two quotes of one tuple that are the same here are identical and the second is not sent. For
 * ExactOut tuples the output is the subscribed amount and the number that moves is `amountIn`,
 * so it counts too; a tuple that cannot be quoted is identified by its error text. The slot does
 * not count. Field by field, so no key string is built per quote.
 */
export function sameQuote(a: QuotesChanged, b: QuotesChanged): boolean {
  if (a.error !== undefined || b.error !== undefined) return a.error === b.error;
  return a.amountOut === b.amountOut && a.priceImpactBps === b.priceImpactBps && a.hops === b.hops && (a.tuple.exactIn || a.amountIn === b.amountIn);
}
