import type { Pool } from '../pool';

/**
 * Spot USD display prices from pool state alone (API.md §1, "price derivation rules"):
 *
 *  - a stablecoin (configured list) is worth 1 USD: the constant record {price 1, slot 0, updatedAt 0};
 *  - the native token (wrapped SOL) is priced from its deepest native/stablecoin pool;
 *  - every other token from its deepest pool paired with a stablecoin or with the native token.
 *
 * "Deepest" is liquidity measured in USD: twice the USD value of the pool's anchor-side reserve
 * (`Pool.reserve(anchor)`, the anchor being the stablecoin or SOL side), so pools of every kind
 * are compared in one unit. Only the anchor side counts: its value does not depend on the price
 * being derived, so a pool cannot look deep by pricing its own token high. A SOL-paired pool's
 * depth is worth its SOL side at the current SOL price, so when SOL moves, which pool is deepest
 * for a token can change. Ties: a stablecoin pool before a SOL pool, then the lower pool address
 * (never the order of arrival).
 *
 * The price of `mint` through a pool against `anchor` worth `anchorUsd` is
 * `spotPrice(mint) × 10^(decimals(mint) − decimals(anchor)) × anchorUsd` (spotPrice is in
 * smallest units of the anchor per smallest unit of `mint`, before fees). A pool is usable when
 * both decimals are known and its spot price and anchor reserve are finite and positive.
 *
 * A record's `slot` / `updatedAt` are those of the pool update the price came from; for a price
 * through a SOL pool, the newer of that pool's update and the update SOL's own price came from
 * (the price changes with either). Unknown tokens, tokens with no usable anchor pool and tokens
 * whose decimals are pending get {price 0, slot 0, updatedAt 0}.
 *
 * Pure and deterministic: no clock (`updatedAt` is an input, stamped by the caller on each pool
 * observation), no IO. Maintained incrementally: a pool observation updates the best candidate
 * of the one token it prices in O(1) (a rescan of that token's pools of one kind only when its
 * best pool shrank or left) and materialises that token's record; a change of SOL's record
 * re-materialises, in O(1) each, the tokens whose best SOL pool depends on it. A lookup is a
 * map read. Inside `batch()` the work is deferred to the end of the batch (SOL first), so a
 * batch that moves SOL several times cascades once.
 */
export interface PriceRecord {
  mint: string;
  /** USD per whole token; 0 when unknown */
  price: number;
  /** chain slot of the pool update the price came from; 0 for constants and unknown tokens */
  slot: number;
  /** Unix seconds stamped on that pool update by the caller; 0 for constants and unknown tokens */
  updatedAt: number;
}

/** One observed pool state. */
export interface PoolObservation {
  pool: Pool;
  /** Unix seconds the caller attributes to this pool update (see PriceService for how the router stamps it) */
  updatedAt: number;
}

type AnchorKind = 'stable' | 'native';

/** An anchor-paired pool, as seen by the token it prices. */
interface Candidate {
  readonly address: string;
  /** the priced mint */
  readonly token: string;
  readonly anchor: string;
  readonly kind: AnchorKind;
  readonly pool: Pool;
  readonly slot: number;
  readonly updatedAt: number;
  /** whole anchor units per whole token (0 when unusable) */
  px: number;
  /** 2 × the anchor-side reserve in whole anchor units (0 when unusable) */
  depth: number;
}

interface TokenState {
  readonly mint: string;
  readonly stable: Map<string, Candidate>;
  readonly native: Map<string, Candidate>;
  bestStable: Candidate | null;
  bestNative: Candidate | null;
  record: PriceRecord;
}

export interface PriceOracleStats {
  /** anchor-paired pools tracked */
  pools: number;
  /** tokens with at least one anchor-paired pool (the native token included) */
  tokens: number;
  /** tokens with a non-zero price (stablecoins excluded) */
  priced: number;
  /** mints referenced by tracked pools whose decimals are not known yet */
  pendingDecimals: number;
}

function unknownRecord(mint: string): PriceRecord {
  return Object.freeze({ mint, price: 0, slot: 0, updatedAt: 0 });
}

/** strict order of usable candidates: deeper first, then the lower address */
function beats(a: Candidate, b: Candidate): boolean {
  return a.depth > b.depth || (a.depth === b.depth && a.address < b.address);
}

function safe(f: () => number): number {
  try {
    return f();
  } catch {
    return NaN;
  }
}

export class PriceOracle {
  private readonly stables: ReadonlySet<string>;
  private readonly stableRecords = new Map<string, PriceRecord>();
  private readonly tokens = new Map<string, TokenState>();
  /** pool address → its candidate (one per anchor-paired pool) */
  private readonly candidates = new Map<string, Candidate>();
  /** mint (either side) → addresses of tracked pools that trade it, for decimals changes */
  private readonly poolsByMint = new Map<string, Set<string>>();
  private readonly decimals = new Map<string, number>();
  private readonly pending = new Set<string>();
  /** tokens whose best SOL pool is set: re-materialised when SOL's record changes */
  private readonly nativeUsers = new Set<TokenState>();
  /** tokens whose record must be re-materialised at the end of the batch */
  private readonly dirty = new Set<TokenState>();
  private depthOfBatch = 0;

  constructor(
    stablecoins: readonly string[],
    readonly nativeMint: string,
  ) {
    if (stablecoins.includes(nativeMint)) throw new Error(`the native mint ${nativeMint} cannot also be a stablecoin`);
    this.stables = new Set(stablecoins);
    for (const s of this.stables) this.stableRecords.set(s, Object.freeze({ mint: s, price: 1, slot: 0, updatedAt: 0 }));
  }

  isStablecoin(mint: string): boolean {
    return this.stables.has(mint);
  }

  // ---- writes ----

  /**
   * Run several updates as one batch: records are re-materialised once at the end (SOL first,
   * then the tokens that changed, then the tokens priced through SOL if SOL's record changed).
   */
  batch(fn: () => void): void {
    this.depthOfBatch++;
    try {
      fn();
    } finally {
      this.depthOfBatch--;
      if (this.depthOfBatch === 0) this.flush();
    }
  }

  /** Decimals of a mint became known (or changed, or, with undefined, unknown again). */
  setDecimals(mint: string, decimals: number | undefined): void {
    if (decimals !== undefined && (!Number.isInteger(decimals) || decimals < 0 || decimals > 255)) {
      throw new RangeError(`decimals of ${mint} must be an integer in 0..255, got ${decimals}`);
    }
    if (this.decimals.get(mint) === decimals) return;
    if (decimals === undefined) this.decimals.delete(mint);
    else this.decimals.set(mint, decimals);
    const pools = this.poolsByMint.get(mint);
    if (decimals === undefined) {
      if (pools) this.pending.add(mint);
    } else this.pending.delete(mint);
    if (!pools) return;
    this.run(() => {
      for (const address of pools) {
        const c = this.candidates.get(address)!;
        this.upsert(this.candidate(c.pool, c.token, c.anchor, c.kind, c.updatedAt));
      }
    });
  }

  /** A pool was created or changed (a new state of it was projected). */
  poolChanged(obs: PoolObservation): void {
    const { pool } = obs;
    const role = this.role(pool);
    const old = this.candidates.get(pool.address);
    if (!role && !old) return;
    this.run(() => {
      // the pool now trades other mints (or no anchor): forget its old role first
      if (old && (!role || old.token !== role.token || old.anchor !== role.anchor)) this.poolRemoved(pool.address);
      if (role) this.upsert(this.candidate(pool, role.token, role.anchor, role.kind, obs.updatedAt));
    });
  }

  /** A pool disappeared or stopped being routable. */
  poolRemoved(address: string): void {
    const c = this.candidates.get(address);
    if (!c) return;
    this.run(() => {
      this.candidates.delete(address);
      for (const mint of [c.token, c.anchor]) {
        const s = this.poolsByMint.get(mint);
        if (s) {
          s.delete(address);
          if (s.size === 0) {
            this.poolsByMint.delete(mint);
            this.pending.delete(mint);
          }
        }
      }
      const st = this.tokens.get(c.token)!;
      const map = c.kind === 'stable' ? st.stable : st.native;
      map.delete(address);
      if (c.kind === 'stable' && st.bestStable?.address === address) st.bestStable = this.rescan(map);
      if (c.kind === 'native' && st.bestNative?.address === address) st.bestNative = this.rescan(map);
      this.dirty.add(st);
      if (st.stable.size === 0 && st.native.size === 0 && st.mint !== this.nativeMint) {
        this.tokens.delete(st.mint);
        this.nativeUsers.delete(st);
      }
    });
  }

  // ---- reads ----

  /** The price record of a mint (price 0 when unknown). The returned object is frozen. */
  get(mint: string): PriceRecord {
    const s = this.stableRecords.get(mint);
    if (s) return s;
    return this.tokens.get(mint)?.record ?? unknownRecord(mint);
  }

  /** Records for several mints, in order (the caller removes duplicates if it wants to). */
  getMany(mints: readonly string[]): PriceRecord[] {
    const out = new Array<PriceRecord>(mints.length);
    for (let i = 0; i < mints.length; i++) out[i] = this.get(mints[i]);
    return out;
  }

  /** mints of tracked pools whose decimals are not known yet (the caller feeds them when they arrive) */
  pendingDecimals(): ReadonlySet<string> {
    return this.pending;
  }

  get stats(): PriceOracleStats {
    let priced = 0;
    for (const st of this.tokens.values()) if (st.record.price > 0) priced++;
    return { pools: this.candidates.size, tokens: this.tokens.size, priced, pendingDecimals: this.pending.size };
  }

  // ---- internals ----

  private run(fn: () => void): void {
    if (this.depthOfBatch > 0) fn();
    else this.batch(fn);
  }

  /** which token the pool prices, against which anchor; null when it prices nothing */
  private role(pool: Pool): { token: string; anchor: string; kind: AnchorKind } | null {
    const { mintA: a, mintB: b } = pool;
    if (a === b) return null;
    const sa = this.stables.has(a);
    const sb = this.stables.has(b);
    if (sa && sb) return null; // stablecoins are constants
    if (sa) return { token: b, anchor: a, kind: 'stable' };
    if (sb) return { token: a, anchor: b, kind: 'stable' };
    if (a === this.nativeMint) return { token: b, anchor: a, kind: 'native' };
    if (b === this.nativeMint) return { token: a, anchor: b, kind: 'native' };
    return null;
  }

  private candidate(pool: Pool, token: string, anchor: string, kind: AnchorKind, updatedAt: number): Candidate {
    const c: Candidate = { address: pool.address, token, anchor, kind, pool, slot: pool.slot, updatedAt, px: 0, depth: 0 };
    const dt = this.decimals.get(token);
    const da = this.decimals.get(anchor);
    if (dt === undefined || da === undefined) return c;
    const px = safe(() => pool.spotPrice(token)) * 10 ** (dt - da);
    const depth = (2 * safe(() => pool.reserve(anchor))) / 10 ** da;
    if (Number.isFinite(px) && px > 0 && Number.isFinite(depth) && depth > 0) {
      c.px = px;
      c.depth = depth;
    }
    return c;
  }

  private state(mint: string): TokenState {
    let st = this.tokens.get(mint);
    if (!st) {
      st = { mint, stable: new Map(), native: new Map(), bestStable: null, bestNative: null, record: unknownRecord(mint) };
      this.tokens.set(mint, st);
    }
    return st;
  }

  private rescan(map: Map<string, Candidate>): Candidate | null {
    let best: Candidate | null = null;
    for (const c of map.values()) if (c.depth > 0 && (best === null || beats(c, best))) best = c;
    return best;
  }

  private upsert(c: Candidate): void {
    const prev = this.candidates.get(c.address);
    this.candidates.set(c.address, c);
    if (!prev) {
      for (const mint of [c.token, c.anchor]) {
        let s = this.poolsByMint.get(mint);
        if (!s) this.poolsByMint.set(mint, (s = new Set()));
        s.add(c.address);
        if (!this.decimals.has(mint)) this.pending.add(mint);
      }
    }
    const st = this.state(c.token);
    const map = c.kind === 'stable' ? st.stable : st.native;
    map.set(c.address, c);
    const best = c.kind === 'stable' ? st.bestStable : st.bestNative;
    let next: Candidate | null;
    if (best === null) next = c.depth > 0 ? c : null;
    else if (best.address === c.address) {
      // the best pool changed: still the best if it did not shrink, otherwise look again
      next = c.depth > 0 && c.depth >= best.depth ? c : this.rescan(map);
    } else next = c.depth > 0 && beats(c, best) ? c : best;
    if (c.kind === 'stable') st.bestStable = next;
    else st.bestNative = next;
    this.dirty.add(st);
  }

  private flush(): void {
    if (this.dirty.size === 0) return;
    const sol = this.tokens.get(this.nativeMint);
    let solMoved = false;
    if (sol && this.dirty.has(sol)) {
      const before = sol.record;
      this.materialise(sol, null);
      const after = sol.record;
      solMoved = after.price !== before.price || after.slot !== before.slot || after.updatedAt !== before.updatedAt;
      this.dirty.delete(sol);
    }
    const solRecord = sol ? sol.record : null;
    for (const st of this.dirty) this.materialise(st, solRecord);
    if (solMoved) for (const st of this.nativeUsers) if (!this.dirty.has(st)) this.materialise(st, solRecord);
    this.dirty.clear();
  }

  /** the record of a token from its best candidates; SOL's own record ignores SOL pools */
  private materialise(st: TokenState, sol: PriceRecord | null): void {
    const s = st.bestStable;
    const n = st.mint === this.nativeMint ? null : st.bestNative;
    if (n) this.nativeUsers.add(st);
    else this.nativeUsers.delete(st);
    const solUsd = sol ? sol.price : 0;
    const nUsable = n !== null && solUsd > 0;
    let record: PriceRecord;
    if (s && (!nUsable || s.depth >= n!.depth * solUsd)) {
      record = { mint: st.mint, price: s.px, slot: s.slot, updatedAt: s.updatedAt };
    } else if (nUsable) {
      const price = n!.px * solUsd;
      record = Number.isFinite(price) && price > 0
        ? { mint: st.mint, price, slot: Math.max(n!.slot, sol!.slot), updatedAt: Math.max(n!.updatedAt, sol!.updatedAt) }
        : unknownRecord(st.mint);
    } else record = unknownRecord(st.mint);
    st.record = Object.freeze(record);
  }
}
