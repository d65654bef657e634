import type { Pool } from '../pool';

/**
 * Spot USD prices from pool state alone (API.md §1):
 *  - a stablecoin is worth 1 USD (constant: slot 0, updatedAt 0);
 *  - the native token (wrapped SOL) is priced from its deepest native/stablecoin pool;
 *  - every other token from its deepest pool paired with a stablecoin or the native token.
 * "Deepest" = the most USD liquidity, measured as twice the USD value of the pool's anchor-side
 * reserve (the anchor being the stablecoin or SOL), so pools are compared in one unit whatever
 * their kind. Decimals of both sides are applied; a token whose decimals are not known yet, or
 * that has no anchor-paired pool, has price 0.
 *
 * Maintained incrementally: `poolChanged` reprices only what depends on the pool (the pool's
 * non-anchor token; or, for a SOL/stable pool, SOL and — lazily, on lookup — the tokens priced
 * through SOL). A lookup is a map read, plus a recompute only for a token marked stale.
 */
export interface PriceRecord {
  mint: string;
  price: number;
  slot: number;
  updatedAt: number;
}

export interface PricePool {
  pool: Pool;
  /** Unix seconds of the pool update this pool state came from */
  updatedAt: number;
}

interface Cached {
  record: PriceRecord;
  /** the SOL price version the record was computed with (-1 when it does not depend on SOL) */
  solVersion: number;
}

export class PriceOracle {
  private readonly stables: Set<string>;
  /** token → anchor-paired pools (address → pool) */
  private readonly anchorPools = new Map<string, Map<string, PricePool>>();
  private readonly decimals = new Map<string, number>();
  private readonly cache = new Map<string, Cached>();
  private sol: PriceRecord;
  private solVersion = 0;

  constructor(
    stablecoins: readonly string[],
    private readonly nativeMint: string,
  ) {
    this.stables = new Set(stablecoins);
    this.sol = { mint: nativeMint, price: 0, slot: 0, updatedAt: 0 };
  }

  setDecimals(mint: string, decimals: number): void {
    if (this.decimals.get(mint) === decimals) return;
    this.decimals.set(mint, decimals);
    this.cache.delete(mint);
    if (mint === this.nativeMint || this.stables.has(mint)) this.repriceSol();
    // a token paired with this mint may now be priceable
    for (const pp of this.anchorPools.get(mint)?.values() ?? []) this.cache.delete(this.other(pp.pool, mint));
  }

  private isAnchor(mint: string): boolean {
    return this.stables.has(mint) || mint === this.nativeMint;
  }

  private other(pool: Pool, mint: string): string {
    return pool.mintA === mint ? pool.mintB : pool.mintA;
  }

  /** A pool was created or changed (or became routable). */
  poolChanged(pp: PricePool): void {
    const { pool } = pp;
    const aAnchor = this.isAnchor(pool.mintA);
    const bAnchor = this.isAnchor(pool.mintB);
    if (!aAnchor && !bAnchor) return;
    for (const mint of [pool.mintA, pool.mintB]) {
      let m = this.anchorPools.get(mint);
      if (!m) this.anchorPools.set(mint, (m = new Map()));
      m.set(pool.address, pp);
    }
    this.touched(pool);
  }

  /** A pool disappeared or stopped being routable. */
  poolRemoved(pool: Pool): void {
    let known = false;
    for (const mint of [pool.mintA, pool.mintB]) known = this.anchorPools.get(mint)?.delete(pool.address) || known;
    if (known) this.touched(pool);
  }

  private touched(pool: Pool): void {
    const solStable =
      (pool.mintA === this.nativeMint && this.stables.has(pool.mintB)) || (pool.mintB === this.nativeMint && this.stables.has(pool.mintA));
    if (solStable) this.repriceSol();
    if (!this.isAnchor(pool.mintA)) this.cache.delete(pool.mintA);
    if (!this.isAnchor(pool.mintB)) this.cache.delete(pool.mintB);
  }

  private repriceSol(): void {
    let best: { depth: number; record: PriceRecord } | null = null;
    for (const pp of this.anchorPools.get(this.nativeMint)?.values() ?? []) {
      const stable = this.other(pp.pool, this.nativeMint);
      if (!this.stables.has(stable)) continue;
      const r = this.priceVia(pp, this.nativeMint, stable, 1);
      if (r && (!best || r.depth > best.depth)) best = r;
    }
    const next = best ? best.record : { mint: this.nativeMint, price: 0, slot: 0, updatedAt: 0 };
    if (next.price !== this.sol.price || next.slot !== this.sol.slot || next.updatedAt !== this.sol.updatedAt) {
      this.sol = next;
      this.solVersion++;
    }
  }

  /**
   * Price `mint` through one pool against `anchor` worth `anchorUsd`; depth = 2 × USD value of
   * the anchor reserve. Null when decimals are unknown or the pool has no usable price.
   */
  private priceVia(pp: PricePool, mint: string, anchor: string, anchorUsd: number): { depth: number; record: PriceRecord } | null {
    const dm = this.decimals.get(mint);
    const da = this.decimals.get(anchor);
    if (dm === undefined || da === undefined || !(anchorUsd > 0)) return null;
    const spot = pp.pool.spotPrice(mint); // anchor smallest units per mint smallest unit
    if (!Number.isFinite(spot) || spot <= 0) return null;
    const price = spot * 10 ** (dm - da) * anchorUsd;
    const depth = 2 * (pp.pool.reserve(anchor) / 10 ** da) * anchorUsd;
    if (!Number.isFinite(price) || !Number.isFinite(depth)) return null;
    return { depth, record: { mint, price, slot: pp.pool.slot, updatedAt: pp.updatedAt } };
  }

  private compute(mint: string): Cached {
    let best: { depth: number; record: PriceRecord } | null = null;
    let usesSol = false;
    for (const pp of this.anchorPools.get(mint)?.values() ?? []) {
      const anchor = this.other(pp.pool, mint);
      const anchorUsd = this.stables.has(anchor) ? 1 : anchor === this.nativeMint ? this.sol.price : 0;
      if (anchor === this.nativeMint) usesSol = true;
      const r = this.priceVia(pp, mint, anchor, anchorUsd);
      if (r && (!best || r.depth > best.depth || (r.depth === best.depth && r.record.slot > best.record.slot))) best = r;
    }
    const record = best ? best.record : { mint, price: 0, slot: 0, updatedAt: 0 };
    return { record, solVersion: usesSol ? this.solVersion : -1 };
  }

  /** The price record of a mint (price 0 when unknown). */
  get(mint: string): PriceRecord {
    if (this.stables.has(mint)) return { mint, price: 1, slot: 0, updatedAt: 0 };
    if (mint === this.nativeMint) return { ...this.sol };
    let c = this.cache.get(mint);
    if (!c || (c.solVersion !== -1 && c.solVersion !== this.solVersion)) {
      c = this.compute(mint);
      this.cache.set(mint, c);
    }
    return { ...c.record };
  }
}
