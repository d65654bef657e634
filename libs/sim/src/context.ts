/**
 * What every simulated program shares: the token list (latent prices), the clock (slot, epoch,
 * unix time), the seeded draws of a swap, vault token accounts (Token and Token-2022 with
 * transfer fees), fast PDAs, and the slot-stamped account records.
 */
import type { PoolUpdate } from '@app/contracts';
import { transferFee, transferFeeInverse, type EpochTransferFee } from '@app/amm';
import { base58Decode, base58Encode } from '@app/solana';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { EXTENSION_TYPE, encodeTokenAccount } from '@app/solana';
import { findProgramAddress } from '@app/solana';
import type { Prng } from './prng';

export const SIM_SOURCE = 'sim';
export const SLOTS_PER_EPOCH = 432_000;
/** a plausible mainnet slot for the first slot of the market */
export const DEFAULT_START_SLOT = 350_000_000;
/** unix time (seconds) of the start slot; slots last 400 ms */
export const GENESIS_UNIX_TIME = 1_750_000_000;
export const U64_MAX = 0xffffffffffffffffn;
/** largest raw reserve a pool side gets at genesis (keeps every vault and supply inside u64) */
export const MAX_RAW_RESERVE = 1e17;

/** Rent-exempt minimum balance for an account of `size` bytes: (128 + size) * 3480 * 2. */
export function rentExemptLamports(size: number): bigint {
  return BigInt((128 + size) * 3480 * 2);
}

export interface SimToken {
  mint: string;
  /** simulation label (not on chain) */
  symbol: string;
  decimals: number;
  /** latent USD price per whole token (drifts every slot, except the stables and pump.fun coins) */
  priceUsd: number;
  stable: boolean;
  mintAuthority: string | null;
  freezeAuthority: string | null;
  supply: bigint;
  /** the token program owning the mint (Token or Token-2022) */
  program: string;
  /** Token-2022 transfer fee (the same for every epoch), or null */
  transferFee: EpochTransferFee | null;
  /** a pump.fun coin (priced by its curve or its migrated PumpSwap pool, never drifting on its own) */
  pump: boolean;
}

/** The seeded values drawn for one swap (always the same number, whatever happens to the swap). */
export interface SwapDraw {
  /** uniform [0, 1): picks the direction (leaning towards the latent price) */
  u: number;
  exactIn: boolean;
  /** log-uniform size of the swap relative to the pool's depth on the side it is measured on */
  fraction: number;
}

/** A token account a pool owns (a vault), with what the simulation tracks of it. */
export interface SimVault {
  address: string;
  /** index into the market's tokens */
  token: number;
  /** the account's owner field (the pool authority) */
  authority: string;
  amount: bigint;
  /** Token-2022 transfer-fee mints: fees withheld in this account (TransferFeeAmount extension) */
  withheld: bigint;
}

export class SimContext {
  readonly tokens: SimToken[] = [];
  readonly mintBytes: Buffer[] = [];
  slot: number;

  constructor(readonly startSlot: number) {
    this.slot = startSlot;
  }

  get epoch(): bigint {
    return BigInt(Math.floor(this.slot / SLOTS_PER_EPOCH));
  }

  /** unix time (seconds) of the current slot */
  get unixTime(): bigint {
    return BigInt(GENESIS_UNIX_TIME + Math.floor(((this.slot - this.startSlot) * 2) / 5));
  }

  addToken(t: SimToken): number {
    const bytes = base58Decode(t.mint);
    if (!bytes || bytes.length !== 32) throw new Error(`invalid mint ${t.mint}`);
    this.tokens.push(t);
    this.mintBytes.push(Buffer.from(bytes));
    return this.tokens.length - 1;
  }

  /** USD value of a raw amount of token i at the latent price */
  usd(token: number, raw: bigint | number): number {
    const t = this.tokens[token];
    return (Number(raw) / 10 ** t.decimals) * t.priceUsd;
  }

  /** raw amount of token i worth `usd` at the latent price (at least 10, at most MAX_RAW_RESERVE) */
  raw(token: number, usd: number): bigint {
    const t = this.tokens[token];
    const raw = Math.min(MAX_RAW_RESERVE, (usd / t.priceUsd) * 10 ** t.decimals);
    const floored = Math.floor(raw);
    return floored < 10 ? 10n : BigInt(floored);
  }

  /** latent price of token a in token b, whole units */
  latent(a: number, b: number): number {
    return this.tokens[a].priceUsd / this.tokens[b].priceUsd;
  }

  /** latent price of token a in token b, raw units (b smallest units per a smallest unit) */
  latentRaw(a: number, b: number): number {
    const ta = this.tokens[a];
    const tb = this.tokens[b];
    return (ta.priceUsd / tb.priceUsd) * 10 ** (tb.decimals - ta.decimals);
  }

  /** bytewise order of two tokens' mints (the order AMM programs require of token0 / token1) */
  ordered(a: number, b: number): [number, number] {
    return Buffer.compare(this.mintBytes[a], this.mintBytes[b]) < 0 ? [a, b] : [b, a];
  }

  /** a pool side's vault receives `net` (what the pool's math takes in); a transfer-fee mint withholds the fee on top */
  credit(v: SimVault, net: bigint): void {
    const fee = this.tokens[v.token].transferFee;
    if (fee) v.withheld += transferFeeInverse(fee, net);
    v.amount += net;
  }

  debit(v: SimVault, amount: bigint): void {
    if (amount > v.amount) throw new Error(`vault ${v.address} would go below zero`);
    v.amount -= amount;
  }

  /** the fee a transfer of `amount` of token i withholds */
  transferFeeOf(token: number, amount: bigint): bigint {
    return transferFee(this.tokens[token].transferFee, amount);
  }

  record(address: string, owner: string, data: Buffer, lamports: bigint = rentExemptLamports(data.length)): PoolUpdate {
    return { slot: this.slot, address, owner, lamports, data, source: SIM_SOURCE };
  }

  /** the vault as a Token / Token-2022 account (a wrapped-SOL account holds its balance as lamports) */
  vaultRecord(v: SimVault): PoolUpdate {
    const t = this.tokens[v.token];
    const native = t.mint === MINTS.SOL;
    const t22 = t.program === PROGRAM_IDS.token2022;
    const extensions = t22 ? vaultExtensions(t.transferFee !== null, v.withheld) : undefined;
    const data = encodeTokenAccount({
      mint: t.mint,
      owner: v.authority,
      amount: v.amount,
      delegate: null,
      state: 'initialized',
      isNative: native ? rentExemptLamports(165) : null,
      delegatedAmount: 0n,
      closeAuthority: null,
      ...(extensions ? { extensions } : {}),
    });
    const rent = rentExemptLamports(data.length);
    return this.record(v.address, t.program, data, native ? rent + v.amount : rent);
  }

  vault(address: string, token: number, authority: string, amount: bigint): SimVault {
    return { address, token, authority, amount, withheld: 0n };
  }
}

/** Token-2022 pool vault extensions: TransferFeeAmount (withheld, u64) for fee mints, ImmutableOwner. */
function vaultExtensions(feeMint: boolean, withheld: bigint): { type: number; data: Uint8Array }[] {
  const out: { type: number; data: Uint8Array }[] = [];
  if (feeMint) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(withheld > U64_MAX ? U64_MAX : withheld, 0);
    out.push({ type: EXTENSION_TYPE.transferFeeAmount, data: b });
  }
  out.push({ type: EXTENSION_TYPE.immutableOwner, data: new Uint8Array(0) });
  return out;
}

// ---- keys and PDAs ----

const programBytesCache = new Map<string, Buffer>();
export function keyBytes(address: string): Buffer {
  let b = programBytesCache.get(address);
  if (!b) {
    const d = base58Decode(address);
    if (!d || d.length !== 32) throw new Error(`invalid public key ${address}`);
    b = Buffer.from(d);
    if (programBytesCache.size < 64) programBytesCache.set(address, b);
  }
  return b;
}

export type Seed = string | Buffer | Uint8Array;

/** [address, bump] of a PDA (the fast search of ./pda; same result as PublicKey.findProgramAddressSync) */
export function pda(programId: string, seeds: Seed[]): [string, number] {
  const bytes = seeds.map((s) => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s));
  const [key, bump] = findProgramAddress(bytes, keyBytes(programId));
  return [base58Encode(key), bump];
}

export function pdaAddress(programId: string, seeds: Seed[]): string {
  return pda(programId, seeds)[0];
}

/** the associated token account of (owner, mint) under `tokenProgram` */
export function associatedTokenAddress(owner: string, mint: string, tokenProgram: string): string {
  return pdaAddress(PROGRAM_IDS.associatedToken, [raw(owner), raw(tokenProgram), raw(mint)]);
}

/** 32 bytes of a base58 key */
export function raw(address: string): Buffer {
  const d = base58Decode(address);
  if (!d || d.length !== 32) throw new Error(`invalid public key ${address}`);
  return Buffer.from(d);
}

export function randomKey(rng: Prng): string {
  return base58Encode(rng.bytes(32));
}

/** ceil-free float → bigint (floor, at least `min`) */
export function bigFloor(x: number, min = 0n): bigint {
  if (!Number.isFinite(x) || x <= 0) return min;
  const b = BigInt(Math.floor(x));
  return b < min ? min : b;
}

/** The direction a swap takes: most traders buy the side the pool prices below the latent price. */
export function buyA(poolPriceAinB: number, latentAinB: number, u: number): boolean {
  return poolPriceAinB < latentAinB ? u < 0.75 : u < 0.25;
}

/** noise trades (away from the latent price) are this many times smaller than arbitrage-like ones */
export const NOISE_SHRINK = 10n;

/**
 * Trades towards the latent price stop at it (arbitrage-like); trades away from it are small
 * noise. `toward`: the trade's direction moves the pool price towards the latent price.
 */
export function towards(poolPriceAinB: number, latentAinB: number, boughtA: boolean): boolean {
  return poolPriceAinB < latentAinB === boughtA;
}

/**
 * Constant product: the input (exactIn) or output that brings the pool's marginal price (out per
 * in, raw) to `latentOutPerIn`, fees aside; 0 when the pool is at or past it.
 */
export function cpGap(rIn: bigint, rOut: bigint, latentOutPerIn: number, exactIn: boolean): bigint {
  const x = Number(rIn);
  const y = Number(rOut);
  if (!(latentOutPerIn > 0) || !(y / x > latentOutPerIn)) return 0n;
  const k = x * y;
  const x2 = Math.sqrt(k / latentOutPerIn);
  const gap = exactIn ? x2 - x : y - k / x2;
  return gap >= 1 && Number.isFinite(gap) ? BigInt(Math.floor(gap)) : 0n;
}

/** the size of a trade: capped at the gap when towards the latent price, shrunk when away */
export function sized(amount: bigint, toward: boolean, gap: bigint): bigint {
  if (!toward) return amount / NOISE_SHRINK;
  return amount < gap ? amount : gap;
}

/** floor(sqrt(n)) for a bigint (LP supplies, as the programs mint them) */
export function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}
