/**
 * Token program accounts as the projection sees them: which raw accounts are mints and token
 * accounts (Token or Token-2022, by size or account-type byte), a token account's authority, and
 * the token accounts of each authority (for venues that find accounts they cannot derive).
 */
import { PROGRAM_IDS } from '@app/solana';
import { readPubkey } from '@app/solana';
import { ACCOUNT_TYPE_ACCOUNT, ACCOUNT_TYPE_MINT, ACCOUNT_TYPE_OFFSET, MINT_SIZE, TOKEN_ACCOUNT_SIZE } from '@app/solana';
import type { AccountEntry } from './account-slots';

function isTokenProgram(owner: string): boolean {
  return owner === PROGRAM_IDS.token || owner === PROGRAM_IDS.token2022;
}

/** A Mint of the Token or Token-2022 program (by size / account-type byte). */
export function looksLikeMint(owner: string, data: Buffer): boolean {
  if (!isTokenProgram(owner)) return false;
  if (data.length === MINT_SIZE) return true;
  return owner === PROGRAM_IDS.token2022 && data.length > ACCOUNT_TYPE_OFFSET && data[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_MINT;
}

/** A token Account of the Token or Token-2022 program (by size / account-type byte). */
function looksLikeTokenAccount(owner: string, data: Buffer): boolean {
  if (!isTokenProgram(owner)) return false;
  if (data.length === TOKEN_ACCOUNT_SIZE) return true;
  return owner === PROGRAM_IDS.token2022 && data.length > ACCOUNT_TYPE_OFFSET && data[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_ACCOUNT;
}

/** token account authority field: bytes 32..64 */
const AUTHORITY_AT = 32;

/** the 32 bytes at `at` are the same in a and b (both long enough); cheaper than a native compare */
function sameKeyAt(a: Buffer, b: Buffer, at: number): boolean {
  if (b.length < at + 32) return false;
  for (let i = at; i < at + 32; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The authority of the account with this content when it is a token account (undefined when
 * it is not, or is closed); `before`, its authority from the previous content, is reused when
 * those bytes did not change (the authority rarely does).
 */
export function tokenAuthorityOf(owner: string, data: Buffer | null, before: string | undefined, prev: AccountEntry | undefined): string | undefined {
  if (data === null || !looksLikeTokenAccount(owner, data)) return undefined;
  return before !== undefined && prev !== undefined && sameKeyAt(data, prev.data, AUTHORITY_AT) ? before : readPubkey(data, AUTHORITY_AT);
}

/**
 * In `byAuthority` (authority → its token accounts, first-seen order), the token account at
 * `address` now has authority `after` instead of `before` (either may be undefined).
 */
export function moveTokenAccount(byAuthority: Map<string, string[]>, address: string, before: string | undefined, after: string | undefined): void {
  if (before !== undefined) {
    const list = byAuthority.get(before);
    if (list) {
      const i = list.indexOf(address);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) byAuthority.delete(before);
    }
  }
  if (after !== undefined) {
    let list = byAuthority.get(after);
    if (!list) byAuthority.set(after, (list = []));
    list.push(address);
  }
}
