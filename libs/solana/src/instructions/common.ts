/**
 * Shared pieces of the instruction builders: account metas, little-endian argument encoding,
 * Anchor instruction discriminators and the associated token account address. Pure: no IO.
 */
import { createHash } from 'node:crypto';
import { PublicKey, TransactionInstruction, type AccountMeta } from '@solana/web3.js';
import { PROGRAM_IDS } from '../programs';
import { programAddress } from '../pda';

const keyCache = new Map<string, PublicKey>();

/** A PublicKey for a base58 address (cached: builders create the same keys over and over). */
export function pk(address: string | PublicKey): PublicKey {
  if (typeof address !== 'string') return address;
  let k = keyCache.get(address);
  if (k === undefined) {
    k = new PublicKey(address);
    if (keyCache.size > 100_000) keyCache.clear();
    keyCache.set(address, k);
    addressCache.set(k, address);
  }
  return k;
}

const addressCache = new WeakMap<PublicKey, string>();

/**
 * The base58 address of a key: the string a `pk` key was made from, or toBase58 once per key
 * object (counting and matching a transaction's accounts would encode every key again).
 */
export function addressOf(key: PublicKey): string {
  let a = addressCache.get(key);
  if (a === undefined) {
    a = key.toBase58();
    addressCache.set(key, a);
  }
  return a;
}

/** writable, not a signer */
export const w = (address: string | PublicKey): AccountMeta => ({ pubkey: pk(address), isSigner: false, isWritable: true });
/** read-only, not a signer */
export const r = (address: string | PublicKey): AccountMeta => ({ pubkey: pk(address), isSigner: false, isWritable: false });
/** signer, read-only */
export const s = (address: string | PublicKey): AccountMeta => ({ pubkey: pk(address), isSigner: true, isWritable: false });
/** signer, writable */
export const sw = (address: string | PublicKey): AccountMeta => ({ pubkey: pk(address), isSigner: true, isWritable: true });

export function instruction(programId: string, keys: AccountMeta[], data: Buffer): TransactionInstruction {
  return new TransactionInstruction({ programId: pk(programId), keys, data });
}

/** Anchor's instruction discriminator: sha256("global:<name>")[0..8]. */
export function anchorIxDiscriminator(name: string): Buffer {
  return createHash('sha256').update(`global:${name}`).digest().subarray(0, 8);
}

const U64_MAX = (1n << 64n) - 1n;
const U128_MAX = (1n << 128n) - 1n;

/** Little-endian argument writer with range checks (an out-of-range amount is a bug, never truncated). */
export class ArgWriter {
  private readonly parts: Buffer[] = [];

  bytes(b: Uint8Array): this {
    this.parts.push(Buffer.from(b));
    return this;
  }

  u8(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xff) throw new RangeError(`u8 out of range: ${v}`);
    this.parts.push(Buffer.from([v]));
    return this;
  }

  u32(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`u32 out of range: ${v}`);
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v, 0);
    this.parts.push(b);
    return this;
  }

  u64(v: bigint, field = 'u64'): this {
    if (v < 0n || v > U64_MAX) throw new RangeError(`${field} out of u64 range: ${v}`);
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(v, 0);
    this.parts.push(b);
    return this;
  }

  u128(v: bigint, field = 'u128'): this {
    if (v < 0n || v > U128_MAX) throw new RangeError(`${field} out of u128 range: ${v}`);
    const b = Buffer.alloc(16);
    b.writeBigUInt64LE(v & U64_MAX, 0);
    b.writeBigUInt64LE(v >> 64n, 8);
    this.parts.push(b);
    return this;
  }

  bool(v: boolean): this {
    this.parts.push(Buffer.from([v ? 1 : 0]));
    return this;
  }

  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export const U64_MAX_VALUE = U64_MAX;

const ataCache = new Map<string, string>();

/**
 * The associated token account of `owner` for `mint` under `tokenProgram` (Token or Token-2022):
 * PDA [owner, tokenProgram, mint] of the associated token program.
 */
export function associatedTokenAddress(owner: string, mint: string, tokenProgram: string = PROGRAM_IDS.token): string {
  const cacheKey = `${owner}:${mint}:${tokenProgram}`;
  let a = ataCache.get(cacheKey);
  if (a === undefined) {
    a = programAddress(PROGRAM_IDS.associatedToken, [pk(owner).toBuffer(), pk(tokenProgram).toBuffer(), pk(mint).toBuffer()]);
    if (ataCache.size > 100_000) ataCache.clear();
    ataCache.set(cacheKey, a);
  }
  return a;
}

export function isTokenProgram(id: string): boolean {
  return id === PROGRAM_IDS.token || id === PROGRAM_IDS.token2022;
}

export const MEMO_PROGRAM_ID = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
