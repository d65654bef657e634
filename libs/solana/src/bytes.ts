/**
 * Little-endian field access shared by the account codecs: range-checked writers (a value out
 * of range is a RangeError naming the field, never a silent wrap), 128-bit readers, strict bools,
 * and the owner / size / discriminator check of an Anchor account.
 */
import { AccountDecodeError } from './decode-error';

export const U64_MAX = (1n << 64n) - 1n;
export const U128_MAX = (1n << 128n) - 1n;

/** the bytes as a Buffer over the same memory (no copy) */
export function view(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * u64 little endian at `o`, as Buffer.readBigUInt64LE (same value, same RangeError out of
 * bounds) with one BigInt allocated instead of four when the value is below 2^53 (every amount
 * read on the projection's hot path, in practice).
 */
export function readU64(buf: Buffer, o: number): bigint {
  if (o >>> 0 !== o || o + 8 > buf.length) return buf.readBigUInt64LE(o);
  const lo = buf[o] + buf[o + 1] * 0x100 + buf[o + 2] * 0x10000 + buf[o + 3] * 0x1000000;
  const hi = buf[o + 4] + buf[o + 5] * 0x100 + buf[o + 6] * 0x10000 + buf[o + 7] * 0x1000000;
  // below 2^53 the double hi * 2^32 + lo is exact
  return hi < 0x200000 ? BigInt(hi * 0x100000000 + lo) : (BigInt(hi) << 32n) | BigInt(lo);
}

export function readU128(buf: Buffer, o: number): bigint {
  return buf.readBigUInt64LE(o) | (buf.readBigUInt64LE(o + 8) << 64n);
}

export function readI128(buf: Buffer, o: number): bigint {
  return BigInt.asIntN(128, readU128(buf, o));
}

export function writeU128(buf: Buffer, o: number, v: bigint, field: string): void {
  if (v < 0n || v > U128_MAX) throw new RangeError(`${field} out of u128 range: ${v}`);
  buf.writeBigUInt64LE(v & U64_MAX, o);
  buf.writeBigUInt64LE(v >> 64n, o + 8);
}

export function writeI128(buf: Buffer, o: number, v: bigint, field: string): void {
  if (v < -(1n << 127n) || v >= 1n << 127n) throw new RangeError(`${field} out of i128 range: ${v}`);
  writeU128(buf, o, BigInt.asUintN(128, v), field);
}

export function writeU64(buf: Buffer, o: number, v: bigint, field: string): void {
  if (v < 0n || v > U64_MAX) throw new RangeError(`${field} out of u64 range: ${v}`);
  buf.writeBigUInt64LE(v, o);
}

export function writeI64(buf: Buffer, o: number, v: bigint, field: string): void {
  if (v < -(1n << 63n) || v >= 1n << 63n) throw new RangeError(`${field} out of i64 range: ${v}`);
  buf.writeBigInt64LE(v, o);
}

export function writeU16(buf: Buffer, o: number, v: number, field: string): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new RangeError(`${field} out of u16 range: ${v}`);
  buf.writeUInt16LE(v, o);
}

export function writeI32(buf: Buffer, o: number, v: number, field: string): void {
  if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) throw new RangeError(`${field} out of i32 range: ${v}`);
  buf.writeInt32LE(v, o);
}

/** every byte of buf[from, to) is zero (an account region never written: an uninitialized tick) */
export function isZeroRange(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (buf[i] !== 0) return false;
  return true;
}

/** a bool byte: 0 or 1, anything else is undecodable */
export function readBool(buf: Buffer, o: number, address: string, field: string): boolean {
  const b = buf[o];
  if (b > 1) throw new AccountDecodeError(address, `invalid bool byte ${b} for ${field}`);
  return b === 1;
}

export interface AnchorAccountSpec {
  programId: string;
  /** the account type with its article and program, e.g. "a Raydium CLMM PoolState" */
  what: string;
  /** exact size in bytes */
  size: number;
  discriminator: Buffer;
}

/** Owner (when known), exact size, then discriminator; the reason names what was expected. */
export function checkAnchorAccount(data: Uint8Array, owner: string | undefined, address: string, spec: AnchorAccountSpec): Buffer {
  if (owner !== undefined && owner !== spec.programId) {
    throw new AccountDecodeError(address, `wrong owner ${owner} for ${spec.what}: expected ${spec.programId}`);
  }
  const buf = view(data);
  if (buf.length !== spec.size) {
    throw new AccountDecodeError(address, `wrong size ${buf.length} for ${spec.what}: expected ${spec.size}`);
  }
  if (!buf.subarray(0, 8).equals(spec.discriminator)) {
    throw new AccountDecodeError(
      address,
      `wrong discriminator ${buf.subarray(0, 8).toString('hex')} for ${spec.what}: expected ${spec.discriminator.toString('hex')}`,
    );
  }
  return buf;
}
