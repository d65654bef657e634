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
