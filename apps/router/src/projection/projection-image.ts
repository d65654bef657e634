/**
 * A projection's state as plain data (a ProjectionImage), and back: what a snapshot holds.
 *
 * Capture is one synchronous pass between two applied batches: account contents are taken by
 * reference (an AccountEntry is never changed once written: a write makes a new one), everything
 * that changes in place (adjacency lists, dependents, indexes, counters) is copied. The encoding
 * and the write (projection-snapshots.ts) then run off that image in slices while the projection
 * moves on.
 *
 * Restore rebuilds an empty projection so that it is the one the same log prefix gives, order
 * included: the address slots, the pools, every adjacency list (the order the route search walks
 * and breaks ties in), the dependents of each account (the order pools are rebuilt after a shared
 * account changes, so the order later pools enter the graph), the token-account index, the counters
 * and the log positions. Pools are built again from their accounts with each program's own
 * decoders; an image whose pools do not build as it says (a dependency list, a routable pool) is
 * rejected with a SnapshotImageError instead of being half restored. The price oracle has no state
 * of its own to keep: it is a function of the pools and their last-change times, both restored.
 *
 * The fields are reached with element access (`p['slots']`), which TypeScript type-checks against
 * the class: a renamed field fails to compile here.
 */
import type { Pool } from '@app/amm';
import { isUnroutable } from '@app/pools';
import { AccountEntry, AccountSlot, Projection, type ProjectionCounters } from '@app/pools';

/** an account's content as a snapshot keeps it */
export interface AccountContent {
  readonly owner: string;
  readonly data: Buffer;
  readonly slot: number;
}

export interface SlotImage {
  address: string;
  account: AccountContent | undefined;
  tokenAuthority: string | undefined;
  hasDecimals: boolean;
  isLookupTable: boolean;
  lastChangeAt: number;
  /** addresses of the pools depending on it, in order; null when none */
  dependents: string[] | null;
}

export interface ProjectionImage {
  slots: SlotImage[];
  /** every pool, in the projection's order, with its dependencies */
  pools: Array<{ address: string; deps: readonly string[] }>;
  /** mint → the routable pools trading it, in order */
  adjacency: Array<[string, string[]]>;
  tokenAccountsByAuthority: Array<[string, string[]]>;
  trackingPools: string[];
  lookupTables: string[];
  decimals: Array<[string, number]>;
  accountCount: number;
  highestSlot: number;
  version: number;
  additions: number;
  /** the replacement journal's next number (the journal itself restarts empty) */
  replacedNext: number;
  counters: ProjectionCounters;
  lastRejection: string | null;
  lastApplied: Record<string, string>;
  lastProcessed: Record<string, string>;
}

/** An image that does not describe a state its accounts build. */
export class SnapshotImageError extends Error {}

/** The projection's state now (pending writes settled first). */
export function captureImage(p: Projection): ProjectionImage {
  p['settle']();
  const slots: SlotImage[] = [];
  for (const s of p['slots'].values()) {
    let dependents: string[] | null = null;
    if (s.dependents) {
      dependents = [];
      for (const e of s.dependents) dependents.push(e.address);
    }
    slots.push({
      address: s.address,
      account: s.entry,
      tokenAuthority: s.tokenAuthority,
      hasDecimals: s.hasDecimals,
      isLookupTable: s.isLookupTable,
      lastChangeAt: s.lastChangeAt,
      dependents,
    });
  }
  const pools: ProjectionImage['pools'] = [];
  // (a pool's deps array is replaced, never changed in place)
  for (const e of p['pools'].values()) pools.push({ address: e.address, deps: e.deps });
  const adjacency: ProjectionImage['adjacency'] = [];
  for (const [mint, list] of p['adjacency']) adjacency.push([mint, list.map((pool) => pool.address)]);
  const byAuthority: ProjectionImage['tokenAccountsByAuthority'] = [];
  for (const [authority, list] of p['tokenAccountsByAuthority']) byAuthority.push([authority, [...list]]);
  const counters = p['counters'];
  return {
    slots,
    pools,
    adjacency,
    tokenAccountsByAuthority: byAuthority,
    trackingPools: [...p['trackingPools'].keys()],
    lookupTables: [...p['lookupTables']],
    decimals: [...p['decimalsByMint']],
    accountCount: p['accountCount'],
    highestSlot: p['highestSlot'],
    version: p['version'],
    additions: p['additions'],
    replacedNext: p['replacedBase'] + p['replaced'].length,
    counters: { applied: counters.applied, rejected: counters.rejected, rejectedReasons: { ...counters.rejectedReasons } },
    lastRejection: p['lastRejectionText'],
    lastApplied: { ...p['lastApplied'] },
    lastProcessed: { ...p['lastProcessed'] },
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Put an empty projection (nothing applied yet) in the state of `image`. */
export function restoreImage(p: Projection, image: ProjectionImage): void {
  const slots = p['slots'];
  if (slots.size > 0 || p['counters'].applied > 0 || p['counters'].rejected > 0) throw new Error('restoreImage needs an empty projection');
  for (const s of image.slots) {
    const slot = new AccountSlot(s.address);
    if (s.account) slot.entry = new AccountEntry(s.address, s.account.owner, s.account.data, s.account.slot, undefined);
    slot.tokenAuthority = s.tokenAuthority;
    slot.hasDecimals = s.hasDecimals;
    slot.isLookupTable = s.isLookupTable;
    slot.lastChangeAt = s.lastChangeAt;
    slots.set(s.address, slot);
  }
  p['accountCount'] = image.accountCount;
  for (const [mint, decimals] of image.decimals) p['decimalsByMint'].set(mint, decimals);
  for (const [authority, list] of image.tokenAccountsByAuthority) p['tokenAccountsByAuthority'].set(authority, [...list]);
  for (const a of image.lookupTables) p['lookupTables'].add(a);

  // the pools, built in the image's order from their accounts
  const pools = p['pools'];
  for (const { address, deps } of image.pools) {
    const home = slots.get(address);
    if (!home?.entry) throw new SnapshotImageError(`pool ${address} has no account in the image`);
    p['rematerialise'](home);
    const e = pools.get(address);
    if (!e) throw new SnapshotImageError(`the account of pool ${address} does not build a pool`);
    if (!sameList(e.deps, deps)) throw new SnapshotImageError(`pool ${address} depends on other accounts than the image says`);
  }
  if (pools.size !== image.pools.length) throw new SnapshotImageError('the image lists a pool twice');

  // the token graph in the image's order
  for (const e of pools.values()) {
    e.posA = e.posB = -1;
    e.listA = e.listB = null;
  }
  const adjacency = p['adjacency'];
  adjacency.clear();
  for (const [mint, addresses] of image.adjacency) {
    const list: Pool[] = [];
    for (const a of addresses) {
      const e = pools.get(a);
      if (!e || isUnroutable(e.result)) throw new SnapshotImageError(`pool ${a} is in the graph of the image but not routable`);
      const pool = e.result as Pool;
      if (pool.mintA === mint && e.posA < 0) {
        e.posA = list.length;
        e.listA = list;
      } else if (pool.mintB === mint && e.posB < 0) {
        e.posB = list.length;
        e.listB = list;
      } else {
        throw new SnapshotImageError(`pool ${a} is listed under mint ${mint} it does not trade`);
      }
      list.push(pool);
    }
    adjacency.set(mint, list);
  }
  for (const e of pools.values()) {
    if (!isUnroutable(e.result) && (e.posA < 0 || e.posB < 0)) throw new SnapshotImageError(`routable pool ${e.address} is missing from the graph of the image`);
  }

  // dependents and tracking pools in the image's order
  for (const s of image.slots) {
    const slot = slots.get(s.address)!;
    const built = slot.dependents?.size ?? 0;
    if ((s.dependents?.length ?? 0) !== built) throw new SnapshotImageError(`account ${s.address} has other dependents than the image says`);
    slot.dependents = s.dependents ? new Set(s.dependents.map((a) => pools.get(a)!)) : undefined;
  }
  const tracking = p['trackingPools'];
  if (tracking.size !== image.trackingPools.length) throw new SnapshotImageError('the image tracks other pools than its accounts build');
  tracking.clear();
  for (const a of image.trackingPools) tracking.set(a, pools.get(a)!);

  p['highestSlot'] = image.highestSlot;
  p['version'] = image.version;
  p['additions'] = image.additions;
  p['replacedBase'] = image.replacedNext;
  p['replaced'] = [];
  const counters = p['counters'];
  counters.applied = image.counters.applied;
  counters.rejected = image.counters.rejected;
  Object.assign(counters.rejectedReasons, image.counters.rejectedReasons);
  p['lastRejectionText'] = image.lastRejection;
  Object.assign(p['lastApplied'], image.lastApplied);
  Object.assign(p['lastProcessed'], image.lastProcessed);
  // the first drainChanged carries the whole market, as after applying the prefix itself
  const changed = new Map<string, number>();
  for (const e of pools.values()) changed.set(e.address, e.home.lastChangeAt);
  p['changed'] = changed;
}

/** Empty a projection again (after a restore that failed half way). */
export function clearProjection(p: Projection): void {
  for (const m of [p['slots'], p['pools'], p['trackingPools'], p['decimalsByMint'], p['tokenAccountsByAuthority'], p['adjacency'], p['lookupTables']]) m.clear();
  for (const o of [p['lastApplied'], p['lastProcessed'], p['counters'].rejectedReasons]) for (const k of Object.keys(o)) delete o[k];
  p['counters'].applied = p['counters'].rejected = 0;
  p['accountCount'] = p['highestSlot'] = p['version'] = p['additions'] = p['replacedBase'] = 0;
  p['replaced'] = [];
  p['dirty'] = [];
  p['changed'] = new Map();
  p['lastRejectionText'] = null;
}
