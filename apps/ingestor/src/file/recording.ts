/**
 * JSON-lines recordings of account writes: one line per write, in exactly the wire shape of a
 * `pool-updates` record (what encodePoolUpdate produces). Plain TypeScript, no Nest.
 */
import * as fs from 'fs';
import * as readline from 'readline';
import { ContractError } from '@app/contracts';
import { decodePoolUpdate, encodePoolUpdate, type PoolUpdate } from '@app/contracts';

/** One line of a recording: the decoded update, or why the line was rejected. Blank lines are skipped. */
export interface RecordingLine {
  /** 1-based line number in the file */
  line: number;
  update?: PoolUpdate;
  error?: string;
}

/** Decode one recording line (never throws: a bad line comes back with `error`). */
export function parseRecordingLine(text: string, line: number): RecordingLine {
  try {
    return { line, update: decodePoolUpdate(text) };
  } catch (e) {
    if (e instanceof ContractError) return { line, error: e.reason };
    return { line, error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Read a recording line by line. Malformed lines are reported (with the reason from
 * decodePoolUpdate), never thrown; a file that cannot be opened rejects.
 */
export async function* readRecording(path: string): AsyncGenerator<RecordingLine> {
  const stream = fs.createReadStream(path, { encoding: 'utf8' });
  // surface open errors (missing file) before readline swallows them into the iterator
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const text of lines) {
      n++;
      if (text.trim() === '') continue;
      yield parseRecordingLine(text, n);
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** The line a write is recorded as (no trailing newline). */
export function recordingLine(update: PoolUpdate): string {
  return encodePoolUpdate(update).toString('utf8');
}

/**
 * Appends writes to a recording. Lines are buffered and written on `flush()` (and whenever the
 * buffer passes `highWaterBytes`); `close()` flushes and closes the file.
 */
export class RecordingWriter {
  private handle: fs.promises.FileHandle | null = null;
  private opening: Promise<fs.promises.FileHandle> | null = null;
  private buffer: string[] = [];
  private buffered = 0;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private written = 0;

  constructor(
    readonly path: string,
    private readonly highWaterBytes = 1 << 20,
  ) {}

  /** number of lines handed to the file so far */
  get linesWritten(): number {
    return this.written;
  }

  /** queue writes; resolves once they are buffered (or written, when the buffer was full) */
  async append(updates: PoolUpdate | PoolUpdate[]): Promise<void> {
    if (this.closed) throw new Error(`recording ${this.path} is closed`);
    for (const u of Array.isArray(updates) ? updates : [updates]) {
      const line = recordingLine(u) + '\n';
      this.buffer.push(line);
      this.buffered += line.length;
    }
    if (this.buffered >= this.highWaterBytes) await this.flush();
  }

  /** write everything buffered so far */
  flush(): Promise<void> {
    const lines = this.buffer;
    if (lines.length === 0) return this.chain;
    this.buffer = [];
    this.buffered = 0;
    this.chain = this.chain.then(async () => {
      const handle = await this.open();
      await handle.write(lines.join(''));
      this.written += lines.length;
    });
    return this.chain;
  }

  async close(): Promise<void> {
    if (this.closed) return this.chain;
    await this.flush();
    this.closed = true;
    await this.chain;
    if (this.handle) {
      await this.handle.close();
      this.handle = null;
    }
  }

  private open(): Promise<fs.promises.FileHandle> {
    if (this.handle) return Promise.resolve(this.handle);
    this.opening ??= fs.promises.open(this.path, 'a').then((h) => (this.handle = h));
    return this.opening;
  }
}
