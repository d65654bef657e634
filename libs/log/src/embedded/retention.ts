/**
 * Retention of one topic of the embedded log: deletes the records that lie before the oldest
 * position still needed, in small steps, in the process that appends to the topic.
 *
 * Still needed: a record younger than the topic's window (`ms`, by its append time), a record at
 * or after the floor (`floor()`: for pool-updates the oldest snapshot kept, so the records a
 * router needs to rebuild from it stay; null from it means "nothing may go yet": no snapshot),
 * and the topic's last record (its offset is where the next append continues). A pass finds the
 * first record inside the window by bisection over offsets (append times grow with offsets), then
 * deletes in steps of STEP_ROWS rows, each its own short transaction, with the event loop free
 * between two steps, so an append waits for one step at most (`longestStepMs`).
 *
 * SQLite reuses the freed pages for later appends, so a topic's file stops growing once it holds
 * a window's worth; with incremental auto-vacuum (files created by this version) each pass also
 * gives up to VACUUM_PAGES free pages back to the file system.
 */
import type Database from 'better-sqlite3';
import { setTimeout as sleep } from 'timers/promises';

const STEP_ROWS = 100;
const VACUUM_PAGES = 2_000;

export interface TopicRetentionPolicy {
  /** records older than this many ms may go; null: kept forever (only the floor applies... and it keeps them) */
  ms: number | null;
  /** the first offset still needed whatever its age, or null when nothing may go; absent: no floor */
  floor?: () => number | null;
}

export interface TrimResult {
  /** records deleted */
  deleted: number;
  /** the first offset kept */
  firstKept: number;
  steps: number;
  /** the longest a step held the topic's write lock */
  longestStepMs: number;
}

export class TopicTrimmer {
  private readonly tsAt: Database.Statement;
  private readonly bounds: Database.Statement;
  private readonly del: Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly policy: TopicRetentionPolicy,
    private readonly now: () => number = Date.now,
  ) {
    this.tsAt = db.prepare('SELECT offset, ts FROM records WHERE offset >= ? ORDER BY offset LIMIT 1');
    this.bounds = db.prepare('SELECT min(offset) AS lo, max(offset) AS hi FROM records');
    this.del = db.prepare('DELETE FROM records WHERE offset >= ? AND offset < ?');
  }

  /** the first offset a pass would keep now (lo when nothing may go) */
  firstNeeded(): { lo: number; keep: number } | null {
    const b = this.bounds.get() as { lo: number | null; hi: number | null };
    if (b.lo === null || b.hi === null) return null;
    let keep = b.hi; // the last record stays
    if (this.policy.ms === null) return { lo: b.lo, keep: b.lo };
    keep = Math.min(keep, this.firstYoungerThan(this.now() - this.policy.ms, b.lo, b.hi));
    if (this.policy.floor) {
      const floor = this.policy.floor();
      keep = floor === null ? b.lo : Math.min(keep, floor);
    }
    return { lo: b.lo, keep: Math.max(b.lo, keep) };
  }

  /** the first offset in [lo, hi] appended at or after cutoffMs (hi + 1 when none) */
  private firstYoungerThan(cutoffMs: number, lo: number, hi: number): number {
    let a = lo;
    let b = hi + 1;
    while (a < b) {
      const mid = Math.floor((a + b) / 2);
      const r = this.tsAt.get(mid) as { offset: number; ts: number } | undefined;
      if (!r) b = mid;
      else if (r.ts >= cutoffMs) b = Math.min(mid, r.offset);
      else a = r.offset + 1;
    }
    return a;
  }

  /** one pass: delete what is no longer needed, a step at a time */
  async pass(): Promise<TrimResult> {
    const need = this.firstNeeded();
    if (need === null) return { deleted: 0, firstKept: 0, steps: 0, longestStepMs: 0 };
    let at = need.lo;
    let deleted = 0;
    let steps = 0;
    let longest = 0;
    while (at < need.keep) {
      const upto = Math.min(need.keep, at + STEP_ROWS);
      const t0 = performance.now();
      deleted += this.del.run(at, upto).changes;
      longest = Math.max(longest, performance.now() - t0);
      steps++;
      at = upto;
      if (at < need.keep) await sleep(1);
    }
    if (deleted > 0 && this.db.pragma('auto_vacuum', { simple: true }) === 2) {
      const t0 = performance.now();
      this.db.pragma(`incremental_vacuum(${VACUUM_PAGES})`);
      longest = Math.max(longest, performance.now() - t0);
    }
    return { deleted, firstKept: need.keep, steps, longestStepMs: longest };
  }
}
