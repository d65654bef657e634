import fc from 'fast-check';
import { epochOfSlot, transferFee, transferFeeInverse } from './transfer-fee';

describe('Token-2022 transfer fee arithmetic', () => {
  it('fee = min(ceil(x * bps / 10000), max); 0 for 0 bps or 0 amount', () => {
    const f = { bps: 100, maximumFee: 50n };
    expect(transferFee(f, 1n)).toBe(1n); // ceil(0.01)
    expect(transferFee(f, 100n)).toBe(1n);
    expect(transferFee(f, 101n)).toBe(2n);
    expect(transferFee(f, 1_000_000n)).toBe(50n); // capped
    expect(transferFee(f, 0n)).toBe(0n);
    expect(transferFee({ bps: 0, maximumFee: 50n }, 1000n)).toBe(0n);
    expect(transferFee(null, 1000n)).toBe(0n);
  });

  it('inverse fee: 10000 bps is always the maximum; capped at the maximum', () => {
    expect(transferFeeInverse({ bps: 10_000, maximumFee: 7n }, 1000n)).toBe(7n);
    expect(transferFeeInverse({ bps: 100, maximumFee: 50n }, 99n)).toBe(1n); // pre = ceil(9900/9900) .. 100 -> fee 1
    expect(transferFeeInverse({ bps: 100, maximumFee: 50n }, 10_000_000n)).toBe(50n);
  });

  it('sending post + inverse(post) delivers at least post (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.bigInt({ min: 1n, max: 10n ** 18n }), (bps, max, post) => {
        const f = { bps, maximumFee: max };
        const gross = post + transferFeeInverse(f, post);
        expect(gross - transferFee(f, gross)).toBeGreaterThanOrEqual(post);
      }),
    );
  });

  it('epoch of a slot: 432,000 slots per epoch', () => {
    expect(epochOfSlot(0)).toBe(0n);
    expect(epochOfSlot(431_999)).toBe(0n);
    expect(epochOfSlot(432_000)).toBe(1n);
    expect(epochOfSlot(160_156_384)).toBe(370n);
  });
});
