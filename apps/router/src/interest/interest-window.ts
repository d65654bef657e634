/**
 * Where a (re)starting router begins reading `quote-interest`: the live interest set is the
 * holdings whose lease has not lapsed, and a holding never outlives MAX_INTEREST_TTL_MS after
 * its record was appended, so only the records of the last window matter. Reading the whole
 * topic would grow with its history (every stream instance leases everything it holds every
 * 5 s). Per partition, a binary search over offsets by append time (records are appended in
 * time order; a record out of order only moves the start by its own amount) finds the first
 * record of the window, with only LogPort.read and endPositions.
 */
import type { LogPort, Positions } from '@app/log';

/**
 * Next-offset positions from which every record appended at or after `cutoffMs` is read
 * (partitions whose records are all older start at their end).
 */
export async function positionsSince(log: LogPort, topic: string, cutoffMs: number): Promise<Positions> {
  const end = await log.endPositions(topic);
  const out: Positions = {};
  for (const [partition, high] of Object.entries(end)) {
    const hi0 = BigInt(high);
    // probe one partition: every other partition is read from its end (nothing)
    const probe = async (offset: bigint) => {
      const recs = await log.read(topic, { ...end, [partition]: offset.toString() }, 1);
      return recs.length > 0 ? recs[0] : undefined;
    };
    let lo = 0n;
    let hi = hi0;
    let first: bigint = hi0;
    while (lo < hi) {
      const mid = (lo + hi) / 2n;
      const r = await probe(mid);
      if (!r) {
        hi = mid;
        continue;
      }
      const at = BigInt(r.offset); // may be past mid when the log no longer holds mid (retention)
      if (r.timestamp >= cutoffMs) {
        if (at < first) first = at;
        hi = mid;
      } else lo = at + 1n;
    }
    out[partition] = first.toString();
  }
  return out;
}
