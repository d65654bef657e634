/**
 * Replay: rebuild the router's projection from the `pool-updates` log as it stood at a past
 * point, and answer quotes on that state. Plain TypeScript over the LogPort (no Nest, no HTTP):
 * the projection is deterministic, so the same log prefix gives the same state and the same
 * quotes, bit for bit — which is what makes an audit of a served quote possible.
 *
 * A point is either a log position (the offset of the LAST record applied, per partition, as a
 * quote's `logPosition` states it) or a slot (every record stamped with a slot ≤ it; the
 * ingestor writes slots in order, so each partition is read up to its first later slot).
 */
import { ContractError } from '@app/contracts';
import { decodePoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogPort, Positions } from '@app/log';
import { CatchUpProgress } from '../projection/catch-up-progress';
import { Projection } from '@app/pools';
import type { ProjectionSnapshots } from '../projection/projection-snapshots';
import type { SnapshotHeader } from '@app/log';

export type ReplayPoint = { position: Positions } | { slot: number } | 'end';

export interface ReplayResult {
  projection: Projection;
  /** offset of the last record applied per partition (the replayed state's log position) */
  position: Positions;
  /** records read and applied (rejected records are counted by the projection) */
  records: number;
  /** the snapshot the replay started from (its next-to-read positions), when one served */
  fromSnapshot?: Positions;
}

export interface ReplayOptions {
  /** where to look for a snapshot to start from (the nearest one at or before the point) */
  snapshots?: ProjectionSnapshots | null;
  /** progress lines (records applied, rate, time left) every 2 s; the CLI's go to stderr */
  progress?: (message: string) => void;
}

/** a snapshot whose state lies at or before the point (every partition) */
function snapshotBefore(header: SnapshotHeader, last: Record<string, bigint>, maxSlot: number | undefined): boolean {
  if (maxSlot !== undefined) return Number(header.meta.slot) <= maxSlot;
  return Object.entries(header.positions).every(([p, next]) => last[p] === undefined || BigInt(next) - 1n <= last[p]);
}

export class ReplayError extends Error {}

/** Parse a position argument `0:1234,1:99` (partition:offset of the last applied record). */
export function parsePosition(text: string): Positions {
  const out: Positions = {};
  for (const part of text.split(',')) {
    const m = /^(\d+):(\d+)$/.exec(part.trim());
    if (!m) throw new ReplayError(`invalid log position "${part}": expected partition:offset[,partition:offset...]`);
    out[String(Number(m[1]))] = String(BigInt(m[2]));
  }
  return out;
}

/**
 * Rebuild the projection at `point`. A position naming a partition or offset that the log does
 * not have is an error (never a silent shorter replay). With `base` (an earlier result, which is
 * consumed), a target position at or after base's continues from it instead of starting over.
 */
export async function replayProjection(log: LogPort, point: ReplayPoint, pageSize = 5000, base?: ReplayResult, options: ReplayOptions = {}): Promise<ReplayResult> {
  const topic = TOPICS.poolUpdates;
  const end = await log.endPositions(topic);
  /** last offset to apply per partition (inclusive); undefined = up to the end */
  const last: Record<string, bigint> = {};
  if (point !== 'end' && 'position' in point) {
    for (const [p, off] of Object.entries(point.position)) {
      const high = end[p] === undefined ? undefined : BigInt(end[p]);
      if (high === undefined) throw new ReplayError(`the log has no partition ${p} of ${topic}`);
      if (BigInt(off) >= high) throw new ReplayError(`partition ${p} of ${topic} ends at offset ${high - 1n}; position ${off} is beyond it`);
      last[p] = BigInt(off);
    }
    // partitions the position does not name had nothing applied
    for (const p of Object.keys(end)) if (last[p] === undefined) last[p] = -1n;
  }
  const maxSlot = point !== 'end' && 'slot' in point ? point.slot : undefined;

  // continue from `base` when it is a prefix of the target (every partition at or before it)
  const reuse =
    base !== undefined &&
    maxSlot === undefined &&
    Object.entries(base.position).every(([p, off]) => last[p] === undefined || BigInt(off) <= last[p]);
  const projection = reuse ? base.projection : new Projection();
  const position: Positions = reuse ? { ...base.position } : {};
  /** next offset to read per partition, where a snapshot says */
  let restored: Positions | undefined;
  if (!reuse && options.snapshots) {
    const header = await options.snapshots.restoreNewest(projection, (h) => snapshotBefore(h, last, maxSlot));
    if (header) {
      restored = { ...header.positions };
      Object.assign(position, projection.positions);
    }
  }
  const begin = await log.beginPositions(topic);
  const from: Positions = {};
  const done = new Set<string>();
  for (const [p, high] of Object.entries(end)) {
    from[p] = restored?.[p] ?? (position[p] === undefined ? '0' : String(BigInt(position[p]) + 1n));
    const first = BigInt(begin[p] ?? '0');
    if (first > BigInt(from[p]) && !(last[p] !== undefined && last[p] < BigInt(from[p]))) {
      throw new ReplayError(
        `the state at that point lies before retention: ${topic} partition ${p} now starts at offset ${first} ` +
          `(older records removed after LOG_RETENTION_POOL_UPDATES), and no snapshot at or before that point covers offsets ${from[p]}–${first - 1n}`,
      );
    }
    const nothingLeft = BigInt(from[p]) >= BigInt(high) || (last[p] !== undefined && BigInt(from[p]) > last[p]);
    if (nothingLeft) {
      done.add(p);
      from[p] = high;
    }
  }
  let records = reuse ? base.records : 0;
  const progress = options.progress ? new CatchUpProgress(from, last[Object.keys(end)[0]] !== undefined && maxSlot === undefined ? nextAfter(last) : end, options.progress) : null;
  while (done.size < Object.keys(end).length) {
    const page = await log.read(topic, from, pageSize);
    if (page.length === 0) break;
    progress?.applied(page.length, from);
    for (const r of page) {
      const p = String(r.partition);
      if (done.has(p)) continue;
      const offset = BigInt(r.offset);
      if (last[p] !== undefined && offset > last[p]) {
        done.add(p);
        from[p] = end[p];
        continue;
      }
      if (maxSlot !== undefined && slotOf(r.value) > maxSlot) {
        done.add(p);
        from[p] = end[p];
        continue;
      }
      projection.apply(r);
      records++;
      position[p] = r.offset;
      from[p] = String(offset + 1n);
      if ((last[p] !== undefined && offset === last[p]) || offset + 1n >= BigInt(end[p])) {
        done.add(p);
        from[p] = end[p];
      }
    }
  }
  return restored ? { projection, position, records, fromSnapshot: restored } : { projection, position, records };
}

function nextAfter(last: Record<string, bigint>): Positions {
  const out: Positions = {};
  for (const [p, o] of Object.entries(last)) out[p] = String(o + 1n);
  return out;
}

/** the record's slot; a record that does not decode is left to the projection to reject */
function slotOf(value: Buffer): number {
  try {
    return decodePoolUpdate(value).slot;
  } catch (e) {
    if (e instanceof ContractError) return -1;
    throw e;
  }
}
