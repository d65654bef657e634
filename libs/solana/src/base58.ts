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

export function base58Encode(bytes: Uint8Array): string {
  if (bytes.length === 0) return '';
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const size = Math.ceil(((bytes.length - zeros) * 138) / 100) + 1; // log(256)/log(58)
  const b58 = new Uint8Array(size);
  let length = 0;
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i];
    let j = 0;
    for (let k = size - 1; (carry !== 0 || j < length) && k >= 0; k--, j++) {
      carry += 256 * b58[k];
      b58[k] = carry % 58;
      carry = (carry / 58) | 0;
    }
    length = j;
  }
  let start = size - length;
  while (start < size && b58[start] === 0) start++;
  let out = '1'.repeat(zeros);
  for (let i = start; i < size; i++) out += ALPHABET[b58[i]];
  return out;
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
