/**
 * One topic's SQLite file: the records table (offset, key, value, append time), batched appends
 * in an IMMEDIATE transaction, reads from an offset, and the data version a tailing reader polls.
 * Its WAL checkpoints run in the process's checkpoint worker or inline (wal-checkpointer.ts).
 */
import Database from 'better-sqlite3';
import type { LogMessage, LogRecord } from '../log.port';
import { checkColumns, openDatabase, wrapStoreError } from './sqlite-files';
import { walCheckpointer } from './wal-checkpointer';

/** what a record costs in the WAL beyond its key and value (row header, offset, timestamp), roughly */
const ROW_OVERHEAD_BYTES = 24;

export interface RecordRow {
  offset: number;
  key: string;
  value: Buffer;
  ts: number;
}

/** rows per INSERT statement of an append, largest first (the last must be 1) */
const INSERT_ROWS = [16, 4, 1];

/** one topic's SQLite file */
export class TopicStore {
  readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly selectNext: Database.Statement;
  private readonly selectFrom: Database.Statement;
  private readonly dataVersion: Database.Statement;
  /** appends a batch: its first offset, and the bytes it wrote, about (keys, values and a row's overhead; what the checkpoint worker counts) */
  private readonly appendTx: (messages: LogMessage[], ts: number) => { first: number; bytes: number };

  /**
   * its WAL checkpoints run in the process's checkpoint worker (see wal-checkpointer.ts); false:
   * inline, SQLite's default; undefined: nothing appended yet (a store only read from starts no worker)
   */
  private background: boolean | undefined = undefined;
  private released = false;

  constructor(
    readonly topic: string,
    readonly file: string,
    private readonly synchronous: 'NORMAL' | 'FULL',
    busyTimeoutMs: number,
    private readonly checkpoints: { background: boolean; onError: (error: Error) => void } = { background: false, onError: () => {} },
    /** stamps the append times */
    private readonly clock: () => number = Date.now,
  ) {
    this.db = openDatabase(file, synchronous, busyTimeoutMs, (db) => {
      // (takes effect only on a file without tables yet: lets retention give freed pages back)
      db.pragma('auto_vacuum = INCREMENTAL');
      db.exec(
        'CREATE TABLE IF NOT EXISTS records (' +
          ' offset INTEGER PRIMARY KEY,' +
          ' key TEXT NOT NULL,' +
          ' value BLOB NOT NULL,' +
          ' ts INTEGER NOT NULL)',
      );
      checkColumns(db, file, 'records', ['offset', 'key', 'value', 'ts']);
    });
    this.insert = this.db.prepare('INSERT INTO records (offset, key, value, ts) VALUES (?, ?, ?, ?)');
    // a batch is written INSERT_ROWS rows per statement where it can (fewer calls into SQLite per record)
    const inserts = INSERT_ROWS.map((n) => ({ n, stmt: n === 1 ? this.insert : this.db.prepare('INSERT INTO records (offset, key, value, ts) VALUES ' + Array(n).fill('(?, ?, ?, ?)').join(', ')), args: new Array(4 * n) }));
    this.selectNext = this.db.prepare('SELECT coalesce(max(offset), -1) + 1 AS next FROM records').pluck();
    this.selectFrom = this.db.prepare(
      'SELECT offset, key, value, ts FROM records WHERE offset >= ? ORDER BY offset LIMIT ?',
    );
    this.dataVersion = this.db.prepare('PRAGMA data_version').pluck();
    const tx = this.db.transaction((messages: LogMessage[], ts: number): { first: number; bytes: number } => {
      const first = this.selectNext.get() as number;
      let i = 0;
      let bytes = 0;
      for (const { n, stmt, args } of inserts) {
        for (; i + n <= messages.length; i += n) {
          for (let j = 0; j < n; j++) {
            const m = messages[i + j];
            args[4 * j] = first + i + j;
            args[4 * j + 1] = m.key;
            args[4 * j + 2] = m.value;
            args[4 * j + 3] = ts;
            bytes += m.key.length + m.value.length + ROW_OVERHEAD_BYTES;
          }
          stmt.run(args);
        }
      }
      // the reused argument arrays let go of this batch's keys and values
      for (const { args } of inserts) args.fill(undefined);
      return { first, bytes };
    });
    // IMMEDIATE: take the write lock before reading max(offset), so two writers never collide.
    this.appendTx = (messages, ts) => tx.immediate(messages, ts);
  }

  /** the batch's first offset and its append time */
  append(messages: LogMessage[]): { first: number; ts: number } {
    const ts = this.clock();
    this.background ??= this.checkpoints.background && walCheckpointer.hold(this.file, this.synchronous, this.checkpoints.onError);
    const { first, bytes } = this.guard(() => this.appendTx(messages, ts));
    if (this.background) walCheckpointer.appended(this.file, bytes);
    return { first, ts };
  }

  next(): number {
    return this.guard(() => this.selectNext.get() as number);
  }

  /** the first offset held (next() when the topic is empty) */
  first(): number {
    return this.guard(() => (this.db.prepare('SELECT min(offset) AS lo FROM records').get() as { lo: number | null }).lo ?? this.next());
  }

  readFrom(offset: number, limit: number): RecordRow[] {
    return this.guard(() => this.selectFrom.all(offset, limit) as RecordRow[]);
  }

  version(): number {
    return this.guard(() => this.dataVersion.get() as number);
  }

  /** closes the file; resolves once the checkpoint worker let go of it too */
  close(): Promise<void> {
    if (this.db.open) this.db.close();
    if (!this.background || this.released) return Promise.resolve();
    this.released = true;
    return walCheckpointer.release(this.file, this.checkpoints.onError);
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw wrapStoreError(err, this.file, `topic "${this.topic}"`);
    }
  }
}

export function toRecord(topic: string, r: RecordRow): LogRecord {
  return { topic, partition: 0, offset: String(r.offset), key: r.key, value: r.value, timestamp: r.ts };
}
