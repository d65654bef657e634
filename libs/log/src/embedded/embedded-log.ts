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
import { emitterFor, unwatchLogDir, watchLogDir, type AppendedBatch } from './append-notifications';
import { EmbeddedSubscription } from './embedded-subscription';
import { GroupOffsets, type GroupOffsetRow } from './group-offsets';
import { TopicTrimmer, type TopicRetentionPolicy, type TrimResult } from './retention';
import { toRecord, TopicStore } from './topic-store';
import { metrics, secondsSince } from '@app/observability';

export { EmbeddedLogStoreError } from './sqlite-files';

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

const PARTITION = '0';
const DEFAULT_MAX_BATCH = 1000;
const TOPIC_NAME = /^[A-Za-z0-9._-]{1,200}$/;
const GROUPS_FILE = '_groups.sqlite';

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
  private readonly groupOffsets: GroupOffsets;
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
    this.groupOffsets = new GroupOffsets(path.join(this.logDir, GROUPS_FILE), this.synchronous, this.busyTimeoutMs);
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
    if (!this.groupOffsets.present) return {};
    return this.groups().read(groupId, topic);
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      fs.mkdirSync(this.logDir, { recursive: true });
      fs.accessSync(this.logDir, fs.constants.R_OK | fs.constants.W_OK);
      this.groups().check();
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
        this.groupOffsets.close();
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

  /** the consumer groups' positions, while the log is open */
  private groups(): GroupOffsets {
    this.assertOpen();
    return this.groupOffsets;
  }

  private commitSync(groupId: string, topic: string, positions: Positions): void {
    if (!groupId) throw new Error('commit needs a groupId');
    this.topicFile(topic); // validates the name
    const rows: GroupOffsetRow[] = [];
    for (const [p, o] of Object.entries(positions)) {
      if (p !== PARTITION) throw new Error(`embedded log topics have one partition "0"; got partition "${p}"`);
      rows.push([groupId, topic, p, parseOffset(o, 'commit')]);
    }
    if (rows.length === 0) return;
    this.groups().write(rows);
  }
}
