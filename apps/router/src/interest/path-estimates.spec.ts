import fc from 'fast-check';
import type { Pool } from '@app/amm';
import { NO_PATHS, PathEstimates, PoolStamps, type PoolHandle, type PoolSource } from './path-estimates';

/** a constant-product pool between two mints (what the estimates read of a pool: approxOut / approxIn) */
class FakePool {
  constructor(
    readonly address: string,
    readonly a: string,
    readonly b: string,
    readonly reserveA: number,
    readonly reserveB: number,
    private readonly calls: { n: number },
  ) {}
  approxOut(inputMint: string, amountIn: number): number {
    this.calls.n++;
    const [x, y] = inputMint === this.a ? [this.reserveA, this.reserveB] : [this.reserveB, this.reserveA];
    return (amountIn * y) / (x + amountIn);
  }
  approxIn(inputMint: string, amountOut: number): number {
    this.calls.n++;
    const [x, y] = inputMint === this.a ? [this.reserveA, this.reserveB] : [this.reserveB, this.reserveA];
    return amountOut >= y ? Infinity : (x * amountOut) / (y - amountOut);
  }
}

/** the projection as the estimates see it: a held entry per address, replaced in place on a change, dropped when the pool leaves */
class FakeSource implements PoolSource {
  readonly entries = new Map<string, { address: string; pool: Pool; live: boolean }>();
  poolRef(address: string): PoolHandle | undefined {
    return this.entries.get(address);
  }
  poolAt(ref: PoolHandle): Pool | undefined {
    const e = ref as unknown as { pool: Pool; live: boolean };
    return e.live ? e.pool : undefined;
  }
}

const MINTS = ['m0', 'm1', 'm2', 'm3', 'm4'];

/** pool k trades MINTS[k] and MINTS[k + 1]: a path from m0 to m4 is pools 0..3 */
function market(calls: { n: number }, reserves: number[]): FakeSource {
  const source = new FakeSource();
  for (let k = 0; k < 4; k++) {
    const address = `pool${k}`;
    source.entries.set(address, { address, pool: new FakePool(address, MINTS[k], MINTS[k + 1], reserves[2 * k], reserves[2 * k + 1], calls) as unknown as Pool, live: true });
  }
  return source;
}

/** the paths m0 → m(len) over pools 0..len-1, for len 1..4 */
const PATHS = [1, 2, 3, 4].map((len) => ({ pools: Array.from({ length: len }, (_, k) => `pool${k}`), mints: MINTS.slice(0, len + 1) }));

function fresh(source: FakeSource, amount: number, exactIn: boolean): Array<number | undefined> {
  const e = new PathEstimates(PATHS, new PoolStamps(() => source), amount, exactIn);
  return PATHS.map((_, i) => e.estimate(i));
}

const reserve = fc.double({ min: 1e3, max: 1e12, noNaN: true });
type Op = { kind: 'change'; pool: number; x: number; y: number } | { kind: 'leave'; pool: number } | { kind: 'back'; pool: number } | { kind: 'silent'; pool: number; x: number; y: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('change' as const), pool: fc.integer({ min: 0, max: 3 }), x: reserve, y: reserve }),
  fc.record({ kind: fc.constant('leave' as const), pool: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('back' as const), pool: fc.integer({ min: 0, max: 3 }) }),
);

describe('PathEstimates', () => {
  it('always equals a fresh estimate of every path on the current pools, whatever pools changed, left or came back (ExactIn and ExactOut)', () => {
    fc.assert(
      fc.property(fc.array(reserve, { minLength: 8, maxLength: 8 }), fc.double({ min: 1, max: 1e9, noNaN: true }), fc.boolean(), fc.array(op, { maxLength: 25 }), (reserves, amount, exactIn, ops) => {
        const calls = { n: 0 };
        const source = market(calls, reserves);
        const stamps = new PoolStamps(() => source);
        const kept = new PathEstimates(PATHS, stamps, amount, exactIn);
        const left = new Map<string, { address: string; pool: Pool; live: boolean }>();
        const check = (): void => {
          const want = fresh(source, amount, exactIn);
          const all = kept.all();
          for (let i = 0; i < PATHS.length; i++) {
            expect(kept.estimate(i)).toBe(want[i]);
            expect(all[i]).toBe(want[i] ?? NaN);
          }
        };
        check();
        for (const o of ops) {
          const address = `pool${o.pool}`;
          if (o.kind === 'change') {
            const e = source.entries.get(address);
            if (!e) continue;
            e.pool = new FakePool(address, MINTS[o.pool], MINTS[o.pool + 1], o.x, o.y, calls) as unknown as Pool;
          } else if (o.kind === 'leave') {
            const e = source.entries.get(address);
            if (!e) continue;
            e.live = false;
            source.entries.delete(address);
            left.set(address, e);
          } else {
            const e = left.get(address);
            if (!e) continue;
            left.delete(address);
            // it comes back as a new entry (the old reference stays dead)
            source.entries.set(address, { address, pool: e.pool, live: true });
          }
          stamps.changed(address);
          check();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads no pool while none of a path changed, and walks again only from its first changed hop (ExactIn from the input, ExactOut from the output)', () => {
    for (const exactIn of [true, false]) {
      const calls = { n: 0 };
      const source = market(calls, [1e9, 2e9, 3e9, 1e9, 5e8, 5e8, 2e9, 1e9]);
      const stamps = new PoolStamps(() => source);
      const longest = new PathEstimates([PATHS[3]], stamps, 1e6, exactIn);
      expect(longest.estimate(0)).toBeGreaterThan(0);
      expect(calls.n).toBe(4);
      calls.n = 0;
      longest.all();
      longest.estimate(0);
      expect(calls.n).toBe(0);
      // pool 1 changes: ExactIn walks hops 1..3 again (it and the hops its output feeds), ExactOut hops 1..0 (it and the hops feeding it)
      const e = source.entries.get('pool1')!;
      e.pool = new FakePool('pool1', 'm1', 'm2', 4e9, 1e9, calls) as unknown as Pool;
      stamps.changed('pool1');
      longest.all();
      expect(calls.n).toBe(exactIn ? 3 : 2);
      calls.n = 0;
      // a change it is not told about is not seen (the stamps are what it tests)
      e.pool = new FakePool('pool1', 'm1', 'm2', 1e3, 1e3, calls) as unknown as Pool;
      const before = longest.estimate(0);
      expect(calls.n).toBe(0);
      stamps.changed('pool1');
      expect(longest.estimate(0)).not.toBe(before);
      // a pool never on a path: nothing to bump, nothing stale
      stamps.changed('elsewhere');
      expect(stamps.size).toBe(4);
    }
  });

  it('ids are held by the paths through their pools: freed with the last of them and given again to a new address, never read as the old pool', () => {
    const calls = { n: 0 };
    const source = market(calls, [1e9, 2e9, 3e9, 1e9, 5e8, 5e8, 2e9, 1e9]);
    const stamps = new PoolStamps(() => source);
    const a = new PathEstimates([PATHS[1]], stamps, 1e6, true); // pools 0, 1
    const b = new PathEstimates([PATHS[2]], stamps, 1e6, true); // pools 0, 1, 2
    expect(stamps.size).toBe(3);
    a.release();
    a.release(); // once only
    expect(stamps.size).toBe(3);
    expect(b.estimate(0)).toBe(fresh(source, 1e6, true)[2]);
    b.release();
    expect(stamps.size).toBe(0);
    // pool 3's path reuses freed ids; its estimate is its own pools', and a change of an old address stales nothing
    const c = new PathEstimates([{ pools: ['pool2', 'pool3'], mints: ['m2', 'm3', 'm4'] }], stamps, 1e6, true);
    expect(stamps.size).toBe(2);
    const want = new PathEstimates([{ pools: ['pool2', 'pool3'], mints: ['m2', 'm3', 'm4'] }], new PoolStamps(() => source), 1e6, true).estimate(0);
    expect(c.estimate(0)).toBe(want);
    calls.n = 0;
    stamps.changed('pool0');
    stamps.changed('pool1');
    expect(c.estimate(0)).toBe(want);
    expect(calls.n).toBe(0);
    stamps.changed('pool3');
    c.estimate(0);
    expect(calls.n).toBe(1);
  });

  it('a path that gives nothing (beyond a pool\'s depth) has no estimate', () => {
    const source = market({ n: 0 }, [1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 1e3]);
    const e = new PathEstimates(PATHS, new PoolStamps(() => source), 1e6, false);
    expect(PATHS.map((_, i) => e.estimate(i))).toEqual([undefined, undefined, undefined, undefined]);
    expect(e.all().slice(0, e.count).every((x) => Number.isNaN(x))).toBe(true);
  });

  it('the shared estimates of no paths hold nothing and read no pool (their source throws when read)', () => {
    expect(NO_PATHS.count).toBe(0);
    expect(() => NO_PATHS.all()).not.toThrow();
    // a tuple gives them back when its first search replaces them: any number of times
    NO_PATHS.release();
    NO_PATHS.release();
    expect(NO_PATHS.all().length).toBe(0);
  });
});
