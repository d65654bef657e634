/**
 * The program registry: one `Venue` per liquidity program (keyed by its program id, the venue
 * id) turns raw accounts into `Pool`s. The projection knows nothing about any program's layout;
 * adding a program = adding one venue to `VENUES` (or passing it to the Projection).
 *
 * A venue here is what reading needs (which accounts are pools, what a pool depends on, how it is
 * materialised). What writing needs (the swap instruction of a hop, its compute units, the
 * program's slippage errors, whether it trades native SOL, and the sim chain's reading of that
 * instruction) is the router's venue writer of the same id (apps/router/src/swap/venues): the
 * writing side depends on the router's compute-unit model and build errors, which a library must
 * not reach, and test/venues.contract.spec.ts holds every venue here to have its writer there.
 */
import type { Pool, PoolKind } from '@app/amm';

/** A raw account as the projection holds it (closed accounts are absent). */
export interface AccountView {
  readonly address: string;
  readonly owner: string;
  readonly data: Buffer;
  /** slot of the write this account content came from */
  readonly slot: number;
  /**
   * Decode once per account content: the result (or the thrown error) is cached under `key`
   * until the account is written again. Keeps untouched accounts from being re-decoded when a
   * pool is re-materialised because one of its other accounts changed.
   */
  memo<T>(key: string, decode: (account: AccountView) => T): T;
  /** a value `memo` already decoded successfully under `key` (undefined otherwise) */
  peek<T>(key: string): T | undefined;
  /**
   * The content this account had before the current write (one level only; undefined for the
   * first write). Lets a decoder reuse the previous decode when only a few bytes changed.
   */
  readonly previous: AccountView | undefined;
}

/** A pool that exists but cannot be routed through; `reason` says why. */
export interface Unroutable {
  unroutable: string;
  /** the pool's mints when they are known (for listings) */
  mintA?: string;
  mintB?: string;
}

export type BuildResult = Pool | Unroutable;

export function isUnroutable(r: BuildResult): r is Unroutable {
  return typeof (r as Unroutable).unroutable === 'string';
}

/** What a venue may read from the projection while it lists dependencies or builds a pool. */
export interface AccountLookup {
  get(address: string): AccountView | undefined;
  /**
   * Addresses of the token accounts (Token or Token-2022) whose owner (authority) field is
   * `authority`, in first-seen order. Lets a venue find an account it cannot derive, e.g. the
   * mint of a pump.fun curve through the curve's own token account.
   */
  tokenAccountsOwnedBy(authority: string): readonly string[];
}

/** One liquidity program as the projection reads it. */
export interface Venue {
  readonly programId: string;
  /** RouteInfo.poolType of this program's pools */
  readonly label: string;
  readonly kind: PoolKind;
  /** the accountKind() value of a pool account (the account a Pool is keyed by) */
  readonly poolAccountKind: string;
  /** which of the program's accounts the bytes hold (null when unknown) */
  accountKind(data: Buffer): string | null;
  /**
   * Addresses of the accounts the pool's quotes depend on besides the pool account itself.
   * Throws when the pool account cannot be decoded (the pool is then unroutable).
   */
  poolDependencies(poolAddress: string, pool: AccountView, lookup?: AccountLookup): string[];
  /**
   * Materialise the pool from its accounts; never throws for missing / undecodable accounts.
   * `slot` is the newest slot among the pool's accounts (the Token-2022 transfer-fee epoch).
   */
  buildPool(poolAddress: string, get: (address: string) => AccountView | undefined, slot: number, lookup?: AccountLookup): BuildResult;
  /**
   * When true, a write to a token account whose owner (authority) field is one of this venue's
   * pool addresses re-materialises that pool (the account need not be listed as a dependency).
   */
  readonly tracksOwnedTokenAccounts?: boolean;
}

export class ProgramRegistry {
  private readonly byProgram = new Map<string, Venue>();

  constructor(venues: readonly Venue[]) {
    for (const m of venues) {
      if (this.byProgram.has(m.programId)) throw new Error(`two venues for program ${m.programId}`);
      this.byProgram.set(m.programId, m);
    }
  }

  get(programId: string): Venue | undefined {
    return this.byProgram.get(programId);
  }

  venues(): Venue[] {
    return [...this.byProgram.values()];
  }
}
