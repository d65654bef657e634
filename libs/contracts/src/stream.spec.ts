import { decodeQuoteInterest, decodeQuotesChanged, encodeQuoteInterest, encodeQuotesChanged, parseTuple, tupleKey } from './stream';

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
  });
});
