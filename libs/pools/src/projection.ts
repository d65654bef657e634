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
 *
 * Everything the projection knows about one address (its content, the pool it is, the pools that
 * depend on it, its token-account authority, its flags) sits in one AccountSlot, so a write costs
 * one Map lookup; a pool holds the slots of its dependencies, so re-materialising it looks none up.
 */
import type { Pool } from '@app/amm';
import type { ReplacedPool, TokenGraph } from '@app/amm';
import { ContractError } from '@app/contracts';
import { decodePoolUpdate } from '@app/contracts';
import { PROGRAM_IDS } from '@app/solana';
import { AccountEntry, AccountSlot, type PoolEntry } from './account-slots';
import { mintAccount } from './account-decoders';
import { listMarkets, listTokens, type MarketInfo, type TokenInfo } from './market-listing';
import { cutPool, insertPool, replacementsSince, REPLACED_JOURNAL_LIMIT, swapPool, type Adjacency } from './pool-graph';
import { VENUES } from './venues';
import { isUnroutable, ProgramRegistry, type AccountLookup, type AccountView, type BuildResult, type Venue } from './program-registry';
import { looksLikeMint, moveTokenAccount, tokenAuthorityOf } from './token-accounts';
import { TokenNames } from './token-names';

/**
 * A held reference to the pool at an address (Projection.poolRef): reading the pool through it
 * (Projection.poolAt) costs no map lookup, for the code that reads the same pools again and
 * again (the stream's checks). It stays valid while the pool does; once the pool left the
 * projection it reads undefined and a new one is taken by address.
 */
export interface PoolRef {
  readonly address: string;
}

export interface ProjectionRecord {
  partition: number | string;
  offset: string | number | bigint;
  value: Buffer;
  /** the record's append time (Unix ms), when the log gives one (see drainChanged) */
  timestamp?: number;
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

const MAX_REASONS = 64;

export class Projection implements TokenGraph {
  private readonly registry: ProgramRegistry;
  /** every address the projection knows something about (see AccountSlot) */
  private readonly slots = new Map<string, AccountSlot>();
  /** accounts present (slots with an entry) */
  private accountCount = 0;
  private readonly pools = new Map<string, PoolEntry>();
  /** the pools of venues that track the token accounts they own, by address */
  private readonly trackingPools = new Map<string, PoolEntry>();
  private readonly decimalsByMint = new Map<string, number>();
  /** authority → its token accounts (first-seen order) */
  private readonly tokenAccountsByAuthority = new Map<string, string[]>();
  /** routable pools per mint (the token graph) */
  private readonly adjacency: Adjacency = new Map();
  /** pool slots to re-materialise, in the order they were first marked */
  private dirty: AccountSlot[] = [];
  /** pools re-materialised since the last drainChanged(), each with the append time of the first record since then that changed it */
  private changed = new Map<string, number>();
  /** the append time of the record being applied */
  private applying = NaN;
  private readonly lastApplied: Record<string, string> = {};
  private readonly lastProcessed: Record<string, string> = {};
  private highestSlot = 0;
  private version = 0;
  private additions = 0;
  /** in-place pool replacements since the journal's last restart, the first numbered replacedBase */
  private replaced: ReplacedPool[] = [];
  private replacedBase = 0;
  private readonly counters: ProjectionCounters = { applied: 0, rejected: 0, rejectedReasons: {} };
  private lastRejectionText: string | null = null;
  private readonly lookupTables = new Set<string>();
  /** symbols and names of the mints, from the accounts held */
  private readonly names = new TokenNames((address) => this.account(address));

  constructor(venues: readonly Venue[] = VENUES) {
    this.registry = new ProgramRegistry(venues);
  }

  // ---- writes ----

  /** Apply one `pool-updates` record. A record that does not decode is counted and not applied. */
  apply(record: ProjectionRecord): ApplyOutcome {
    const partition = String(record.partition);
    const offset = String(record.offset);
    this.lastProcessed[partition] = offset;
    this.applying = record.timestamp ?? NaN;
    let u;
    try {
      u = decodePoolUpdate(record.value);
    } catch (e) {
      if (!(e instanceof ContractError)) throw e;
      this.reject(e.reason, partition, offset);
      return { applied: false, reason: e.reason };
    }
    const address = u.address;
    const data = u.data;
    let slot = this.slots.get(address);
    if (slot === undefined && data !== null) this.slots.set(address, (slot = new AccountSlot(address)));
    // (no slot: a close of an account the projection knows nothing about, nothing to update)
    if (slot !== undefined) {
      const prev = slot.entry;
      if (data === null) {
        if (prev) {
          slot.entry = undefined;
          this.accountCount--;
        }
      } else {
        // keep one previous content (for delta decodes), never a chain
        if (prev) prev.previous = undefined;
        else this.accountCount++;
        slot.entry = new AccountEntry(address, u.owner, data, u.slot, prev);
      }
      // address lookup tables (the swap builder compresses transactions with them)
      if (data !== null && u.owner === PROGRAM_IDS.addressLookupTable) {
        this.lookupTables.add(address);
        slot.isLookupTable = true;
      } else if (slot.isLookupTable) {
        this.lookupTables.delete(address);
        slot.isLookupTable = false;
      }
      // mint decimals
      if (data !== null && looksLikeMint(u.owner, data)) {
        try {
          this.decimalsByMint.set(address, mintAccount(slot.entry!).decimals);
          slot.hasDecimals = true;
        } catch {
          this.decimalsByMint.delete(address);
          slot.hasDecimals = false;
        }
      } else if (slot.hasDecimals) {
        this.decimalsByMint.delete(address);
        slot.hasDecimals = false;
      }
      // token accounts by authority (for venues that find accounts they cannot derive)
      this.indexTokenAccount(slot, u.owner, data, prev);
      // pools to re-materialise: the account itself when it is (or was) a pool, and its dependents
      if (slot.pool !== undefined || (data !== null && this.isPoolAccount(u.owner, data))) this.markDirty(slot);
      const deps = slot.dependents;
      if (deps) for (const p of deps) this.markDirty(p.home);
      if (slot.unused) this.slots.delete(address);
    }

    if (u.slot > this.highestSlot) this.highestSlot = u.slot;
    this.lastApplied[partition] = offset;
    this.counters.applied++;
    return APPLIED;
  }

  private markDirty(slot: AccountSlot): void {
    slot.lastChangeAt = this.applying;
    if (!slot.dirty) {
      slot.dirty = true;
      slot.dirtyAt = this.applying;
      this.dirty.push(slot);
    }
  }

  /** the slot of `address`, created when the projection knows nothing of it yet */
  private slotOf(address: string): AccountSlot {
    let slot = this.slots.get(address);
    if (slot === undefined) this.slots.set(address, (slot = new AccountSlot(address)));
    return slot;
  }

  private release(slot: AccountSlot): void {
    if (slot.unused && this.slots.get(slot.address) === slot) this.slots.delete(slot.address);
  }

  private indexTokenAccount(slot: AccountSlot, owner: string, data: Buffer | null, prev: AccountEntry | undefined): void {
    const before = slot.tokenAuthority;
    const after = tokenAuthorityOf(owner, data, before, prev);
    if (after !== before) {
      moveTokenAccount(this.tokenAccountsByAuthority, slot.address, before, after);
      slot.tokenAuthority = after;
    }
    // a token account owned by a pool of a venue that tracks them: re-materialise that pool
    if (this.trackingPools.size > 0) {
      if (before !== undefined) this.dirtyIfTracking(before);
      if (after !== undefined && after !== before) this.dirtyIfTracking(after);
    }
  }

  private dirtyIfTracking(authority: string): void {
    const pool = this.trackingPools.get(authority);
    if (pool) this.markDirty(pool.home);
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
    const dirty = this.dirty;
    if (dirty.length === 0) return;
    for (let i = 0; i < dirty.length; i++) {
      const slot = dirty[i];
      this.rematerialise(slot);
      if (!this.changed.has(slot.address)) this.changed.set(slot.address, slot.dirtyAt);
    }
    this.dirty = [];
    for (const slot of dirty) {
      slot.dirty = false;
      this.release(slot);
    }
  }

  /**
   * Settles pending writes and returns the addresses of the pools (routable or not, including
   * removed ones) re-materialised since the previous call, then forgets them. Consumers that
   * react to pool changes (price oracle, quote interest) call this once per applied batch.
   * `times`, when given, receives for each of them the append time (ProjectionRecord.timestamp)
   * of the first record since the previous call that changed it (NaN when records carry none).
   */
  drainChanged(times?: Map<string, number>): Set<string> {
    this.settle();
    const changed = this.changed;
    this.changed = new Map();
    if (times) for (const [address, at] of changed) times.set(address, at);
    return new Set(changed.keys());
  }

  /**
   * The append time (ProjectionRecord.timestamp) of the last record applied that changed the pool
   * at `address` or an account it depends on; NaN when records carry none or the pool is unknown.
   * A function of the log prefix, whatever the batches it was applied in.
   */
  lastChangeAt(address: string): number {
    return this.slots.get(address)?.lastChangeAt ?? NaN;
  }

  /** the pool being built: its account and dependencies are read from its slots, not the map */
  private building: PoolEntry | null = null;

  private readonly getAccount = (address: string): AccountView | undefined => {
    const b = this.building;
    if (b !== null) {
      if (address === b.address) return b.home.entry;
      const deps = b.deps;
      for (let i = 0; i < deps.length; i++) if (deps[i] === address) return b.depSlots[i].entry;
    }
    return this.slots.get(address)?.entry;
  };
  private readonly lookup: AccountLookup = {
    get: this.getAccount,
    tokenAccountsOwnedBy: (authority: string): readonly string[] => this.tokenAccountsByAuthority.get(authority) ?? EMPTY_ADDRESSES,
  };

  private rematerialise(home: AccountSlot): void {
    const address = home.address;
    const acc = home.entry;
    const venue = acc ? this.registry.get(acc.owner) : undefined;
    const old = home.pool;
    if (!acc || !venue || venue.accountKind(acc.data) !== venue.poolAccountKind) {
      if (old) {
        this.removeFromGraph(old);
        this.setDependencies(old, []);
        this.pools.delete(address);
        this.trackingPools.delete(address);
        home.pool = undefined;
      }
      return;
    }
    let deps: string[];
    try {
      deps = venue.poolDependencies(address, acc, this.lookup);
    } catch {
      deps = []; // undecodable pool account: buildPool reports the reason
    }
    const entry: PoolEntry = old ?? { address, home, venue, deps: [], depSlots: [], slot: 0, result: NOT_BUILT, posA: -1, posB: -1, listA: null, listB: null };
    entry.venue = venue;
    this.setDependencies(entry, deps);
    let slot = acc.slot;
    for (const d of entry.depSlots) {
      const a = d.entry;
      if (a && a.slot > slot) slot = a.slot;
    }
    entry.slot = slot;
    let result: BuildResult;
    this.building = entry;
    try {
      result = venue.buildPool(address, this.getAccount, slot, this.lookup);
    } catch (e) {
      result = { unroutable: `cannot build pool: ${(e as Error).message}` };
    } finally {
      this.building = null;
    }
    // the build decoded what it needed of these contents: their previous ones (kept for delta
    // decodes) can go (a later decode under another key decodes in full, to the same value)
    acc.previous = undefined;
    for (const d of entry.depSlots) if (d.entry !== undefined) d.entry.previous = undefined;
    if (!isUnroutable(result) && result.mintA === result.mintB) {
      result = { unroutable: `both sides are the same mint ${result.mintA}`, mintA: result.mintA, mintB: result.mintB };
    }
    const next = isUnroutable(result) ? null : result;
    const prevPool = old && entry.posA >= 0 ? (old.result as Pool) : null;
    if (prevPool && next && prevPool.mintA === next.mintA && prevPool.mintB === next.mintB) {
      // same place in the graph: swap the object, the topology is unchanged
      swapPool(entry, next);
      entry.result = result;
      this.journalReplacement(next, entry.posA, entry.posB);
    } else {
      if (prevPool) this.removeFromGraph(entry);
      entry.result = result;
      if (next) this.addToGraph(entry, next);
    }
    if (!old) {
      this.pools.set(address, entry);
      home.pool = entry;
    }
    if (venue.tracksOwnedTokenAccounts) this.trackingPools.set(address, entry);
    else if (this.trackingPools.size > 0) this.trackingPools.delete(address);
  }

  /** the pool now depends on `after` (its previous list kept when equal) */
  private setDependencies(entry: PoolEntry, after: string[]): void {
    const before = entry.deps;
    if (before.length === after.length) {
      let same = true;
      for (let i = 0; i < before.length; i++) {
        if (before[i] !== after[i]) {
          same = false;
          break;
        }
      }
      if (same) return;
    }
    for (const s of entry.depSlots) {
      const set = s.dependents;
      if (set) {
        set.delete(entry);
        if (set.size === 0) {
          s.dependents = undefined;
          this.release(s);
        }
      }
    }
    const slots: AccountSlot[] = [];
    for (const d of after) {
      const s = this.slotOf(d);
      if (!s.dependents) s.dependents = new Set();
      s.dependents.add(entry);
      slots.push(s);
    }
    entry.deps = after;
    entry.depSlots = slots;
  }

  private addToGraph(entry: PoolEntry, pool: Pool): void {
    insertPool(this.adjacency, entry, pool);
    this.version++;
    this.additions++;
  }

  private removeFromGraph(entry: PoolEntry): void {
    if (cutPool(this.adjacency, this.pools, entry)) this.version++;
  }

  /** the replacement feed (TokenGraph.replacedSince): bounded, restarted past its limit */
  private journalReplacement(pool: Pool, indexA: number, indexB: number): void {
    if (this.replaced.length >= REPLACED_JOURNAL_LIMIT) {
      this.replacedBase += this.replaced.length;
      this.replaced = [];
    }
    this.replaced.push({ pool, indexA, indexB });
  }

  // ---- reads ----

  /**
   * TokenGraph: the pools re-materialised in place (same mints, same positions) since `since`
   * (a `next` returned before). null when `since` is null or older than the bounded journal.
   * Entries from before a topology change are stale but harmless: a search re-compiles on a new
   * topologyVersion and starts from null.
   */
  replacedSince(since: number | null): { next: number; replaced: readonly ReplacedPool[] | null } {
    this.settle();
    return replacementsSince(this.replaced, this.replacedBase, since);
  }

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

  /**
   * changes whenever a pool enters the graph (a new pool, one routable again, one with new mints):
   * the changes that can give any pair a better route; a pool leaving only affects the routes
   * through it
   */
  get additionsVersion(): number {
    this.settle();
    return this.additions;
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
      accounts: this.accountCount,
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

  /** a reference to the pool at `address` (see PoolRef); undefined when it is not routable now */
  poolRef(address: string): PoolRef | undefined {
    this.settle();
    const e = this.pools.get(address);
    return e && e.posA >= 0 ? e : undefined;
  }

  /** the routable pool `ref` refers to, as pool(ref.address) would return it; undefined when it is not routable (now, or any more through this reference) */
  poolAt(ref: PoolRef): Pool | undefined {
    this.settle();
    const e = ref as PoolEntry;
    return e.posA >= 0 ? (e.result as Pool) : undefined;
  }

  decimals(mint: string): number | undefined {
    return this.decimalsByMint.get(mint);
  }

  /** addresses of the address lookup table accounts currently on the log, first-seen order */
  lookupTableAddresses(): readonly string[] {
    return [...this.lookupTables];
  }

  account(address: string): AccountView | undefined {
    return this.slots.get(address)?.entry;
  }

  /** the accounts a pool's quotes depend on besides its own account ([] for an unknown pool) */
  dependenciesOf(pool: string): string[] {
    this.settle();
    return [...(this.pools.get(pool)?.deps ?? [])];
  }

  /** every pool account seen, routable or not (with the reason), by address */
  markets(): MarketInfo[] {
    this.settle();
    return listMarkets(this.pools.values());
  }

  /** every mint of the token graph, most pools first */
  tokens(): TokenInfo[] {
    this.settle();
    return listTokens(this.adjacency, this.decimalsByMint, this.names);
  }
}

const EMPTY: readonly Pool[] = Object.freeze([]);
const APPLIED: ApplyOutcome = Object.freeze({ applied: true as const });
/** the result of a pool entry until its first build completes (never read) */
const NOT_BUILT: BuildResult = Object.freeze({ unroutable: 'not built yet' });
const EMPTY_ADDRESSES: readonly string[] = Object.freeze([]);
