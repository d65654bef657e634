/**
 * Decoding helpers shared by the venue readers: token accounts and mints decoded once per
 * account content (with the delta path for token amounts), Token-2022 transfer fees per epoch, and
 * the "incomplete pool" plumbing that turns a missing or undecodable account into an Unroutable
 * with its reason. No program knowledge here.
 */
import { epochOfSlot, type EpochTransferFee } from '@app/amm';
import { readU64 } from '@app/solana';
import { AccountDecodeError } from '@app/solana';
import {
  decodeMint,
  decodeTokenAccount,
  mintTransferFeeConfig,
  transferFeeForEpoch,
  type MintAccount,
  type TokenAccount,
  type TransferFeeConfig,
} from '@app/solana';
import type { AccountView, BuildResult, Unroutable } from './program-registry';

/** true when a and b have the same length and the same bytes outside [from, to) */
export function sameExcept(a: Buffer, b: Buffer, from: number, to: number): boolean {
  return a.length === b.length && a.compare(b, 0, from, 0, from) === 0 && a.compare(b, to, b.length, to, a.length) === 0;
}

/** the previous content's decode under `key`, when it had the same owner */
export function previousDecode<T>(a: AccountView, key: string): { prev: AccountView; value: T } | undefined {
  const prev = a.previous;
  if (!prev || prev.owner !== a.owner) return undefined;
  const value = prev.peek<T>(key);
  return value === undefined ? undefined : { prev, value };
}

/** SPL token account amount offset (u64 LE at byte 64) */
const AMOUNT_AT = 64;

/**
 * Token account, decoded once per content. Delta path: when only the amount (bytes 64..72)
 * changed since the previous write, the previous decode is reused with the new amount.
 */
export function tokenAccount(a: AccountView): TokenAccount {
  return a.memo('spl:Account', decodeTokenAccountView);
}

function decodeTokenAccountView(x: AccountView): TokenAccount {
  const p = previousDecode<TokenAccount>(x, 'spl:Account');
  if (p && sameExcept(x.data, p.prev.data, AMOUNT_AT, AMOUNT_AT + 8)) return withAmount(p.value, readU64(x.data, AMOUNT_AT));
  return decodeTokenAccount(x.data, x.owner, x.address);
}

/** `t` with another amount (same fields, same key order as decodeTokenAccount) */
function withAmount(t: TokenAccount, amount: bigint): TokenAccount {
  const out: TokenAccount = {
    mint: t.mint,
    owner: t.owner,
    amount,
    delegate: t.delegate,
    state: t.state,
    isNative: t.isNative,
    delegatedAmount: t.delegatedAmount,
    closeAuthority: t.closeAuthority,
  };
  if (t.extensions !== undefined) out.extensions = t.extensions;
  return out;
}

const decodeMintView = (x: AccountView): MintAccount => decodeMint(x.data, x.owner, x.address);
export const mintAccount = (a: AccountView): MintAccount => a.memo('spl:Mint', decodeMintView);

const NO_FEE_CONFIG = { none: true } as const;
const decodeFeeConfigView = (x: AccountView): TransferFeeConfig | typeof NO_FEE_CONFIG => mintTransferFeeConfig(mintAccount(x), x.address) ?? NO_FEE_CONFIG;
/** the mint's TransferFeeConfig extension (null when it has none), decoded once per content */
export function mintFeeConfig(a: AccountView): TransferFeeConfig | null {
  const v = a.memo<TransferFeeConfig | typeof NO_FEE_CONFIG>('spl:TransferFeeConfig', decodeFeeConfigView);
  return v === NO_FEE_CONFIG ? null : (v as TransferFeeConfig);
}

/** A pool whose account set is incomplete or undecodable: thrown inside buildPool, turned into an Unroutable. */
export class PoolIncomplete extends Error {}

/** the account at `address`, or PoolIncomplete "missing <what> account <address>" */
export function need(get: (address: string) => AccountView | undefined, address: string, what: string): AccountView {
  const a = get(address);
  if (!a) throw new PoolIncomplete(`missing ${what} account ${address}`);
  return a;
}

/** decode, turning an AccountDecodeError into PoolIncomplete "undecodable <what>: <reason>" */
export function decodeAs<T>(acc: AccountView, what: string, decode: (a: AccountView) => T): T {
  try {
    return decode(acc);
  } catch (e) {
    if (e instanceof AccountDecodeError) throw new PoolIncomplete(`undecodable ${what}: ${e.message}`);
    throw e;
  }
}

/** A vault token account that must hold `mint`. */
export function vaultAccount(get: (address: string) => AccountView | undefined, address: string, mint: string, what: string): TokenAccount {
  const t = decodeAs(need(get, address, what), what, tokenAccount);
  if (t.mint !== mint) throw new PoolIncomplete(`${what} ${address} holds mint ${t.mint}, expected ${mint}`);
  return t;
}

/** A mint account (decoded) and its Token-2022 transfer fee in force at the epoch of `slot`. */
export function mintWithTransferFee(
  get: (address: string) => AccountView | undefined,
  address: string,
  what: string,
  slot: number,
): { mint: MintAccount; transferFee: EpochTransferFee | null } {
  const acc = need(get, address, what);
  const mint = decodeAs(acc, what, mintAccount);
  const cfg = decodeAs(acc, `${what} transfer-fee extension`, mintFeeConfig);
  if (cfg === null) return { mint, transferFee: null };
  const f = transferFeeForEpoch(cfg, epochOfSlot(slot));
  if (f.transferFeeBasisPoints > 10_000) throw new PoolIncomplete(`${what} ${address}: transfer fee ${f.transferFeeBasisPoints} bps is above 10000`);
  if (f.transferFeeBasisPoints === 0 || f.maximumFee === 0n) return { mint, transferFee: null };
  return { mint, transferFee: { bps: f.transferFeeBasisPoints, maximumFee: f.maximumFee } };
}

/**
 * Runs a venue's build: PoolIncomplete becomes an Unroutable carrying its reason and the mints
 * known so far (`mints` is filled by the build as soon as the pool account is decoded).
 */
export function building(mints: { mintA?: string; mintB?: string }, build: () => BuildResult): BuildResult {
  try {
    return build();
  } catch (e) {
    if (e instanceof PoolIncomplete) {
      const out: Unroutable = { unroutable: e.message };
      if (mints.mintA !== undefined) out.mintA = mints.mintA;
      if (mints.mintB !== undefined) out.mintB = mints.mintB;
      return out;
    }
    throw e;
  }
}

/** a Pool with a `notQuotable` reason becomes Unroutable "not quotable: <reason>" */
export function routableOrReason<P extends { notQuotable: string | null; mintA: string; mintB: string }>(pool: P): P | Unroutable {
  if (pool.notQuotable !== null) return { unroutable: `not quotable: ${pool.notQuotable}`, mintA: pool.mintA, mintB: pool.mintB };
  return pool;
}
