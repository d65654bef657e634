/**
 * Progress of a long catch-up with the log (the router at start, the replay tool): records
 * applied, rate and time left, reported at most every `everyMs` through `report` (the router's
 * logger; stderr for the replay tool, whose stdout carries only its JSON answer).
 */
import type { Positions } from '@app/log';

function total(p: Record<string, bigint | string>): bigint {
  let t = 0n;
  for (const o of Object.values(p)) t += BigInt(o);
  return t;
}

export class CatchUpProgress {
  private readonly startedAt: number;
  private lastReport: number;
  private done = 0;
  private readonly target: bigint;
  private readonly from: bigint;

  constructor(
    from: Record<string, bigint | string>,
    target: Positions,
    private readonly report: (message: string) => void,
    private readonly everyMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = this.lastReport = now();
    this.from = total(from);
    this.target = total(target);
  }

  /** records to go when it started */
  get toGo(): bigint {
    return this.target > this.from ? this.target - this.from : 0n;
  }

  /** `records` more were applied; `next` is where the reader stands now */
  applied(records: number, next: Record<string, bigint | string>): void {
    this.done += records;
    const t = this.now();
    if (t - this.lastReport < this.everyMs) return;
    this.lastReport = t;
    const seconds = (t - this.startedAt) / 1000;
    const rate = this.done / Math.max(seconds, 1e-3);
    const left = this.target - total(next);
    const eta = left > 0n && rate > 0 ? Number(left) / rate : 0;
    this.report(`catching up with the log: ${this.done.toLocaleString('en-US')} records applied, ${Math.round(rate).toLocaleString('en-US')}/s, ${left > 0n ? left.toLocaleString('en-US') : 0} to go (about ${eta.toFixed(0)} s)`);
  }
}
