/**
 * Fast program-derived-address search (the simulated market's genesis, and every PDA the swap
 * builder derives, through the memoized `programAddress`): the same algorithm as
 * `PublicKey.findProgramAddressSync` (sha256(seeds || bump || programId || "ProgramDerivedAddress"),
 * bump from 255 down, first hash that is NOT an ed25519 point), with a cheaper on-curve test.
 *
 * The curve test decides whether x² = (y² - 1) / (d·y² + 1) has a solution through the Legendre
 * symbol of u·v (computed as a Jacobi symbol, no modular exponentiation), with the same rules as
 * the RFC 8032 decoder web3.js uses: y must be below p, and x = 0 with the sign bit set is
 * rejected. `pda.spec.ts` checks it against web3.js on random inputs and the edge cases; the
 * market's own spec checks every derived address against the libs/solana helpers.
 */
import { createHash } from 'crypto';
import { base58Decode, base58Encode } from './base58';

const P = (1n << 255n) - 19n;
// d = -121665 / 121666 mod p
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const PDA_MARKER = Buffer.from('ProgramDerivedAddress', 'utf8');

function mod(a: bigint): bigint {
  const r = a % P;
  return r < 0n ? r + P : r;
}

/** Jacobi symbol (a / n) for odd n > 0. */
function jacobi(a: bigint, n: bigint): number {
  a %= n;
  let t = 1;
  while (a !== 0n) {
    // strip the factors of two at once: (a & -a) is the lowest set bit
    const low = a & -a;
    let oddZeros = false;
    if (low !== 1n) {
      oddZeros = (low.toString(2).length - 1) % 2 === 1;
      a /= low;
    }
    if (oddZeros) {
      const r = n & 7n;
      if (r === 3n || r === 5n) t = -t;
    }
    const tmp = a;
    a = n;
    n = tmp;
    if ((a & 3n) === 3n && (n & 3n) === 3n) t = -t;
    a %= n;
  }
  return n === 1n ? t : 0;
}

function bytesToBigLE(b: Uint8Array): bigint {
  let hex = '';
  for (let i = b.length - 1; i >= 0; i--) hex += (b[i] < 16 ? '0' : '') + b[i].toString(16);
  return BigInt('0x' + hex);
}

/** Same answer as web3.js `PublicKey.isOnCurve` (noble ed25519 decoding, RFC 8032 rules). */
export function isOnCurve(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  const signBit = (bytes[31] & 0x80) !== 0;
  const normed = Uint8Array.from(bytes);
  normed[31] &= 0x7f;
  const y = bytesToBigLE(normed);
  if (y >= P) return false;
  const y2 = mod(y * y);
  const u = mod(y2 - 1n);
  const v = mod(D * y2 + 1n);
  if (u === 0n) return !signBit; // x = 0
  return jacobi(mod(u * v), P) === 1;
}

/** [address bytes, bump] of the first off-curve bump from 255 down. */
export function findProgramAddress(seeds: Uint8Array[], programId: Uint8Array): [Buffer, number] {
  for (let bump = 255; bump >= 0; bump--) {
    const h = createHash('sha256');
    for (const s of seeds) h.update(s);
    h.update(Uint8Array.of(bump));
    h.update(programId);
    h.update(PDA_MARKER);
    const out = h.digest();
    if (!isOnCurve(out)) return [out, bump];
  }
  throw new Error('unable to find a viable program address bump');
}

const addressCache = new Map<string, string>();
const ADDRESS_CACHE_LIMIT = 200_000;
const programKeys = new Map<string, Uint8Array>();

/**
 * The program address (base58) of `seeds` (strings as UTF-8) under `programId`: the address of
 * `PublicKey.findProgramAddressSync`, memoized (a pure function of its inputs; the cache is
 * cleared past 200,000 entries). A swap build derives the same pool, tick-array and vault PDAs
 * request after request.
 */
export function programAddress(programId: string, seeds: ReadonlyArray<string | Uint8Array>): string {
  const bytes = seeds.map((s) => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s));
  // hex with the lengths: two seed lists with the same concatenation stay apart
  let key = programId;
  for (const b of bytes) key += `:${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
  let address = addressCache.get(key);
  if (address === undefined) {
    let program = programKeys.get(programId);
    if (program === undefined) {
      const decoded = base58Decode(programId);
      if (decoded === null || decoded.length !== 32) throw new Error(`program id ${programId} is not a public key`);
      program = decoded;
      programKeys.set(programId, program);
    }
    address = base58Encode(findProgramAddress(bytes, program)[0]);
    if (addressCache.size >= ADDRESS_CACHE_LIMIT) addressCache.clear();
    addressCache.set(key, address);
  }
  return address;
}

/** entries in programAddress's cache (for tests) */
export function programAddressCacheSize(): number {
  return addressCache.size;
}
