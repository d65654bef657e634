/**
 * The token graph the route search walks, as adjacency lists (the routable pools of each mint):
 * a pool entered into both of its mints' lists, cut out of them (the last pool of a list takes
 * its place), or swapped for its next version in place; and the reading of the bounded journal
 * of in-place replacements (TokenGraph.replacedSince). A pool's positions in the two lists are
 * held on its PoolEntry.
 */
import type { Pool, ReplacedPool } from '@app/amm';
import type { PoolEntry } from './account-slots';

/** routable pools per mint */
export type Adjacency = Map<string, Pool[]>;

/** replacements kept for searches to catch up with; a search further behind re-checks every pool */
export const REPLACED_JOURNAL_LIMIT = 4096;
const EMPTY_REPLACED: readonly ReplacedPool[] = Object.freeze([]);

/** appends the entry's pool to the lists of both its mints */
export function insertPool(adjacency: Adjacency, entry: PoolEntry, pool: Pool): void {
  const listOf = (mint: string): Pool[] => {
    let list = adjacency.get(mint);
    if (!list) adjacency.set(mint, (list = []));
    return list;
  };
  const a = (entry.listA = listOf(pool.mintA));
  entry.posA = a.push(pool) - 1;
  const b = (entry.listB = listOf(pool.mintB));
  entry.posB = b.push(pool) - 1;
}

/**
 * Takes the entry's pool out of both lists (`pools`: every entry by address, to find the one
 * moved into its place); false when it was not in the graph.
 */
export function cutPool(adjacency: Adjacency, pools: ReadonlyMap<string, PoolEntry>, entry: PoolEntry): boolean {
  if (entry.posA < 0) return false;
  const pool = entry.result as Pool;
  const cut = (mint: string, pos: number): void => {
    const list = adjacency.get(mint)!;
    const last = list.pop()!;
    if (pos < list.length) {
      list[pos] = last;
      const moved = pools.get(last.address)!;
      if (last.mintA === mint) moved.posA = pos;
      else moved.posB = pos;
    }
    if (list.length === 0) adjacency.delete(mint);
  };
  cut(pool.mintA, entry.posA);
  cut(pool.mintB, entry.posB);
  entry.posA = entry.posB = -1;
  entry.listA = entry.listB = null;
  return true;
}

/** the entry's pool, in the graph, becomes `next` (same mints): same place, the topology unchanged */
export function swapPool(entry: PoolEntry, next: Pool): void {
  entry.listA![entry.posA] = next;
  entry.listB![entry.posB] = next;
}

/**
 * The replacements since `since` from a journal whose first entry is numbered `base`
 * (see Projection.replacedSince).
 */
export function replacementsSince(journal: readonly ReplacedPool[], base: number, since: number | null): { next: number; replaced: readonly ReplacedPool[] | null } {
  const next = base + journal.length;
  if (since === null || since < base || since > next) return { next, replaced: null };
  return { next, replaced: since === next ? EMPTY_REPLACED : journal.slice(since - base) };
}
