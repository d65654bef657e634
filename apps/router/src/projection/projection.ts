/**
 * The router's in-memory projection of `pool-updates`: raw accounts by address, mint decimals,
 * materialised `Pool`s (through the program registry) and the token graph the route search walks.
 *
 * Plain TypeScript, no Nest, no IO. Deterministic: the state depends only on the sequence of
 * records applied (no clock, no randomness); the same prefix of the log gives the same pools,
 * the same graph (same order) and therefore the same quotes.
 *
 * Fast path: `apply` stores the raw bytes and marks the pools that depend on the written account
 * as dirty; pools are re-materialised lazily, once, when the state is next read (a sim slot
 * writes both vaults and the pool state of a pool: one rebuild, not three). Decoded accounts are
 * cached per account content (`AccountView.memo`), so a vault write re-decodes only that vault.
 */
import type { Pool } from '../../../../libs/amm/src/pool';
import type { TokenGraph } from '../../../../libs/amm/src/routing/route-search';
import { ContractError } from '../../../../libs/contracts/src/errors';
import { decodePoolUpdate } from '../../../../libs/contracts/src/pool-update';
import { PROGRAM_IDS } from '../../../../libs/solana/src/programs';
import { readPubkey } from '../../../../libs/solana/src/base58';
import { ACCOUNT_TYPE_ACCOUNT, ACCOUNT_TYPE_MINT, ACCOUNT_TYPE_OFFSET, MINT_SIZE, TOKEN_ACCOUNT_SIZE } from '../../../../libs/solana/src/spl-token';
import { isUnroutable, ProgramRegistry, type AccountLookup, type AccountView, type BuildResult, type ProgramModule } from './program-registry';
import { mintAccount } from './account-decoders';
import { orcaWhirlpoolModule } from './orca-whirlpool.module';
import { pumpAmmModule } from './pump-amm.module';
import { pumpFunModule } from './pump-fun.module';
import { raydiumAmmV4Module } from './raydium-amm-v4.module';
import { raydiumClmmModule } from './raydium-clmm.module';
import { raydiumCpmmModule } from './raydium-cpmm.module';

/** Every liquidity program the router understands. */
export const DEFAULT_PROGRAM_MODULES: readonly ProgramModule[] = [
  raydiumCpmmModule,
  raydiumAmmV4Module,
  raydiumClmmModule,
  orcaWhirlpoolModule,
  pumpAmmModule,
  pumpFunModule,
];

export interface ProjectionRecord {
  partition: number | string;
  offset: string | number | bigint;
  value: Buffer;
}

export type ApplyOutcome = { applied: true } | { applied: false; reason: string };

export interface ProjectionCounters {
  /** records applied to the state */
  applied: number;
  /** records rejected (unknown schema version, malformed body); never applied */
  rejected: number;
  /** rejected records by reason */
  rejectedReasons: Record<string, number>;
}

export interface MarketInfo {
  address: string;
  programId: string;
  kind: string;
  label: string;
  mintA: string | null;
  mintB: string | null;
  /** newest slot among the pool's accounts */
  lastSlot: number;
  routable: boolean;
  reason?: string;
}

export interface TokenInfo {
  mint: string;
  /** from the Mint account; null while the mint account is unknown */
  decimals: number | null;
  /** routable pools that trade this mint */
  pools: number;
}

const MAX_REASONS = 64;

/** a memoised decode: its value, or the error it threw */
type Memo = { value?: unknown; error?: unknown };

class AccountEntry implements AccountView {
  /**
   * Decodes of this content by key. Almost every account is decoded under one key (a vault as a
   * token account, a pool as its state), so the first lives in fields and only a second key
   * allocates a map: one object less per write on the projection's hot path.
   */
  private firstKey: string | null = null;
  private first: Memo | null = null;
  private more: Map<string, Memo> | null = null;

  constructor(
    readonly address: string,
    readonly owner: string,
    readonly data: Buffer,
    readonly slot: number,
    public previous: AccountEntry | undefined,
  ) {}

  private hit(key: string): Memo | undefined {
    if (this.firstKey === key) return this.first!;
    return this.more?.get(key);
  }

  peek<T>(key: string): T | undefined {
    const hit = this.hit(key);
    return hit && !('error' in hit) ? (hit.value as T) : undefined;
  }

  memo<T>(key: string, decode: (account: AccountView) => T): T {
    let hit = this.hit(key);
    if (hit === undefined) {
      try {
        hit = { value: decode(this) };
      } catch (error) {
        hit = { error };
      }
      if (this.firstKey === null) {
        this.firstKey = key;
        this.first = hit;
      } else {
        if (this.more === null) this.more = new Map();
        this.more.set(key, hit);
      }
    }
    if ('error' in hit) throw hit.error;
    return hit.value as T;
  }
}

interface PoolEntry {
  address: string;
  module: ProgramModule;
  deps: string[];
  slot: number;
  result: BuildResult;
  /** position in the adjacency arrays of mintA / mintB while the pool is in the graph */
  posA: number;
  posB: number;
}

function isTokenProgram(owner: string): boolean {
  return owner === PROGRAM_IDS.token || owner === PROGRAM_IDS.token2022;
}

/** A Mint of the Token or Token-2022 program (by size / account-type byte). */
function looksLikeMint(owner: string, data: Buffer): boolean {
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

export class Projection implements TokenGraph {
  private readonly registry: ProgramRegistry;
  private readonly accounts = new Map<string, AccountEntry>();
  private readonly pools = new Map<string, PoolEntry>();
  /** dependency account → pools whose quotes depend on it */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly decimalsByMint = new Map<string, number>();
  /** token account → its authority (owner field), and authority → its token accounts */
  private readonly tokenAuthority = new Map<string, string>();
  private readonly tokenAccountsByAuthority = new Map<string, string[]>();
  /** routable pools per mint (the token graph) */
  private readonly adjacency = new Map<string, Pool[]>();
  private readonly dirty = new Set<string>();
  /** pools re-materialised since the last drainChanged() */
  private changed = new Set<string>();
  private readonly lastApplied: Record<string, string> = {};
  private readonly lastProcessed: Record<string, string> = {};
  private highestSlot = 0;
  private version = 0;
  private readonly counters: ProjectionCounters = { applied: 0, rejected: 0, rejectedReasons: {} };
  private lastRejectionText: string | null = null;
  private readonly lookupTables = new Set<string>();

  constructor(modules: readonly ProgramModule[] = DEFAULT_PROGRAM_MODULES) {
    this.registry = new ProgramRegistry(modules);
  }

  // ---- writes ----

  /** Apply one `pool-updates` record. A record that does not decode is counted and not applied. */
  apply(record: ProjectionRecord): ApplyOutcome {
    const partition = String(record.partition);
    const offset = String(record.offset);
    this.lastProcessed[partition] = offset;
    let u;
    try {
      u = decodePoolUpdate(record.value);
    } catch (e) {
      if (!(e instanceof ContractError)) throw e;
      this.reject(e.reason, partition, offset);
      return { applied: false, reason: e.reason };
    }
    const address = u.address;
    const prev = this.accounts.get(address);
    if (u.data === null) {
      if (prev) this.accounts.delete(address);
    } else {
      // keep one previous content (for delta decodes), never a chain
      if (prev) prev.previous = undefined;
      this.accounts.set(address, new AccountEntry(address, u.owner, u.data, u.slot, prev));
    }
    // address lookup tables (the swap builder compresses transactions with them)
    if (u.data !== null && u.owner === PROGRAM_IDS.addressLookupTable) this.lookupTables.add(address);
    else if (prev) this.lookupTables.delete(address);
    // mint decimals
    if (u.data !== null && looksLikeMint(u.owner, u.data)) {
      try {
        this.decimalsByMint.set(address, mintAccount(this.accounts.get(address)!).decimals);
      } catch {
        this.decimalsByMint.delete(address);
      }
    } else if (prev && this.decimalsByMint.has(address)) {
      this.decimalsByMint.delete(address);
    }
    // token accounts by authority (for modules that find accounts they cannot derive)
    this.indexTokenAccount(address, u.owner, u.data, prev);
    // pools to re-materialise: the account itself when it is (or was) a pool, and its dependents
    if (this.pools.has(address) || (u.data !== null && this.isPoolAccount(u.owner, u.data))) this.dirty.add(address);
    const deps = this.dependents.get(address);
    if (deps) for (const p of deps) this.dirty.add(p);

    if (u.slot > this.highestSlot) this.highestSlot = u.slot;
    this.lastApplied[partition] = offset;
    this.counters.applied++;
    return { applied: true };
  }

  private indexTokenAccount(address: string, owner: string, data: Buffer | null, prev: AccountEntry | undefined): void {
    const before = this.tokenAuthority.get(address);
    let after: string | undefined;
    if (data !== null && looksLikeTokenAccount(owner, data)) {
      // the authority rarely changes: reuse it when its bytes are the previous content's
      after =
        before !== undefined && prev !== undefined && data.compare(prev.data, AUTHORITY_AT, AUTHORITY_AT + 32, AUTHORITY_AT, AUTHORITY_AT + 32) === 0
          ? before
          : readPubkey(data, AUTHORITY_AT);
    }
    if (after !== before) {
      if (before !== undefined) {
        const list = this.tokenAccountsByAuthority.get(before);
        if (list) {
          const i = list.indexOf(address);
          if (i >= 0) list.splice(i, 1);
          if (list.length === 0) this.tokenAccountsByAuthority.delete(before);
        }
        this.tokenAuthority.delete(address);
      }
      if (after !== undefined) {
        this.tokenAuthority.set(address, after);
        let list = this.tokenAccountsByAuthority.get(after);
        if (!list) this.tokenAccountsByAuthority.set(after, (list = []));
        list.push(address);
      }
    }
    // a token account owned by a pool of a module that tracks them: re-materialise that pool
    if (before !== undefined) this.dirtyIfTracking(before);
    if (after !== undefined && after !== before) this.dirtyIfTracking(after);
  }

  private dirtyIfTracking(authority: string): void {
    const pool = this.pools.get(authority);
    if (pool && pool.module.tracksOwnedTokenAccounts) this.dirty.add(authority);
  }

  applyBatch(records: readonly ProjectionRecord[]): void {
    for (const r of records) this.apply(r);
  }

  private reject(reason: string, partition: string, offset: string): void {
    this.counters.rejected++;
    const reasons = this.counters.rejectedReasons;
    const key = reason in reasons || Object.keys(reasons).length < MAX_REASONS ? reason : 'other';
    reasons[key] = (reasons[key] ?? 0) + 1;
    this.lastRejectionText = `partition ${partition} offset ${offset}: ${reason}`;
  }

  private isPoolAccount(owner: string, data: Buffer): boolean {
    const m = this.registry.get(owner);
    return m !== undefined && m.accountKind(data) === m.poolAccountKind;
  }

  // ---- lazy re-materialisation ----

  private settle(): void {
    if (this.dirty.size === 0) return;
    for (const address of this.dirty) {
      this.rematerialise(address);
      this.changed.add(address);
    }
    this.dirty.clear();
  }

  /**
   * Settles pending writes and returns the addresses of the pools (routable or not, including
   * removed ones) re-materialised since the previous call, then forgets them. Consumers that
   * react to pool changes (price oracle, quote interest) call this once per applied batch.
   */
  drainChanged(): Set<string> {
    this.settle();
    const out = this.changed;
    this.changed = new Set();
    return out;
  }

  private readonly getAccount = (address: string): AccountView | undefined => this.accounts.get(address);
  private readonly lookup: AccountLookup = {
    get: this.getAccount,
    tokenAccountsOwnedBy: (authority: string): readonly string[] => this.tokenAccountsByAuthority.get(authority) ?? EMPTY_ADDRESSES,
  };

  private rematerialise(address: string): void {
    const acc = this.accounts.get(address);
    const module = acc ? this.registry.get(acc.owner) : undefined;
    const old = this.pools.get(address);
    if (!acc || !module || module.accountKind(acc.data) !== module.poolAccountKind) {
      if (old) {
        this.removeFromGraph(old);
        this.setDependencies(address, old.deps, []);
        this.pools.delete(address);
      }
      return;
    }
    let deps: string[];
    try {
      deps = module.poolDependencies(address, acc, this.lookup);
    } catch {
      deps = []; // undecodable pool account: buildPool reports the reason
    }
    this.setDependencies(address, old ? old.deps : [], deps);
    let slot = acc.slot;
    for (const d of deps) {
      const a = this.accounts.get(d);
      if (a && a.slot > slot) slot = a.slot;
    }
    let result: BuildResult;
    try {
      result = module.buildPool(address, this.getAccount, slot, this.lookup);
    } catch (e) {
      result = { unroutable: `cannot build pool: ${(e as Error).message}` };
    }
    const entry: PoolEntry = old ?? { address, module, deps, slot, result, posA: -1, posB: -1 };
    entry.module = module;
    entry.deps = deps;
    entry.slot = slot;
    if (!isUnroutable(result) && result.mintA === result.mintB) {
      result = { unroutable: `both sides are the same mint ${result.mintA}`, mintA: result.mintA, mintB: result.mintB };
    }
    const next = isUnroutable(result) ? null : result;
    const prevPool = old && entry.posA >= 0 ? (old.result as Pool) : null;
    if (prevPool && next && prevPool.mintA === next.mintA && prevPool.mintB === next.mintB) {
      // same place in the graph: swap the object, the topology is unchanged
      this.adjacency.get(next.mintA)![entry.posA] = next;
      this.adjacency.get(next.mintB)![entry.posB] = next;
      entry.result = result;
    } else {
      if (prevPool) this.removeFromGraph(entry);
      entry.result = result;
      if (next) this.addToGraph(entry, next);
    }
    if (!old) this.pools.set(address, entry);
  }

  private setDependencies(pool: string, before: string[], after: string[]): void {
    if (before.length === after.length && before.every((d, i) => d === after[i])) return;
    for (const d of before) {
      const s = this.dependents.get(d);
      if (s) {
        s.delete(pool);
        if (s.size === 0) this.dependents.delete(d);
      }
    }
    for (const d of after) {
      let s = this.dependents.get(d);
      if (!s) this.dependents.set(d, (s = new Set()));
      s.add(pool);
    }
  }

  private addToGraph(entry: PoolEntry, pool: Pool): void {
    const push = (mint: string): number => {
      let list = this.adjacency.get(mint);
      if (!list) this.adjacency.set(mint, (list = []));
      list.push(pool);
      return list.length - 1;
    };
    entry.posA = push(pool.mintA);
    entry.posB = push(pool.mintB);
    this.version++;
  }

  private removeFromGraph(entry: PoolEntry): void {
    if (entry.posA < 0) return;
    const pool = entry.result as Pool;
    const cut = (mint: string, pos: number): void => {
      const list = this.adjacency.get(mint)!;
      const last = list.pop()!;
      if (pos < list.length) {
        list[pos] = last;
        const moved = this.pools.get(last.address)!;
        if (last.mintA === mint) moved.posA = pos;
        else moved.posB = pos;
      }
      if (list.length === 0) this.adjacency.delete(mint);
    };
    cut(pool.mintA, entry.posA);
    cut(pool.mintB, entry.posB);
    entry.posA = entry.posB = -1;
    this.version++;
  }

  // ---- reads ----

  /** TokenGraph: the routable pools that trade `mint` */
  poolsOf(mint: string): readonly Pool[] {
    this.settle();
    return this.adjacency.get(mint) ?? EMPTY;
  }

  /** changes whenever a pool enters or leaves the graph (not on reserve changes) */
  get topologyVersion(): number {
    this.settle();
    return this.version;
  }

  /** offset of the last applied record per partition: the log position of this state */
  get positions(): Record<string, string> {
    return { ...this.lastApplied };
  }

  /** offset of the last record seen (applied or rejected) per partition */
  get processed(): Record<string, string> {
    return { ...this.lastProcessed };
  }

  /** the highest slot applied */
  get slot(): number {
    return this.highestSlot;
  }

  get stats(): ProjectionCounters & { accounts: number; pools: number; routablePools: number; tokens: number; lastRejection: string | null } {
    this.settle();
    let routable = 0;
    for (const e of this.pools.values()) if (e.posA >= 0) routable++;
    return {
      applied: this.counters.applied,
      rejected: this.counters.rejected,
      rejectedReasons: { ...this.counters.rejectedReasons },
      accounts: this.accounts.size,
      pools: this.pools.size,
      routablePools: routable,
      tokens: this.adjacency.size,
      lastRejection: this.lastRejectionText,
    };
  }

  /** a routable pool by address */
  pool(address: string): Pool | undefined {
    this.settle();
    const e = this.pools.get(address);
    return e && e.posA >= 0 ? (e.result as Pool) : undefined;
  }

  decimals(mint: string): number | undefined {
    return this.decimalsByMint.get(mint);
  }

  /** addresses of the address lookup table accounts currently on the log, first-seen order */
  lookupTableAddresses(): readonly string[] {
    return [...this.lookupTables];
  }

  account(address: string): AccountView | undefined {
    return this.accounts.get(address);
  }

  /** the accounts a pool's quotes depend on besides its own account ([] for an unknown pool) */
  dependenciesOf(pool: string): string[] {
    this.settle();
    return [...(this.pools.get(pool)?.deps ?? [])];
  }

  /** every pool account seen, routable or not (with the reason), by address */
  markets(): MarketInfo[] {
    this.settle();
    const out: MarketInfo[] = [];
    for (const e of this.pools.values()) {
      const r = e.result;
      const base = { address: e.address, programId: e.module.programId, lastSlot: e.slot };
      if (isUnroutable(r)) {
        out.push({ ...base, kind: e.module.kind, label: e.module.label, mintA: r.mintA ?? null, mintB: r.mintB ?? null, routable: false, reason: r.unroutable });
      } else {
        out.push({ ...base, kind: r.kind, label: r.label, mintA: r.mintA, mintB: r.mintB, routable: true });
      }
    }
    return out.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  }

  /** every mint of the token graph, most pools first */
  tokens(): TokenInfo[] {
    this.settle();
    const out: TokenInfo[] = [];
    for (const [mint, pools] of this.adjacency) out.push({ mint, decimals: this.decimalsByMint.get(mint) ?? null, pools: pools.length });
    return out.sort((a, b) => b.pools - a.pools || (a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : 0));
  }
}

const EMPTY: readonly Pool[] = Object.freeze([]);
const EMPTY_ADDRESSES: readonly string[] = Object.freeze([]);
