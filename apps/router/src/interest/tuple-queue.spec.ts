import fc from 'fast-check';
import { TupleQueue, type Queueable } from './tuple-queue';

interface Item extends Queueable {
  id: number;
}

const items = (n: number): Item[] => Array.from({ length: n }, (_, id) => ({ id, pos: [-1, -1] }));
const ids = (q: TupleQueue<Item>): number[] => [...q].map((x) => x.id);

type Op = { op: 'add' | 'delete'; i: number } | { op: 'take' };

describe('TupleQueue', () => {
  it('keeps insertion order; add of a member is a no-op; delete then add puts it at the end', () => {
    const [a, b, c] = items(3);
    const q = new TupleQueue<Item>(0);
    q.add(a);
    q.add(b);
    q.add(c);
    q.add(a);
    expect(ids(q)).toEqual([0, 1, 2]);
    expect(q.delete(a)).toBe(true);
    expect(q.delete(a)).toBe(false);
    q.add(a);
    expect(ids(q)).toEqual([1, 2, 0]);
    expect(q.size).toBe(3);
    expect(q.has(b)).toBe(true);
  });

  it('an item may be in two queues at once, each with its own slot', () => {
    const [a, b] = items(2);
    const q0 = new TupleQueue<Item>(0);
    const q1 = new TupleQueue<Item>(1);
    q0.add(a);
    q1.add(b);
    q1.add(a);
    q0.delete(a);
    expect(q0.has(a)).toBe(false);
    expect(q1.has(a)).toBe(true);
    expect(ids(q1)).toEqual([1, 0]);
  });

  it('behaves as a Set when each item taken from a live iteration is deleted (how a window runs off its replays and checks)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant<'add'>('add'), i: fc.nat(40) }),
            fc.record({ op: fc.constant<'delete'>('delete'), i: fc.nat(40) }),
            fc.constant<Op>({ op: 'take' }),
          ),
          { maxLength: 600 },
        ),
        (ops: Op[]) => {
          const pool = items(41);
          const q = new TupleQueue<Item>(1);
          const model = new Set<number>();
          // one live iteration of each, taken from between the other operations
          let it = q.values();
          let modelIt = model.values();
          for (const o of ops) {
            if (o.op === 'add') {
              q.add(pool[o.i]);
              model.add(o.i);
            } else if (o.op === 'delete') {
              expect(q.delete(pool[o.i])).toBe(model.delete(o.i));
            } else {
              const got = it.next();
              const want = modelIt.next();
              expect(got.done).toBe(want.done);
              if (got.done) {
                // both exhausted: start new iterations (as the next flush does)
                it = q.values();
                modelIt = model.values();
                continue;
              }
              expect(got.value.id).toBe(want.value);
              q.delete(got.value);
              model.delete(want.value as number);
            }
            expect(q.size).toBe(model.size);
            for (let i = 0; i < pool.length; i++) expect(q.has(pool[i])).toBe(model.has(i));
          }
          expect(ids(q)).toEqual([...model]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a live iteration that does not delete (prewarm) sees every member, never a deleted one, even when entries move', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(200)), { maxLength: 400 }), (ops) => {
        const pool = items(201);
        const q = new TupleQueue<Item>(0);
        for (let i = 0; i < 100; i++) q.add(pool[i]);
        const it = q.values();
        const seen = new Set<number>();
        for (const [add, i] of ops) {
          if (add) q.add(pool[i]);
          else q.delete(pool[i]);
          const r = it.next();
          if (r.done) break;
          expect(q.has(r.value)).toBe(true);
          seen.add(r.value.id);
        }
        for (let r = it.next(); !r.done; r = it.next()) {
          expect(q.has(r.value)).toBe(true);
          seen.add(r.value.id);
        }
        // every item still a member at the end was yielded (it was present when the iteration passed, or added later)
        for (const x of q) expect(seen.has(x.id)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('reuses its entries: a queue filled and emptied many times does not grow', () => {
    const pool = items(3000);
    const q = new TupleQueue<Item>(0);
    for (let round = 0; round < 20; round++) {
      for (const x of pool) q.add(x);
      for (const x of q) q.delete(x);
      expect(q.size).toBe(0);
    }
    expect((q as unknown as { entries: unknown[] }).entries.length).toBe(3000);
    // churn while never empty: compaction keeps the entries near the live count
    const keep = pool[0];
    q.add(keep);
    for (let round = 0; round < 50; round++) {
      for (let i = 1; i < 1000; i++) q.add(pool[i]);
      for (let i = 1; i < 1000; i++) q.delete(pool[i]);
    }
    expect(ids(q)).toEqual([0]);
    expect((q as unknown as { entries: unknown[] }).entries.length).toBeLessThanOrEqual(3000);
  });
});
