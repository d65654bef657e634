/**
 * How a tailing subscription learns of appends, process-wide: one EventEmitter per dataDir+topic
 * shared by every EmbeddedLog instance of the process ('append' carries the committed batch of an
 * in-process append; 'external' says the topic's write-ahead log changed), and one directory
 * watcher per dataDir that turns writes to a topic's WAL file (any process's) into 'external'.
 */
import { EventEmitter } from 'events';
import * as fs from 'fs';
import type { LogMessage } from '../log.port';

/** an in-process append, committed: offsets first .. first + messages.length - 1 */
export interface AppendedBatch {
  first: number;
  messages: LogMessage[];
  ts: number;
}

/** Process-wide emitters, one per dataDir+topic: every EmbeddedLog instance in the process shares them. */
const appendEmitters = new Map<string, EventEmitter>();
export function emitterFor(dataDir: string, topic: string): EventEmitter {
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

export function watchLogDir(dataDir: string, logDir: string): void {
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

export function unwatchLogDir(dataDir: string): void {
  const w = dirWatchers.get(dataDir);
  if (!w || --w.refs > 0) return;
  dirWatchers.delete(dataDir);
  w.watcher?.close();
}
