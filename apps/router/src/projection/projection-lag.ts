/**
 * How far the router's projection is behind the end of `pool-updates`, and how fresh that end
 * is: records not yet applied, slots between the log's newest record and the projection, and the
 * age of the newest record (how long ago the ingest last wrote). Read for /ready and the
 * projection gauges of /metrics; the log's newest records are read only while the projection is
 * behind (caught up, the newest slot is the projection's own), and a reading is reused for 1 s.
 */
import { decodePoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogPort, LogRecord, Positions } from '@app/log';
import type { Projection } from '@app/pools';

export interface LagReading {
  /** records on the log not yet seen by the projection */
  records: number;
  /** the log's newest slot minus the projection's (0 when caught up) */
  slots: number;
  /** the projection's slot */
  slot: number;
  /** the log's newest slot */
  logSlot: number;
  /** seconds since the newest record was appended (null: the log is empty) */
  newestRecordAgeSeconds: number | null;
}

const REUSE_MS = 1_000;

export class ProjectionLag {
  private last: { at: number; reading: Promise<LagReading> } | null = null;
  /** the newest append time among the records the projection processed */
  private newestAt = 0;

  constructor(
    private readonly log: LogPort,
    private readonly projection: Projection,
  ) {}

  /** a batch the projection processed (its append times tell how fresh the log's end is) */
  saw(records: readonly LogRecord[]): void {
    for (const r of records) if (r.timestamp > this.newestAt) this.newestAt = r.timestamp;
  }

  read(now: number = Date.now()): Promise<LagReading> {
    if (this.last !== null && now - this.last.at < REUSE_MS) return this.last.reading;
    const reading = this.measure(now);
    this.last = { at: now, reading };
    reading.catch(() => (this.last = null));
    return reading;
  }

  private async measure(now: number): Promise<LagReading> {
    const end = await this.log.endPositions(TOPICS.poolUpdates);
    const processed = this.projection.processed;
    let records = 0;
    const behind: Positions = {};
    for (const [partition, next] of Object.entries(end)) {
      const seen = processed[partition] === undefined ? 0n : BigInt(processed[partition]) + 1n;
      const missing = BigInt(next) - seen;
      if (missing > 0n) {
        records += Number(missing);
        behind[partition] = String(BigInt(next) - 1n);
      }
    }
    const slot = this.projection.slot;
    let logSlot = slot;
    let newestAt = this.newestAt;
    if (records > 0) {
      // the newest record of each partition the projection has not reached
      const partitions = Object.keys(behind).length;
      // every partition read from its end but those behind, from their newest record
      for (const r of await this.log.read(TOPICS.poolUpdates, { ...end, ...behind }, partitions)) {
        if (behind[String(r.partition)] !== r.offset) continue;
        if (r.timestamp > newestAt) newestAt = r.timestamp;
        try {
          logSlot = Math.max(logSlot, decodePoolUpdate(r.value).slot);
        } catch {
          // a record the projection will reject: its slot is not the log's
        }
      }
    }
    return { records, slots: Math.max(0, logSlot - slot), slot, logSlot, newestRecordAgeSeconds: newestAt > 0 ? Math.max(0, (now - newestAt) / 1000) : null };
  }
}
