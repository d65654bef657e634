/**
 * One shared copy of each candidate path's address lists. The live stream keeps a few candidate
 * paths per tuple (its pools and its mints, as the route search found them), and the tuples of
 * one pair (the same tokens, other amounts or sides) keep the same paths: in the live stream
 * benchmark, 45,715 candidate paths of 10,000 tuples had 3,361 distinct pool lists. Each search
 * and each candidate refresh builds the lists anew; the interner hands back the lists it already
 * holds for the same path, so the tuples share them, and the new lists are garbage at once
 * instead of living (and being marked by every major collection) as long as the tuple keeps them.
 *
 * The lists are never written after a search built them (readonly everywhere they are kept), so
 * sharing is safe. The table forgets everything once it holds `limit` paths; lists handed out
 * before stay valid (they are only no longer shared with later ones). Plain TypeScript.
 */
export interface PathLists {
  readonly pools: readonly string[];
  readonly mints: readonly string[];
}

export class PathInterner {
  private readonly table = new Map<string, PathLists>();

  constructor(private readonly limit = 1 << 16) {}

  /** the shared lists of the path `pools` walked from `mints[0]` (those given, the first time) */
  intern(pools: readonly string[], mints: readonly string[]): PathLists {
    // a pool list and the mint it starts from name the path: each hop leaves by its pool's other mint
    const key = `${mints[0]}>${pools.join('>')}`;
    const held = this.table.get(key);
    if (held !== undefined && sameList(held.mints, mints)) return held;
    if (this.table.size >= this.limit) this.table.clear();
    const lists: PathLists = { pools, mints };
    this.table.set(key, lists);
    return lists;
  }

  /** paths held (for tests and figures) */
  get size(): number {
    return this.table.size;
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
