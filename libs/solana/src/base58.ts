/** Base58 (Bitcoin alphabet) for 32-byte public keys, without a dependency on the hot path. */
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

/** Read a 32-byte public key at `offset` as base58. */
export function readPubkey(buf: Uint8Array, offset: number): string {
  return base58Encode(buf.subarray(offset, offset + 32));
}

/** Write a base58 public key into `buf` at `offset`. Throws on an invalid key. */
export function writePubkey(buf: Uint8Array, offset: number, key: string): void {
  const bytes = base58Decode(key);
  if (!bytes || bytes.length !== 32) throw new Error(`invalid public key ${key}`);
  buf.set(bytes, offset);
}
