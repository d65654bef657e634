import fc from 'fast-check';
import { MINTS } from '@app/solana';
import { tupleKey, type QuoteTuple } from '@app/contracts';
import { InterestRegistry, MAX_INTEREST_TTL_MS } from './interest-registry';

const t = (amount: string): QuoteTuple => ({ in: MINTS.SOL, out: MINTS.USDC, amount, exactIn: true });

describe('InterestRegistry', () => {
  it('a tuple is added once, joined by other instances, removed with its last holder', () => {
    const r = new InterestRegistry(15_000);
    expect(r.apply({ op: 'add', instance: 'a', tuple: t('1') }, 1000)).toEqual({ added: [t('1')], removed: [], joined: [] });
    expect(r.apply({ op: 'add', instance: 'b', tuple: t('1') }, 1001)).toEqual({ added: [], removed: [], joined: [t('1')] });
    expect(r.apply({ op: 'add', instance: 'a', tuple: t('1') }, 1002)).toEqual({ added: [], removed: [], joined: [] });
    expect(r.apply({ op: 'remove', instance: 'a', tuple: t('1') }, 1003).removed).toEqual([]);
    expect(r.apply({ op: 'remove', instance: 'b', tuple: t('1') }, 1004).removed).toEqual([t('1')]);
    expect(r.size).toBe(0);
  });

  it('holdings expire unless leased; leases add up over several records and never remove', () => {
    const r = new InterestRegistry(15_000);
    r.apply({ op: 'add', instance: 'a', tuple: t('1') }, 0);
    r.apply({ op: 'add', instance: 'a', tuple: t('2') }, 0);
    // a lease split in two records, the first one older (read out of order)
    r.apply({ op: 'lease', instance: 'a', keys: [tupleKey(t('2'))], ttlMs: 15_000 }, 10_000);
    r.apply({ op: 'lease', instance: 'a', keys: [tupleKey(t('3'))], ttlMs: 15_000 }, 5_000);
    expect(r.has(tupleKey(t('1')))).toBe(true); // a lease that does not list it does not remove it
    expect(r.expire(16_000)).toEqual([t('1')]);
    expect(r.expire(20_001)).toEqual([t('3')]);
    expect(r.tuples()).toEqual([t('2')]);
    expect(r.expire(25_001)).toEqual([t('2')]);
  });

  it('a dead instance does not keep a tuple another instance still leases', () => {
    const r = new InterestRegistry(15_000);
    r.apply({ op: 'lease', instance: 'dead', keys: [tupleKey(t('1'))], ttlMs: 15_000 }, 0);
    r.apply({ op: 'lease', instance: 'live', keys: [tupleKey(t('1'))], ttlMs: 15_000 }, 10_000);
    expect(r.expire(20_000)).toEqual([]);
    expect(r.has(tupleKey(t('1')))).toBe(true);
    expect(r.expire(25_001)).toEqual([t('1')]);
  });

  it('a lease of keys not held yet adds their tuples (a router that starts after the add), once', () => {
    const r = new InterestRegistry(15_000);
    const other = { ...t('7'), exactIn: false };
    expect(r.apply({ op: 'lease', instance: 'a', keys: [tupleKey(t('5')), tupleKey(other)], ttlMs: 15_000 }, 0)).toEqual({ added: [t('5'), other], removed: [], joined: [] });
    expect(r.apply({ op: 'lease', instance: 'a', keys: [tupleKey(t('5'))], ttlMs: 15_000 }, 5_000)).toEqual({ added: [], removed: [], joined: [] });
    expect(r.apply({ op: 'lease', instance: 'b', keys: [tupleKey(t('5'))], ttlMs: 15_000 }, 5_000)).toEqual({ added: [], removed: [], joined: [t('5')] });
    expect(r.expire(15_001)).toEqual([other]);
    expect(r.tuples()).toEqual([t('5')]);
  });

  it('a lease key that names no tuple is refused, not guessed', () => {
    const r = new InterestRegistry(15_000);
    expect(() => r.apply({ op: 'lease', instance: 'a', keys: ['not:a:tuple'], ttlMs: 15_000 }, 0)).toThrow(/names no tuple/);
  });

  it('a lease never holds longer than MAX_INTEREST_TTL_MS (what a restarting router reads back)', () => {
    const r = new InterestRegistry(15_000);
    r.apply({ op: 'lease', instance: 'a', keys: [tupleKey(t('1'))], ttlMs: 3_600_000 }, 0);
    expect(r.expire(MAX_INTEREST_TTL_MS)).toEqual([]);
    expect(r.expire(MAX_INTEREST_TTL_MS + 1)).toEqual([t('1')]);
  });

  it('a holder that let go of the first place and holds again is counted once', () => {
    const r = new InterestRegistry(15_000);
    r.apply({ op: 'add', instance: 'a', tuple: t('1') }, 0);
    r.apply({ op: 'add', instance: 'b', tuple: t('1') }, 0);
    r.apply({ op: 'remove', instance: 'a', tuple: t('1') }, 1);
    // b renews its holding while the first holder's place is free
    expect(r.apply({ op: 'add', instance: 'b', tuple: t('1') }, 2)).toEqual({ added: [], removed: [], joined: [] });
    expect(r.apply({ op: 'remove', instance: 'b', tuple: t('1') }, 3).removed).toEqual([t('1')]);
    expect(r.size).toBe(0);
  });

  it('agrees with a plain model (a map of holders per tuple) over any sequence of records and expiries', () => {
    // `dt`: the time since the previous record or expiry (the log's append times move forwards)
    type Op = { kind: 'add' | 'remove' | 'lease'; instance: string; amounts: string[]; dt: number; ttl: number } | { kind: 'expire'; dt: number };
    const instance = fc.constantFrom('a', 'b');
    const amounts = fc.uniqueArray(fc.constantFrom('1', '2'), { minLength: 1, maxLength: 2 });
    // expiries are rarer than records, so holdings live long enough to be shared, let go and taken again
    const op: fc.Arbitrary<Op> = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constantFrom('add' as const, 'remove' as const, 'lease' as const), instance, amounts, dt: fc.integer({ min: 0, max: 8 }), ttl: fc.integer({ min: 1, max: 60 }) }), weight: 6 },
      { arbitrary: fc.record({ kind: fc.constant('expire' as const), dt: fc.integer({ min: 0, max: 8 }) }), weight: 1 },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const r = new InterestRegistry(20);
        const model = new Map<string, Map<string, number>>();
        const sorted = (ts: QuoteTuple[]): string[] => ts.map(tupleKey).sort();
        let now = 0;
        for (const o of ops) {
          now += o.dt;
          const at = now;
          if (o.kind === 'expire') {
            const gone: string[] = [];
            for (const [key, holders] of model) {
              for (const [i, until] of holders) if (until < at) holders.delete(i);
              if (holders.size === 0) {
                model.delete(key);
                gone.push(key);
              }
            }
            expect(sorted(r.expire(at))).toEqual(gone.sort());
            continue;
          }
          const want = { added: [] as string[], removed: [] as string[], joined: [] as string[] };
          let got;
          if (o.kind === 'lease') {
            const keys = o.amounts.map((a) => tupleKey(t(a)));
            got = r.apply({ op: 'lease', instance: o.instance, keys, ttlMs: o.ttl }, at);
          } else {
            got = { added: [] as QuoteTuple[], removed: [] as QuoteTuple[], joined: [] as QuoteTuple[] };
            for (const a of o.amounts) r.apply({ op: o.kind, instance: o.instance, tuple: t(a) }, at, got);
          }
          for (const a of o.amounts) {
            const key = tupleKey(t(a));
            const holders = model.get(key);
            if (o.kind === 'remove') {
              if (holders?.delete(o.instance) && holders.size === 0) {
                model.delete(key);
                want.removed.push(key);
              }
              continue;
            }
            const until = at + (o.kind === 'lease' ? Math.min(o.ttl, MAX_INTEREST_TTL_MS) : 20);
            if (holders === undefined) {
              model.set(key, new Map([[o.instance, until]]));
              want.added.push(key);
              continue;
            }
            const prev = holders.get(o.instance);
            if (prev === undefined) want.joined.push(key);
            if (until > (prev ?? 0)) holders.set(o.instance, until);
          }
          expect({ added: sorted(got.added), removed: sorted(got.removed), joined: sorted(got.joined) }).toEqual({ added: want.added.sort(), removed: want.removed.sort(), joined: want.joined.sort() });
          expect(sorted(r.tuples())).toEqual([...model.keys()].sort());
        }
      }),
      { numRuns: 1000 },
    );
  });
});
