/**
 * The float estimates of a tuple's paths (its candidate paths, or its route as a path), kept
 * between the live stream's checks and computed again only for the hops whose pool changed.
 *
 * A check runs after changes of pools on a tuple's paths: a path none of whose pools changed since
 * its last estimate keeps it, one that changed is walked again. The test "did a pool of this path
 * change" runs for every path of every check, with thousands of tuples often cold (a window's
 * replays have evicted the tuples' records from the caches), so it is laid out to touch little
 * memory:
 *   - every pool on a watched path has a dense id and a stamp (PoolStamps), bumped each time the
 *     pool changes; the stamps of all pools fit in a few kilobytes that stay cached;
 *   - a tuple's paths are one array of small integers (per path: its hop count, then per hop the
 *     pool's id and the stamp its estimate was computed at) and one of doubles (estimates, then
 *     per-hop amounts), walked in order.
 * A path whose stamps all match returns its estimate without reading a pool; otherwise it is
 * estimated again from its first changed hop (ExactIn: from the input; ExactOut: from the
 * output), the hops before it keeping their amounts. Plain TypeScript: no Nest, no log.
 */
import type { Pool } from '@app/amm';

/** A held reference to the pool at an address (the projection's PoolRef) */
export interface PoolHandle {
  readonly address: string;
}

/** where the current pools are read (the projection: a reference by address, the pool through it) */
export interface PoolSource {
  /** a reference to the routable pool at `address`; undefined when there is none now */
  poolRef(address: string): PoolHandle | undefined;
  /** the routable pool the reference refers to; undefined when it is not routable (now, or any more through it) */
  poolAt(ref: PoolHandle): Pool | undefined;
}

/** stamps wrap below 2^30 (small integers: a plain array keeps them unboxed) and are never negative: -1 is "never estimated" */
const STAMP_MASK = 0x3fffffff;

/**
 * A dense id per pool address on a watched path and a stamp per id, bumped by `changed` each time
 * the pool at that address changes (a new state, left the graph, entered it again). Ids are
 * counted by the paths that hold them (acquire / release): an id no path holds any more is
 * forgotten and given again to the next new address, so the table stays as large as the pools on
 * live paths.
 */
export class PoolStamps {
  private readonly ids = new Map<string, number>();
  private readonly addresses: string[] = [];
  private readonly refs: Array<PoolHandle | undefined> = [];
  /** per id: how many path hops hold it (0: free) */
  private readonly holders: number[] = [];
  private readonly free: number[] = [];
  /** per id, its stamp (PathEstimates reads it directly; grown, so read through this field) */
  stamps = new Int32Array(256);

  constructor(private readonly source: () => PoolSource) {}

  /** the id of the pool address (a new one the first time), held once more */
  acquire(address: string): number {
    let id = this.ids.get(address);
    if (id === undefined) {
      id = this.free.pop();
      if (id === undefined) {
        id = this.addresses.length;
        this.addresses.push(address);
        this.refs.push(undefined);
        this.holders.push(0);
        if (id >= this.stamps.length) {
          const grown = new Int32Array(this.stamps.length * 2);
          grown.set(this.stamps);
          this.stamps = grown;
        }
      } else this.addresses[id] = address;
      this.ids.set(address, id);
    }
    this.holders[id]++;
    return id;
  }

  /** a hold on `id` ends; the last one frees it */
  release(id: number): void {
    if (--this.holders[id] > 0) return;
    this.ids.delete(this.addresses[id]);
    this.addresses[id] = '';
    this.refs[id] = undefined;
    this.free.push(id);
  }

  /** the pool at `address` changed: every estimate through it is stale */
  changed(address: string): void {
    const id = this.ids.get(address);
    if (id !== undefined) this.stamps[id] = (this.stamps[id] + 1) & STAMP_MASK;
  }

  /** the current pool of an id, through a reference shared by every path (taken again by address when its pool left) */
  pool(id: number): Pool | undefined {
    const source = this.source();
    const ref = this.refs[id];
    const p = ref === undefined ? undefined : source.poolAt(ref);
    if (p !== undefined) return p;
    const again = (this.refs[id] = source.poolRef(this.addresses[id]));
    return again === undefined ? undefined : source.poolAt(again);
  }

  /** how many pool addresses have an id (held by some path) */
  get size(): number {
    return this.ids.size;
  }
}

/** a path as PathEstimates takes it: its pools' addresses and its mints (one more than pools) */
export interface EstimablePath {
  readonly pools: readonly string[];
  readonly mints: readonly string[];
}

/**
 * The float estimates of some paths of one tuple (see the file comment): ExactIn, the output of
 * `amount` in; ExactOut, the input for `amount` out; with each pool's approxOut / approxIn.
 */
export class PathEstimates {
  /**
   * per path: hop count n, then n × (pool id, stamp of its last estimate; -1: none); then per
   * path where its entries start here (from `atBase`) and in `nums` (from `amountsBase`)
   */
  private readonly ints: number[];
  /**
   * per path its last estimate (NaN: none, it cannot carry the amount or a pool is gone); then
   * per path the amount into each hop and out of the last, of that estimate. One array of each
   * kind per tuple: a check reads two objects, not one per path. Plain arrays (of small integers,
   * of doubles), not typed arrays: at these sizes a typed array's buffer object and the memory it
   * holds outside the heap cost more than the elements.
   */
  private readonly nums: number[];
  private readonly atBase: number;
  /** the paths as given (read for their mints only; the caller does not change them after) */
  private readonly paths: readonly EstimablePath[];
  readonly count: number;
  private released = false;

  constructor(
    paths: readonly EstimablePath[],
    private readonly stamps: PoolStamps,
    amount: number,
    private readonly exactIn: boolean,
  ) {
    const count = paths.length;
    let hops = 0;
    for (const p of paths) hops += p.pools.length;
    this.count = count;
    this.atBase = count + 2 * hops;
    this.ints = new Array<number>(this.atBase + 2 * count).fill(0);
    this.nums = new Array<number>(count + count + hops).fill(NaN);
    this.paths = paths;
    let at = 0;
    let amountsAt = count;
    for (let i = 0; i < count; i++) {
      const pools = paths[i].pools;
      const n = pools.length;
      this.ints[this.atBase + 2 * i] = at;
      this.ints[this.atBase + 2 * i + 1] = amountsAt;
      this.ints[at] = n;
      for (let k = 0; k < n; k++) {
        this.ints[at + 1 + 2 * k] = stamps.acquire(pools[k]);
        this.ints[at + 2 + 2 * k] = -1;
      }
      // the known end of the walk: ExactIn its input, ExactOut its output
      this.nums[amountsAt + (exactIn ? 0 : n)] = amount;
      at += 1 + 2 * n;
      amountsAt += n + 1;
    }
  }

  /**
   * The estimates are discarded: their holds on the pools' ids end (call once, when the owner
   * drops them; they must not be read after)
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    const ints = this.ints;
    let at = 0;
    for (let i = 0; i < this.count; i++) {
      const n = ints[at];
      for (let k = 0; k < n; k++) this.stamps.release(ints[at + 1 + 2 * k]);
      at += 1 + 2 * n;
    }
  }

  /** path i's estimate on the current pools (undefined: a pool of it is gone, or it gives nothing) */
  estimate(i: number): number | undefined {
    const e = this.refresh(i);
    return e === e ? e : undefined;
  }

  /**
   * Every path's estimate on the current pools, refreshed in place: the returned array holds
   * them at indices 0 to count - 1 (NaN: none), then other data. It is the object's own: read it
   * before the next call.
   */
  all(): readonly number[] {
    for (let i = 0; i < this.count; i++) this.refresh(i);
    return this.nums;
  }

  /** path i's estimate: kept when none of its pools changed, else walked again from its first changed hop */
  private refresh(i: number): number {
    const ints = this.ints;
    const stamps = this.stamps.stamps;
    const at = ints[this.atBase + 2 * i];
    const n = ints[at];
    const exactIn = this.exactIn;
    // hops walked from the known amount that kept their pool keep their amounts
    let from = 0;
    if (exactIn) while (from < n && stamps[ints[at + 1 + 2 * from]] === ints[at + 2 + 2 * from]) from++;
    else while (from < n && stamps[ints[at + 1 + 2 * (n - 1 - from)]] === ints[at + 2 + 2 * (n - 1 - from)]) from++;
    const nums = this.nums;
    if (from === n) return nums[i];
    const base = ints[this.atBase + 2 * i + 1];
    const mints = this.paths[i].mints;
    for (let k = from; k < n; k++) {
      const h = exactIn ? k : n - 1 - k;
      const id = ints[at + 1 + 2 * h];
      const p = this.stamps.pool(id);
      if (p === undefined) {
        // estimated from scratch next time
        for (let j = 0; j < n; j++) ints[at + 2 + 2 * j] = -1;
        return (nums[i] = NaN);
      }
      ints[at + 2 + 2 * h] = stamps[id];
      if (exactIn) nums[base + h + 1] = p.approxOut(mints[h], nums[base + h]);
      else nums[base + h] = p.approxIn(mints[h], nums[base + h + 1]);
    }
    const a = nums[base + (exactIn ? n : 0)];
    return (nums[i] = Number.isFinite(a) && a > 0 ? a : NaN);
  }
}

/**
 * The estimates of no paths (a tuple before its first search), shared: with no path it holds no
 * pool id and never reads a pool (its stamp table has no source to read from)
 */
export const NO_PATHS = new PathEstimates(
  [],
  new PoolStamps(() => {
    throw new Error('the estimates of no paths read no pool');
  }),
  0,
  true,
);
