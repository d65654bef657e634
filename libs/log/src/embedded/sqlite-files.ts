/**
 * The SQLite files of the embedded log: opening one in WAL mode with the adapter's synchronous
 * level and busy timeout, checking its schema, and turning SQLite failures (a corrupt file, a
 * wrong schema, an unreadable path) into an EmbeddedLogStoreError naming the file.
 */
import Database from 'better-sqlite3';
import * as fs from 'fs';
import * as path from 'path';

/** A store that cannot be opened or read: corrupt file, wrong schema, unreadable path. */
export class EmbeddedLogStoreError extends Error {
  constructor(
    message: string,
    readonly file: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'EmbeddedLogStoreError';
  }
}

function describeSqliteError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e && e.code ? `${e.code}: ${e.message}` : String((e && e.message) || err);
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  return code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB');
}

export function wrapStoreError(err: unknown, file: string, what: string): Error {
  if (err instanceof EmbeddedLogStoreError) return err;
  if (isCorruption(err)) {
    return new EmbeddedLogStoreError(
      `embedded log store for ${what} at ${file} is corrupt or not a SQLite database ` +
        `(${describeSqliteError(err)}); it was left untouched: restore it from a backup or move it away`,
      file,
      err,
    );
  }
  const code = (err as { code?: string })?.code;
  if (code && code.startsWith('SQLITE_')) {
    return new EmbeddedLogStoreError(
      `embedded log store for ${what} at ${file} failed (${describeSqliteError(err)})`,
      file,
      err,
    );
  }
  return err instanceof Error ? err : new Error(String(err));
}

export function openDatabase(
  file: string,
  synchronous: 'NORMAL' | 'FULL',
  busyTimeoutMs: number,
  init: (db: Database.Database) => void,
): Database.Database {
  let db: Database.Database | undefined;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    db = new Database(file, { timeout: busyTimeoutMs });
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (String(mode).toLowerCase() !== 'wal') {
      throw new EmbeddedLogStoreError(`could not switch ${file} to WAL mode (got ${String(mode)})`, file);
    }
    db.pragma(`synchronous = ${synchronous}`);
    init(db);
    return db;
  } catch (err) {
    try {
      db?.close();
    } catch {
      /* already failing */
    }
    throw wrapStoreError(err, file, path.basename(file));
  }
}

export function checkColumns(db: Database.Database, file: string, table: string, expected: string[]): void {
  const cols = (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
  for (const c of expected) {
    if (!cols.includes(c)) {
      throw new EmbeddedLogStoreError(
        `embedded log store ${file} has an unexpected schema: table ${table} lacks column ${c} ` +
          `(found ${cols.join(', ') || 'no such table'}); refusing to use it`,
        file,
      );
    }
  }
}
