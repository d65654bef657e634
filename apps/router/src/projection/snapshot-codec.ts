/**
 * The binary encoding of a ProjectionImage (a snapshot's payload), schema version 1.
 *
 * Little-endian throughout. Strings (addresses, mostly) are interned: the first use writes
 * 0xFFFFFFFF, a u16 byte length and the UTF-8 bytes, and every later use the string's number
 * (u32, in order of first use). Numbers that may be NaN or exceed 2^32 are f64. An account's
 * bytes are a u32 length and the bytes. Sections in order: scalars, slots, pools, adjacency,
 * token accounts by authority, tracking pools, lookup tables, decimals, counters, positions.
 *
 * `encodeImage` is a generator that yields every few hundred items, so a caller can spread the
 * encoding over short slices of the event loop (see projection-snapshots.ts); `decodeImage`
 * checks every length against the payload and throws a SnapshotImageError on anything short.
 */
import { SnapshotImageError, type ProjectionImage, type SlotImage } from './projection-image';

export const SNAPSHOT_FORMAT = 'router-projection';
export const SNAPSHOT_SCHEMA_VERSION = 1;

const NEW_STRING = 0xffffffff;
const CHUNK_BYTES = 1 << 20;
/** items between two yields of the encoder */
const ITEMS_PER_STEP = 32;

class ChunkWriter {
  readonly chunks: Buffer[] = [];
  private buf = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = 0;
  private readonly ids = new Map<string, number>();
  bytes = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    this.flush();
    this.buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, n));
  }

  flush(): void {
    if (this.at === 0) return;
    this.chunks.push(this.buf.subarray(0, this.at));
    this.bytes += this.at;
    this.buf = Buffer.allocUnsafe(CHUNK_BYTES);
    this.at = 0;
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.at++] = v;
  }

  u32(v: number): void {
    this.room(4);
    this.buf.writeUInt32LE(v, this.at);
    this.at += 4;
  }

  f64(v: number): void {
    this.room(8);
    this.buf.writeDoubleLE(v, this.at);
    this.at += 8;
  }

  str(s: string): void {
    const id = this.ids.get(s);
    if (id !== undefined) return this.u32(id);
    this.ids.set(s, this.ids.size);
    const n = Buffer.byteLength(s, 'utf8');
    if (n > 0xffff) throw new Error('snapshot string longer than 65535 bytes');
    this.room(6 + n);
    this.buf.writeUInt32LE(NEW_STRING, this.at);
    this.buf.writeUInt16LE(n, this.at + 4);
    this.buf.write(s, this.at + 6, n, 'utf8');
    this.at += 6 + n;
  }

  optStr(s: string | undefined | null): void {
    this.u8(s === undefined || s === null ? 0 : 1);
    if (s !== undefined && s !== null) this.str(s);
  }

  bytesOf(b: Buffer): void {
    this.u32(b.length);
    this.room(b.length);
    b.copy(this.buf, this.at);
    this.at += b.length;
  }

  strs(list: readonly string[]): void {
    this.u32(list.length);
    for (const s of list) this.str(s);
  }

  positions(p: Record<string, string>): void {
    const entries = Object.entries(p);
    this.u32(entries.length);
    for (const [k, v] of entries) {
      this.str(k);
      this.str(v);
    }
  }
}

/**
 * Encode `image`; the generator yields between steps and returns the payload's chunks. Drive it
 * to the end (see encodeAll) before the image's accounts could be reused.
 */
export function* encodeImage(image: ProjectionImage): Generator<void, Buffer[], void> {
  const w = new ChunkWriter();
  for (const v of [image.accountCount, image.highestSlot, image.version, image.additions, image.replacedNext]) w.f64(v);
  w.u32(image.slots.length);
  let n = 0;
  for (const s of image.slots) {
    w.str(s.address);
    const flags = (s.account ? 1 : 0) | (s.hasDecimals ? 2 : 0) | (s.isLookupTable ? 4 : 0) | (s.tokenAuthority !== undefined ? 8 : 0) | (s.dependents ? 16 : 0);
    w.u8(flags);
    if (s.account) {
      w.str(s.account.owner);
      w.f64(s.account.slot);
      w.bytesOf(s.account.data);
    }
    if (s.tokenAuthority !== undefined) w.str(s.tokenAuthority);
    w.f64(s.lastChangeAt);
    if (s.dependents) w.strs(s.dependents);
    if (++n % ITEMS_PER_STEP === 0) yield;
  }
  w.u32(image.pools.length);
  for (const pool of image.pools) {
    w.str(pool.address);
    w.strs(pool.deps);
    if (++n % ITEMS_PER_STEP === 0) yield;
  }
  for (const pairs of [image.adjacency, image.tokenAccountsByAuthority]) {
    w.u32(pairs.length);
    for (const [k, list] of pairs) {
      w.str(k);
      w.strs(list);
      if (++n % ITEMS_PER_STEP === 0) yield;
    }
  }
  w.strs(image.trackingPools);
  w.strs(image.lookupTables);
  w.u32(image.decimals.length);
  for (const [mint, d] of image.decimals) {
    w.str(mint);
    w.u8(d);
  }
  w.f64(image.counters.applied);
  w.f64(image.counters.rejected);
  const reasons = Object.entries(image.counters.rejectedReasons);
  w.u32(reasons.length);
  for (const [reason, count] of reasons) {
    w.str(reason);
    w.f64(count);
  }
  w.optStr(image.lastRejection);
  w.positions(image.lastApplied);
  w.positions(image.lastProcessed);
  w.flush();
  return w.chunks;
}

/** encode in one go (tests, the replay tool) */
export function encodeAll(image: ProjectionImage): Buffer[] {
  const g = encodeImage(image);
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
  }
}

class Reader {
  private at = 0;
  private readonly strings: string[] = [];
  constructor(private readonly b: Buffer) {}

  private need(n: number): void {
    if (this.at + n > this.b.length) throw new SnapshotImageError(`payload ends at byte ${this.b.length}, ${n} more needed at ${this.at}`);
  }
  u8(): number {
    this.need(1);
    return this.b[this.at++];
  }
  u32(): number {
    this.need(4);
    const v = this.b.readUInt32LE(this.at);
    this.at += 4;
    return v;
  }
  f64(): number {
    this.need(8);
    const v = this.b.readDoubleLE(this.at);
    this.at += 8;
    return v;
  }
  str(): string {
    const id = this.u32();
    if (id !== NEW_STRING) {
      if (id >= this.strings.length) throw new SnapshotImageError(`string #${id} used before it is defined`);
      return this.strings[id];
    }
    this.need(2);
    const n = this.b.readUInt16LE(this.at);
    this.at += 2;
    this.need(n);
    const s = this.b.toString('utf8', this.at, this.at + n);
    this.at += n;
    this.strings.push(s);
    return s;
  }
  optStr(): string | null {
    return this.u8() === 0 ? null : this.str();
  }
  /** a copy: the payload is let go after decoding */
  bytes(): Buffer {
    const n = this.u32();
    this.need(n);
    const out = Buffer.from(this.b.subarray(this.at, this.at + n));
    this.at += n;
    return out;
  }
  count(): number {
    const n = this.u32();
    // every item takes at least a byte: a larger count is a corrupt payload, not an allocation to try
    if (n > this.b.length - this.at) throw new SnapshotImageError(`implausible count ${n} at byte ${this.at}`);
    return n;
  }
  strs(): string[] {
    const n = this.count();
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = this.str();
    return out;
  }
  positions(): Record<string, string> {
    const out: Record<string, string> = {};
    for (let i = this.count(); i > 0; i--) out[this.str()] = this.str();
    return out;
  }
  end(): void {
    if (this.at !== this.b.length) throw new SnapshotImageError(`${this.b.length - this.at} bytes left after the image`);
  }
}

/** Decode a payload of schema version 1. */
export function decodeImage(payload: Buffer): ProjectionImage {
  const r = new Reader(payload);
  const [accountCount, highestSlot, version, additions, replacedNext] = [r.f64(), r.f64(), r.f64(), r.f64(), r.f64()];
  const slots: SlotImage[] = new Array(r.count());
  for (let i = 0; i < slots.length; i++) {
    const address = r.str();
    const flags = r.u8();
    let account: SlotImage['account'];
    if (flags & 1) {
      const owner = r.str();
      const slot = r.f64();
      account = { owner, slot, data: r.bytes() };
    }
    const tokenAuthority = flags & 8 ? r.str() : undefined;
    const lastChangeAt = r.f64();
    const dependents = flags & 16 ? r.strs() : null;
    slots[i] = { address, account, tokenAuthority, hasDecimals: (flags & 2) !== 0, isLookupTable: (flags & 4) !== 0, lastChangeAt, dependents };
  }
  const pools: ProjectionImage['pools'] = new Array(r.count());
  for (let i = 0; i < pools.length; i++) pools[i] = { address: r.str(), deps: r.strs() };
  const pairs = (): Array<[string, string[]]> => {
    const out: Array<[string, string[]]> = new Array(r.count());
    for (let i = 0; i < out.length; i++) out[i] = [r.str(), r.strs()];
    return out;
  };
  const adjacency = pairs();
  const tokenAccountsByAuthority = pairs();
  const trackingPools = r.strs();
  const lookupTables = r.strs();
  const decimals: Array<[string, number]> = new Array(r.count());
  for (let i = 0; i < decimals.length; i++) decimals[i] = [r.str(), r.u8()];
  const applied = r.f64();
  const rejected = r.f64();
  const rejectedReasons: Record<string, number> = {};
  for (let i = r.count(); i > 0; i--) rejectedReasons[r.str()] = r.f64();
  const lastRejection = r.optStr();
  const lastApplied = r.positions();
  const lastProcessed = r.positions();
  r.end();
  return {
    slots,
    pools,
    adjacency,
    tokenAccountsByAuthority,
    trackingPools,
    lookupTables,
    decimals,
    accountCount,
    highestSlot,
    version,
    additions,
    replacedNext,
    counters: { applied, rejected, rejectedReasons },
    lastRejection,
    lastApplied,
    lastProcessed,
  };
}
