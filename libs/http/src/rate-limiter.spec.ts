import fc from 'fast-check';
import { RateLimiter, type RateWindow } from './rate-limiter';

const API_LIMITS: RateWindow[] = [
  { max: 60, windowMs: 60_000 },
  { max: 10, windowMs: 1_000 },
];

function clock(start = 1_000_000): { now: () => number; set(t: number): void } {
  let t = start;
  return { now: () => t, set: (x: number) => (t = x) };
}

describe('RateLimiter', () => {
  it('allows a burst of 10 in a second, then refuses until the oldest of them is a second old', () => {
    const c = clock();
    const rl = new RateLimiter(API_LIMITS, c.now);
    for (let i = 0; i < 10; i++) {
      c.set(1_000_000 + i * 10);
      expect(rl.take('a')).toEqual({ allowed: true, retryAfterMs: 0 });
    }
    c.set(1_000_500);
    expect(rl.take('a')).toEqual({ allowed: false, retryAfterMs: 500 });
    c.set(1_000_999);
    expect(rl.take('a').allowed).toBe(false);
    c.set(1_001_000);
    expect(rl.take('a').allowed).toBe(true);
    // another client has its own windows
    expect(rl.take('b').allowed).toBe(true);
  });

  it('allows 60 in a minute, then refuses with the wait until the oldest is a minute old', () => {
    const c = clock(0);
    const rl = new RateLimiter(API_LIMITS, c.now);
    for (let i = 0; i < 60; i++) {
      c.set(i * 200); // 5 per second: the burst window never fills
      expect(rl.take('a').allowed).toBe(true);
    }
    c.set(12_000);
    expect(rl.take('a')).toEqual({ allowed: false, retryAfterMs: 48_000 });
    c.set(59_999);
    expect(rl.take('a')).toEqual({ allowed: false, retryAfterMs: 1 });
    c.set(60_000);
    expect(rl.take('a').allowed).toBe(true);
    expect(rl.take('a').allowed).toBe(false); // the second oldest (200 ms) is still inside
  });

  it('no windows: everything is allowed and nothing is kept', () => {
    const rl = new RateLimiter([]);
    for (let i = 0; i < 1000; i++) expect(rl.take('a').allowed).toBe(true);
    expect(rl.unlimited).toBe(true);
    expect(rl.size).toBe(0);
  });

  it('forgets clients idle for the longest window', () => {
    const c = clock(0);
    const rl = new RateLimiter(API_LIMITS, c.now);
    rl.take('a');
    c.set(30_000);
    rl.take('b');
    c.set(60_000);
    rl.sweep();
    expect(rl.size).toBe(1);
    c.set(90_000);
    rl.sweep();
    expect(rl.size).toBe(0);
  });

  it('rejects windows that allow nothing', () => {
    expect(() => new RateLimiter([{ max: 0, windowMs: 1000 }])).toThrow(RangeError);
    expect(() => new RateLimiter([{ max: 1, windowMs: 0 }])).toThrow(RangeError);
  });

  it('property: the allowed requests never exceed a window, a refusal is only made when one is full, and its wait is exact', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ max: fc.integer({ min: 1, max: 8 }), windowMs: fc.integer({ min: 1, max: 500 }) }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 1, maxLength: 200 }),
        (windows, gaps) => {
          const c = clock(0);
          const rl = new RateLimiter(windows, c.now);
          const allowed: number[] = [];
          let t = 0;
          for (const g of gaps) {
            t += g;
            c.set(t);
            const inWindow = (w: RateWindow): number => allowed.filter((x) => t - x < w.windowMs).length;
            const full = windows.some((w) => inWindow(w) >= w.max);
            const d = rl.take('k');
            expect(d.allowed).toBe(!full);
            if (d.allowed) allowed.push(t);
            else {
              // waiting retryAfterMs frees every window; one ms less does not
              const freeAt = (u: number): boolean => windows.every((w) => allowed.filter((x) => u - x < w.windowMs).length < w.max);
              expect(freeAt(t + d.retryAfterMs)).toBe(true);
              expect(freeAt(t + d.retryAfterMs - 1)).toBe(false);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
