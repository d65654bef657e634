/**
 * RouteSearcher on a worker thread (search-worker.ts) with its own projection of the log: the
 * background route searches of the live stream run beside the thread that replays the routes,
 * on a core of their own when the machine has one free. Not ready until the
 * worker's projection has caught up; a worker that dies fails the requests it held and is started
 * again after WORKER_RESTART_MS (doubling while it fails before it is ready, up to
 * WORKER_RESTART_MAX_MS); meanwhile the service searches on its own thread.
 */
import { Logger } from '@nestjs/common';
import type { Worker } from 'worker_threads';
import type { RouteRequest } from '../../../../libs/amm/src/routing/route-search';
import type { AppConfig } from '../../../../libs/config/src/config';
import type { Found, RouteSearcher } from './route-searcher';
import type { FromSearchWorker, SearchWorkerData, ToSearchWorker } from './search-worker';
import { enabledLogLevels, startWorkerThread, stopWorkerThread } from './worker-thread';

export const SEARCHER_RESTART_MS = 1_000;
const SEARCHER_RESTART_MAX_MS = 30_000;
const SEARCHER_CLOSE_MS = 5_000;

export class WorkerSearcher implements RouteSearcher {
  private readonly logger = new Logger('WorkerSearcher');
  private worker: Worker | null = null;
  private isReady = false;
  private closing = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (f: Found) => void; reject: (e: Error) => void }>();
  /** workers started so far (the first included) */
  started = 0;
  /** requests answered so far */
  answered = 0;

  constructor(private readonly config: AppConfig) {}

  get ready(): boolean {
    return this.isReady;
  }

  /** starts a worker; resolves once it is ready (its projection caught up) */
  private start(): Promise<void> {
    this.started++;
    const worker = this.spawn({ config: this.config, logLevels: enabledLogLevels() });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.on('message', (m: FromSearchWorker) => {
        if (m.type === 'found' || m.type === 'error') {
          const w = this.waiting.get(m.id);
          this.waiting.delete(m.id);
          this.answered++;
          if (m.type === 'found') w?.resolve(m.found);
          else w?.reject(new Error(`route search failed: ${m.message}`));
        } else if (m.type === 'ready') {
          ready = true;
          this.isReady = true;
          resolve();
        } else this.logger.error(`search worker failed: ${m.message}`);
      });
      worker.on('error', (e) => this.logger.error(`search worker: ${e.stack ?? e.message}`));
      worker.once('exit', (code) => {
        if (this.worker === worker) this.worker = null;
        this.isReady = false;
        for (const w of this.waiting.values()) w.reject(new Error(`search worker exited (${code})`));
        this.waiting.clear();
        if (!ready) reject(new Error(`search worker exited (${code}) before it was ready`));
        else if (!this.closing) {
          this.logger.error(`search worker exited (${code})`);
          this.restart(SEARCHER_RESTART_MS);
        }
      });
    });
  }

  /** a new worker thread running search-worker with `data` */
  protected spawn(data: SearchWorkerData): Worker {
    return startWorkerThread('search-worker', data);
  }

  /** starts the worker, and again whenever it dies (see above); not awaited: the service searches on its own thread until it is ready */
  run(): void {
    this.launch(SEARCHER_RESTART_MS);
  }

  /** start a worker; when it fails before it is ready, start another in `retryMs` (doubling each time) */
  private launch(retryMs: number): void {
    this.start().catch((e: Error) => {
      this.logger.error(e.message);
      if (!this.closing) this.restart(retryMs);
    });
  }

  private restart(delayMs: number): void {
    this.logger.error(`starting the search worker again in ${delayMs} ms`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.closing) this.launch(Math.min(SEARCHER_RESTART_MAX_MS, delayMs * 2));
    }, delayMs);
  }

  search(req: RouteRequest, max: number): Promise<Found> {
    const worker = this.worker;
    if (!worker || !this.isReady) return Promise.reject(new Error('the search worker is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ type: 'search', id, req, max } satisfies ToSearchWorker);
    });
  }

  close(): Promise<void> {
    this.closing = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    return stopWorkerThread(this.worker, { type: 'close' } satisfies ToSearchWorker, SEARCHER_CLOSE_MS);
  }
}

/** SEARCH_WORKER=on: a WorkerSearcher, started (see run); off: none (the service searches on its own thread) */
export function searcherFor(config: AppConfig): WorkerSearcher | null {
  if (config.searchWorker !== 'on') return null;
  const searcher = new WorkerSearcher(config);
  searcher.run();
  return searcher;
}
