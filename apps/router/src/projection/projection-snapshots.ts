/**
 * The router's projection snapshots: when to write one, writing it without holding the thread
 * that answers quotes, and starting from the newest one that is valid.
 *
 * A snapshot is due every `every` records applied or every `intervalMs`, whichever comes first
 * (0 turns either off; both 0: none written). Writing one is a synchronous capture of the state
 * between two batches (projection-image.ts: references to the immutable account contents, copies
 * of the rest), then the encoding in slices of about SLICE_MS with the event loop free in between,
 * then the file written asynchronously (snapshot-files.ts: temporary file, fsync, rename), then
 * the older snapshots beyond `keep` removed. At most one write is under way; the pauses it caused
 * (the capture, the longest slice) are kept in `lastWrite`.
 *
 * Restoring walks the snapshots newest first and takes the first that reads, checks and rebuilds;
 * each one skipped is logged with its reason (truncated, checksum, unknown schema version, an image
 * its accounts do not build), and none at all means the caller replays the log from its start.
 */
import { performance } from 'perf_hooks';
import { setImmediate as yieldToLoop } from 'timers/promises';
import { SnapshotFiles, type SnapshotHeader } from '@app/log';
import type { Positions } from '@app/log';
import { captureImage, clearProjection, restoreImage } from './projection-image';
import type { Projection } from '@app/pools';
import { decodeImage, encodeImage, SNAPSHOT_FORMAT, SNAPSHOT_SCHEMA_VERSION } from './snapshot-codec';

/** the longest the encoder runs before it lets the event loop turn */
const SLICE_MS = 4;

export interface SnapshotSettings {
  dir: string;
  /** records applied between two snapshots (0: no count trigger) */
  every: number;
  /** ms between two snapshots (0: no time trigger) */
  intervalMs: number;
  /** snapshots kept (the newest ones) */
  keep: number;
}

export interface SnapshotLogger {
  log(message: string): void;
  warn(message: string): void;
}

export interface SnapshotWriteStats {
  file: string;
  bytes: number;
  /** next-to-read positions the snapshot covers */
  positions: Positions;
  records: number;
  /** the synchronous capture: the pause it put on the thread */
  captureMs: number;
  /** the longest encoding slice (the other pause) */
  longestSliceMs: number;
  /** from the capture to the file in place */
  totalMs: number;
}

/** the next offset to read per partition after `lastProcessed` */
export function nextPositions(lastProcessed: Record<string, string>): Positions {
  const out: Positions = {};
  for (const [p, o] of Object.entries(lastProcessed)) out[p] = String(BigInt(o) + 1n);
  return out;
}

export class ProjectionSnapshots {
  readonly files: SnapshotFiles;
  lastWrite: SnapshotWriteStats | null = null;
  private writing: Promise<SnapshotWriteStats | null> | null = null;
  private recordsSince = 0;
  private lastAt: number;

  constructor(
    readonly settings: SnapshotSettings,
    topic: string,
    private readonly logger: SnapshotLogger,
    private readonly now: () => number = Date.now,
  ) {
    this.files = new SnapshotFiles(settings.dir, topic, { onWarn: (m) => logger.warn(m) });
    this.lastAt = now();
  }

  get enabled(): boolean {
    return this.settings.every > 0 || this.settings.intervalMs > 0;
  }

  /**
   * Restore the newest valid snapshot that `accept` takes (all, without it) into the empty
   * `projection`; its header, or null when none could be used (the projection is left empty).
   */
  async restoreNewest(projection: Projection, accept?: (header: SnapshotHeader) => boolean): Promise<SnapshotHeader | null> {
    for (const entry of this.files.list()) {
      try {
        if (accept && !accept(this.files.readHeader(entry.file))) continue;
        const { header, payload } = await this.files.read(entry.file, SNAPSHOT_FORMAT, SNAPSHOT_SCHEMA_VERSION);
        const image = decodeImage(payload);
        try {
          restoreImage(projection, image);
        } catch (e) {
          clearProjection(projection);
          throw e;
        }
        return header;
      } catch (e) {
        this.logger.warn(`skipping snapshot ${entry.file}: ${(e as Error).message}; trying an older one, else the log from its start`);
      }
    }
    return null;
  }

  /** called after each applied batch: writes a snapshot when one is due and none is under way */
  afterBatch(projection: Projection, records: number): void {
    this.recordsSince += records;
    if (!this.enabled || this.writing !== null || this.recordsSince === 0) return;
    const { every, intervalMs } = this.settings;
    const due = (every > 0 && this.recordsSince >= every) || (intervalMs > 0 && this.now() - this.lastAt >= intervalMs);
    if (due) void this.write(projection);
  }

  /** write a snapshot of the state now (the one under way, if any); its figures, or null when it failed (logged) */
  write(projection: Projection): Promise<SnapshotWriteStats | null> {
    if (this.writing) return this.writing;
    const t0 = performance.now();
    const image = captureImage(projection);
    const captureMs = performance.now() - t0;
    this.recordsSince = 0;
    this.lastAt = this.now();
    const positions = nextPositions(image.lastProcessed);
    if (Object.keys(positions).length === 0) return Promise.resolve(null);
    this.writing = (async (): Promise<SnapshotWriteStats | null> => {
      try {
        const gen = encodeImage(image);
        let longestSliceMs = 0;
        let chunks: Buffer[] | undefined;
        while (chunks === undefined) {
          const s = performance.now();
          do {
            const r = gen.next();
            if (r.done) chunks = r.value;
          } while (chunks === undefined && performance.now() - s < SLICE_MS);
          longestSliceMs = Math.max(longestSliceMs, performance.now() - s);
          if (chunks === undefined) await yieldToLoop();
        }
        const bytes = chunks.reduce((n, c) => n + c.length, 0);
        const meta = { slot: image.highestSlot, applied: image.lastApplied, records: image.counters.applied + image.counters.rejected, pools: image.pools.length, accounts: image.accountCount };
        const written = await this.files.write({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_SCHEMA_VERSION, positions, meta }, bytes, chunks);
        for (const f of this.files.prune(this.settings.keep)) this.logger.log(`removed snapshot ${f} (keeping the newest ${this.settings.keep})`);
        const stats: SnapshotWriteStats = { file: written.file, bytes: written.bytes, positions, records: meta.records, captureMs, longestSliceMs, totalMs: performance.now() - t0 };
        this.lastWrite = stats;
        this.logger.log(
          `snapshot at ${JSON.stringify(positions)} (slot ${image.highestSlot}): ${(written.bytes / 1048576).toFixed(1)} MiB in ${stats.totalMs.toFixed(0)} ms; ` +
            `capture held the thread ${captureMs.toFixed(1)} ms, the longest encoding slice ${longestSliceMs.toFixed(1)} ms`,
        );
        return stats;
      } catch (e) {
        this.logger.warn(`snapshot at ${JSON.stringify(positions)} failed: ${(e as Error).message}`);
        return null;
      } finally {
        this.writing = null;
      }
    })();
    return this.writing;
  }

  /** resolves once no write is under way */
  async idle(): Promise<void> {
    await this.writing;
  }
}
