/**
 * The committed positions of consumer groups: one SQLite file (`_groups.sqlite` in the log
 * directory) shared by every topic and process, opened on first use; a commit of several
 * partitions is one IMMEDIATE transaction.
 */
import Database from 'better-sqlite3';
import * as fs from 'fs';
import type { Positions } from '../log.port';
import { checkColumns, openDatabase, wrapStoreError } from './sqlite-files';

/** one committed position: group, topic, partition, next offset */
export type GroupOffsetRow = [string, string, string, number];

interface GroupStatements {
  upsert: Database.Statement;
  select: Database.Statement;
  commitTx: (rows: GroupOffsetRow[]) => void;
}

export class GroupOffsets {
  private db: Database.Database | undefined;
  private stmts: GroupStatements | undefined;

  constructor(
    readonly file: string,
    private readonly synchronous: 'NORMAL' | 'FULL',
    private readonly busyTimeoutMs: number,
  ) {}

  /** open already, or on disk: there may be positions to read */
  get present(): boolean {
    return this.db !== undefined || fs.existsSync(this.file);
  }

  /** the positions committed for `groupId` on `topic`, by partition (opens the file) */
  read(groupId: string, topic: string): Positions {
    const g = this.open();
    try {
      const rows = g.select.all(groupId, topic) as Array<{ partition: string; offset: number }>;
      const out: Positions = {};
      for (const r of rows) out[r.partition] = String(r.offset);
      return out;
    } catch (err) {
      throw wrapStoreError(err, this.file, 'consumer groups');
    }
  }

  /** commits the rows in one transaction (opens the file) */
  write(rows: GroupOffsetRow[]): void {
    const g = this.open();
    try {
      g.commitTx(rows);
    } catch (err) {
      throw wrapStoreError(err, this.file, 'consumer groups');
    }
  }

  /** a read that fails when the file cannot be opened or read (the log's health check) */
  check(): void {
    this.open().select.all('', '');
  }

  close(): void {
    if (this.db?.open) this.db.close();
    this.db = undefined;
    this.stmts = undefined;
  }

  private open(): GroupStatements {
    if (this.stmts) return this.stmts;
    const file = this.file;
    const db = openDatabase(file, this.synchronous, this.busyTimeoutMs, (d) => {
      d.exec(
        'CREATE TABLE IF NOT EXISTS group_offsets (' +
          ' group_id TEXT NOT NULL, topic TEXT NOT NULL, partition TEXT NOT NULL,' +
          ' offset INTEGER NOT NULL, updated_at INTEGER NOT NULL,' +
          ' PRIMARY KEY (group_id, topic, partition))',
      );
      checkColumns(d, file, 'group_offsets', ['group_id', 'topic', 'partition', 'offset']);
    });
    const upsert = db.prepare(
      'INSERT INTO group_offsets (group_id, topic, partition, offset, updated_at) VALUES (?, ?, ?, ?, ?)' +
        ' ON CONFLICT (group_id, topic, partition) DO UPDATE SET offset = excluded.offset, updated_at = excluded.updated_at',
    );
    const select = db.prepare('SELECT partition, offset FROM group_offsets WHERE group_id = ? AND topic = ?');
    const tx = db.transaction((rows: GroupOffsetRow[]) => {
      const now = Date.now();
      for (const [g, t, p, o] of rows) upsert.run(g, t, p, o, now);
    });
    this.db = db;
    this.stmts = { upsert, select, commitTx: (rows) => tx.immediate(rows) };
    return this.stmts;
  }
}
