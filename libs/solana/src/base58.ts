/** Base58 (Bitcoin alphabet) for 32-byte public keys, without a dependency on the hot path. */
import { MINTS, PROGRAM_IDS } from './programs';
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const MAP = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) MAP[ALPHABET.charCodeAt(i)] = i;

/** Decode base58; returns null when the text is not base58. */
export function base58Decode(text: string): Uint8Array | null {
  if (text.length === 0) return new Uint8Array(0);
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  const size = Math.ceil(((text.length - zeros) * 733) / 1000) + 1; // log(58)/log(256)
  const b256 = new Uint8Array(size);
  let length = 0;
  for (let i = zeros; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? MAP[c] : -1;
    if (v < 0) return null;
    let carry = v;
    let j = 0;
    for (let k = size - 1; (carry !== 0 || j < length) && k >= 0; k--, j++) {
      carry += 58 * b256[k];
      b256[k] = carry % 256;
      carry = (carry / 256) | 0;
    }
    length = j;
  }
  let start = size - length;
  while (start < size && b256[start] === 0) start++;
  const out = new Uint8Array(zeros + (size - start));
  out.set(b256.subarray(start), zeros);
  return out;
}

/** 58^4: four base58 digits per division of the 24-bit limbs (a remainder times 2^24 stays below 2^53) */
const D4 = 58 * 58 * 58 * 58;
const LIMB = 1 << 24;
const DIGIT_CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));
/** scratch space, reused: the hot path (keys of every decoded account) allocates only the string */
let limbs = new Float64Array(16);
let digits = new Uint8Array(64);

/**
 * Base58 of `bytes`. The number is held in 24-bit limbs and divided by 58^4 until it is zero,
 * giving four digits per pass: about 11 limbs x 11 passes for a public key instead of a byte-by-digit
 * carry loop. Every intermediate is an integer below 2^53, so the doubles are exact.
 */
export function base58Encode(bytes: Uint8Array): string {
  const n = bytes.length;
  if (n === 0) return '';
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  // limbs, most significant first: a short head of n % 3 bytes, then 3-byte limbs
  const count = Math.ceil(n / 3);
  if (limbs.length < count) limbs = new Float64Array(count);
  let i = 0;
  let at = 0;
  const head = n % 3;
  if (head !== 0) {
    limbs[at++] = head === 1 ? bytes[0] : (bytes[0] << 8) | bytes[1];
    i = head;
  }
  for (; i < n; i += 3) limbs[at++] = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
  const maxDigits = Math.ceil(n * 1.38) + 4;
  if (digits.length < maxDigits) digits = new Uint8Array(maxDigits);
  let nd = 0;
  let first = 0;
  while (first < at && limbs[first] === 0) first++;
  while (first < at) {
    let rem = 0;
    for (let k = first; k < at; k++) {
      const cur = rem * LIMB + limbs[k];
      const q = Math.floor(cur / D4);
      limbs[k] = q;
      rem = cur - q * D4;
    }
    for (let d = 0; d < 4; d++) {
      const q = Math.floor(rem / 58);
      digits[nd++] = rem - q * 58;
      rem = q;
    }
    while (first < at && limbs[first] === 0) first++;
  }
  while (nd > 0 && digits[nd - 1] === 0) nd--; // the last pass pads with zero digits
  const codes = new Array<number>(zeros + nd);
  for (let z = 0; z < zeros; z++) codes[z] = 49; // '1' per leading zero byte
  for (let d = 0; d < nd; d++) codes[zeros + d] = DIGIT_CODES[digits[nd - 1 - d]];
  return String.fromCharCode.apply(null, codes);
}

/**
 * Keys already validated. Account addresses repeat on every write (vaults, pools, owners), so
 * validating each distinct text once takes base58 decoding off the projection's hot path. Only
 * valid keys are remembered; the set is cleared when it reaches its bound (memory stays bounded).
 */
const VALID_KEYS = new Set<string>();
const VALID_KEYS_MAX = 1 << 18;

/** True when `text` is base58 for exactly 32 bytes (a Solana public key). */
export function isPublicKey(text: unknown): text is string {
  if (typeof text !== 'string' || text.length < 32 || text.length > 44) return false;
  if (VALID_KEYS.has(text)) return true;
  const bytes = base58Decode(text);
  if (bytes === null || bytes.length !== 32) return false;
  if (VALID_KEYS.size >= VALID_KEYS_MAX) VALID_KEYS.clear();
  VALID_KEYS.add(text);
  return true;
}

/**
 * Interned public keys, found by their 32 bytes (readPubkey) or by their base58 text
 * (internPublicKey): the accounts a projection decodes name the same keys over and over (mints,
 * programs, configs, vaults that are also record addresses), so each key is encoded or checked
 * once, and every reader gets the same string for it (less memory; Map lookups by identity).
 *
 * Entries hold the text and the bytes; two open-addressing tables (by a hash of the bytes and by
 * a hash of the text) point at them, each at most half full. The tables double up to KEYS_MAX
 * entries, then everything is dropped and refilled as keys come back, so memory stays bounded.
 */
const KEYS_MAX = 1 << 18;
let keyCapacity = 1 << 11;
let keyTexts: string[] = [];
let keyBytes = new Uint8Array(keyCapacity * 32);
let keyByteHash = new Int32Array(keyCapacity);
let keyTextHash = new Int32Array(keyCapacity);
/** entry index + 1 by hash of the bytes / of the text; 0 = empty */
let byBytes = new Int32Array(keyCapacity * 2);
let byText = new Int32Array(keyCapacity * 2);

/**
 * Hash of 16 of the 32 bytes at `offset` (keys are hashes or curve points: any 16 bytes spread
 * them; lookups compare all 32). Bytes 8..24, clear of the zero prefix of a few program ids.
 */
function bytesHash(buf: Uint8Array, offset: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = offset + 8; i < offset + 24; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h;
}

/**
 * Hash of a key's text (32..44 characters) in b[from, to): its length and 16 characters from the
 * middle, clear of vanity prefixes and suffixes.
 */
function textHash(b: Uint8Array, from: number, to: number): number {
  let h = Math.imul(0x811c9dc5 ^ (to - from), 0x01000193);
  for (let i = from + 8; i < from + 24; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h;
}

function sameBytes(buf: Uint8Array, offset: number, entry: number): boolean {
  const at = entry * 32;
  for (let i = 0; i < 32; i++) if (keyBytes[at + i] !== buf[offset + i]) return false;
  return true;
}

function sameText(text: string, b: Uint8Array, from: number, to: number): boolean {
  if (text.length !== to - from) return false;
  for (let i = from; i < to; i++) if (text.charCodeAt(i - from) !== b[i]) return false;
  return true;
}

function place(table: Int32Array, h: number, entry: number): void {
  const mask = table.length - 1;
  let i = h & mask;
  while (table[i] !== 0) i = (i + 1) & mask;
  table[i] = entry + 1;
}

function addKey(text: string, bytes: Uint8Array, bytesOffset: number, hBytes: number, hText: number): void {
  let n = keyTexts.length;
  if (n === keyCapacity) {
    if (keyCapacity >= KEYS_MAX) {
      keyTexts = [];
      byBytes.fill(0);
      byText.fill(0);
      n = 0;
    } else {
      keyCapacity *= 2;
      const grow = <T extends Int32Array | Uint8Array>(a: T, size: number): T => {
        const b = new (a.constructor as new (n: number) => T)(size);
        b.set(a);
        return b;
      };
      keyBytes = grow(keyBytes, keyCapacity * 32);
      keyByteHash = grow(keyByteHash, keyCapacity);
      keyTextHash = grow(keyTextHash, keyCapacity);
      byBytes = new Int32Array(keyCapacity * 2);
      byText = new Int32Array(keyCapacity * 2);
      for (let e = 0; e < n; e++) {
        place(byBytes, keyByteHash[e], e);
        place(byText, keyTextHash[e], e);
      }
    }
  }
  keyTexts.push(text);
  keyBytes.set(bytes.subarray(bytesOffset, bytesOffset + 32), n * 32);
  keyByteHash[n] = hBytes;
  keyTextHash[n] = hText;
  place(byBytes, hBytes, n);
  place(byText, hText, n);
}

const textScratch = new Uint8Array(44);

/** Read a 32-byte public key at `offset` as base58 (interned: the same string for the same key). */
export function readPubkey(buf: Uint8Array, offset: number): string {
  if (offset >>> 0 !== offset || offset + 32 > buf.length) return base58Encode(buf.subarray(offset, offset + 32));
  const h = bytesHash(buf, offset);
  const mask = byBytes.length - 1;
  for (let i = h & mask, e = byBytes[i]; e !== 0; i = (i + 1) & mask, e = byBytes[i]) {
    if (keyByteHash[e - 1] === h && sameBytes(buf, offset, e - 1)) return keyTexts[e - 1];
  }
  const text = base58Encode(buf.subarray(offset, offset + 32));
  for (let i = 0; i < text.length; i++) textScratch[i] = text.charCodeAt(i);
  addKey(text, buf, offset, h, textHash(textScratch, 0, text.length));
  return text;
}

/**
 * The public key whose base58 text is the bytes b[from, to) (ASCII, as in a JSON record), or null
 * when they are not the base58 of exactly 32 bytes. Interned: the same string every time, the
 * one readPubkey returns for the key's bytes.
 */
export function internPublicKey(b: Uint8Array, from: number, to: number): string | null {
  const n = to - from;
  if (n < 32 || n > 44) return null;
  const h = textHash(b, from, to);
  const mask = byText.length - 1;
  for (let i = h & mask, e = byText[i]; e !== 0; i = (i + 1) & mask, e = byText[i]) {
    if (keyTextHash[e - 1] === h && sameText(keyTexts[e - 1], b, from, to)) return keyTexts[e - 1];
  }
  const codes = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const c = b[from + i];
    if (c >= 128 || MAP[c] < 0) return null;
    codes[i] = c;
  }
  const text = String.fromCharCode.apply(null, codes);
  const bytes = base58Decode(text);
  if (bytes === null || bytes.length !== 32) return null;
  addKey(text, bytes, 0, bytesHash(bytes, 0), h);
  return text;
}

/** Write a base58 public key into `buf` at `offset`. Throws on an invalid key. */
export function writePubkey(buf: Uint8Array, offset: number, key: string): void {
  const bytes = base58Decode(key);
  if (!bytes || bytes.length !== 32) throw new Error(`invalid public key ${key}`);
  buf.set(bytes, offset);
}

// the programs' and well-known mints' own strings: a key read from an account or a record is then
// the very constant the code compares it with
for (const key of [...Object.values(PROGRAM_IDS), ...Object.values(MINTS)]) {
  const bytes = base58Decode(key)!;
  const text = Uint8Array.from(key, (c) => c.charCodeAt(0));
  addKey(key, bytes, 0, bytesHash(bytes, 0), textHash(text, 0, text.length));
}
