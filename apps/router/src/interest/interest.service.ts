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
 * the pools of its current route, refreshed on every recompute.
 *
 * Restart: the subscription starts at the beginning of `quote-interest`; holdings expire by
 * the records' append times (leases every 5 s, ttl 15 s), so after catching up only the live
 * interest remains and gets its quotes.
 */
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { findCandidatePaths, RouteError } from '../../../../libs/amm/src/routing/route-search';
import type { AppConfig } from '../../../../libs/config/src/config';
import { APP_CONFIG } from '../../../../libs/config/src/config.module';
import { ContractError } from '../../../../libs/contracts/src/errors';
import { decodeQuoteInterest, encodeQuotesChanged, tupleKey, type QuotesChanged, type QuoteTuple } from '../../../../libs/contracts/src/stream';
import { TOPICS } from '../../../../libs/contracts/src/topics';
import { LOG_PORT, type LogPort, type LogRecord, type Subscription } from '../../../../libs/log/src/log.port';
import { ProjectionService } from '../projection/projection.service';
import { computeQuote } from '../quote/quote.service';
import { InterestRegistry, type InterestChange } from './interest-registry';

/** bursts of pool changes are coalesced into one recompute after this long */
export const DEBOUNCE_MS = 50;
/** how often expired holdings are swept */
const SWEEP_MS = 1_000;

interface Watched {
  tuple: QuoteTuple;
  key: string;
  deps: Set<string>;
  last?: QuotesChanged;
}

export interface InterestStats {
  tuples: number;
  recomputes: number;
  published: number;
  rejected: number;
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
    for (const r of records) {
      try {
        this.registry.apply(decodeQuoteInterest(r.value), r.timestamp, change);
      } catch (e) {
        if (!(e instanceof ContractError)) throw e;
        this.counters.rejected++;
        this.logger.warn(`rejected quote-interest record ${r.partition}/${r.offset}: ${e.reason}`);
      }
    }
    for (const t of change.removed) this.unwatch(tupleKey(t));
    // catching up: holdings that lapsed long ago must not cost a quote
    for (const t of this.registry.expire(Date.now())) this.unwatch(tupleKey(t));
    let urgent = false;
    for (const t of [...change.added, ...change.joined]) {
      const key = tupleKey(t);
      if (!this.registry.has(key)) continue;
      if (!this.watched.has(key)) this.watched.set(key, { tuple: t, key, deps: new Set() });
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

  /** Recompute the dirty tuples on the current projection and publish what changed. */
  flush(): void {
    if (!this.projections.isReady || this.dirty.size === 0) return;
    const projection = this.projections.projection;
    const topology = projection.topologyVersion;
    const topologyChanged = topology !== this.topology;
    this.topology = topology;
    const out: QuotesChanged[] = [];
    for (const key of this.dirty) {
      const w = this.watched.get(key);
      if (!w) continue;
      const q = this.compute(w, topologyChanged || w.deps.size === 0);
      this.counters.recomputes++;
      const announce = this.announce.has(key);
      if (announce || w.last === undefined || fingerprint(w.last) !== fingerprint(q)) out.push(q);
      w.last = q;
    }
    this.dirty.clear();
    this.announce.clear();
    if (out.length > 0) this.publish(out);
  }

  private compute(w: Watched, reindex: boolean): QuotesChanged {
    const projection = this.projections.projection;
    const t = w.tuple;
    const mode = t.exactIn ? 'ExactIn' : 'ExactOut';
    const amount = BigInt(t.amount);
    const deps = new Set<string>();
    if (reindex) {
      try {
        for (const c of findCandidatePaths(projection, { inputMint: t.in, outputMint: t.out, amount, mode, maxHops: this.config.maxHops })) {
          for (const p of c.pools) deps.add(p.address);
        }
      } catch (e) {
        if (!(e instanceof RouteError)) throw e;
      }
    } else {
      for (const d of w.deps) deps.add(d);
    }
    let q: QuotesChanged;
    try {
      const r = computeQuote(projection, { inputMint: t.in, outputMint: t.out, amount, swapMode: mode, slippageBps: 0 }, this.config.maxHops);
      for (const h of r.routes) deps.add(h.poolAddress);
      q = { tuple: t, amountOut: r.amountOut, amountIn: r.amountIn, priceImpactBps: r.priceImpactBps, hops: r.hopCount, slot: r.contextSlot };
    } catch (e) {
      if (!(e instanceof RouteError)) throw e;
      q = { tuple: t, amountOut: '0', amountIn: '0', priceImpactBps: 0, hops: 0, slot: projection.slot, error: e.message };
    }
    this.setDeps(w, deps);
    return q;
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
