import { internPublicKey, isPublicKey } from '@app/solana';
import { ContractError } from './errors';
import { TOPICS } from './topics';

/**
 * One slot-stamped account write, as the ingestor puts it on `pool-updates`.
 * Raw account bytes, not decoded structs: replaying with a newer decoder gives the newer
 * answer, and an audit can prove what the chain said.
 */
export interface PoolUpdate {
  slot: number;
  /** account address (also the record key) */
  address: string;
  /** owner program of the account */
  owner: string;
  lamports: bigint;
  /** raw account bytes; null = account closed */
  data: Buffer | null;
  /** where the write came from: 'sim', 'file', 'rpc' */
  source: string;
}

export const POOL_UPDATE_VERSION = 1;

/** Wire form (JSON): {v, slot, address, owner, lamports (decimal string), data (base64 | null), source}. */
export function encodePoolUpdate(u: PoolUpdate): Buffer {
  return Buffer.from(
    JSON.stringify({
      v: POOL_UPDATE_VERSION,
      slot: u.slot,
      address: u.address,
      owner: u.owner,
      lamports: u.lamports.toString(),
      data: u.data === null ? null : u.data.toString('base64'),
      source: u.source,
    }),
  );
}

/** the last quantum of padded base64 */
const BASE64_TAIL = /^[A-Za-z0-9+/]{2}(?:==|[A-Za-z0-9+/]=)$/;
const U64_MAX = (1n << 64n) - 1n;

function fail(reason: string): never {
  throw new ContractError(TOPICS.poolUpdates, reason);
}

/** Validate and decode a record body from the wire (a Buffer or the parsed JSON object). */
export function decodePoolUpdate(value: Buffer | string | unknown): PoolUpdate {
  if (Buffer.isBuffer(value)) {
    const fast = decodeCanonical(value);
    if (fast !== null) return fast;
  }
  return decodeGeneral(value);
}

/** The general reader: any JSON text (or parsed object) of the record, every check, every reason. */
function decodeGeneral(value: Buffer | string | unknown): PoolUpdate {
  let obj: unknown = value;
  if (Buffer.isBuffer(value) || typeof value === 'string') {
    try {
      obj = JSON.parse(value.toString());
    } catch {
      fail('malformed record: not JSON');
    }
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) fail('malformed record: not an object');
  const o = obj as Record<string, unknown>;
  if (o.v === undefined) fail('malformed record: missing schema version v');
  if (o.v !== POOL_UPDATE_VERSION) fail(`unsupported schema version ${JSON.stringify(o.v)} (this reader knows ${POOL_UPDATE_VERSION})`);
  const slot = o.slot;
  if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) fail('malformed record: slot must be a non-negative integer');
  if (!isPublicKey(o.address)) fail('malformed record: address is not a base58 public key');
  if (!isPublicKey(o.owner)) fail('malformed record: owner is not a base58 public key');
  if (typeof o.lamports !== 'string' || !/^(0|[1-9][0-9]{0,19})$/.test(o.lamports) || BigInt(o.lamports) > U64_MAX)
    fail('malformed record: lamports must be a u64 decimal string');
  let data: Buffer | null = null;
  if (o.data !== null) {
    if (typeof o.data !== 'string' || o.data.length % 4 !== 0) fail('malformed record: data must be base64 or null');
    data = Buffer.from(o.data, 'base64');
    // Node's decoder skips characters outside the alphabet and stops at a misplaced '=', so a
    // decoded length short of what the text's length promises means the text was not base64
    const text = o.data;
    const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
    // (it also accepts the URL-safe '-' and '_', which are not base64 here)
    if (
      data.length !== (text.length / 4) * 3 - pad ||
      (pad > 0 && !BASE64_TAIL.test(text.slice(-4))) ||
      text.indexOf('-') >= 0 ||
      text.indexOf('_') >= 0
    )
      fail('malformed record: data must be base64 or null');
  }
  if (typeof o.source !== 'string' || o.source.length === 0 || o.source.length > 64) fail('malformed record: source must be a short string');
  return { slot, address: o.address, owner: o.owner, lamports: BigInt(o.lamports), data, source: o.source };
}

// ---- the fast path: the exact bytes encodePoolUpdate writes ----
//
// encodePoolUpdate writes one canonical form: {"v":1,"slot":N,"address":"K","owner":"K",
// "lamports":"N","data":"B64"|null,"source":"S"} with no whitespace and nothing to escape.
// decodeCanonical reads that form straight from the bytes, without JSON.parse, and returns null
// for anything else (another field order, whitespace, an escape, a character outside a field's
// alphabet, a number it cannot read exactly, a key that does not decode to 32 bytes, ...); the
// general reader then decides, with its reasons. What it accepts is therefore a subset of what
// the general reader accepts, decoded to the same record (a spec checks both on every field).

const ascii = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));
const HEAD = ascii('{"v":1,"slot":');
const ADDRESS = ascii(',"address":"');
const OWNER = ascii('","owner":"');
const LAMPORTS = ascii('","lamports":"');
const DATA = ascii('","data":');
const SOURCE = ascii(',"source":"');
const NULL = ascii('null');

const QUOTE = 0x22;
const ZERO = 0x30;
const NINE = 0x39;
const EQUALS = 0x3d;


function matches(b: Buffer, at: number, lit: Uint8Array): boolean {
  if (at + lit.length > b.length) return false;
  for (let i = 0; i < lit.length; i++) if (b[at + i] !== lit[i]) return false;
  return true;
}

/** the end of the string starting at `from` (the index of its closing quote), or -1 */
function closingQuote(b: Buffer, from: number, max: number): number {
  const end = Math.min(b.length, from + max + 1);
  for (let i = from; i < end; i++) if (b[i] === QUOTE) return i;
  return -1;
}

/** non-negative decimal integer without leading zeros in b[from, to), as a number (to - from <= 15) */
function readDigits(b: Buffer, from: number, to: number): number {
  if (to <= from || to - from > 15 || (b[from] === ZERO && to - from > 1)) return -1;
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c < ZERO || c > NINE) return -1;
    v = v * 10 + (c - ZERO);
  }
  return v;
}

/** base64 digit values; -1 outside the (standard) alphabet, '=' included */
const BASE64_VALUE = new Int8Array(256).fill(-1);
for (let i = 0; i < 64; i++) BASE64_VALUE['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/**
 * Padded base64 in b[from, to) decoded, or null unless every character is in the alphabet and '='
 * appears only as the one or two last characters of the last quantum (what the general reader
 * accepts). The bits a short last quantum leaves over are ignored, as Node's decoder does.
 */
function base64(b: Buffer, from: number, to: number): Buffer | null {
  const len = to - from;
  if (len % 4 !== 0) return null;
  const pad = len === 0 || b[to - 1] !== EQUALS ? 0 : b[to - 2] === EQUALS ? 2 : 1;
  const out = Buffer.allocUnsafe((len / 4) * 3 - pad);
  const full = pad === 0 ? to : to - 4;
  let bad = 0;
  let o = 0;
  for (let i = from; i < full; i += 4) {
    const c0 = BASE64_VALUE[b[i]];
    const c1 = BASE64_VALUE[b[i + 1]];
    const c2 = BASE64_VALUE[b[i + 2]];
    const c3 = BASE64_VALUE[b[i + 3]];
    bad |= c0 | c1 | c2 | c3;
    const v = (c0 << 18) | (c1 << 12) | (c2 << 6) | c3;
    out[o++] = v >> 16;
    out[o++] = v >> 8;
    out[o++] = v;
  }
  if (pad !== 0) {
    const c0 = BASE64_VALUE[b[full]];
    const c1 = BASE64_VALUE[b[full + 1]];
    bad |= c0 | c1;
    out[o++] = (c0 << 2) | (c1 >> 4);
    if (pad === 1) {
      const c2 = BASE64_VALUE[b[full + 2]];
      bad |= c2;
      out[o++] = (c1 << 4) | (c2 >> 2);
    }
  }
  return bad < 0 ? null : out;
}

function decodeCanonical(b: Buffer): PoolUpdate | null {
  const n = b.length;
  if (!matches(b, 0, HEAD)) return null;
  let pos = HEAD.length;
  let end = pos;
  while (end < n && b[end] >= ZERO && b[end] <= NINE) end++;
  const slot = readDigits(b, pos, end);
  if (slot < 0 || !matches(b, end, ADDRESS)) return null;
  pos = end + ADDRESS.length;
  end = closingQuote(b, pos, 44);
  const address = end < 0 ? null : internPublicKey(b, pos, end);
  if (address === null || !matches(b, end, OWNER)) return null;
  pos = end + OWNER.length;
  end = closingQuote(b, pos, 44);
  const owner = end < 0 ? null : internPublicKey(b, pos, end);
  if (owner === null || !matches(b, end, LAMPORTS)) return null;
  pos = end + LAMPORTS.length;
  end = closingQuote(b, pos, 20);
  if (end < 0) return null;
  let lamports: bigint;
  const small = readDigits(b, pos, end);
  if (small >= 0) lamports = BigInt(small);
  else {
    const text = b.toString('latin1', pos, end);
    if (!/^[1-9][0-9]{15,19}$/.test(text)) return null;
    lamports = BigInt(text);
    if (lamports > U64_MAX) return null;
  }
  if (!matches(b, end, DATA)) return null;
  const dataAt = end + DATA.length;
  // the tail, read backwards: ,"source":"S"}  (S: 1..64 printable characters, no quote or backslash)
  if (n < 2 || b[n - 1] !== 0x7d /* } */ || b[n - 2] !== QUOTE) return null;
  const sourceEnd = n - 2;
  let sourceAt = sourceEnd;
  while (sourceAt > dataAt && sourceEnd - sourceAt < 65) {
    const c = b[sourceAt - 1];
    if (c === QUOTE) break;
    if (c < 0x20 || c > 0x7e || c === 0x5c /* \ */) return null;
    sourceAt--;
  }
  if (sourceAt === sourceEnd || sourceEnd - sourceAt > 64) return null;
  const dataEnd = sourceAt - SOURCE.length;
  if (dataEnd < dataAt || !matches(b, dataEnd, SOURCE)) return null;
  let data: Buffer | null;
  if (dataEnd - dataAt === NULL.length && matches(b, dataAt, NULL)) data = null;
  else {
    if (dataEnd - dataAt < 2 || b[dataAt] !== QUOTE || b[dataEnd - 1] !== QUOTE) return null;
    data = base64(b, dataAt + 1, dataEnd - 1);
    if (data === null) return null;
  }
  const source = b.toString('latin1', sourceAt, sourceEnd);
  return { slot, address, owner, lamports, data, source };
}
