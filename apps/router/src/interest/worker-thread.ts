/** Starting and stopping the router's worker threads (InterestHost's quote workers, WorkerSearcher's search worker). */
import { readlinkSync } from 'fs';
import { setPriority } from 'os';
import * as path from 'path';
import { Logger, type LogLevel } from '@nestjs/common';
import { Worker } from 'worker_threads';

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** the log levels the app's logger was given (none given: Nest's default, every level), for a worker to log the same */
export function enabledLogLevels(): LogLevel[] {
  const given = (Logger as unknown as { logLevels?: LogLevel[] }).logLevels;
  return given === undefined ? LOG_LEVELS : LOG_LEVELS.filter((l) => Logger.isLevelEnabled(l));
}

/**
 * A worker thread running the compiled `<name>.js` beside this file with `data`; from TypeScript
 * sources (tests, benchmarks, `node -r ./test/support/ts-register.js`), its .ts through that
 * transpile-on-require hook.
 */
export function startWorkerThread(name: string, data: unknown): Worker {
  const fromSource = __filename.endsWith('.ts');
  const entry = path.join(__dirname, fromSource ? `${name}.ts` : `${name}.js`);
  const execArgv = fromSource ? ['-r', path.join(__dirname, '..', '..', '..', '..', 'test', 'support', 'ts-register.js')] : [];
  return new Worker(entry, { workerData: data, execArgv });
}

/** asks `worker` to close (posting `close`) and resolves once it exited; terminated if it has not after `timeoutMs` */
export function stopWorkerThread(worker: Worker | null, close: unknown, timeoutMs: number): Promise<void> {
  if (!worker) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => void worker.terminate(), timeoutMs);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    worker.postMessage(close);
  });
}

/**
 * The calling thread runs at the lowest scheduling priority (nice 19) from now on, where the
 * system lets a thread have its own (Linux: /proc/thread-self names it): it then takes what the
 * other threads of the machine leave. Elsewhere it keeps the process's priority. Returns whether
 * it was lowered.
 */
export function lowerThisThreadsPriority(): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, 19);
    return true;
  } catch {
    return false;
  }
}
