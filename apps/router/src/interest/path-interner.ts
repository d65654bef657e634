/**
 * One shared copy of each candidate path's address lists. The live stream keeps a few candidate
 * paths per tuple (its pools and its mints, as the route search found them), and the tuples of
 * one pair (the same tokens, other amounts or sides) keep the same paths, so most of the lists
 * repeat (figures in docs/live-stream.md). Each search
 * and each candidate refresh builds the lists anew; the interner hands back the lists it already
 * holds for the same path, so the tuples share them, and the new lists are garbage at once
 * instead of living (and being marked by every major collection) as long as the tuple keeps them.
 *
 * The lists are never written after a search built them (readonly everywhere they are kept), so
 * sharing is safe. Lists handed out stay valid whatever the table lets go of (they are only no
 * longer shared with later ones). Plain TypeScript.
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
   * where one key joined from its addresses would be a new string to build and hash every time.
   * Two generations: paths interned since the last turn, and those of the turn before. A path
   * found only in the older one moves to the current one; at `limit` paths the current one
   * becomes the older one and the older one is let go. A path still in use is interned again by
   * the next search or refresh of a tuple that keeps it and stays shared; one no tuple finds any
   * more is let go within two turns, so the table stays about as large as the paths in use.
   */
  private current = new Map<string, Step>();
  private older = new Map<string, Step>();
  private count = 0;

  constructor(private readonly limit = 8192) {}

  /** the shared lists of the path `pools` walked from `mints[0]` (those given, the first time) */
  intern(pools: readonly string[], mints: readonly string[]): PathLists {
    // a pool list and the mint it starts from name the path: each hop leaves by its pool's other mint
    const held = find(this.current, pools, mints);
    if (held !== undefined) return held;
    const lists = find(this.older, pools, mints) ?? { pools, mints };
    if (this.count >= this.limit) {
      this.older = this.current;
      this.current = new Map();
      this.count = 0;
    }
    const step = stepOf(this.current, pools, mints);
    // a path under another mint list (not one the route search builds) replaces it
    if (step.lists === undefined) this.count++;
    step.lists = lists;
    return lists;
  }

  /** paths held in the current generation (for tests and figures) */
  get size(): number {
    return this.count;
  }
}

/** the lists held for the path in `table`, undefined when there are none with these mints */
function find(table: Map<string, Step>, pools: readonly string[], mints: readonly string[]): PathLists | undefined {
  let step = table.get(mints[0]);
  for (let i = 0; step !== undefined && i < pools.length; i++) step = step.next?.get(pools[i]);
  const lists = step?.lists;
  return lists !== undefined && sameList(lists.mints, mints) ? lists : undefined;
}

/** the path's step in `table`, made on the way where missing */
function stepOf(table: Map<string, Step>, pools: readonly string[], mints: readonly string[]): Step {
  let step: Step | undefined = table.get(mints[0]);
  if (step === undefined) table.set(mints[0], (step = { next: undefined, lists: undefined }));
  for (let i = 0; i < pools.length; i++) {
    const next: Map<string, Step> = (step.next ??= new Map());
    let s: Step | undefined = next.get(pools[i]);
    if (s === undefined) next.set(pools[i], (s = { next: undefined, lists: undefined }));
    step = s;
  }
  return step;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
