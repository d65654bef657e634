/**
 * WAL checkpoints of the embedded log's topic files, off the appending thread.
 *
 * SQLite in WAL mode writes commits to the write-ahead log and copies them back into the database
 * file in a checkpoint, which it runs by default inside the COMMIT that takes the log past 1,000
 * pages: that append copies about 4 MB and syncs both files before it returns. better-sqlite3 is
 * synchronous, so such an append holds the event loop of the appending thread for as long as the
 * disk takes: measured on the benchmark machine, an append of 200 records took p50 0.4 ms but
 * p99 12 ms and up to 60 ms, every checkpoint landing on one append (and, in the router, on every
 * quote the thread was about to publish).
 *
 * Here a worker thread of the process, with its own connection per file, runs a PASSIVE
 * checkpoint whenever CHECKPOINT_BYTES more have been appended to a file since its last one: it
 * copies what is committed without taking the write lock, so appends go on meanwhile, and the next
 * append after a complete checkpoint starts the log over (SQLite resets a fully copied WAL when a
 * writer begins). The appending connection keeps SQLite's own threshold as a backstop: when the
 * worker falls behind (appends that never pause, a failed or stopped worker) an append
 * checkpoints inline as before, with less left to copy. Durability is SQLite's own: a checkpoint
 * copies committed pages and syncs as the connection's synchronous level says, whichever thread
 * runs it. Plain TypeScript: no Nest.
 */
import { Worker } from 'worker_threads';

/** a background checkpoint is asked for after this many bytes (keys, values, row overhead) appended to a file */
export const CHECKPOINT_BYTES = 256 * 1024;
/** the appending connection's own checkpoint threshold, in pages (SQLite's default, left as it is): the backstop */
const BACKSTOP_PAGES = 1_000;

/** the worker's code: one connection per file, a PASSIVE checkpoint per request, its result back */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('worker_threads');
const Database = require(workerData.sqlite);
const dbs = new Map();
const drop = (file) => {
  const db = dbs.get(file);
  dbs.delete(file);
  try { if (db && db.open) db.close(); } catch (e) { /* closing a failed connection */ }
};
parentPort.on('message', (m) => {
  if (m.type === 'close') { drop(m.file); parentPort.postMessage({ type: 'closed', file: m.file }); return; }
  if (m.type === 'stop') { for (const file of [...dbs.keys()]) drop(file); parentPort.close(); return; }
  let error;
  let copied = 0;
  try {
    let db = dbs.get(m.file);
    if (!db) {
      db = new Database(m.file, { fileMustExist: true, timeout: 0 });
      db.pragma('synchronous = ' + m.synchronous);
      dbs.set(m.file, db);
    }
    copied = db.pragma('wal_checkpoint(PASSIVE)')[0].checkpointed;
  } catch (e) {
    error = String((e && e.message) || e);
    drop(m.file);
  }
  parentPort.postMessage({ type: 'checkpointed', file: m.file, error, copied });
});
`;

/** `copied`: the WAL frames copied into the database file once the checkpoint returned (-1: no WAL) */
type Reply = { type: 'checkpointed'; file: string; error?: string; copied: number } | { type: 'closed'; file: string };

/** a file's checkpoints so far (diagnostics, the adapter's specs) */
export interface CheckpointStatus {
  runs: number;
  failed: number;
  /** one is running now */
  running: boolean;
  /** the most WAL frames a checkpoint found copied into the database file */
  copiedFrames: number;
}

interface FileState {
  /** bytes appended since the last checkpoint request */
  bytes: number;
  /** a checkpoint of the file is running (another is asked for once it is done, if due) */
  running: boolean;
  synchronous: 'NORMAL' | 'FULL';
  /** its holders (its open stores in this process), by where each reports a failure */
  holders: Array<(error: Error) => void>;
  /** its last checkpoint failed (a failure is reported once, until one succeeds again) */
  failing: boolean;
  runs: number;
  failed: number;
  copiedFrames: number;
}

/** a failure of a file's checkpoints, to each of its holders (a reporter that throws does not keep it from the others) */
function report(f: FileState, error: Error): void {
  for (const onError of [...f.holders]) {
    try {
      onError(error);
    } catch {
      // the holder's reporter failed: the others still hear of it
    }
  }
}

/**
 * The process's checkpoint worker, shared by every EmbeddedLog in it: started on the first file,
 * stopped when the last file is let go (it never keeps the process alive).
 */
class WalCheckpointer {
  private worker: Worker | null = null;
  private stopping: Promise<void> | null = null;
  private readonly files = new Map<string, FileState>();
  /** files let go of whose connection in a worker is not closed yet: that worker, and who waits */
  private readonly closing: Array<{ worker: Worker; file: string; resolve: () => void }> = [];
  /** the worker failed to start or died: appends keep SQLite's inline checkpoints */
  private unavailable = false;

  /**
   * Checkpoints of `file` are taken over; false when no worker can run them (the caller keeps
   * SQLite's inline checkpoints then). `onError`: where this holder hears of a failed checkpoint
   * (every holder of the file does); it names the holder when it lets go (see release).
   */
  hold(file: string, synchronous: 'NORMAL' | 'FULL', onError: (error: Error) => void): boolean {
    if (!this.start()) return false;
    const f = this.files.get(file);
    if (f) f.holders.push(onError);
    else this.files.set(file, { bytes: 0, running: false, synchronous, holders: [onError], failing: false, runs: 0, failed: 0, copiedFrames: 0 });
    return true;
  }

  /** `bytes` more were committed to `file`: a checkpoint runs when enough accumulated and none is running */
  appended(file: string, bytes: number): void {
    const f = this.files.get(file);
    if (!f) return;
    f.bytes += bytes;
    this.request(file, f);
  }

  /**
   * The holder that reports to `onError` lets go of `file`; the worker's connection to it closes
   * with the last one (resolved once it is closed: the file is then as SQLite leaves it when its
   * last connection closes), the worker with the last file.
   */
  release(file: string, onError: (error: Error) => void): Promise<void> {
    const f = this.files.get(file);
    if (!f) return Promise.resolve();
    const at = f.holders.indexOf(onError);
    if (at >= 0) f.holders.splice(at, 1);
    if (f.holders.length > 0) return Promise.resolve();
    this.files.delete(file);
    const worker = this.worker;
    if (!worker) return this.stopping ?? Promise.resolve();
    const closed = new Promise<void>((resolve) => this.closing.push({ worker, file, resolve }));
    // whoever awaits it keeps the process alive until the worker answers
    worker.ref();
    worker.postMessage({ type: 'close', file });
    return this.files.size === 0 ? Promise.all([closed, this.stop()]).then(() => undefined) : closed;
  }

  private request(file: string, f: FileState): void {
    if (f.running || f.bytes < CHECKPOINT_BYTES || !this.worker) return;
    f.running = true;
    f.bytes = 0;
    this.worker.postMessage({ type: 'checkpoint', file, synchronous: f.synchronous });
  }

  /** the checkpoints of a file held now (undefined: none) */
  status(file: string): CheckpointStatus | undefined {
    const f = this.files.get(file);
    return f && { runs: f.runs, failed: f.failed, running: f.running, copiedFrames: f.copiedFrames };
  }

  /** the worker is running (some file in this process was appended to and is still open) */
  get active(): boolean {
    return this.worker !== null;
  }

  private onReply(worker: Worker, r: Reply): void {
    if (r.type === 'closed') return this.closed(worker, r.file);
    const f = this.files.get(r.file);
    if (!f) return;
    f.running = false;
    f.runs++;
    if (r.error !== undefined) f.failed++;
    else f.copiedFrames = Math.max(f.copiedFrames, r.copied);
    if (r.error !== undefined && !f.failing) {
      report(f, new Error(`background checkpoint of ${r.file} failed (${r.error}); its appends checkpoint inline past ${BACKSTOP_PAGES} pages until one succeeds`));
    }
    f.failing = r.error !== undefined;
    this.request(r.file, f);
  }

  private start(): boolean {
    if (this.worker) return true;
    if (this.unavailable) return false;
    try {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { sqlite: require.resolve('better-sqlite3') } });
      worker.on('message', (r: Reply) => this.onReply(worker, r));
      worker.on('error', (e) => this.lost(worker, e));
      worker.on('exit', () => this.lost(worker));
      // after the listeners (a 'message' listener refs the worker's port again): it never keeps the process alive by itself
      worker.unref();
      this.worker = worker;
      return true;
    } catch {
      this.unavailable = true;
      return false;
    }
  }

  /** `worker` closed its connection to `file` (every file: it ended): whoever waits for that goes on */
  private closed(worker: Worker, file?: string): void {
    for (let i = this.closing.length - 1; i >= 0; i--) {
      const c = this.closing[i];
      if (c.worker !== worker || (file !== undefined && c.file !== file)) continue;
      this.closing.splice(i, 1);
      c.resolve();
    }
    // nothing more to wait for: the worker no longer keeps the process alive (a stopping one does)
    if (worker === this.worker && !this.closing.some((c) => c.worker === worker)) worker.unref();
  }

  /** the worker ended without being stopped: the files keep their backstop (inline checkpoints) */
  private lost(worker: Worker, error?: Error): void {
    this.closed(worker);
    if (this.worker !== worker || this.stopping) return;
    this.worker = null;
    this.unavailable = true;
    for (const [file, f] of this.files) report(f, new Error(`the WAL checkpoint worker stopped${error ? ` (${error.message})` : ''}; ${file} checkpoints inline past ${BACKSTOP_PAGES} pages`));
  }

  private stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return this.stopping ?? Promise.resolve();
    this.worker = null;
    // whoever awaits the stop (a log's close) keeps the process alive until the worker is gone
    worker.ref();
    this.stopping = new Promise<void>((resolve) => {
      worker.once('exit', () => {
        this.closed(worker);
        resolve();
      });
      worker.postMessage({ type: 'stop' });
    }).finally(() => {
      this.stopping = null;
    });
    return this.stopping;
  }
}

/** the process's checkpointer (one worker per process, whatever number of logs and files) */
export const walCheckpointer = new WalCheckpointer();
