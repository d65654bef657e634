import { randomBytes } from 'node:crypto';
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
