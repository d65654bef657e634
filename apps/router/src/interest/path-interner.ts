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

/** a step of the table: the paths that go on from here, by their next pool */
interface Step {
  next: Map<string, Step> | undefined;
  /** the lists of the path that ends here */
  lists: PathLists | undefined;
}

export class PathInterner {
  /**
   * by the mint a path starts from, then by each of its pools in order: a path is found with one
   * map look-up per hop on strings that are the projection's own (their hashes computed once),
   * where one key joined from its addresses would be a new string to build and hash every time
   */
  private root = new Map<string, Step>();
  private count = 0;

  constructor(private readonly limit = 1 << 16) {}

  /** the shared lists of the path `pools` walked from `mints[0]` (those given, the first time) */
  intern(pools: readonly string[], mints: readonly string[]): PathLists {
    // a pool list and the mint it starts from name the path: each hop leaves by its pool's other mint
    let step: Step | undefined = this.root.get(mints[0]);
    if (step === undefined) this.root.set(mints[0], (step = { next: undefined, lists: undefined }));
    for (let i = 0; i < pools.length; i++) {
      const next: Map<string, Step> = (step.next ??= new Map());
      let s: Step | undefined = next.get(pools[i]);
      if (s === undefined) next.set(pools[i], (s = { next: undefined, lists: undefined }));
      step = s;
    }
    const held = step.lists;
    if (held !== undefined && sameList(held.mints, mints)) return held;
    const lists: PathLists = { pools, mints };
    if (held === undefined) {
      if (this.count >= this.limit) {
        // start over (the lists handed out stay valid): the path is held in the new table
        this.root = new Map();
        this.count = 0;
        return this.intern(pools, mints);
      }
      this.count++;
    }
    step.lists = lists;
    return lists;
  }

  /** paths held (for tests and figures) */
  get size(): number {
    return this.count;
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
