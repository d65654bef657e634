/**
 * The garbage collections of the thread it runs on, counted while it observes (diagnostics: the
 * stream benchmark reports them for the thread doing the quote work, whether the main thread or
 * a quote worker). A PerformanceObserver sees the collections of its own thread only.
 */
import { constants, performance, PerformanceObserver } from 'perf_hooks';

export interface GcKindTally {
  count: number;
  /** summed pause, ms */
  ms: number;
  /** longest pause, ms */
  maxMs: number;
}

/** scavenges of the young generation; mark-compacts of the whole heap (their final pause); incremental marking steps */
export interface GcSummary {
  minor: GcKindTally;
  major: GcKindTally;
  incremental: GcKindTally;
  /**
   * each mark-compact's final pause as [start, end] (Unix ms, this process's clock), in the order
   * observed: when the thread stood still, to set against what waited meanwhile (a run has a few)
   */
  majorPauses: Array<[number, number]>;
}

const empty = (): GcKindTally => ({ count: 0, ms: 0, maxMs: 0 });
const none = (): GcSummary => ({ minor: empty(), major: empty(), incremental: empty(), majorPauses: [] });

export class GcTally {
  private observer: PerformanceObserver | null = null;
  private tally: GcSummary = none();

  /** counts from zero from now on */
  start(): void {
    this.stop();
    this.tally = none();
    this.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) this.add((e.detail as { kind?: number } | undefined)?.kind, e.duration, performance.timeOrigin + e.startTime);
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  stop(): void {
    this.observer?.disconnect();
    this.observer = null;
  }

  /** the collections counted since start (delivered so far: the observer's entries arrive after the collection) */
  summary(): GcSummary {
    const copy = (t: GcKindTally): GcKindTally => ({ ...t });
    return { minor: copy(this.tally.minor), major: copy(this.tally.major), incremental: copy(this.tally.incremental), majorPauses: this.tally.majorPauses.map(([a, b]) => [a, b]) };
  }

  /**
   * one collection of `kind` (perf_hooks' NODE_PERFORMANCE_GC_* constants) that paused the thread
   * `ms`, from `at` (Unix ms; a mark-compact's pause is kept when it is given)
   */
  add(kind: number | undefined, ms: number, at?: number): void {
    const t = this.of(kind);
    if (t === undefined) return;
    t.count++;
    t.ms += ms;
    t.maxMs = Math.max(t.maxMs, ms);
    if (t === this.tally.major && at !== undefined) this.tally.majorPauses.push([at, at + ms]);
  }

  /** the tally of a kind of collection; undefined for the kinds not counted (weak callbacks) */
  private of(kind: number | undefined): GcKindTally | undefined {
    switch (kind) {
      case constants.NODE_PERFORMANCE_GC_MINOR:
        return this.tally.minor;
      case constants.NODE_PERFORMANCE_GC_MAJOR:
        return this.tally.major;
      case constants.NODE_PERFORMANCE_GC_INCREMENTAL:
        return this.tally.incremental;
      default:
        return undefined;
    }
  }
}
