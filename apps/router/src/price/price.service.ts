import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { PriceOracle, type PriceOracleStats, type PriceRecord } from '@app/amm';
import type { AppConfig } from '@app/config';
import { APP_CONFIG } from '@app/config';
import { MINTS } from '@app/solana';
import { ProjectionService } from '../projection/projection.service';

/** Nest token of the clock that stamps `updatedAt` (Unix milliseconds); Date.now by default. */
export const PRICE_CLOCK = Symbol('PRICE_CLOCK');
export type MillisClock = () => number;

/**
 * Keeps the spot prices of GET /api/v1/price up to date as pool updates are projected.
 *
 * Wiring: on module init it feeds the pure PriceOracle (libs/amm/src/pricing) every routable pool
 * the projection already holds, then listens to ProjectionService.onPoolsChanged: after each
 * applied batch, every changed pool is passed to the oracle (or removed from it when the
 * projection no longer has it routable) with its mints' decimals, in one oracle batch, so the
 * records that depend on those pools (and, when SOL's price moved, the tokens priced through SOL
 * pools) are re-materialised right there. A request is a map lookup.
 *
 * Time: the Projection and the PriceOracle never read a clock (a record's `price` and `slot` are
 * functions of the log prefix and the configuration). `updatedAt` is the Unix second at which
 * the last record that changed the pool the price came from was appended to the log
 * (Projection.lastChangeAt): it is part of the log, whatever the batches it is applied in, so a
 * replay stamps the same times. Only records that carry no append time fall back to the newest
 * append time of the applied batch, or the wall clock when that is unknown too.
 */
@Injectable()
export class PriceService implements OnModuleInit {
  readonly oracle: PriceOracle;
  private readonly clock: MillisClock;
  private attached = false;

  constructor(
    private readonly projections: ProjectionService,
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() @Inject(PRICE_CLOCK) clock?: MillisClock,
  ) {
    this.oracle = new PriceOracle(config.priceStablecoins, MINTS.SOL);
    this.clock = clock ?? Date.now;
  }

  onModuleInit(): void {
    this.attach();
  }

  /** Seed from the projection's current pools and follow its changes (idempotent). */
  attach(): void {
    if (this.attached) return;
    this.attached = true;
    const projection = this.projections.projection;
    const seed: string[] = [];
    for (const m of projection.markets()) if (m.routable) seed.push(m.address);
    this.apply(seed);
    // the first call also carries the pools materialised before registration: applying them
    // again is harmless (same pool state, same record)
    this.projections.onPoolsChanged((changed, _slot, appendedAtMs) => this.apply(changed, appendedAtMs));
  }

  /** Feed the oracle the current state of these pools (called once per applied batch). */
  apply(changed: Iterable<string>, appendedAtMs?: number): void {
    const projection = this.projections.projection;
    const batchAt = appendedAtMs && appendedAtMs > 0 ? appendedAtMs : this.clock();
    const oracle = this.oracle;
    oracle.batch(() => {
      for (const address of changed) {
        const pool = projection.pool(address);
        if (pool === undefined) {
          oracle.poolRemoved(address);
          continue;
        }
        oracle.setDecimals(pool.mintA, projection.decimals(pool.mintA));
        oracle.setDecimals(pool.mintB, projection.decimals(pool.mintB));
        const at = projection.lastChangeAt(address);
        oracle.poolChanged({ pool, updatedAt: Math.floor((at > 0 ? at : batchAt) / 1000) });
      }
      // mint accounts may arrive after their pools and do not always re-materialise them
      const pending = oracle.pendingDecimals();
      if (pending.size > 0) {
        for (const mint of [...pending]) {
          const d = projection.decimals(mint);
          if (d !== undefined) oracle.setDecimals(mint, d);
        }
      }
    });
  }

  /** the record of one mint (price 0 when unknown) */
  price(mint: string): PriceRecord {
    return this.oracle.get(mint);
  }

  /** records of several mints, in the given order */
  prices(mints: readonly string[]): PriceRecord[] {
    return this.oracle.getMany(mints);
  }

  get stats(): PriceOracleStats {
    return this.oracle.stats;
  }
}
