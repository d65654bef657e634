import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { TOPICS } from '@app/contracts';
import type { AppConfig } from '@app/config';
import { APP_CONFIG } from '@app/config';
import { snapshotDirOf } from '@app/log';
import { LOG_PORT, type LogPort, type LogRecord, type Positions, type Subscription } from '@app/log';
import { metrics } from '@app/observability';
import { Projection } from '@app/pools';
import { ProjectionLag } from './projection-lag';
import { CatchUpProgress } from './catch-up-progress';
import { ProjectionSnapshots } from './projection-snapshots';
import { freshnessProblem } from './projection-freshness';

/**
 * Called after each applied batch with the pools that changed (see Projection.drainChanged), the
 * projection's slot, the newest append time (Unix ms) among the batch's records, and per changed
 * pool the append time of the batch's first record that changed it: times that are part of the
 * log, so replaying the same log gives the same values.
 */
export type PoolsChangedListener = (changed: ReadonlySet<string>, slot: number, appendedAtMs: number, changedAt: ReadonlyMap<string, number>) => void;

export interface ProjectionHealth {
  ok: boolean;
  reason?: string;
}

/** a projection that lags the log and has not advanced for this long is "stalled" */
const STALL_MS = 30_000;

/** Nest token: 'read' makes a ProjectionService start from snapshots without writing any (worker threads) */
export const PROJECTION_SNAPSHOT_ROLE = Symbol('PROJECTION_SNAPSHOT_ROLE');

/**
 * Owns the router's Projection: on module init it ensures `pool-updates` exists, restores the
 * newest valid snapshot (projection-snapshots.ts; none: an empty state) and subscribes from its
 * positions (else from the beginning) WITHOUT a consumer group (every router holds the whole
 * state), applying each batch and writing snapshots as they fall due. Ready = caught up with the
 * end positions read at start. Without a configuration (some specs) it keeps no snapshots.
 */
@Injectable()
export class ProjectionService implements OnModuleInit, OnModuleDestroy {
  readonly projection = new Projection();
  /** the projection's lag behind the log (readiness, metrics) */
  readonly lag: ProjectionLag;
  private stopLagGauges: () => void = () => undefined;
  private readonly logger = new Logger('ProjectionService');
  private subscription: Subscription | null = null;
  private startEnd: Positions = {};
  /** next offset to read per partition (last processed + 1) */
  private readonly next: Record<string, bigint> = {};
  private ready = false;
  private failure: Error | null = null;
  private lastProgressAt = Date.now();
  private readyWaiters: Array<() => void> = [];
  private readonly listeners: PoolsChangedListener[] = [];
  /** snapshots read at start and (unless 'read') written as they fall due; null: none */
  readonly snapshots: ProjectionSnapshots | null;
  private readonly writesSnapshots: boolean;
  private readonly maxLagRecords: number;
  private progress: CatchUpProgress | null = null;

  constructor(
    @Inject(LOG_PORT) private readonly log: LogPort,
    @Optional() @Inject(APP_CONFIG) config?: AppConfig,
    @Optional() @Inject(PROJECTION_SNAPSHOT_ROLE) role?: 'write' | 'read',
  ) {
    this.snapshots = config
      ? new ProjectionSnapshots(
          { dir: snapshotDirOf(config), every: config.snapshotEvery, intervalMs: config.snapshotIntervalMs, keep: config.snapshotKeep },
          TOPICS.poolUpdates,
          { log: (m) => this.logger.log(m), warn: (m) => this.logger.warn(m) },
        )
      : null;
    this.writesSnapshots = role !== 'read';
    this.maxLagRecords = config?.healthMaxLagRecords ?? Number.MAX_SAFE_INTEGER;
    this.lag = new ProjectionLag(log, this.projection);
  }

  async onModuleInit(): Promise<void> {
    await this.log.ensureTopic(TOPICS.poolUpdates);
    const from = await this.restore();
    const gap = await this.missingRecords(from);
    if (gap !== null) {
      this.failure = new Error(gap);
      this.logger.error(gap);
      return;
    }
    this.startEnd = await this.log.endPositions(TOPICS.poolUpdates);
    this.stopLagGauges = metrics.projectionLagFrom(() => this.lag.read());
    this.progress = new CatchUpProgress(this.next, this.startEnd, (m) => this.logger.log(m));
    this.checkReady();
    this.subscription = await this.log.subscribe(
      TOPICS.poolUpdates,
      {
        from,
        maxBatch: 5000,
        onError: (e) => {
          this.failure = e;
          this.logger.error(`pool-updates subscription stopped: ${e.message}`);
        },
      },
      (records) => this.applyBatch(records),
    );
  }

  async onModuleDestroy(): Promise<void> {
    const s = this.subscription;
    this.subscription = null;
    this.stopLagGauges();
    if (s) await s.close();
  }

  /** the newest valid snapshot restored: where to read on from ('beginning' without one) */
  private async restore(): Promise<Positions | 'beginning'> {
    if (!this.snapshots) return 'beginning';
    const header = await this.snapshots.restoreNewest(this.projection);
    if (!header) return 'beginning';
    for (const [p, o] of Object.entries(header.positions)) this.next[p] = BigInt(o);
    this.logger.log(`projection restored from snapshot at ${JSON.stringify(header.positions)} (slot ${String(header.meta.slot)}); replaying the log from there`);
    return { ...header.positions };
  }

  /**
   * why the log cannot give the whole state from `from` (records it needs were removed by
   * retention), or null: a projection built from what is left would miss accounts and quote on
   * guessed data, so the service stays unhealthy instead
   */
  private async missingRecords(from: Positions | 'beginning'): Promise<string | null> {
    const begin = await this.log.beginPositions(TOPICS.poolUpdates);
    for (const [p, first] of Object.entries(begin)) {
      const wanted = from === 'beginning' ? 0n : BigInt(from[p] ?? '0');
      if (BigInt(first) > wanted) {
        return (
          `pool-updates partition ${p} now starts at offset ${first}: the records from ${wanted} on that this router needs ` +
          `were removed by retention, and no valid snapshot covers them (see SNAPSHOT_DIR); refusing to serve a partial state`
        );
      }
    }
    return null;
  }

  private applyBatch(records: LogRecord[]): void {
    for (const r of records) {
      const outcome = this.projection.apply(r);
      if (!outcome.applied) this.logger.warn(`rejected pool-updates record ${r.partition}/${r.offset}: ${outcome.reason}`);
      this.next[String(r.partition)] = BigInt(r.offset) + 1n;
    }
    if (records.length > 0) this.lastProgressAt = Date.now();
    this.lag.saw(records);
    if (!this.ready) this.progress?.applied(records.length, this.next);
    if (this.listeners.length > 0 && records.length > 0) {
      const changedAt = new Map<string, number>();
      const changed = this.projection.drainChanged(changedAt);
      if (changed.size > 0) {
        const slot = this.projection.slot;
        let appendedAtMs = 0;
        let firstAtMs = Infinity;
        for (const r of records) {
          if (r.timestamp > appendedAtMs) appendedAtMs = r.timestamp;
          if (r.timestamp < firstAtMs) firstAtMs = r.timestamp;
        }
        // changes of before the first listener came (the first drain carries the whole market)
        // count from this batch
        for (const [pool, at] of changedAt) if (!(at >= firstAtMs)) changedAt.set(pool, firstAtMs);
        for (const l of this.listeners) {
          try {
            l(changed, slot, appendedAtMs, changedAt);
          } catch (e) {
            this.logger.error(`pools-changed listener failed: ${(e as Error).message}`);
          }
        }
      }
    }
    this.checkReady();
    if (this.writesSnapshots && records.length > 0) this.snapshots?.afterBatch(this.projection, records.length);
  }

  /**
   * Register a listener for pool changes. It is called after every applied batch (eagerly
   * settling the projection) with the changed pool addresses. The first call after registration
   * also carries every pool materialised before it (the changed set accumulates until drained),
   * so a listener registered late still sees the whole market once.
   */
  onPoolsChanged(listener: PoolsChangedListener): void {
    this.listeners.push(listener);
  }

  private caughtUpWith(end: Positions): boolean {
    for (const [partition, offset] of Object.entries(end)) {
      const target = BigInt(offset);
      if (target > 0n && (this.next[partition] ?? 0n) < target) return false;
    }
    return true;
  }

  private checkReady(): void {
    if (this.ready || !this.caughtUpWith(this.startEnd)) return;
    this.ready = true;
    const s = this.projection.stats;
    this.logger.log(`projection caught up: ${s.applied} records applied, ${s.rejected} rejected, ${s.routablePools}/${s.pools} pools routable, ${s.tokens} tokens`);
    for (const w of this.readyWaiters.splice(0)) w();
  }

  /** caught up with the log end read at start */
  get isReady(): boolean {
    return this.ready;
  }

  /** resolves once the projection has caught up with the log end read at start */
  whenReady(): Promise<void> {
    return this.ready ? Promise.resolve() : new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /**
   * healthy: log reachable, subscription running, caught up, not stalled behind the log, and
   * fresh (projection-freshness.ts: not empty, not standing while the log moves, not too far behind)
   */
  async health(): Promise<ProjectionHealth> {
    const reachable = await this.log.ping().catch(() => false);
    if (!reachable) return { ok: false, reason: 'log unreachable' };
    if (this.failure) return { ok: false, reason: `projection stopped: ${this.failure.message}` };
    if (!this.subscription) return { ok: false, reason: 'projection not subscribed' };
    if (!this.ready) return { ok: false, reason: 'projection catching up with the log' };
    const end = await this.log.endPositions(TOPICS.poolUpdates).catch(() => null);
    if (end === null) return { ok: false, reason: 'log unreachable' };
    if (!this.caughtUpWith(end) && Date.now() - this.lastProgressAt > STALL_MS) {
      return { ok: false, reason: `projection stalled: no progress for ${Math.round((Date.now() - this.lastProgressAt) / 1000)} s` };
    }
    const problem = this.freshness(end);
    return problem === null ? { ok: true } : { ok: false, reason: problem };
  }

  private freshness(end: Positions): string | null {
    let behind = 0n;
    for (const [p, o] of Object.entries(end)) {
      const gap = BigInt(o) - (this.next[p] ?? 0n);
      if (gap > 0n) behind += gap;
    }
    return freshnessProblem({ routablePools: this.projection.stats.routablePools, behind, maxBehind: BigInt(this.maxLagRecords) });
  }
}
