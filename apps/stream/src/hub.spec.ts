import fc from 'fast-check';
import { quoteMessage, quoteText, StreamHub, type StreamConnection } from './hub';
import type { QuotesChanged } from '@app/contracts';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';

class FakeConn implements StreamConnection {
  static n = 0;
  readonly id = FakeConn.n++;
  sent: any[] = [];
  /** what send() was given, as given */
  raw: Array<object | string> = [];
  open = true;
  send(m: object | string): boolean {
    if (!this.open) return false;
    this.raw.push(m);
    this.sent.push(typeof m === 'string' ? JSON.parse(m) : m);
    return true;
  }
}

const pair = (amount = '1000', exactIn = true) => ({ in: SOL, out: USDC, amount, exactIn });
const quote = (amountOut: string, over: Partial<QuotesChanged> = {}): QuotesChanged => ({
  tuple: pair(),
  amountOut,
  amountIn: '1000',
  priceImpactBps: 1,
  hops: 1,
  slot: 5,
  ...over,
});

describe('StreamHub', () => {
  let interest: Array<[string, string]>;
  let hub: StreamHub;
  beforeEach(() => {
    interest = [];
    hub = new StreamHub((op, t) => interest.push([op, t.amount]), 3);
  });

  it('counts only valid, new pairs and announces interest once per tuple', () => {
    const a = new FakeConn();
    const b = new FakeConn();
    hub.connect(a);
    hub.connect(b);
    expect(hub.subscribe(a, [pair(), pair(), { in: SOL }, pair('2000')]).count).toBe(2);
    expect(hub.subscribe(b, [pair()]).count).toBe(1);
    expect(interest).toEqual([
      ['add', '1000'],
      ['add', '2000'],
    ]);
  });

  it('pushes a changed quote, suppresses an identical one, per connection', () => {
    const a = new FakeConn();
    hub.connect(a);
    hub.subscribe(a, [pair()]);
    hub.onQuote(quote('10'));
    hub.onQuote(quote('10', { slot: 6 }));
    hub.onQuote(quote('11', { slot: 7 }));
    hub.onQuote(quote('11', { priceImpactBps: 2, slot: 8 }));
    expect(a.sent.map((m) => [m.type, m.amountOut, m.slot])).toEqual([
      ['quote', '10', 5],
      ['quote', '11', 7],
      ['quote', '11', 8],
    ]);
  });

  it('gives a late subscriber the cached quote at once', () => {
    const a = new FakeConn();
    const b = new FakeConn();
    hub.connect(a);
    hub.connect(b);
    hub.subscribe(a, [pair()]);
    hub.onQuote(quote('10'));
    hub.subscribe(b, [pair()]);
    expect(b.sent).toEqual([expect.objectContaining({ type: 'quote', amountOut: '10' })]);
    hub.onQuote(quote('10', { slot: 9 }));
    expect(a.sent).toHaveLength(1);
    expect(b.sent).toHaveLength(1);
  });

  it('serializes a quote once for all the connections that hold its tuple', () => {
    const conns = [new FakeConn(), new FakeConn(), new FakeConn()];
    for (const c of conns) {
      hub.connect(c);
      hub.subscribe(c, [pair()]);
    }
    hub.onQuote(quote('10'));
    const texts = conns.map((c) => c.raw[0]);
    expect(typeof texts[0]).toBe('string');
    // the same string instance, not three equal serializations
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
    expect(JSON.parse(texts[0] as string)).toEqual({ type: 'quote', ...pair(), amountIn: '1000', amountOut: '10', priceImpactBps: 1, hops: 1, slot: 5 });
    // a later subscriber gets the cached quote's text too
    const late = new FakeConn();
    hub.connect(late);
    hub.subscribe(late, [pair()]);
    expect(late.raw[0]).toBe(texts[0]);
    // a new quote is a new text
    hub.onQuote(quote('11', { slot: 6 }));
    expect(conns[0].raw[1]).not.toBe(texts[0]);
    expect(conns[0].sent[1]).toMatchObject({ amountOut: '11', slot: 6 });
  });

  it('enforces the per-connection limit with an error', () => {
    const a = new FakeConn();
    hub.connect(a);
    const r = hub.subscribe(a, ['1', '2', '3', '4', '5'].map((x) => pair(x)));
    expect(r.count).toBe(3);
    expect(r.errors[0]).toMatch(/at most 3 pairs per connection; 2 pair\(s\) rejected/);
  });

  it('counts each distinct rejected pair once: duplicates over the limit are skipped, not counted', () => {
    const a = new FakeConn();
    hub.connect(a);
    // crossing the limit within one frame: '4' twice and '5' are over it
    const r = hub.subscribe(a, ['1', '2', '3', '4', '4', '5', '1'].map((x) => pair(x)));
    expect(r).toEqual({ count: 3, errors: [expect.stringMatching(/; 2 pair\(s\) rejected$/)], overRoom: 0 });
    // at the limit: a new pair repeated, plus pairs already held and an invalid one
    const again = hub.subscribe(a, [pair('9'), pair('9'), pair('1'), pair('9', false), { in: SOL }, pair('2')]);
    expect(again).toEqual({ count: 0, errors: [expect.stringMatching(/; 2 pair\(s\) rejected$/)], overRoom: 0 });
    // only duplicates of held pairs: nothing is rejected
    expect(hub.subscribe(a, [pair('1'), pair('3')])).toEqual({ count: 0, errors: [], overRoom: 0 });
  });

  it('accepts at most `room` new pairs and counts the distinct ones refused for it', () => {
    const a = new FakeConn();
    hub.connect(a);
    expect(hub.subscribe(a, ['1', '2', '2', '3'].map((x) => pair(x)), 1)).toEqual({ count: 1, errors: [], overRoom: 2 });
    expect(hub.stats().subscriptions).toBe(1);
  });

  it('withdraws interest when the last subscriber leaves or disconnects', () => {
    const a = new FakeConn();
    const b = new FakeConn();
    hub.connect(a);
    hub.connect(b);
    hub.subscribe(a, [pair()]);
    hub.subscribe(b, [pair(), { in: USDC, out: USDT, amount: '5', exactIn: false }]);
    expect(hub.unsubscribe(a, [pair(), pair('999')])).toBe(1);
    hub.disconnect(b);
    expect(interest.filter(([op]) => op === 'remove')).toHaveLength(2);
    expect(hub.stats()).toEqual({ connections: 1, tuples: 0, subscriptions: 0 });
  });

  it('drops a connection whose send fails (slow reader) and nothing else', () => {
    const a = new FakeConn();
    const b = new FakeConn();
    hub.connect(a);
    hub.connect(b);
    hub.subscribe(a, [pair()]);
    hub.subscribe(b, [pair()]);
    a.open = false;
    hub.onQuote(quote('10'));
    expect(b.sent).toHaveLength(1);
    expect(hub.stats().connections).toBe(1);
  });

  it('a connection dropped by its first cached quote holds nothing afterwards (no leaked interest)', () => {
    const a = new FakeConn();
    const b = new FakeConn();
    hub.connect(a);
    hub.connect(b);
    hub.subscribe(a, [pair('1'), pair('2')]);
    hub.onQuote(quote('10', { tuple: pair('1') }));
    b.open = false; // its queue is full: the first cached quote fails
    hub.subscribe(b, [pair('1'), pair('3'), pair('4')]);
    expect(hub.stats()).toEqual({ connections: 1, tuples: 2, subscriptions: 2 });
    expect(interest.filter(([op]) => op === 'add').map(([, amount]) => amount)).toEqual(['1', '2']);
    hub.disconnect(a);
    expect(hub.stats()).toEqual({ connections: 0, tuples: 0, subscriptions: 0 });
  });

  it('identical means same amountOut, priceImpactBps and hops (and amountIn for ExactOut)', () => {
    const a = new FakeConn();
    hub.connect(a);
    hub.subscribe(a, [pair('1000', true), pair('1000', false)]);
    // ExactIn: an input a unit short (a budget-style hop keeps it back) is not a change
    hub.onQuote(quote('10', { amountIn: '1000' }));
    hub.onQuote(quote('10', { amountIn: '999', slot: 6 }));
    // ExactOut: the input is the number that moves
    const out = (amountIn: string, slot: number) => quote('1000', { tuple: pair('1000', false), amountIn, slot });
    hub.onQuote(out('7', 5));
    hub.onQuote(out('7', 6));
    hub.onQuote(out('8', 7));
    expect(a.sent.map((m) => [m.exactIn, m.amountIn, m.slot])).toEqual([
      [true, '1000', 5],
      [false, '7', 5],
      [false, '8', 7],
    ]);
  });
});

describe('quoteText', () => {
  it('agrees with a plain model of who holds what over any sequence of subscribes, leaves and quotes', () => {
    type Op = { kind: 'subscribe' | 'unsubscribe'; conn: number; amount: string } | { kind: 'disconnect' | 'connect'; conn: number } | { kind: 'quote'; amount: string; out: number };
    const conn = fc.integer({ min: 0, max: 2 });
    const amount = fc.constantFrom('1', '2');
    const op: fc.Arbitrary<Op> = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constantFrom('subscribe' as const, 'unsubscribe' as const), conn, amount }), weight: 4 },
      { arbitrary: fc.record({ kind: fc.constantFrom('disconnect' as const, 'connect' as const), conn }), weight: 1 },
      { arbitrary: fc.record({ kind: fc.constant('quote' as const), amount, out: fc.integer({ min: 1, max: 3 }) }), weight: 2 },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 50 }), (ops) => {
        const events: string[] = [];
        const h = new StreamHub((o, t) => events.push(`${o}:${t.amount}`), 256);
        const conns = [0, 1, 2].map(() => new FakeConn());
        const connected = new Set<number>();
        // the model: per connection, the amounts it holds
        const holds = new Map<number, Set<string>>();
        const holders = (a: string): number[] => [...holds].filter(([, set]) => set.has(a)).map(([c]) => c);
        for (const o of ops) {
          const want: string[] = [];
          if (o.kind === 'connect') {
            if (connected.has(o.conn)) continue;
            conns[o.conn] = new FakeConn();
            h.connect(conns[o.conn]);
            connected.add(o.conn);
            holds.set(o.conn, new Set());
          } else if (o.kind === 'disconnect') {
            if (!connected.has(o.conn)) continue;
            h.disconnect(conns[o.conn]);
            connected.delete(o.conn);
            const had = [...holds.get(o.conn)!];
            holds.delete(o.conn);
            for (const a of had) if (holders(a).length === 0) want.push(`remove:${a}`);
          } else if (o.kind === 'subscribe') {
            if (!connected.has(o.conn)) continue;
            const first = holders(o.amount).length === 0;
            const fresh = !holds.get(o.conn)!.has(o.amount);
            expect(h.subscribe(conns[o.conn], [pair(o.amount)]).count).toBe(fresh ? 1 : 0);
            holds.get(o.conn)!.add(o.amount);
            if (first) want.push(`add:${o.amount}`);
          } else if (o.kind === 'unsubscribe') {
            if (!connected.has(o.conn)) continue;
            const had = holds.get(o.conn)!.delete(o.amount);
            expect(h.unsubscribe(conns[o.conn], [pair(o.amount)])).toBe(had ? 1 : 0);
            if (had && holders(o.amount).length === 0) want.push(`remove:${o.amount}`);
          } else if (o.kind === 'quote') {
            const before = conns.map((c) => c.sent.length);
            h.onQuote(quote(String(o.out), { tuple: pair(o.amount) }));
            // every holder has this quote as the last one of its tuple it was sent (an identical
            // re-quote is not sent again); no one else was sent anything
            for (let c = 0; c < 3; c++) {
              const lastOfTuple = (): unknown => conns[c].sent.filter((m: { amount?: string }) => m.amount === o.amount).at(-1);
              if (connected.has(c) && holds.get(c)!.has(o.amount)) expect(lastOfTuple()).toMatchObject({ amount: o.amount, amountOut: String(o.out) });
              else expect(conns[c].sent.length).toBe(before[c]);
            }
          }
          expect(events.splice(0)).toEqual(want);
        }
        expect(h.stats().tuples).toBe(new Set([...holds.values()].flatMap((set) => [...set])).size);
      }),
      { numRuns: 1000 },
    );
  });

  it('is the text JSON.stringify gives of the quote message, for any quote', () => {
    const plain = fc.stringMatching(/^[0-9A-Za-z]{1,44}$/);
    const field = fc.oneof(plain, fc.string({ unit: 'binary' }));
    const num = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(Number.NaN, Infinity, -0, 2 ** 60));
    const quoteArb = fc.record(
      {
        tuple: fc.record({ in: field, out: field, amount: field, exactIn: fc.boolean() }),
        amountOut: field,
        amountIn: field,
        priceImpactBps: num,
        hops: num,
        slot: num,
        error: fc.option(fc.string({ unit: 'binary' }), { nil: undefined }),
      },
      { requiredKeys: ['tuple', 'amountOut', 'amountIn', 'priceImpactBps', 'hops', 'slot'] },
    );
    fc.assert(fc.property(quoteArb, (q) => expect(quoteText(q)).toBe(JSON.stringify(quoteMessage(q)))), { numRuns: 3000 });
    // the common case: every field plain
    const q = quote('123456789');
    expect(quoteText(q)).toBe(JSON.stringify(quoteMessage(q)));
  });
});
