import { Prng } from './prng';

describe('Prng', () => {
  it('is deterministic for a seed and pinned to known outputs', () => {
    const a = new Prng(1);
    expect([a.nextU32(), a.nextU32(), a.nextU32(), a.nextU32()]).toEqual([2442144158, 3238099751, 3819917871, 2104621829]);
    const x = new Prng(12345);
    const y = new Prng(12345);
    for (let i = 0; i < 1000; i++) expect(x.next()).toBe(y.next());
  });

  it('differs between seeds (including seeds above 2^32 and negative ones)', () => {
    const seq = (seed: number): number[] => {
      const r = new Prng(seed);
      return Array.from({ length: 8 }, () => r.nextU32());
    };
    const seen = new Set([0, 1, 2, 3, 2 ** 32, 2 ** 32 + 1, -1, 2 ** 31 - 1].map((s) => seq(s).join(',')));
    expect(seen.size).toBe(8);
  });

  it('next() is in [0, 1) and roughly uniform', () => {
    const r = new Prng(7);
    let sum = 0;
    for (let i = 0; i < 20000; i++) {
      const v = r.next();
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
      sum += v;
    }
    expect(sum / 20000).toBeGreaterThan(0.48);
    expect(sum / 20000).toBeLessThan(0.52);
  });

  it('int() covers both ends of the range and nothing outside', () => {
    const r = new Prng(9);
    const hits = new Map<number, number>();
    for (let i = 0; i < 5000; i++) {
      const v = r.int(-2, 3);
      hits.set(v, (hits.get(v) ?? 0) + 1);
    }
    expect([...hits.keys()].sort((a, b) => a - b)).toEqual([-2, -1, 0, 1, 2, 3]);
    expect(() => r.int(3, 2)).toThrow(RangeError);
  });

  it('logUniform() stays in range and spreads over the decades', () => {
    const r = new Prng(11);
    const decades = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      const v = r.logUniform(1e-3, 1e3);
      expect(v).toBeGreaterThanOrEqual(1e-3);
      expect(v).toBeLessThan(1e3 * (1 + 1e-12));
      decades.add(Math.floor(Math.log10(v)));
    }
    expect(decades.size).toBe(6);
    expect(() => r.logUniform(0, 1)).toThrow(RangeError);
  });

  it('pick, weighted, chance, bytes and fork are deterministic helpers', () => {
    const a = new Prng(5);
    const b = new Prng(5);
    const items = ['a', 'b', 'c'];
    for (let i = 0; i < 100; i++) {
      expect(a.pick(items)).toBe(b.pick(items));
      expect(a.weighted(items, [1, 0, 3])).toBe(b.weighted(items, [1, 0, 3]));
      expect(a.chance(0.3)).toBe(b.chance(0.3));
    }
    const bytesA = a.bytes(32);
    expect(bytesA.length).toBe(32);
    expect(bytesA.equals(b.bytes(32))).toBe(true);
    expect(a.bytes(7).length).toBe(7);
    b.bytes(7);
    const fa = a.fork();
    const fb = b.fork();
    expect(fa.nextU32()).toBe(fb.nextU32());
    const w = new Prng(1);
    for (let i = 0; i < 200; i++) expect(w.weighted(items, [1, 0, 3])).not.toBe('b');
    expect(() => w.pick([])).toThrow(RangeError);
  });
});
