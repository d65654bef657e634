import { PublicKey } from '@solana/web3.js';
import { findProgramAddress, isOnCurve, programAddress, programAddressCacheSize } from './pda';
import { createHash } from 'crypto';

/** deterministic pseudo-random bytes: sha256 of a counter (the same on every run) */
class Bytes {
  private n = 0;
  constructor(private readonly seed: number) {}
  bytes(len: number): Buffer {
    return createHash('sha256').update(`${this.seed}:${this.n++}`).digest().subarray(0, len);
  }
}

const P = (1n << 255n) - 19n;

function le(n: bigint, signBit = false): Buffer {
  const b = Buffer.alloc(32);
  let x = n;
  for (let i = 0; i < 32; i++) {
    b[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  if (signBit) b[31] |= 0x80;
  return b;
}

describe('fast PDA search', () => {
  it('isOnCurve agrees with web3.js on random bytes', () => {
    const r = new Bytes(3);
    let on = 0;
    for (let i = 0; i < 3000; i++) {
      const b = r.bytes(32);
      const expected = PublicKey.isOnCurve(b);
      expect(isOnCurve(b)).toBe(expected);
      if (expected) on++;
    }
    expect(on).toBeGreaterThan(1200);
    expect(on).toBeLessThan(1800);
  });

  it('isOnCurve agrees with web3.js on the edge cases', () => {
    const cases = [
      le(0n),
      le(1n),
      le(1n, true), // x = 0 with the sign bit: rejected
      le(P - 1n),
      le(P - 1n, true),
      le(P), // y = p: not canonical
      le(P + 1n),
      le((1n << 255n) - 1n),
      Buffer.alloc(32, 0xff),
      new PublicKey('So11111111111111111111111111111111111111112').toBuffer(),
      new PublicKey('CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C').toBuffer(),
    ];
    for (const c of cases) expect(isOnCurve(c)).toBe(PublicKey.isOnCurve(c));
  });

  it('findProgramAddress gives the same address and bump as findProgramAddressSync', () => {
    const r = new Bytes(4);
    const program = new PublicKey('CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C');
    for (let i = 0; i < 300; i++) {
      const seeds = [Buffer.from('pool'), r.bytes(32), r.bytes(i % 3 === 0 ? 1 : 32)];
      const [key, bump] = PublicKey.findProgramAddressSync(seeds, program);
      const [fast, fastBump] = findProgramAddress(seeds, program.toBuffer());
      expect(fast.equals(key.toBuffer())).toBe(true);
      expect(fastBump).toBe(bump);
    }
  });

  it('programAddress: the base58 address of findProgramAddressSync, memoized by program and seeds', () => {
    const r = new Bytes(5);
    const program = 'CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK';
    for (let i = 0; i < 200; i++) {
      const seeds = [Buffer.from('tick_array'), r.bytes(32), r.bytes(4)];
      const expected = PublicKey.findProgramAddressSync(seeds, new PublicKey(program))[0].toBase58();
      expect(programAddress(program, seeds)).toBe(expected);
      expect(programAddress(program, seeds)).toBe(expected); // from the cache
      // strings are UTF-8 seeds
      expect(programAddress(program, ['tick_array', seeds[1], seeds[2]])).toBe(expected);
    }
    // seeds are told apart by their boundaries, not only their concatenation
    const ab = programAddress(program, [Buffer.from('ab'), Buffer.from('c')]);
    expect(ab).toBe(PublicKey.findProgramAddressSync([Buffer.from('ab'), Buffer.from('c')], new PublicKey(program))[0].toBase58());
    expect(programAddress(program, [Buffer.from('a'), Buffer.from('bc')])).toBe(PublicKey.findProgramAddressSync([Buffer.from('a'), Buffer.from('bc')], new PublicKey(program))[0].toBase58());
    expect(programAddressCacheSize()).toBeGreaterThan(0);
  });
});
