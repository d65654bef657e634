import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { PublicKey } from '@solana/web3.js';
import { base58Decode, base58Encode, internPublicKey, isPublicKey, readPubkey, writePubkey } from './base58';
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

describe('interned public keys (readPubkey, internPublicKey)', () => {
  const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');

  it('readPubkey is base58Encode of the 32 bytes, at any offset, through the table growing and being refilled', () => {
    // more distinct keys than the table holds: it doubles, then drops everything and refills
    for (let i = 0; i < 300_000; i++) {
      const buf = randomBytes(40);
      if (i % 1000 === 0) buf.fill(0, 0, 40); // the system program's key, among others
      const at = i % 9;
      const key = readPubkey(buf, at);
      if (i % 97 === 0 || i % 1000 === 0) expect(key).toBe(base58Encode(buf.subarray(at, at + 32)));
      else if (key !== base58Encode(buf.subarray(at, at + 32))) throw new Error(`readPubkey differs at ${i}`);
      if (i % 13 === 0) expect(internPublicKey(ascii(`"${key}"`), 1, key.length + 1)).toBe(key);
    }
  });

  it('readPubkey near the end of the buffer reads what is there, as base58Encode does', () => {
    const buf = randomBytes(40);
    expect(readPubkey(buf, 20)).toBe(base58Encode(buf.subarray(20)));
    expect(readPubkey(buf, 40)).toBe('');
  });

  it('internPublicKey accepts exactly what isPublicKey accepts', () => {
    const candidates = [
      ...Object.values(PROGRAM_IDS),
      ...Object.values(MINTS),
      '11111111111111111111111111111111',
      '1111111111111111111111111111111',
      base58Encode(Buffer.alloc(31, 255)),
      base58Encode(Buffer.alloc(33, 255)),
      base58Encode(Buffer.alloc(32, 255)),
      `${MINTS.USDC.slice(0, 10)}0${MINTS.USDC.slice(11)}`,
      `${MINTS.USDC.slice(0, 10)}l${MINTS.USDC.slice(11)}`,
      `${MINTS.USDC.slice(0, 10)}é${MINTS.USDC.slice(11)}`,
      `${MINTS.USDC}1`,
      MINTS.USDC.slice(1),
      'x'.repeat(45),
      '',
    ];
    for (let i = 0; i < 300; i++) candidates.push(base58Encode(randomBytes(28 + (i % 8))));
    for (const text of candidates) {
      const bytes = ascii(`ab${text}cd`);
      const got = internPublicKey(bytes, 2, bytes.length - 2);
      expect(got).toBe(isPublicKey(text) && [...text].every((c) => c.charCodeAt(0) < 128) ? text : null);
      // and again, from the table this time
      expect(internPublicKey(bytes, 2, bytes.length - 2)).toBe(got);
    }
    // a non-ASCII byte is never a key character, whatever its latin1 reading
    const bad = ascii(MINTS.SOL);
    bad[5] = 0xc3;
    expect(internPublicKey(bad, 0, bad.length)).toBeNull();
  });

  it('the well-known keys come back as the constants themselves', () => {
    const bytes = Buffer.from(base58Decode(PROGRAM_IDS.raydiumCpmm)!);
    expect(readPubkey(bytes, 0)).toBe(PROGRAM_IDS.raydiumCpmm);
    expect(internPublicKey(ascii(MINTS.SOL), 0, MINTS.SOL.length)).toBe(MINTS.SOL);
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
