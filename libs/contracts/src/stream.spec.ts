import fc from 'fast-check';
import { base58Encode } from '@app/solana';
import { decodeQuoteInterest, decodeQuotesChanged, encodeQuoteInterest, encodeQuotesChanged, parseTuple, parseTupleKey, sameQuote, tupleKey, type QuotesChanged } from './stream';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('stream contracts', () => {
  it('validates tuples', () => {
    expect(parseTuple({ in: SOL, out: USDC, amount: '1000', exactIn: true })).toEqual({ in: SOL, out: USDC, amount: '1000', exactIn: true });
    for (const bad of [
      { in: SOL, out: SOL, amount: '1', exactIn: true },
      { in: SOL, out: USDC, amount: '0', exactIn: true },
      { in: SOL, out: USDC, amount: '01', exactIn: true },
      { in: SOL, out: USDC, amount: 5, exactIn: true },
      { in: SOL, out: USDC, amount: '18446744073709551616', exactIn: true },
      { in: 'x', out: USDC, amount: '1', exactIn: true },
      { in: SOL, out: USDC, amount: '1', exactIn: 'yes' },
      null,
      [],
    ]) {
      expect(parseTuple(bad)).toBeNull();
    }
  });

  it('keys differ by amount and mode', () => {
    const a = { in: SOL, out: USDC, amount: '1', exactIn: true };
    expect(tupleKey(a)).not.toEqual(tupleKey({ ...a, amount: '2' }));
    expect(tupleKey(a)).not.toEqual(tupleKey({ ...a, exactIn: false }));
  });

  it('round-trips interest and quotes, and rejects unknown versions', () => {
    const tuple = { in: SOL, out: USDC, amount: '1000', exactIn: true };
    expect(decodeQuoteInterest(encodeQuoteInterest({ op: 'add', instance: 'a', tuple }))).toEqual({ op: 'add', instance: 'a', tuple });
    expect(decodeQuoteInterest(encodeQuoteInterest({ op: 'lease', instance: 'a', keys: [tupleKey(tuple)], ttlMs: 1000 }))).toEqual({
      op: 'lease',
      instance: 'a',
      keys: [tupleKey(tuple)],
      ttlMs: 1000,
    });
    const q = { tuple, amountOut: '5', amountIn: '1000', priceImpactBps: 3, hops: 2, slot: 9 };
    expect(decodeQuotesChanged(encodeQuotesChanged(q))).toEqual(q);
    expect(() => decodeQuotesChanged(Buffer.from(JSON.stringify({ ...q, v: 9 })))).toThrow(/unsupported schema version 9/);
    expect(() => decodeQuoteInterest(Buffer.from(JSON.stringify({ v: 1, op: 'zap', instance: 'a' })))).toThrow(/unknown op/);
    const failed = { tuple, amountOut: '0', amountIn: '0', priceImpactBps: 0, hops: 0, slot: 9, error: 'no route' };
    expect(decodeQuotesChanged(encodeQuotesChanged(failed))).toEqual(failed);
    expect(JSON.parse(encodeQuotesChanged(q).toString())).not.toHaveProperty('error');
  });

  it('decodes against the tuple its key names: shares it when the record carries it, rejects another or a malformed one', () => {
    const tuple = { in: SOL, out: USDC, amount: '1000', exactIn: true };
    const q = { tuple: { ...tuple }, amountOut: '5', amountIn: '1000', priceImpactBps: 3, hops: 2, slot: 9 };
    const decoded = decodeQuotesChanged(encodeQuotesChanged(q), tuple);
    expect(decoded).toEqual(q);
    expect(decoded.tuple).toBe(tuple);
    expect(() => decodeQuotesChanged(encodeQuotesChanged({ ...q, tuple: { ...tuple, amount: '1001' } }), tuple)).toThrow(/its key is not its tuple/);
    expect(() => decodeQuotesChanged(encodeQuotesChanged({ ...q, tuple: { ...tuple, exactIn: false } }), tuple)).toThrow(/its key is not its tuple/);
    const bad = Buffer.from(JSON.stringify({ v: 1, ...q, tuple: { ...tuple, in: 'not a key' } }));
    expect(() => decodeQuotesChanged(bad, tuple)).toThrow(/malformed record: tuple/);
    expect(() => decodeQuotesChanged(Buffer.from(JSON.stringify({ v: 1, ...q, tuple: null })), tuple)).toThrow(/malformed record: tuple/);
    // the other fields are still checked
    expect(() => decodeQuotesChanged(Buffer.from(JSON.stringify({ v: 1, ...q, amountOut: '05' })), tuple)).toThrow(/amounts/);
  });

  describe('leases by key', () => {
    const mint = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => base58Encode(b));
    const tupleArb = fc.record({ in: mint, out: mint, amount: fc.bigInt({ min: 1n, max: (1n << 64n) - 1n }).map(String), exactIn: fc.boolean() }).filter((t) => t.in !== t.out);
    const lease = (o: Record<string, unknown>): Buffer => Buffer.from(JSON.stringify({ v: 2, op: 'lease', instance: 'a', ttlMs: 15_000, ...o }));

    it('parseTupleKey is the inverse of tupleKey, and finds no tuple in a key that names none', () => {
      fc.assert(fc.property(tupleArb, (t) => expect(parseTupleKey(tupleKey(t))).toEqual(t)), { numRuns: 500 });
      const key = tupleKey({ in: SOL, out: USDC, amount: '1000', exactIn: true });
      for (const bad of [
        '',
        key + ':in',
        key.replace(/:in$/, ':both'),
        key.replace(':1000:', ':01000:'),
        key.replace(':1000:', ':18446744073709551616:'),
        key.replace(':1000:', '::'),
        `${SOL}:${SOL}:1000:in`,
        key.replace(SOL, 'not-a-mint'),
        42,
        null,
      ]) {
        expect(parseTupleKey(bad)).toBeNull();
      }
    });

    it('a lease lists keys; each is validated unless the reader knows it already; one bad key rejects the record', () => {
      const a = { in: SOL, out: USDC, amount: '1000', exactIn: true };
      const b = { ...a, exactIn: false };
      const keys = [tupleKey(a), tupleKey(b)];
      expect(decodeQuoteInterest(lease({ keys }))).toEqual({ op: 'lease', instance: 'a', keys, ttlMs: 15_000 });
      expect(() => decodeQuoteInterest(lease({ keys: [...keys, 'SOL:USDC:1:in'] }))).toThrow(/malformed record: key in lease "SOL:USDC:1:in"/);
      expect(() => decodeQuoteInterest(lease({ keys: [tupleKey(a), 7] }))).toThrow(/malformed record: key in lease 7/);
      expect(() => decodeQuoteInterest(lease({ keys: tupleKey(a) }))).toThrow(/malformed record: keys/);
      expect(() => decodeQuoteInterest(lease({ tuples: [a] }))).toThrow(/malformed record: keys/);
      expect(() => decodeQuoteInterest(lease({ keys, ttlMs: 0 }))).toThrow(/malformed record: ttlMs/);
      // what the reader knows is not validated again (it holds only keys it validated), the rest is
      const seen: string[] = [];
      const known = (k: string): boolean => {
        seen.push(k);
        return k === tupleKey(a);
      };
      expect(decodeQuoteInterest(lease({ keys }), known).op).toBe('lease');
      expect(seen).toEqual(keys);
      expect(() => decodeQuoteInterest(lease({ keys: [tupleKey(a), 'x'] }), known)).toThrow(/key in lease "x"/);
    });

    it('a version 1 lease (tuple objects) is read as the same lease by key; a version 3 record is refused', () => {
      const a = { in: SOL, out: USDC, amount: '1000', exactIn: true };
      const v1 = Buffer.from(JSON.stringify({ v: 1, op: 'lease', instance: 'a', tuples: [a], ttlMs: 15_000 }));
      expect(decodeQuoteInterest(v1)).toEqual({ op: 'lease', instance: 'a', keys: [tupleKey(a)], ttlMs: 15_000 });
      const bad = Buffer.from(JSON.stringify({ v: 1, op: 'lease', instance: 'a', tuples: [{ ...a, amount: 1000 }], ttlMs: 15_000 }));
      expect(() => decodeQuoteInterest(bad)).toThrow(/tuple in lease/);
      expect(decodeQuoteInterest(Buffer.from(JSON.stringify({ v: 1, op: 'add', instance: 'a', tuple: a })))).toEqual({ op: 'add', instance: 'a', tuple: a });
      expect(JSON.parse(encodeQuoteInterest({ op: 'add', instance: 'a', tuple: a }).toString()).v).toBe(2);
      expect(() => decodeQuoteInterest(lease({ v: 3, keys: [tupleKey(a)] }))).toThrow(/unsupported schema version 3/);
    });
  });

  it('sameQuote: amountOut, priceImpactBps and hops decide (and amountIn for ExactOut); the slot does not; errors by their text', () => {
    const tuple = { in: SOL, out: USDC, amount: '1000', exactIn: true };
    const q = { tuple, amountOut: '5', amountIn: '1000', priceImpactBps: 3, hops: 2, slot: 9 };
    expect(sameQuote(q, { ...q, slot: 10 })).toBe(true);
    expect(sameQuote(q, { ...q, amountIn: '999' })).toBe(true);
    expect(sameQuote(q, { ...q, amountOut: '6' })).toBe(false);
    expect(sameQuote(q, { ...q, priceImpactBps: 4 })).toBe(false);
    expect(sameQuote(q, { ...q, hops: 1 })).toBe(false);
    const out = { ...q, tuple: { ...tuple, exactIn: false }, amountOut: '1000', amountIn: '7' };
    expect(sameQuote(out, { ...out, slot: 1 })).toBe(true);
    expect(sameQuote(out, { ...out, amountIn: '8' })).toBe(false);
    const failed = { ...q, amountOut: '0', amountIn: '0', error: 'no route' };
    expect(sameQuote(failed, { ...failed, slot: 11 })).toBe(true);
    expect(sameQuote(failed, { ...failed, error: 'insufficient liquidity' })).toBe(false);
    expect(sameQuote(failed, q)).toBe(false);
    expect(sameQuote(q, failed)).toBe(false);
  });

  describe('the quotes-changed record written and read without JSON.stringify / JSON.parse', () => {
    const mint = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => base58Encode(b));
    const amount = fc.bigInt({ min: 1n, max: (1n << 64n) - 1n }).map(String);
    const tupleArb = fc.record({ in: mint, out: mint, amount, exactIn: fc.boolean() }).filter((t) => t.in !== t.out);
    const quoteArb = fc.record(
      {
        tuple: tupleArb,
        amountOut: fc.bigInt({ min: 0n, max: 1n << 80n }).map(String),
        amountIn: fc.bigInt({ min: 0n, max: 1n << 80n }).map(String),
        priceImpactBps: fc.integer({ min: -20_000, max: 20_000 }),
        hops: fc.integer({ min: 0, max: 5 }),
        slot: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        error: fc.option(fc.string({ unit: 'binary' }), { nil: undefined }),
      },
      { requiredKeys: ['tuple', 'amountOut', 'amountIn', 'priceImpactBps', 'hops', 'slot'] },
    );
    const reference = (q: QuotesChanged): Buffer =>
      Buffer.from(JSON.stringify({ v: 1, tuple: q.tuple, amountOut: q.amountOut, amountIn: q.amountIn, priceImpactBps: q.priceImpactBps, hops: q.hops, slot: q.slot, error: q.error }));
    const outcome = (f: () => QuotesChanged): QuotesChanged | string => {
      try {
        return f();
      } catch (e) {
        return `error: ${(e as Error).message}`;
      }
    };

    it('encodes every quote to the bytes JSON.stringify gives', () => {
      fc.assert(fc.property(quoteArb, (q) => expect(encodeQuotesChanged(q).equals(reference(q))).toBe(true)), { numRuns: 2000 });
      // fields that are not plain take the JSON.stringify path: the same bytes
      const tuple = { in: SOL, out: USDC, amount: '1000', exactIn: true };
      for (const odd of [{ amountOut: '1"2' }, { amountIn: 'é' }, { priceImpactBps: 1.5 }, { hops: Number.NaN }, { slot: 2 ** 60 }]) {
        const q = { tuple, amountOut: '5', amountIn: '1000', priceImpactBps: 3, hops: 2, slot: 9, ...odd };
        expect(encodeQuotesChanged(q).equals(reference(q))).toBe(true);
      }
    });

    it('reads a record under its key as the full decode does: the same quote, or the same error, whatever the bytes', () => {
      // one character replaced, inserted or removed anywhere in a record: JSON syntax, digits, signs, the key's own text
      const edit = fc.record({ at: fc.nat(), op: fc.constantFrom('replace', 'insert', 'delete'), ch: fc.constantFrom(...'{}[]":,0123456789-+.e tfnuvx\é'.split('')) });
      fc.assert(
        fc.property(quoteArb, fc.array(edit, { maxLength: 2 }), fc.boolean(), (q, edits, otherKey) => {
          let text = encodeQuotesChanged(q).toString('latin1');
          for (const e of edits) {
            const at = e.at % (text.length + 1);
            text = e.op === 'insert' ? text.slice(0, at) + e.ch + text.slice(at) : e.op === 'replace' ? text.slice(0, at) + e.ch + text.slice(at + 1) : text.slice(0, at) + text.slice(at + 1);
          }
          const value = Buffer.from(text, 'latin1');
          const key = otherKey ? { ...q.tuple, exactIn: !q.tuple.exactIn } : q.tuple;
          // the reference: the full decode of the record on its own, then its tuple compared with the key's
          const full = outcome(() => decodeQuotesChanged(value));
          const keyed = outcome(() => decodeQuotesChanged(value, key));
          if (typeof full === 'string') expect(keyed).toEqual(expect.stringMatching(/^error: /));
          else if (tupleKey(full.tuple) !== tupleKey(key)) expect(keyed).toBe('error: quotes-changed: malformed record: its key is not its tuple');
          else {
            expect(keyed).toEqual(full);
            expect((keyed as QuotesChanged).tuple).toBe(key);
          }
        }),
        { numRuns: 3000 },
      );
      // records in the written form with odd field texts: leading zeros, signs, fractions, exponents, huge numbers, empty
      const digits = fc.stringMatching(/^[0-9]{1,22}$/);
      const text = fc.oneof(digits, fc.constantFrom('', '-0', '-1', '0.5', '1e3', '00', '+1', ' 1', '1 ', 'null', 'true', '"1"', '9007199254740993'));
      fc.assert(
        fc.property(tupleArb, text, text, text, text, text, fc.boolean(), (tuple, amountOut, amountIn, impact, hops, slot, quoted) => {
          const str = (x: string): string => (quoted ? `"${x}"` : x);
          const body = `{"v":1,"tuple":{"in":"${tuple.in}","out":"${tuple.out}","amount":"${tuple.amount}","exactIn":${tuple.exactIn}},"amountOut":${str(amountOut)},"amountIn":"${amountIn}","priceImpactBps":${impact},"hops":${hops},"slot":${slot}}`;
          const value = Buffer.from(body, 'latin1');
          const full = outcome(() => decodeQuotesChanged(value));
          const keyed = outcome(() => decodeQuotesChanged(value, tuple));
          if (typeof full === 'string') expect(keyed).toEqual(expect.stringMatching(/^error: /));
          else expect(keyed).toEqual(full);
        }),
        { numRuns: 3000 },
      );
    });
  });
});
