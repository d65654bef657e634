import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { readU64 } from './bytes';

describe('readU64', () => {
  it('equals Buffer.readBigUInt64LE for any bytes at any offset', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 8, maxLength: 24 }), fc.nat({ max: 16 }), (bytes, at) => {
        const buf = Buffer.from(bytes);
        const o = at % (buf.length - 7);
        expect(readU64(buf, o)).toBe(buf.readBigUInt64LE(o));
      }),
      { numRuns: 5000 },
    );
  });

  it('is exact on both sides of 2^53 and at the ends of the range', () => {
    const buf = Buffer.alloc(8);
    for (const v of [0n, 1n, (1n << 32n) - 1n, 1n << 32n, (1n << 53n) - 1n, 1n << 53n, (1n << 53n) + 1n, (1n << 63n) + 12345n, (1n << 64n) - 1n]) {
      buf.writeBigUInt64LE(v);
      expect(readU64(buf, 0)).toBe(v);
    }
    for (let i = 0; i < 1000; i++) {
      const r = randomBytes(8);
      expect(readU64(r, 0)).toBe(r.readBigUInt64LE(0));
    }
  });

  it('throws as readBigUInt64LE does outside the buffer or at a non-integer offset', () => {
    const buf = Buffer.alloc(16);
    const message = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    for (const o of [-1, 9, 16, 1.5, NaN]) {
      const expected = message(() => buf.readBigUInt64LE(o));
      expect(expected).not.toBe('no error');
      expect(message(() => readU64(buf, o))).toBe(expected);
    }
  });
});
