import fc from 'fast-check';
import { base58Encode } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import { ContractError } from './errors';
import { decodePoolUpdate, encodePoolUpdate, type PoolUpdate } from './pool-update';

const sample: PoolUpdate = {
  slot: 123456,
  address: 'FmNz8z2oN4CheHj4EUXVXC6doFN4RRmhGwxFQgrJVJFs',
  owner: 'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C',
  lamports: 18446744073709551615n,
  data: Buffer.from([0, 1, 2, 255, 0]),
  source: 'sim',
};

function wire(patch: Record<string, unknown>): Buffer {
  const base = JSON.parse(encodePoolUpdate(sample).toString());
  return Buffer.from(JSON.stringify({ ...base, ...patch }));
}

describe('pool-updates record', () => {
  it('round-trips every field, including u64 lamports and binary data', () => {
    const back = decodePoolUpdate(encodePoolUpdate(sample));
    expect(back).toEqual(sample);
  });

  it('keeps a closed account (data null)', () => {
    expect(decodePoolUpdate(encodePoolUpdate({ ...sample, data: null })).data).toBeNull();
  });

  it.each([
    [{ v: 2 }, /unsupported schema version 2/],
    [{ v: undefined }, /missing schema version/],
    [{ slot: -1 }, /slot/],
    [{ slot: 1.5 }, /slot/],
    [{ address: 'not-a-key' }, /address/],
    [{ owner: '1111' }, /owner/],
    [{ lamports: 12 }, /lamports/],
    [{ lamports: '18446744073709551616' }, /lamports/],
    [{ lamports: '01' }, /lamports/],
    [{ data: 'abc' }, /data/],
    [{ data: 7 }, /data/],
    [{ data: 'A-AA' }, /data/],
    [{ data: 'AA_A' }, /data/],
    [{ data: 'AA=A' }, /data/],
    [{ data: 'AA==AAAA' }, /data/],
    [{ data: 'A===' }, /data/],
    [{ data: '====' }, /data/],
    [{ data: 'AAA AAA=' }, /data/],
    [{ data: 'AAAAAAA.' }, /data/],
    [{ source: '' }, /source/],
  ])('rejects %j with a clear reason', (patch, reason) => {
    expect(() => decodePoolUpdate(wire(patch))).toThrow(ContractError);
    expect(() => decodePoolUpdate(wire(patch))).toThrow(reason);
  });

  it('accepts every padding form of base64 and decodes it exactly', () => {
    for (const bytes of [[], [1], [1, 2], [1, 2, 3], [255, 254, 253, 252]]) {
      const text = Buffer.from(bytes).toString('base64');
      expect([...decodePoolUpdate(wire({ data: text })).data!]).toEqual(bytes);
    }
  });

  it('rejects a body that is not JSON or not an object', () => {
    expect(() => decodePoolUpdate(Buffer.from('{nope'))).toThrow(/not JSON/);
    expect(() => decodePoolUpdate(Buffer.from('[1]'))).toThrow(/not an object/);
  });
});

/**
 * decodePoolUpdate reads a Buffer in encodePoolUpdate's canonical form without JSON.parse; any
 * other body goes to the general reader (the one a string always goes to). Differential checks:
 * whatever the bytes, a Buffer and the same text as a string give the same record or the same error.
 */
describe('pool-updates record: the canonical fast path agrees with the general reader', () => {
  const outcome = (value: Buffer | string): unknown => {
    try {
      return { record: decodePoolUpdate(value) };
    } catch (e) {
      if (!(e instanceof ContractError)) throw e;
      return { error: e.reason };
    }
  };
  const same = (body: Buffer): void => expect(outcome(body)).toEqual(outcome(body.toString()));

  const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => base58Encode(b));
  const update = fc.record({
    slot: fc.oneof(fc.nat(), fc.constantFrom(0, Number.MAX_SAFE_INTEGER, 999_999_999_999_999, 1_000_000_000_000_000)),
    address: key,
    owner: fc.oneof(key, fc.constantFrom(...Object.values(PROGRAM_IDS))),
    lamports: fc.oneof(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.constantFrom(0n, 999_999_999_999_999n, 10n ** 15n, (1n << 64n) - 1n)),
    data: fc.option(fc.uint8Array({ maxLength: 700 }).map((b) => Buffer.from(b)), { nil: null }),
    source: fc.string({ minLength: 1, maxLength: 64, unit: fc.constantFrom('s', 'i', 'm', ' ', '~', '"', '\\', 'é', '\u0001', 'x') }),
  });

  it('round-trips any record, and decodes it as the general reader does', () => {
    fc.assert(
      fc.property(update, (u) => {
        const body = encodePoolUpdate(u);
        expect(decodePoolUpdate(body)).toEqual(u);
        same(body);
      }),
      { numRuns: 3000 },
    );
  });

  it('any byte changed, any truncation, any insertion: same record or same error as the general reader', () => {
    const bodies = [sample, { ...sample, data: null }, { ...sample, data: Buffer.from([1, 2, 3, 4, 5, 6, 7]) }, { ...sample, lamports: 0n, slot: 0 }].map(encodePoolUpdate);
    const interesting = [...'{}[]",:01239-+.eE =/_\\nulAZaz'].map((c) => c.charCodeAt(0)).concat([0, 0x80, 0xc3, 0xe9, 0xff]);
    for (const body of bodies) {
      for (let i = 0; i <= body.length; i++) {
        same(body.subarray(0, i));
        for (const c of interesting) {
          if (i < body.length) {
            const changed = Buffer.from(body);
            changed[i] = c;
            same(changed);
          }
          same(Buffer.concat([body.subarray(0, i), Buffer.of(c), body.subarray(i)]));
        }
      }
    }
  });

  it('takes the general reader for bodies in another form (whitespace, key order, escapes, number forms)', () => {
    const text = encodePoolUpdate(sample).toString();
    const o = JSON.parse(text);
    const variants = [
      JSON.stringify(o, null, 2),
      ` ${text}`,
      `${text}\n`,
      JSON.stringify({ source: o.source, ...o }),
      text.replace('"sim"', '"\\u0073im"'),
      text.replace('"slot":123456', '"slot":1.23456e5'),
      text.replace('"slot":123456', '"slot":123456.0'),
      text.replace(`"address":"${sample.address}"`, `"address":"\\u0046${sample.address.slice(1)}"`),
      text.replace('"data":"AAEC/wA="', '"data":"AAEC\\/wA="'),
      text.replace('"lamports":"18446744073709551615"', '"lamports":"18446744073709551616"'),
      text.replace('"lamports":"18446744073709551615"', '"lamports":"0018"'),
      text.replace('"source":"sim"', '"source":""'),
      text.replace('"source":"sim"', `"source":"${'x'.repeat(65)}"`),
      text.replace('"source":"sim"', '"source":"sim","extra":1'),
    ];
    for (const v of variants) same(Buffer.from(v));
    // the forms the JSON grammar accepts decode to the same record
    for (const v of variants.slice(0, 9)) expect(decodePoolUpdate(Buffer.from(v))).toEqual(sample);
  });
});
