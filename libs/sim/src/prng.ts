/**
 * A small seeded PRNG for the simulated market: xoshiro128** (32-bit state words, fast in JS
 * through Math.imul), its state filled from the seed by splitmix32. No Math.random, no clock:
 * the same seed gives the same sequence on every run and every machine.
 *
 * Floating point here uses only IEEE-exact operations (+, -, *, /) except `logUniform`, which
 * uses Math.pow / Math.log (V8's fdlibm port: identical results across platforms for a given
 * Node major).
 */

const TWO_POW_32 = 4294967296;
const TWO_POW_53 = 9007199254740992;

/** splitmix32: a good 32-bit mixer, used to expand a seed into state words. */
function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /**
   * @param seed any finite number; integers up to 2^53 are used in full (low and high 32 bits
   * are both mixed in).
   */
  constructor(seed: number) {
    if (!Number.isFinite(seed)) throw new RangeError(`PRNG seed must be finite, got ${seed}`);
    const whole = Math.floor(Math.abs(seed));
    const lo = whole % TWO_POW_32 | 0;
    const hi = Math.floor(whole / TWO_POW_32) | 0;
    const st = { s: lo ^ Math.imul(hi, 0x27d4eb2d) ^ (seed < 0 ? 0x5bd1e995 : 0) };
    this.a = splitmix32(st);
    this.b = splitmix32(st);
    this.c = splitmix32(st);
    this.d = splitmix32(st);
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1; // the all-zero state is a fixed point
  }

  /** next 32-bit unsigned integer (xoshiro128**) */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** uniform float in [0, 1) with 53 random bits */
  next(): number {
    const hi = this.nextU32() >>> 5; // 27 bits
    const lo = this.nextU32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / TWO_POW_53;
  }

  /** uniform float in [min, max) */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** uniform integer in [min, max] (both inclusive) */
  int(min: number, max: number): number {
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max < min) {
      throw new RangeError(`bad integer range [${min}, ${max}]`);
    }
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** log-uniform float in [min, max) (min > 0): every decade equally likely */
  logUniform(min: number, max: number): number {
    if (!(min > 0) || !(max >= min)) throw new RangeError(`bad log-uniform range [${min}, ${max}]`);
    return min * Math.pow(max / min, this.next());
  }

  /** true with probability p */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** one element, uniformly */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)];
  }

  /** one element with probability proportional to its weight */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    if (items.length === 0 || items.length !== weights.length) throw new RangeError('weighted pick needs one weight per item');
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i];
      if (r < 0) return items[i];
    }
    return items[items.length - 1];
  }

  /** `n` random bytes (default 32: a public key's worth) */
  bytes(n = 32): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.nextU32();
      out[i] = v & 0xff;
      if (i + 1 < n) out[i + 1] = (v >>> 8) & 0xff;
      if (i + 2 < n) out[i + 2] = (v >>> 16) & 0xff;
      if (i + 3 < n) out[i + 3] = v >>> 24;
    }
    return out;
  }

  /** an independent generator derived from this one (consumes two outputs) */
  fork(): Prng {
    return new Prng(this.nextU32() * 2097152 + (this.nextU32() >>> 11));
  }
}
