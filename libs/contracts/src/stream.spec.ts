import { decodeQuoteInterest, decodeQuotesChanged, encodeQuoteInterest, encodeQuotesChanged, parseTuple, sameQuote, tupleKey } from './stream';

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
    expect(decodeQuoteInterest(encodeQuoteInterest({ op: 'lease', instance: 'a', tuples: [tuple], ttlMs: 1000 }))).toEqual({
      op: 'lease',
      instance: 'a',
      tuples: [tuple],
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
});
