import { ContractError } from './errors';
import { QUOTES_SERVED_VERSION, decodeQuoteServed, encodeQuoteServed, type QuoteServed } from './quotes-served';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const POOL = '1dyibediRR79xeqjLExcVeBjK5cMtuC4tCD5eEPEoXX';

const record: QuoteServed = {
  quoteId: '3f1c2a9e-0b1d-4c6e-9a51-2f7d8e9a0b1c',
  servedAt: 1_790_000_000_000,
  request: { inputMint: SOL, outputMint: USDC, amount: '1000000000', swapMode: 'ExactIn', slippageBps: 50 },
  response: {
    inputMint: SOL,
    outputMint: USDC,
    amountIn: '1000000000',
    amountOut: '155214127',
    priceImpactBps: 3,
    priceImpactPercent: '0.03',
    priceImpactSeverity: 'none',
    priceImpactWarning: '',
    feeBps: 25,
    routes: [{ poolAddress: POOL, poolType: 'Raydium CPMM', percent: 100, inputMint: SOL, outputMint: USDC }],
    routePath: [SOL, USDC],
    hopCount: 1,
    otherAmountThreshold: '154438056',
    contextSlot: 350000012,
    logPosition: { '0': '1072' },
  },
  slot: 350000012,
  logPosition: { '0': '1072' },
};

const wire = (over: Record<string, unknown>) => Buffer.from(JSON.stringify({ ...JSON.parse(encodeQuoteServed(record).toString()), ...over }));

describe('quotes-served contract', () => {
  it('round-trips, versioned (a plain quote at version 1)', () => {
    const buf = encodeQuoteServed(record);
    expect(JSON.parse(buf.toString()).v).toBe(1);
    expect(decodeQuoteServed(buf)).toEqual(record);
    expect(decodeQuoteServed(buf.toString())).toEqual(record);
  });

  it('a record with route controls, or of a build, is version 2 and round-trips; version 1 may not carry them', () => {
    const built: QuoteServed = {
      ...record,
      request: { ...record.request, controls: { dexes: ['CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C'], onlyDirectRoutes: true, maxAccounts: 30 } },
      kind: 'swap',
      build: { userWallet: record.request.inputMint, fromQuoteId: 'q-1', messageHash: 'aGFzaA==', answer: { amountOut: '1' } },
    };
    const buf = encodeQuoteServed(built);
    expect(JSON.parse(buf.toString()).v).toBe(QUOTES_SERVED_VERSION);
    expect(QUOTES_SERVED_VERSION).toBe(2);
    expect(decodeQuoteServed(buf)).toEqual(built);
    expect(() => decodeQuoteServed(Buffer.from(JSON.stringify({ ...JSON.parse(buf.toString()), v: 1 })))).toThrow(/need schema version 2/);
    expect(() => decodeQuoteServed(Buffer.from(JSON.stringify({ ...JSON.parse(buf.toString()), kind: 'other' })))).toThrow(/kind must be/);
  });

  it('carries the aggregator fee the response includes when there is one (absent: none)', () => {
    const withFee: QuoteServed = { ...record, fee: { bps: 30, routes: 'multi-hop' } };
    const buf = encodeQuoteServed(withFee);
    expect(JSON.parse(buf.toString()).fee).toEqual({ bps: 30, routes: 'multi-hop' });
    expect(decodeQuoteServed(buf)).toEqual(withFee);
    expect('fee' in JSON.parse(encodeQuoteServed(record).toString())).toBe(false);
    expect('fee' in decodeQuoteServed(encodeQuoteServed(record))).toBe(false);
  });

  it('rejects an unknown or missing version loudly', () => {
    expect(() => decodeQuoteServed(wire({ v: 3 }))).toThrow(/unsupported schema version 3/);
    const { v: _v, ...noV } = JSON.parse(encodeQuoteServed(record).toString());
    expect(() => decodeQuoteServed(Buffer.from(JSON.stringify(noV)))).toThrow(/missing schema version/);
  });

  it.each([
    ['not JSON', Buffer.from('{nope')],
    ['bad quote id', wire({ quoteId: 'a b' })],
    ['bad mint', wire({ request: { ...record.request, inputMint: 'xyz' } })],
    ['bad amount', wire({ request: { ...record.request, amount: '0' } })],
    ['bad swapMode', wire({ request: { ...record.request, swapMode: 'exactin' } })],
    ['bad slippage', wire({ request: { ...record.request, slippageBps: 10_001 } })],
    ['no routes', wire({ response: { ...record.response, routes: [] } })],
    ['bad percent', wire({ response: { ...record.response, routes: [{ ...record.response.routes[0], percent: 101 }] } })],
    ['bad severity', wire({ response: { ...record.response, priceImpactSeverity: 'huge' } })],
    ['bad position', wire({ logPosition: { '0': 12 } })],
    ['slot differs', wire({ slot: 1 })],
    ['mints differ', wire({ request: { ...record.request, outputMint: SOL } })],
    ['fee not an object', wire({ fee: 30 })],
    ['fee bps 0', wire({ fee: { bps: 0, routes: 'all' } })],
    ['fee bps over 1000', wire({ fee: { bps: 1001, routes: 'all' } })],
    ['fee routes unknown', wire({ fee: { bps: 30, routes: 'some' } })],
  ])('rejects a malformed record: %s', (_name, buf) => {
    expect(() => decodeQuoteServed(buf)).toThrow(ContractError);
  });
});
