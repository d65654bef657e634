/**
 * The router's side of the live stream: it reads `quote-interest` (what the stream instances'
 * clients subscribed to), computes each live tuple's quote once — however many connections and
 * stream instances hold it — and writes `quotes-changed` when the quote is first wanted and
 * whenever its amountOut / amountIn, priceImpactBps, hops or error changes.
 *
 * Recomputation is driven by the projection: after each applied batch of pool-updates, the
 * tuples whose candidate pools changed are marked dirty (all tuples when the token graph's
 * shape changed), and a burst is coalesced into one recompute after DEBOUNCE_MS. A tuple's
 * dependency set is the pools of its candidate paths (the route search's own candidates) plus
 * the pools of its current route, refreshed on every full search. A full route search runs on
 * first interest, on a topology change, and at least every RESEARCH_MS while the tuple's pools
 * change; in between, a single-path route is re-evaluated with exact integer math on the
 * current pools (microseconds instead of a search), so a push is always an exact quote of the
 * current state, and the route it follows is at most RESEARCH_MS old.
 *
 * Restart: the subscription starts at the beginning of `quote-interest`; holdings expire by
 * the records' append times (leases every 5 s, ttl 15 s), so after catching up only the live
 * interest remains and gets its quotes.
 */
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { PoolQuoteError, type Pool } from '../../../../libs/amm/src/pool';
import { evaluatePath, findCandidatePaths, RouteError } from '../../../../libs/amm/src/routing/route-search';
import type { AppConfig } from '../../../../libs/config/src/config';
import { APP_CONFIG } from '../../../../libs/config/src/config.module';
import { ContractError } from '../../../../libs/contracts/src/errors';
import { decodeQuoteInterest, encodeQuotesChanged, tupleKey, type QuotesChanged, type QuoteTuple } from '../../../../libs/contracts/src/stream';
import { TOPICS } from '../../../../libs/contracts/src/topics';
import { LOG_PORT, type LogPort, type LogRecord, type Subscription } from '../../../../libs/log/src/log.port';
import { ProjectionService } from '../projection/projection.service';
import { computeQuote } from '../quote/quote.service';
import { buildQuoteResponse, type QuoteResponse } from '../quote/quote-response';
import { DEFAULT_INTEREST_TTL_MS, InterestRegistry, type InterestChange } from './interest-registry';

/** bursts of pool changes are coalesced into one recompute after this long */
export const DEBOUNCE_MS = 50;
/** how often expired holdings are swept */
const SWEEP_MS = 1_000;
/** a tuple's best route is searched again at least this often while its pools change */
export const RESEARCH_MS = 1_000;
/** longest run of recomputes before the event loop gets a turn (appends, sockets) */
const SLICE_MS = 10;

interface Watched {
  tuple: QuoteTuple;
  key: string;
  deps: Set<string>;
  last?: QuotesChanged;
  /** the current route when it is a single path (re-evaluated exactly between searches) */
  path?: { pools: string[]; mints: string[] };
  /** wall time of the last full route search */
  searchedAt: number;
}

export interface InterestStats {
  tuples: number;
  recomputes: number;
  published: number;
  rejected: number;
}

/** a fixed offset in [0, RESEARCH_MS / 2) per tuple key */
function stagger(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return (h >>> 0) % (RESEARCH_MS / 2);
}

function fingerprint(q: QuotesChanged): string {
  return q.error !== undefined ? `error:${q.error}` : `${q.amountOut}|${q.amountIn}|${q.priceImpactBps}|${q.hops}`;
}

@Injectable()
export class InterestService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('InterestService');
  private readonly registry = new InterestRegistry();
  private readonly watched = new Map<string, Watched>();
  /** pool address → keys of the tuples that depend on it */
  private readonly byPool = new Map<string, Set<string>>();
  private readonly dirty = new Set<string>();
  /** tuples whose current quote must be published even if unchanged (a new holder) */
  private readonly announce = new Set<string>();
  private topology = -1;
  private timer: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private subscription: Subscription | null = null;
  private publishing: Promise<unknown> = Promise.resolve();
  private readonly counters: InterestStats = { tuples: 0, recomputes: 0, published: 0, rejected: 0 };
  private closed = false;

  constructor(
    @Inject(LOG_PORT) private readonly log: LogPort,
    private readonly projections: ProjectionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.log.ensureTopic(TOPICS.quoteInterest);
    await this.log.ensureTopic(TOPICS.quotesChanged);
    this.projections.onPoolsChanged((changed) => this.onPoolsChanged(changed));
    this.subscription = await this.log.subscribe(
      TOPICS.quoteInterest,
      { from: 'beginning', maxBatch: 2000, onError: (e) => this.logger.error(`quote-interest subscription stopped: ${e.message}`) },
      (records) => this.onInterest(records),
    );
    this.sweeper = setInterval(() => this.sweep(Date.now()), SWEEP_MS);
    this.sweeper.unref();
    // quotes wanted before the projection caught up are computed once it has
    void this.projections.whenReady().then(() => this.schedule(0));
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.sweeper) clearInterval(this.sweeper);
    const s = this.subscription;
    this.subscription = null;
    if (s) await s.close();
    await this.publishing.catch(() => undefined);
  }

  stats(): InterestStats {
    return { ...this.counters, tuples: this.watched.size };
  }

  // ---- interest ----

  private onInterest(records: LogRecord[]): void {
    const change: InterestChange = { added: [], removed: [], joined: [] };
    const now = Date.now();
    let stale = false;
    for (const r of records) {
      if (r.timestamp < now - DEFAULT_INTEREST_TTL_MS) stale = true;
      try {
        this.registry.apply(decodeQuoteInterest(r.value), r.timestamp, change);
      } catch (e) {
        if (!(e instanceof ContractError)) throw e;
        this.counters.rejected++;
        this.logger.warn(`rejected quote-interest record ${r.partition}/${r.offset}: ${e.reason}`);
      }
    }
    for (const t of change.removed) this.unwatch(tupleKey(t));
    // catching up (records older than a lease): holdings that lapsed must not cost a quote
    if (stale) for (const t of this.registry.expire(now)) this.unwatch(tupleKey(t));
    let urgent = false;
    for (const t of [...change.added, ...change.joined]) {
      const key = tupleKey(t);
      if (!this.registry.has(key)) continue;
      if (!this.watched.has(key)) this.watched.set(key, { tuple: t, key, deps: new Set(), searchedAt: 0 });
      this.dirty.add(key);
      this.announce.add(key);
      urgent = true;
    }
    // a first quote is wanted now: no debounce
    if (urgent) this.schedule(0);
  }

  private sweep(nowMs: number): void {
    for (const t of this.registry.expire(nowMs)) this.unwatch(tupleKey(t));
  }

  private unwatch(key: string): void {
    const w = this.watched.get(key);
    if (!w) return;
    this.watched.delete(key);
    this.dirty.delete(key);
    this.announce.delete(key);
    this.setDeps(w, new Set());
  }

  // ---- pool changes ----

  private onPoolsChanged(changed: ReadonlySet<string>): void {
    if (this.watched.size === 0) return;
    const topology = this.projections.projection.topologyVersion;
    if (topology !== this.topology) {
      // the graph's shape changed: any tuple may have a new best path
      for (const key of this.watched.keys()) this.dirty.add(key);
    } else {
      for (const pool of changed) {
        const keys = this.byPool.get(pool);
        if (keys) for (const k of keys) this.dirty.add(k);
      }
    }
    if (this.dirty.size > 0) this.schedule(DEBOUNCE_MS);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.timer) {
      if (delayMs > 0) return; // a recompute is already coming
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, delayMs);
  }

  /**
   * Recompute the dirty tuples on the current projection and publish what changed. Runs in
   * slices of about SLICE_MS so that appends and sockets are served in between; a tuple made
   * dirty again meanwhile is recomputed once, on the state of its turn.
   */
  flush(): void {
    if (this.closed || !this.projections.isReady || this.dirty.size === 0) return;
    const projection = this.projections.projection;
    const topology = projection.topologyVersion;
    const topologyChanged = topology !== this.topology;
    this.topology = topology;
    if (topologyChanged) for (const w of this.watched.values()) w.searchedAt = 0;
    const out: QuotesChanged[] = [];
    const started = Date.now();
    for (const key of this.dirty) {
      this.dirty.delete(key);
      const w = this.watched.get(key);
      if (!w) continue;
      const q = this.compute(w, started);
      this.counters.recomputes++;
      const announce = this.announce.delete(key);
      if (announce || w.last === undefined || fingerprint(w.last) !== fingerprint(q)) out.push(q);
      w.last = q;
      if (Date.now() - started >= SLICE_MS) break;
    }
    if (out.length > 0) this.publish(out);
    if (this.dirty.size > 0 && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, 0);
    }
  }

  private compute(w: Watched, now: number): QuotesChanged {
    const projection = this.projections.projection;
    const t = w.tuple;
    const mode = t.exactIn ? 'ExactIn' : 'ExactOut';
    const amount = BigInt(t.amount);
    // between searches, a single-path route is re-evaluated exactly on the current pools
    if (w.path && now - w.searchedAt < RESEARCH_MS) {
      const pools = w.path.pools.map((a) => projection.pool(a));
      if (pools.every((p): p is Pool => p !== undefined)) {
        try {
          const route = evaluatePath({ pools, mints: w.path.mints }, mode, amount);
          const r = buildQuoteResponse(route, { slippageBps: 0, contextSlot: projection.slot, logPosition: projection.positions });
          return this.changedOf(t, r);
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
          // the route cannot carry the amount any more: search again
        }
      }
    }
    const deps = new Set<string>();
    try {
      for (const c of findCandidatePaths(projection, { inputMint: t.in, outputMint: t.out, amount, mode, maxHops: this.config.maxHops })) {
        for (const p of c.pools) deps.add(p.address);
      }
    } catch (e) {
      if (!(e instanceof RouteError)) throw e;
    }
    let q: QuotesChanged;
    // staggered per tuple so that the periodic searches of many tuples do not come in one burst
    w.searchedAt = now - stagger(w.key);
    w.path = undefined;
    try {
      const r = computeQuote(projection, { inputMint: t.in, outputMint: t.out, amount, swapMode: mode, slippageBps: 0 }, this.config.maxHops);
      for (const h of r.routes) deps.add(h.poolAddress);
      if (r.routes.length === r.hopCount && r.routes.every((h) => h.percent === 100)) {
        w.path = { pools: r.routes.map((h) => h.poolAddress), mints: r.routePath };
      }
      q = this.changedOf(t, r);
    } catch (e) {
      if (!(e instanceof RouteError)) throw e;
      q = { tuple: t, amountOut: '0', amountIn: '0', priceImpactBps: 0, hops: 0, slot: projection.slot, error: e.message };
    }
    this.setDeps(w, deps);
    return q;
  }

  private changedOf(t: QuoteTuple, r: QuoteResponse): QuotesChanged {
    return { tuple: t, amountOut: r.amountOut, amountIn: r.amountIn, priceImpactBps: r.priceImpactBps, hops: r.hopCount, slot: r.contextSlot };
  }

  private setDeps(w: Watched, next: Set<string>): void {
    for (const d of w.deps) {
      if (next.has(d)) continue;
      const s = this.byPool.get(d);
      if (s) {
        s.delete(w.key);
        if (s.size === 0) this.byPool.delete(d);
      }
    }
    for (const d of next) {
      if (w.deps.has(d)) continue;
      let s = this.byPool.get(d);
      if (!s) this.byPool.set(d, (s = new Set()));
      s.add(w.key);
    }
    w.deps = next;
  }

  private publish(quotes: QuotesChanged[]): void {
    const messages = quotes.map((q) => ({ key: tupleKey(q.tuple), value: encodeQuotesChanged(q) }));
    this.publishing = this.publishing
      .then(() => this.log.append(TOPICS.quotesChanged, messages))
      .then(() => {
        this.counters.published += messages.length;
      })
      .catch((e: unknown) => this.logger.error(`could not publish ${messages.length} quote change(s): ${(e as Error).message}`));
  }
}
