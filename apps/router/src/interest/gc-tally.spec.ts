import { constants } from 'perf_hooks';
import * as v8 from 'v8';
import * as vm from 'vm';
import { GcTally } from './gc-tally';

/**
 * a full (mark-compact) collection now: through gc() when the process exposes it, else through
 * the gc() of a context made while V8's flag is set for a moment (contexts made later, such as
 * the other test files', do not get it)
 */
function fullCollection(): void {
  const exposed = (global as { gc?: () => void }).gc;
  if (exposed) return exposed();
  v8.setFlagsFromString('--expose-gc');
  let gc: () => void;
  try {
    gc = vm.runInNewContext('gc') as () => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  gc();
}

describe('GcTally', () => {
  it('sorts collections by kind, sums their pauses and keeps the longest', () => {
    const t = new GcTally();
    t.add(constants.NODE_PERFORMANCE_GC_MINOR, 1.5);
    t.add(constants.NODE_PERFORMANCE_GC_MINOR, 0.5);
    t.add(constants.NODE_PERFORMANCE_GC_MAJOR, 12, 1_000);
    t.add(constants.NODE_PERFORMANCE_GC_MAJOR, 3);
    t.add(constants.NODE_PERFORMANCE_GC_MINOR, 2, 2_000);
    t.add(constants.NODE_PERFORMANCE_GC_INCREMENTAL, 0.25, 3_000);
    t.add(constants.NODE_PERFORMANCE_GC_WEAKCB, 3);
    t.add(undefined, 3);
    expect(t.summary()).toEqual({
      minor: { count: 3, ms: 4, maxMs: 2 },
      major: { count: 2, ms: 15, maxMs: 12 },
      incremental: { count: 1, ms: 0.25, maxMs: 0.25 },
      // only the mark-compacts' pauses, and only those given a start
      majorPauses: [[1_000, 1_012]],
    });
  });

  it('summary() is a copy: later collections do not change it', () => {
    const t = new GcTally();
    t.add(constants.NODE_PERFORMANCE_GC_MAJOR, 4, 10);
    const before = t.summary();
    t.add(constants.NODE_PERFORMANCE_GC_MAJOR, 4, 20);
    before.majorPauses[0][0] = -1;
    expect(before.major.count).toBe(1);
    expect(before.majorPauses).toEqual([[-1, 14]]);
    expect(t.summary().major.count).toBe(2);
    expect(t.summary().majorPauses).toEqual([
      [10, 14],
      [20, 24],
    ]);
  });

  it("keeps a real mark-compact's pause with its start on this process's clock", async () => {
    const t = new GcTally();
    t.start();
    const before = Date.now();
    fullCollection();
    // entries arrive after the collection
    for (let round = 0; round < 100 && t.summary().majorPauses.length === 0; round++) await new Promise((r) => setTimeout(r, 5));
    const after = Date.now();
    t.stop();
    const pauses = t.summary().majorPauses;
    expect(pauses.length).toBeGreaterThan(0);
    const [start, end] = pauses[0];
    expect(start).toBeGreaterThanOrEqual(before - 1);
    expect(end).toBeGreaterThanOrEqual(start);
    expect(end).toBeLessThanOrEqual(after + 1);
  });

  it("counts this thread's real scavenges while started, from zero at each start, and none after stop", async () => {
    const t = new GcTally();
    t.add(constants.NODE_PERFORMANCE_GC_MINOR, 1);
    t.start();
    expect(t.summary().minor.count).toBe(0);
    // short-lived garbage until the young generation is collected (entries arrive after the collection)
    let keep = 0;
    for (let round = 0; round < 200 && t.summary().minor.count === 0; round++) {
      for (let i = 0; i < 20_000; i++) keep += { i, s: `x${i}` }.s.length;
      await new Promise((r) => setImmediate(r));
    }
    expect(keep).toBeGreaterThan(0);
    const seen = t.summary().minor;
    expect(seen.count).toBeGreaterThan(0);
    expect(seen.ms).toBeGreaterThan(0);
    t.stop();
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 20_000; i++) keep += { i, s: `x${i}` }.s.length;
      await new Promise((r) => setImmediate(r));
    }
    expect(t.summary().minor.count).toBe(seen.count);
  });
});
