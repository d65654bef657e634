/**
 * What the projection holds per address: an account's content with its memoised decodes
 * (AccountEntry), everything known about the address in one place (AccountSlot), and a pool
 * with its dependencies and its place in the token graph (PoolEntry).
 */
import type { Pool } from '@app/amm';
import type { AccountView, BuildResult, Venue } from './program-registry';

/** a memoised decode: its value, or the error it threw */
type Memo = { value?: unknown; error?: unknown };

export class AccountEntry implements AccountView {
  /**
   * Decodes of this content by key. Almost every account is decoded under one key (a vault as a
   * token account, a pool as its state), so the first lives in fields (its value, or the error it
   * threw) and only a second key allocates a map: no allocation but the decode's own per write.
   */
  private firstKey: string | null = null;
  private firstValue: unknown = undefined;
  private firstFailed = false;
  private more: Map<string, Memo> | null = null;

  constructor(
    readonly address: string,
    readonly owner: string,
    readonly data: Buffer,
    readonly slot: number,
    public previous: AccountEntry | undefined,
  ) {}

  peek<T>(key: string): T | undefined {
    if (this.firstKey === key) return this.firstFailed ? undefined : (this.firstValue as T);
    const hit = this.more?.get(key);
    return hit && !('error' in hit) ? (hit.value as T) : undefined;
  }

  memo<T>(key: string, decode: (account: AccountView) => T): T {
    if (this.firstKey === key) {
      if (this.firstFailed) throw this.firstValue;
      return this.firstValue as T;
    }
    let hit = this.more?.get(key);
    if (hit === undefined) {
      let value: unknown;
      let failed = false;
      try {
        value = decode(this);
      } catch (error) {
        value = error;
        failed = true;
      }
      // (the decode may have memoised other keys of this content meanwhile)
      if (this.firstKey === null) {
        this.firstKey = key;
        this.firstValue = value;
        this.firstFailed = failed;
        if (failed) throw value;
        return value as T;
      }
      hit = failed ? { error: value } : { value };
      if (this.more === null) this.more = new Map();
      this.more.set(key, hit);
    }
    if ('error' in hit) throw hit.error;
    return hit.value as T;
  }
}

/**
 * What the projection knows about one address. A slot lives in `slots` while any of it is set
 * (and while it waits to be settled): a slot with dependents is never dropped, so the pools that
 * hold it in `depSlots` always hold the slot the map has.
 */
export class AccountSlot {
  /** the current content; undefined while the account is absent (closed or never written) */
  entry: AccountEntry | undefined = undefined;
  /** the pool keyed by this account, routable or not */
  pool: PoolEntry | undefined = undefined;
  /** pools whose quotes depend on this account, in the order they came to depend on it */
  dependents: Set<PoolEntry> | undefined = undefined;
  /** token account: its authority (owner field) */
  tokenAuthority: string | undefined = undefined;
  /** a mint whose decimals are in decimalsByMint */
  hasDecimals = false;
  /** an address lookup table in lookupTables */
  isLookupTable = false;
  /** queued for re-materialisation */
  dirty = false;
  /** while dirty: the append time of the record that made it so (NaN: unknown) */
  dirtyAt = NaN;
  /** the append time of the last record that changed it or an account it depends on (NaN: unknown) */
  lastChangeAt = NaN;

  constructor(readonly address: string) {}

  get unused(): boolean {
    return (
      this.entry === undefined &&
      this.pool === undefined &&
      this.dependents === undefined &&
      this.tokenAuthority === undefined &&
      !this.hasDecimals &&
      !this.isLookupTable &&
      !this.dirty
    );
  }
}

export interface PoolEntry {
  address: string;
  /** the pool account's slot */
  home: AccountSlot;
  venue: Venue;
  deps: string[];
  /** the slots of `deps`, in the same order */
  depSlots: AccountSlot[];
  slot: number;
  result: BuildResult;
  /** position in the adjacency arrays of mintA / mintB while the pool is in the graph */
  posA: number;
  posB: number;
  /** while in the graph: the adjacency lists of mintA / mintB (the lists themselves) */
  listA: Pool[] | null;
  listB: Pool[] | null;
}
