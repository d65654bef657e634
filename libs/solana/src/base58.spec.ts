import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { PublicKey } from '@solana/web3.js';
import { base58Decode, base58Encode, isPublicKey, readPubkey, writePubkey } from './base58';
import { MINTS, PROGRAM_IDS } from './programs';

describe('base58', () => {
  it('matches web3.js for known keys and random 32-byte keys', () => {
    for (const key of [...Object.values(PROGRAM_IDS), ...Object.values(MINTS)]) {
      expect(base58Encode(new PublicKey(key).toBytes())).toBe(key);
      expect(Buffer.from(base58Decode(key)!).equals(new PublicKey(key).toBuffer())).toBe(true);
    }
    for (let i = 0; i < 200; i++) {
      const bytes = randomBytes(32);
      if (i % 10 === 0) bytes.fill(0, 0, i % 7); // leading zeros
      const text = base58Encode(bytes);
      expect(text).toBe(new PublicKey(bytes).toBase58());
      expect(Buffer.from(base58Decode(text)!).equals(bytes)).toBe(true);
    }
  });

  it('handles empty input, leading zeros and invalid characters', () => {
    expect(base58Encode(new Uint8Array(0))).toBe('');
    expect(base58Decode('')).toEqual(new Uint8Array(0));
    expect(base58Encode(new Uint8Array(32))).toBe('11111111111111111111111111111111');
    expect(base58Decode('0OIl')).toBeNull();
    expect(base58Decode('ab\u00e9')).toBeNull();
  });

  it('isPublicKey accepts exactly 32-byte keys', () => {
    expect(isPublicKey(PROGRAM_IDS.raydiumCpmm)).toBe(true);
    expect(isPublicKey('11111111111111111111111111111111')).toBe(true);
    expect(isPublicKey('111')).toBe(false);
    expect(isPublicKey(42)).toBe(false);
    expect(isPublicKey(base58Encode(Buffer.alloc(31, 255)))).toBe(false);
    expect(isPublicKey(base58Encode(Buffer.alloc(33, 255)))).toBe(false);
  });

  it('readPubkey / writePubkey round-trip at an offset', () => {
    const buf = new Uint8Array(40);
    writePubkey(buf, 5, MINTS.USDC);
    expect(readPubkey(buf, 5)).toBe(MINTS.USDC);
    expect(() => writePubkey(buf, 0, 'not-a-key')).toThrow(/invalid public key/);
  });
});

describe('base58Encode over any length', () => {
  it('matches the byte-by-digit definition for random inputs of 0 to 80 bytes, leading zeros included', () => {
    fc.assert(
      fc.property(fc.nat({ max: 8 }), fc.uint8Array({ minLength: 0, maxLength: 72 }), (zeros, tail) => {
        const bytes = Uint8Array.from([...new Array(zeros).fill(0), ...tail]);
        expect(base58Encode(bytes)).toBe(referenceEncode(bytes));
        expect(Buffer.from(base58Decode(base58Encode(bytes))!).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('encodes the largest 32-byte value and single bytes', () => {
    const max = new Uint8Array(32).fill(255);
    expect(base58Encode(max)).toBe(new PublicKey(max).toBase58());
    for (let b = 0; b < 256; b++) expect(base58Encode(Uint8Array.of(b))).toBe(referenceEncode(Uint8Array.of(b)));
  });
});

/** base58 by its definition: the number in base 58 via bigint, one '1' per leading zero byte */
function referenceEncode(bytes: Uint8Array): string {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  let out = '';
  while (v > 0n) {
    out = alphabet[Number(v % 58n)] + out;
    v /= 58n;
  }
  return '1'.repeat(zeros) + out;
}
