import { constants } from 'perf_hooks';
import { GcTally } from './gc-tally';

describe('GcTally', () => {
  it('sorts collections by kind, sums their pauses and keeps the longest', () => {
    const t = new GcTally();
    t.add(constants.NODE_PERFORMANCE_GC_MINOR, 1.5);
    t.add(constants.NODE_PERFORMANCE_GC_MINOR, 0.5);
    t.add(constants.NODE_PERFORMANCE_GC_MAJOR, 12);
    t.add(constants.NODE_PERFORMANCE_GC_INCREMENTAL, 0.25);
    t.add(constants.NODE_PERFORMANCE_GC_WEAKCB, 3);
    t.add(undefined, 3);
    expect(t.summary()).toEqual({
      minor: { count: 2, ms: 2, maxMs: 1.5 },
      major: { count: 1, ms: 12, maxMs: 12 },
      incremental: { count: 1, ms: 0.25, maxMs: 0.25 },
    });
  });

  it('summary() is a copy: later collections do not change it', () => {
    const t = new GcTally();
    const before = t.summary();
    t.add(constants.NODE_PERFORMANCE_GC_MAJOR, 4);
    expect(before.major.count).toBe(0);
    expect(t.summary().major.count).toBe(1);
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
