/**
 * Snapshot files of a topic's projection: one file per snapshot in a directory, written whole or
 * not at all, each naming the log positions it covers and the schema version of its payload.
 *
 * A file is `<topic>-<20-digit sum of its next offsets>-<8 hex of its positions>.snap`:
 *
 *   "LOGSNAP1"                     8 bytes, magic
 *   u32 LE  header length H
 *   H bytes header, JSON (SnapshotHeader: topic, format, version, positions, meta, createdAt, payloadBytes)
 *   payloadBytes bytes payload     (the format's own encoding, opaque here)
 *   32 bytes SHA-256 of everything before it
 *
 * Writing goes to a temporary file in the same directory, fsynced, then renamed into place and the
 * directory fsynced: a reader sees a complete file or none. Reading checks the magic, the length,
 * the checksum, the topic and the format, and rejects a version newer than the reader's with a
 * SnapshotFileError saying which check failed. A name that does not follow the pattern is left
 * alone (reported once through `onWarn`); temporary files of a writer that died are removed.
 *
 * Plain Node (fs, crypto): no Nest, no log adapter; the embedded log's retention reads the oldest
 * snapshot's positions from here (the records before them are no longer needed to rebuild).
 */
import { createHash, randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { Positions } from '../log.port';

const MAGIC = Buffer.from('LOGSNAP1', 'latin1');
const HASH_BYTES = 32;
const PREFIX_BYTES = MAGIC.length + 4;
/** a header larger than this is not one of ours */
const MAX_HEADER_BYTES = 1 << 20;
const TMP_SUFFIX = '.tmp';

export interface SnapshotHeader {
  topic: string;
  /** what the payload encodes (e.g. "router-projection") */
  format: string;
  /** the payload's schema version */
  version: number;
  /** the next offset to read per partition after this state (Kafka's committed-offset convention) */
  positions: Positions;
  /** the format's own summary (slot, record counts...) */
  meta: Record<string, unknown>;
  /** Unix ms when it was written (informational) */
  createdAt: number;
  payloadBytes: number;
}

export interface SnapshotEntry {
  file: string;
  /** the sum of its next offsets: its order among the topic's snapshots */
  total: bigint;
}

/** A snapshot file that cannot be used, and why. */
export class SnapshotFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`snapshot ${path.basename(file)}: ${reason}`);
    this.name = 'SnapshotFileError';
  }
}

function totalOf(positions: Positions): bigint {
  let t = 0n;
  for (const o of Object.values(positions)) t += BigInt(o);
  return t;
}

function fileNameOf(topic: string, positions: Positions): string {
  const canonical = JSON.stringify(Object.keys(positions).sort((a, b) => Number(a) - Number(b)).map((p) => [p, positions[p]]));
  const tag = createHash('sha256').update(canonical).digest('hex').slice(0, 8);
  return `${topic}-${totalOf(positions).toString().padStart(20, '0')}-${tag}.snap`;
}

export interface SnapshotFilesOptions {
  /** a foreign file in the directory, a temporary file removed: said once per file */
  onWarn?: (message: string) => void;
}

/** One topic's snapshots in one directory. */
export class SnapshotFiles {
  private readonly pattern: RegExp;
  private readonly warned = new Set<string>();
  private readonly onWarn: (message: string) => void;

  constructor(
    readonly dir: string,
    readonly topic: string,
    options: SnapshotFilesOptions = {},
  ) {
    this.pattern = new RegExp(`^${topic.replace(/[.\\-]/g, '\\$&')}-(\\d{20})-[0-9a-f]{8}\\.snap$`);
    this.onWarn = options.onWarn ?? ((m) => console.warn(m));
  }

  /** the topic's snapshot files, newest (largest positions) first; none when the directory does not exist */
  list(): SnapshotEntry[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const out: SnapshotEntry[] = [];
    for (const name of names) {
      const m = this.pattern.exec(name);
      if (m) {
        out.push({ file: path.join(this.dir, name), total: BigInt(m[1]) });
      } else if (name.startsWith(`${this.topic}-`) && name.endsWith(TMP_SUFFIX)) {
        this.removeStaleTemporary(path.join(this.dir, name));
      } else if (!this.warned.has(name) && !name.endsWith('.snap') && !name.endsWith(TMP_SUFFIX)) {
        this.warned.add(name);
        this.onWarn(`snapshot directory ${this.dir}: ignoring ${name} (not a snapshot file)`);
      }
    }
    return out.sort((a, b) => (a.total > b.total ? -1 : a.total < b.total ? 1 : a.file < b.file ? 1 : -1));
  }

  /** a temporary file untouched for a minute is a writer's that died: remove it */
  private removeStaleTemporary(file: string): void {
    try {
      if (Date.now() - fs.statSync(file).mtimeMs < 60_000) return;
      fs.rmSync(file, { force: true });
      this.onWarn(`snapshot directory ${this.dir}: removed ${path.basename(file)}, left by a writer that stopped mid-write`);
    } catch {
      /* gone meanwhile */
    }
  }

  /**
   * Write a snapshot at `positions` from payload chunks (consumed as they come, so a caller can
   * produce them in slices); resolves with the file and its size once it is durable and in place.
   */
  async write(
    header: Omit<SnapshotHeader, 'topic' | 'payloadBytes' | 'createdAt'>,
    payloadBytes: number,
    chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  ): Promise<{ file: string; bytes: number }> {
    await fs.promises.mkdir(this.dir, { recursive: true });
    const full: SnapshotHeader = { topic: this.topic, ...header, createdAt: Date.now(), payloadBytes };
    const headerBytes = Buffer.from(JSON.stringify(full), 'utf8');
    const prefix = Buffer.alloc(PREFIX_BYTES);
    MAGIC.copy(prefix, 0);
    prefix.writeUInt32LE(headerBytes.length, MAGIC.length);
    const name = fileNameOf(this.topic, header.positions);
    const target = path.join(this.dir, name);
    const tmp = path.join(this.dir, `${name}.${process.pid}-${randomBytes(4).toString('hex')}${TMP_SUFFIX}`);
    const hash = createHash('sha256');
    const fh = await fs.promises.open(tmp, 'w');
    let bytes = 0;
    let written = 0;
    try {
      const put = async (b: Buffer): Promise<void> => {
        hash.update(b);
        await fh.write(b);
        bytes += b.length;
      };
      await put(prefix);
      await put(headerBytes);
      for await (const c of chunks) {
        written += c.length;
        await put(c);
      }
      if (written !== payloadBytes) throw new Error(`snapshot payload was ${written} bytes, announced ${payloadBytes}`);
      const digest = hash.digest();
      await fh.write(digest);
      bytes += digest.length;
      await fh.sync();
    } catch (e) {
      await fh.close().catch(() => undefined);
      await fs.promises.rm(tmp, { force: true });
      throw e;
    }
    await fh.close();
    await fs.promises.rename(tmp, target);
    await syncDir(this.dir);
    return { file: target, bytes };
  }

  /** the header alone (no checksum check): what the retention floor and the listing need */
  readHeader(file: string): SnapshotHeader {
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, 'r');
      const prefix = Buffer.alloc(PREFIX_BYTES);
      if (fs.readSync(fd, prefix, 0, PREFIX_BYTES, 0) < PREFIX_BYTES) throw new SnapshotFileError(file, 'truncated (shorter than its prefix)');
      const length = this.headerLength(file, prefix);
      const raw = Buffer.alloc(length);
      if (fs.readSync(fd, raw, 0, length, PREFIX_BYTES) < length) throw new SnapshotFileError(file, 'truncated (inside its header)');
      return this.parseHeader(file, raw);
    } catch (e) {
      if (e instanceof SnapshotFileError) throw e;
      throw new SnapshotFileError(file, `cannot be read (${(e as Error).message})`);
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  /**
   * The whole snapshot, checked: magic, length, checksum, topic and format, and a version this
   * reader knows (at most `maxVersion`). Throws a SnapshotFileError naming the failed check.
   */
  async read(file: string, format: string, maxVersion: number): Promise<{ header: SnapshotHeader; payload: Buffer }> {
    let data: Buffer;
    try {
      data = await fs.promises.readFile(file);
    } catch (e) {
      throw new SnapshotFileError(file, `cannot be read (${(e as Error).message})`);
    }
    if (data.length < PREFIX_BYTES) throw new SnapshotFileError(file, 'truncated (shorter than its prefix)');
    const length = this.headerLength(file, data);
    if (data.length < PREFIX_BYTES + length) throw new SnapshotFileError(file, 'truncated (inside its header)');
    const header = this.parseHeader(file, data.subarray(PREFIX_BYTES, PREFIX_BYTES + length));
    const bodyEnd = PREFIX_BYTES + length + header.payloadBytes;
    if (data.length < bodyEnd + HASH_BYTES) throw new SnapshotFileError(file, `truncated (${data.length} bytes, ${bodyEnd + HASH_BYTES} expected)`);
    if (data.length > bodyEnd + HASH_BYTES) throw new SnapshotFileError(file, `has ${data.length - bodyEnd - HASH_BYTES} bytes after its checksum`);
    const digest = createHash('sha256').update(data.subarray(0, bodyEnd)).digest();
    if (!digest.equals(data.subarray(bodyEnd))) throw new SnapshotFileError(file, 'checksum mismatch (corrupt)');
    if (header.format !== format) throw new SnapshotFileError(file, `holds format "${header.format}", not "${format}"`);
    if (header.version > maxVersion) throw new SnapshotFileError(file, `schema version ${header.version} is newer than this reader's (${maxVersion})`);
    return { header, payload: data.subarray(PREFIX_BYTES + length, bodyEnd) };
  }

  /** keep the newest `keep` snapshots, remove the others; returns the files removed */
  prune(keep: number): string[] {
    const removed: string[] = [];
    for (const e of this.list().slice(Math.max(1, keep))) {
      fs.rmSync(e.file, { force: true });
      removed.push(e.file);
    }
    return removed;
  }

  /**
   * The positions of the oldest snapshot whose header reads, null when there is none: every
   * record before them is covered by a snapshot (see the embedded log's retention).
   */
  oldestPositions(): Positions | null {
    const all = this.list();
    for (let i = all.length - 1; i >= 0; i--) {
      try {
        return this.readHeader(all[i].file).positions;
      } catch {
        /* unreadable: the next older one counts */
      }
    }
    return null;
  }

  private headerLength(file: string, prefix: Buffer): number {
    if (!prefix.subarray(0, MAGIC.length).equals(MAGIC)) throw new SnapshotFileError(file, 'not a snapshot file (bad magic)');
    const length = prefix.readUInt32LE(MAGIC.length);
    if (length === 0 || length > MAX_HEADER_BYTES) throw new SnapshotFileError(file, `implausible header length ${length}`);
    return length;
  }

  private parseHeader(file: string, raw: Buffer): SnapshotHeader {
    let h: SnapshotHeader;
    try {
      h = JSON.parse(raw.toString('utf8')) as SnapshotHeader;
    } catch {
      throw new SnapshotFileError(file, 'header is not JSON (corrupt)');
    }
    const validPositions =
      h && typeof h.positions === 'object' && h.positions !== null && Object.entries(h.positions).every(([p, o]) => /^\d+$/.test(p) && typeof o === 'string' && /^\d+$/.test(o));
    if (!validPositions || typeof h.format !== 'string' || !Number.isInteger(h.version) || !Number.isSafeInteger(h.payloadBytes) || h.payloadBytes < 0) {
      throw new SnapshotFileError(file, 'header lacks its fields (corrupt or foreign)');
    }
    if (h.topic !== this.topic) throw new SnapshotFileError(file, `is a snapshot of topic "${h.topic}", not "${this.topic}"`);
    return h;
  }
}

async function syncDir(dir: string): Promise<void> {
  let fh: fs.promises.FileHandle | undefined;
  try {
    fh = await fs.promises.open(dir, 'r');
    await fh.sync();
  } catch {
    /* a file system that cannot fsync a directory: the rename stands */
  } finally {
    await fh?.close().catch(() => undefined);
  }
}
