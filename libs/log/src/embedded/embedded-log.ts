/**
 * EmbeddedLog: the default LogPort adapter. Durable, on local disk, no server.
 *
 * Storage: SQLite through better-sqlite3, one database file per topic under
 * `<dataDir>/log/<topic>.sqlite` with a single partition "0"; a record's offset is the row's
 * INTEGER PRIMARY KEY, starting at 0. Committed group positions live in
 * `<dataDir>/log/_groups.sqlite`.
 *
 * Durability: every database runs in WAL mode. `append` writes the whole batch in one
 * transaction and resolves only after COMMIT returned (acknowledged = committed).
 * - synchronous=NORMAL (the default): a commit is written to the WAL file before COMMIT returns,
 *   so it survives a process crash or kill -9 (the OS still holds the pages); a power loss or
 *   kernel crash may roll back the most recent commits, never corrupt the database.
 * - synchronous=FULL: the WAL is fsynced on every commit, so acknowledged records also survive a
 *   power loss, at a higher cost per append.
 * A transaction that did not commit (process killed mid-append) is never visible: SQLite
 * discards it on the next open. There is no half-written record.
 *
 * Processes: several processes may share one dataDir: one writer per topic (a second writer is
 * still safe: offsets are taken inside an IMMEDIATE transaction), many readers, group commits
 * from many processes (busy_timeout waits for the lock). A tailing subscription wakes at once on
 * an append made by this process (an EventEmitter shared per dataDir+topic inside the process),
 * which also hands it the committed records (their offsets, keys, copies of their values and the
 * append time), so it does not read back from the file what this process just wrote; a
 * subscription takes a handed batch only when it starts exactly at its next offset, and reads
 * the file otherwise (records of other processes in between, a backlog past HANDOFF_LIMIT);
 * appends by other processes wake it through a change notification on the log directory (one
 * fs.watch per dataDir in the process, on the topics' write-ahead log files), looked at again
 * after 1 ms and 2 ms in case the notification came before the commit was visible; and it polls
 * `PRAGMA data_version` every `pollIntervalMs` in any case (the fallback where the file system
 * sends no notifications).
 *
 * Handler errors: a subscription whose handler throws (or whose store fails) stops; the batch is
 * not committed (at-least-once: a group resumes at that batch after a restart) and the error is
 * reported to `SubscribeOptions.onError`, or, without one, to the adapter's `onError` option,
 * which defaults to a loud console.error. It is never swallowed and never crashes the process.
 *
 * Corruption: a file that is not a SQLite database, a damaged page or an unexpected schema
 * surfaces as an `EmbeddedLogStoreError` naming the file; nothing is recreated or truncated.
 */
import Database from 'better-sqlite3';
import { EventEmitter } from 'events';
import * as fs from 'fs';
import * as path from 'path';
import type {
  AppendResult,
  BatchHandler,
  LogMessage,
  LogPort,
  LogRecord,
  Positions,
  StartFrom,
  SubscribeOptions,
  Subscription,
} from '../log.port';
import { TopicTrimmer, type TopicRetentionPolicy, type TrimResult } from './retention';
import { walCheckpointer } from './wal-checkpointer';
import { metrics, secondsSince } from '@app/observability';

/** what a record costs in the WAL beyond its key and value (row header, offset, timestamp), roughly */
const ROW_OVERHEAD_BYTES = 24;

export interface EmbeddedLogOptions {
  dataDir: string;
  /** how often a tailing subscription checks for appends by other processes; default 10 ms */
  pollIntervalMs?: number;
  /** SQLite synchronous level: NORMAL (default, survives kill -9) or FULL (also power loss) */
  synchronous?: 'NORMAL' | 'FULL';
  /** how long a writer waits for a lock held by another process; default 5000 ms */
  busyTimeoutMs?: number;
  /**
   * WAL checkpoints of the topic files in a worker thread of the process instead of inside the
   * append that reaches SQLite's threshold (see wal-checkpointer.ts); default true
   */
  backgroundCheckpoints?: boolean;
  /** where a failed subscription (and a failed background checkpoint) reports when it has no onError of its own; default console.error */
  onError?: (error: Error, context: { topic: string; groupId?: string }) => void;
  /**
   * retention per topic (retention.ts): a process that appends to a listed topic deletes its
   * records no longer needed every `retentionEveryMs` (default 60 s); topics not listed keep all
   */
  retention?: Record<string, TopicRetentionPolicy>;
  retentionEveryMs?: number;
  /** the clock that stamps append times and that retention measures ages with; default Date.now */
  clock?: () => number;
}

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

const PARTITION = '0';
const DEFAULT_MAX_BATCH = 1000;
const TOPIC_NAME = /^[A-Za-z0-9._-]{1,200}$/;
const GROUPS_FILE = '_groups.sqlite';
/** delays (ms) of the quick looks after a change notification that showed nothing new yet */
const QUICK_LOOKS = [1, 2];
/** records handed over by in-process appends that a subscription keeps before it reads the file instead */
const HANDOFF_LIMIT = 20_000;

/** an in-process append, committed: offsets first .. first + messages.length - 1 */
interface AppendedBatch {
  first: number;
  messages: LogMessage[];
  ts: number;
}

interface RecordRow {
  offset: number;
  key: string;
  value: Buffer;
  ts: number;
}

/** Process-wide emitters, one per dataDir+topic: every EmbeddedLog instance in the process shares them. */
const appendEmitters = new Map<string, EventEmitter>();
function emitterFor(dataDir: string, topic: string): EventEmitter {
  const k = `${dataDir}\u0000${topic}`;
  let e = appendEmitters.get(k);
  if (!e) {
    e = new EventEmitter();
    e.setMaxListeners(0);
    appendEmitters.set(k, e);
  }
  return e;
}

/**
 * Process-wide watchers of the log directories, one per dataDir, shared by every subscription in
 * the process: a write to `<topic>.sqlite-wal` (an append by any process, this one included)
 * emits 'external' on that topic's emitter. Best effort: where fs.watch fails (no inotify
 * instance left, a file system without notifications) the subscriptions keep polling.
 */
const dirWatchers = new Map<string, { watcher: fs.FSWatcher | null; refs: number }>();
const WAL_SUFFIX = '.sqlite-wal';

function watchLogDir(dataDir: string, logDir: string): void {
  const w = dirWatchers.get(dataDir);
  if (w) {
    w.refs++;
    return;
  }
  const entry: { watcher: fs.FSWatcher | null; refs: number } = { watcher: null, refs: 1 };
  dirWatchers.set(dataDir, entry);
  try {
    const watcher = fs.watch(logDir, { persistent: false }, (_event, filename) => {
      const name = filename ? String(filename) : '';
      if (!name.endsWith(WAL_SUFFIX)) return;
      appendEmitters.get(`${dataDir}\u0000${name.slice(0, -WAL_SUFFIX.length)}`)?.emit('external');
    });
    watcher.on('error', () => {
      watcher.close();
      if (entry.watcher === watcher) entry.watcher = null;
    });
    entry.watcher = watcher;
  } catch {
    /* no notifications here: polling only */
  }
}

function unwatchLogDir(dataDir: string): void {
  const w = dirWatchers.get(dataDir);
  if (!w || --w.refs > 0) return;
  dirWatchers.delete(dataDir);
  w.watcher?.close();
}

function describeSqliteError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e && e.code ? `${e.code}: ${e.message}` : String((e && e.message) || err);
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  return code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB');
}

/** rows per INSERT statement of an append, largest first (the last must be 1) */
const INSERT_ROWS = [16, 4, 1];

/** one topic's SQLite file (exported for the adapter's own specs) */
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

function wrapStoreError(err: unknown, file: string, what: string): Error {
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

function openDatabase(
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

function checkColumns(db: Database.Database, file: string, table: string, expected: string[]): void {
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

function parseOffset(value: string | undefined, what: string): number {
  if (value === undefined) return 0;
  if (!/^\d+$/.test(value)) throw new Error(`invalid ${what} offset "${value}"`);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`${what} offset "${value}" is out of range`);
  return n;
}

export class EmbeddedLog implements LogPort {
  readonly driver = 'embedded' as const;
  readonly dataDir: string;
  private readonly logDir: string;
  private readonly pollIntervalMs: number;
  private readonly synchronous: 'NORMAL' | 'FULL';
  private readonly busyTimeoutMs: number;
  private readonly onError: (error: Error, context: { topic: string; groupId?: string }) => void;
  /** where a failed background checkpoint is reported (nothing is lost: the file checkpoints inline as a backstop) */
  private readonly onCheckpointError: (error: Error, topic: string) => void;
  private readonly backgroundCheckpoints: boolean;
  private readonly topics = new Map<string, TopicStore>();
  private groupsDb: Database.Database | undefined;
  private groupStmts:
    | { upsert: Database.Statement; select: Database.Statement; commitTx: (rows: Array<[string, string, string, number]>) => void }
    | undefined;
  private readonly subscriptions = new Set<EmbeddedSubscription>();
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly retention: Record<string, TopicRetentionPolicy>;
  private readonly retentionEveryMs: number;
  private readonly clock: () => number;
  /** the retention loop of each topic this process appends to */
  private readonly trimmers = new Map<string, { trimmer: TopicTrimmer; timer: NodeJS.Timeout | null; running: Promise<TrimResult> | null }>();

  constructor(options: EmbeddedLogOptions) {
    if (!options || !options.dataDir) throw new Error('EmbeddedLog needs a dataDir');
    this.dataDir = path.resolve(options.dataDir);
    this.logDir = path.join(this.dataDir, 'log');
    this.pollIntervalMs = Math.max(1, options.pollIntervalMs ?? 10);
    this.synchronous = options.synchronous ?? 'NORMAL';
    if (this.synchronous !== 'NORMAL' && this.synchronous !== 'FULL') {
      throw new Error(`EmbeddedLog: synchronous must be NORMAL or FULL, got ${String(this.synchronous)}`);
    }
    this.busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    const report = options.onError;
    this.onCheckpointError = report ? (error, topic) => report(error, { topic }) : (error) => console.error(`EmbeddedLog: ${error.message}`);
    this.backgroundCheckpoints = options.backgroundCheckpoints ?? true;
    this.retention = options.retention ?? {};
    this.retentionEveryMs = Math.max(1, options.retentionEveryMs ?? 60_000);
    this.clock = options.clock ?? Date.now;
    this.onError =
      options.onError ??
      ((error, ctx) => {
        const bar = '!'.repeat(72);
        console.error(
          `${bar}\nEmbeddedLog: subscription to topic "${ctx.topic}"` +
            `${ctx.groupId ? ` (group "${ctx.groupId}")` : ''} STOPPED after an error:\n` +
            `${error.stack ?? error.message}\n${bar}`,
        );
      });
  }

  async ensureTopic(topic: string): Promise<void> {
    this.store(topic, true);
  }

  async append(topic: string, messages: LogMessage[]): Promise<AppendResult[]> {
    for (const m of messages) {
      if (typeof m.key !== 'string') throw new TypeError('LogMessage.key must be a string');
      if (!Buffer.isBuffer(m.value)) throw new TypeError('LogMessage.value must be a Buffer');
    }
    const store = this.store(topic, true)!;
    if (messages.length === 0) return [];
    const started = process.hrtime.bigint();
    const { first, ts } = store.append(messages);
    metrics.logAppend('embedded', topic, secondsSince(started));
    if (this.retention[topic] && !this.trimmers.has(topic)) this.startRetention(topic, store);
    const emitter = emitterFor(this.dataDir, topic);
    // copies of the values only when a subscription of this process will take them
    if (emitter.listenerCount('append') > 0) {
      const batch: AppendedBatch = { first, messages: messages.map((m) => ({ key: m.key, value: Buffer.from(m.value) })), ts };
      emitter.emit('append', batch);
    }
    const results: AppendResult[] = new Array(messages.length);
    for (let i = 0; i < messages.length; i++) results[i] = { partition: 0, offset: String(first + i) };
    return results;
  }

  async read(topic: string, from: Positions | 'beginning', limit: number): Promise<LogRecord[]> {
    const start = from === 'beginning' ? 0 : parseOffset(from[PARTITION], 'read');
    if (!Number.isInteger(limit) || limit < 0) throw new Error(`invalid read limit ${limit}`);
    if (limit === 0) return [];
    const store = this.store(topic, false);
    if (!store) return [];
    return store.readFrom(start, limit).map((r) => toRecord(topic, r));
  }

  async beginPositions(topic: string): Promise<Positions> {
    const store = this.store(topic, false);
    return { [PARTITION]: String(store ? store.first() : 0) };
  }

  /**
   * One retention pass over `topic` now (its policy from the options; nothing without one):
   * what the periodic pass of an appending process does.
   */
  async trim(topic: string): Promise<TrimResult> {
    const store = this.store(topic, false);
    if (!store || !this.retention[topic]) return { deleted: 0, firstKept: 0, steps: 0, longestStepMs: 0 };
    const t = this.trimmerOf(topic, store);
    while (t.running) await t.running.catch(() => undefined);
    t.running = t.trimmer.pass();
    try {
      return await t.running;
    } finally {
      t.running = null;
    }
  }

  private trimmerOf(topic: string, store: TopicStore): { trimmer: TopicTrimmer; timer: NodeJS.Timeout | null; running: Promise<TrimResult> | null } {
    let t = this.trimmers.get(topic);
    if (!t) this.trimmers.set(topic, (t = { trimmer: new TopicTrimmer(store.db, this.retention[topic], this.clock), timer: null, running: null }));
    return t;
  }

  private startRetention(topic: string, store: TopicStore): void {
    const t = this.trimmerOf(topic, store);
    const tick = (): void => {
      t.timer = null;
      if (this.closed) return;
      this.trim(topic)
        .catch((e: Error) => this.onCheckpointError(new Error(`retention of topic "${topic}" failed: ${e.message}`), topic))
        .finally(() => {
          if (!this.closed) t.timer = setTimeout(tick, this.retentionEveryMs).unref();
        });
    };
    t.timer = setTimeout(tick, Math.min(5_000, this.retentionEveryMs)).unref();
  }

  async endPositions(topic: string): Promise<Positions> {
    const store = this.store(topic, false);
    return { [PARTITION]: String(store ? store.next() : 0) };
  }

  async subscribe(topic: string, options: SubscribeOptions, handler: BatchHandler): Promise<Subscription> {
    const store = this.store(topic, true)!;
    const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error(`invalid maxBatch ${maxBatch}`);
    let start: number | undefined;
    if (options.groupId) {
      const c = (await this.committed(options.groupId, topic))[PARTITION];
      if (c !== undefined) start = parseOffset(c, 'committed');
    }
    if (start === undefined) start = this.startOffset(store, options.from ?? 'beginning');
    const onError =
      options.onError ?? ((err: Error) => this.onError(err, { topic, groupId: options.groupId }));
    const sub = new EmbeddedSubscription({
      store,
      topic,
      groupId: options.groupId,
      start,
      maxBatch,
      handler,
      emitter: emitterFor(this.dataDir, topic),
      pollIntervalMs: this.pollIntervalMs,
      watch: () => watchLogDir(this.dataDir, this.logDir),
      unwatch: () => unwatchLogDir(this.dataDir),
      commit: (groupId, next) => this.commitSync(groupId, topic, { [PARTITION]: String(next) }),
      onError,
      onClosed: (s) => this.subscriptions.delete(s),
    });
    this.subscriptions.add(sub);
    sub.start();
    return sub;
  }

  async commit(groupId: string, topic: string, positions: Positions): Promise<void> {
    this.commitSync(groupId, topic, positions);
  }

  async committed(groupId: string, topic: string): Promise<Positions> {
    this.assertOpen();
    const groupsFile = path.join(this.logDir, GROUPS_FILE);
    if (!this.groupsDb && !fs.existsSync(groupsFile)) return {};
    const g = this.groups();
    try {
      const rows = g.select.all(groupId, topic) as Array<{ partition: string; offset: number }>;
      const out: Positions = {};
      for (const r of rows) out[r.partition] = String(r.offset);
      return out;
    } catch (err) {
      throw wrapStoreError(err, groupsFile, 'consumer groups');
    }
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      fs.mkdirSync(this.logDir, { recursive: true });
      fs.accessSync(this.logDir, fs.constants.R_OK | fs.constants.W_OK);
      this.groups().select.all('', '');
      for (const s of this.topics.values()) s.next();
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    if (!this.closing) {
      this.closed = true;
      this.closing = (async () => {
        await Promise.allSettled([...this.subscriptions].map((s) => s.close()));
        for (const t of this.trimmers.values()) {
          if (t.timer) clearTimeout(t.timer);
          await t.running?.catch(() => undefined);
        }
        this.trimmers.clear();
        const released = [...this.topics.values()].map((s) => s.close());
        this.topics.clear();
        if (this.groupsDb?.open) this.groupsDb.close();
        this.groupsDb = undefined;
        this.groupStmts = undefined;
        await Promise.all(released);
      })();
    }
    return this.closing;
  }

  // ---- internals ----

  private assertOpen(): void {
    if (this.closed) throw new Error('EmbeddedLog is closed');
  }

  private topicFile(topic: string): string {
    if (!TOPIC_NAME.test(topic) || topic.startsWith('_') || topic === '.' || topic === '..') {
      throw new Error(`invalid topic name "${topic}" (letters, digits, '.', '_', '-'; not starting with '_')`);
    }
    return path.join(this.logDir, `${topic}.sqlite`);
  }

  /** The open store for a topic; with create=false, undefined when the topic does not exist yet. */
  private store(topic: string, create: boolean): TopicStore | undefined {
    this.assertOpen();
    let s = this.topics.get(topic);
    if (s) return s;
    const file = this.topicFile(topic);
    if (!create && !fs.existsSync(file)) return undefined;
    s = new TopicStore(topic, file, this.synchronous, this.busyTimeoutMs, {
      background: this.backgroundCheckpoints,
      onError: (error) => this.onCheckpointError(error, topic),
    }, this.clock);
    this.topics.set(topic, s);
    return s;
  }

  private startOffset(store: TopicStore, from: StartFrom): number {
    if (from === 'beginning') return 0;
    if (from === 'end') return store.next();
    return parseOffset(from[PARTITION], 'start');
  }

  private groups(): NonNullable<EmbeddedLog['groupStmts']> {
    this.assertOpen();
    if (this.groupStmts) return this.groupStmts;
    const file = path.join(this.logDir, GROUPS_FILE);
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
    const tx = db.transaction((rows: Array<[string, string, string, number]>) => {
      const now = Date.now();
      for (const [g, t, p, o] of rows) upsert.run(g, t, p, o, now);
    });
    this.groupsDb = db;
    this.groupStmts = { upsert, select, commitTx: (rows) => tx.immediate(rows) };
    return this.groupStmts;
  }

  private commitSync(groupId: string, topic: string, positions: Positions): void {
    if (!groupId) throw new Error('commit needs a groupId');
    this.topicFile(topic); // validates the name
    const rows: Array<[string, string, string, number]> = [];
    for (const [p, o] of Object.entries(positions)) {
      if (p !== PARTITION) throw new Error(`embedded log topics have one partition "0"; got partition "${p}"`);
      rows.push([groupId, topic, p, parseOffset(o, 'commit')]);
    }
    if (rows.length === 0) return;
    const g = this.groups();
    try {
      g.commitTx(rows);
    } catch (err) {
      throw wrapStoreError(err, path.join(this.logDir, GROUPS_FILE), 'consumer groups');
    }
  }
}

function toRecord(topic: string, r: RecordRow): LogRecord {
  return { topic, partition: 0, offset: String(r.offset), key: r.key, value: r.value, timestamp: r.ts };
}

interface SubscriptionParams {
  store: TopicStore;
  topic: string;
  groupId?: string;
  start: number;
  maxBatch: number;
  handler: BatchHandler;
  emitter: EventEmitter;
  pollIntervalMs: number;
  /** subscribe to / release the change notifications of the log directory */
  watch: () => void;
  unwatch: () => void;
  commit: (groupId: string, next: number) => void;
  onError: (err: Error) => void;
  onClosed: (s: EmbeddedSubscription) => void;
}

/** One tailing subscription: a loop of read batch -> await handler -> commit -> wait for more. */
class EmbeddedSubscription implements Subscription {
  private next: number;
  private stopped = false;
  private wake: (() => void) | undefined;
  /** set by an in-process append; cleared before each read, so no wake-up is ever lost */
  private pending = false;
  private loop: Promise<void> | undefined;
  /** committed batches handed over by in-process appends, oldest first, and their record count */
  private handed: AppendedBatch[] = [];
  private handedCount = 0;
  private readonly onAppend = (batch?: AppendedBatch): void => {
    if (batch !== undefined && batch.first + batch.messages.length > this.next) {
      if (this.handedCount + batch.messages.length > HANDOFF_LIMIT) {
        // a backlog: the file has it all
        this.handed = [];
        this.handedCount = 0;
      } else {
        this.handed.push(batch);
        this.handedCount += batch.messages.length;
      }
    }
    this.pending = true;
    this.wakeUp();
  };
  /**
   * after a change notification: how many quick looks (1 ms, then 2 ms apart) are still due, in
   * case the notification came before the commit was visible to readers
   */
  private quickLooks = 0;
  private readonly onExternal = (): void => {
    this.quickLooks = QUICK_LOOKS.length;
    this.onAppend();
  };

  /**
   * Up to maxBatch records from the handed batches when they start exactly at `next` (stale ones
   * dropped); null when the file must be read (nothing handed, or records in between that were
   * not: another process's, or dropped past HANDOFF_LIMIT).
   */
  private takeHanded(): LogRecord[] | null {
    const { topic, maxBatch } = this.p;
    while (this.handed.length > 0) {
      const b = this.handed[0];
      if (b.first + b.messages.length > this.next) break;
      this.handed.shift();
      this.handedCount -= b.messages.length;
    }
    if (this.handed.length === 0 || this.handed[0].first > this.next) return null;
    const out: LogRecord[] = [];
    let at = this.next;
    while (out.length < maxBatch && this.handed.length > 0) {
      const b = this.handed[0];
      if (b.first > at) break;
      const from = at - b.first;
      const upto = Math.min(b.messages.length, from + (maxBatch - out.length));
      for (let i = from; i < upto; i++) {
        const m = b.messages[i];
        out.push({ topic, partition: 0, offset: String(b.first + i), key: m.key, value: m.value, timestamp: b.ts });
      }
      at = b.first + upto;
      if (upto === b.messages.length) {
        this.handed.shift();
        this.handedCount -= b.messages.length;
      }
    }
    return out;
  }

  constructor(private readonly p: SubscriptionParams) {
    this.next = p.start;
  }

  start(): void {
    this.p.emitter.on('append', this.onAppend);
    this.p.emitter.on('external', this.onExternal);
    this.p.watch();
    this.loop = this.run();
  }

  /** the next offset this subscription will deliver */
  get position(): string {
    return String(this.next);
  }

  close(): Promise<void> {
    this.stopped = true;
    this.wakeUp();
    return this.loop ?? Promise.resolve();
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private async run(): Promise<void> {
    const { store, handler, maxBatch, groupId } = this.p;
    try {
      let version = store.version();
      while (!this.stopped) {
        this.pending = false;
        let records = this.takeHanded();
        if (records === null) records = store.readFrom(this.next, maxBatch).map((r) => toRecord(this.p.topic, r));
        if (records.length > 0) {
          await handler(records);
          const after = Number(records[records.length - 1].offset) + 1;
          if (groupId) this.p.commit(groupId, after);
          this.next = after;
          continue;
        }
        // Nothing new: sleep until an append (in-process, or noticed on the file), a
        // data_version change, or close().
        while (!this.stopped && !this.pending) {
          let timer: NodeJS.Timeout | undefined;
          const sleepMs =
            this.quickLooks > 0 ? QUICK_LOOKS[QUICK_LOOKS.length - this.quickLooks--] : this.p.pollIntervalMs;
          const woken = await new Promise<boolean>((resolve) => {
            this.wake = () => resolve(true);
            timer = setTimeout(() => resolve(false), sleepMs);
          });
          clearTimeout(timer);
          this.wake = undefined;
          if (woken || this.stopped) break;
          const v = store.version();
          if (v !== version) {
            version = v;
            break;
          }
        }
      }
    } catch (err) {
      this.stopped = true;
      const error = err instanceof Error ? err : new Error(String(err));
      try {
        this.p.onError(error);
      } catch (reportErr) {
        console.error('EmbeddedLog: the onError callback threw', reportErr, 'while reporting', error);
      }
    } finally {
      this.p.emitter.off('append', this.onAppend);
      this.p.emitter.off('external', this.onExternal);
      this.p.unwatch();
      this.p.onClosed(this);
    }
  }
}
