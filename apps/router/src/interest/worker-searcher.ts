/**
 * RouteSearcher on a worker thread (search-worker.ts) with its own projection of the log: the
 * background route searches of the live stream run beside the thread that replays the routes,
 * on a core of their own when the machine has one free. Not ready until the
 * worker's projection has caught up; a worker that dies fails the requests it held and is started
 * again after SEARCHER_RESTART_MS (a KeptWorker: doubling while it fails before it is ready);
 * meanwhile the service searches on its own thread.
 */
import { Logger } from '@nestjs/common';
import type { Worker } from 'worker_threads';
import type { AppConfig } from '@app/config';
import { KeptWorker } from './kept-worker';
import type { Found, RouteSearcher, SearchRequest } from './route-searcher';
import type { FromSearchWorker, SearchWorkerData, ToSearchWorker } from './search-worker';
import { enabledLogLevels, startWorkerThread } from './worker-thread';

export const SEARCHER_RESTART_MS = 1_000;

export class WorkerSearcher implements RouteSearcher {
  private readonly logger = new Logger('WorkerSearcher');
  private readonly kept: KeptWorker<FromSearchWorker>;
  /** requests answered so far */
  answered = 0;

  constructor(private readonly config: AppConfig) {
    this.kept = new KeptWorker<FromSearchWorker>({
      name: 'search worker',
      spawn: () => this.spawn({ config: this.config, logLevels: enabledLogLevels() }),
      onMessage: (m) => this.received(m),
      closeMessage: { type: 'close' } satisfies ToSearchWorker,
      restartMs: SEARCHER_RESTART_MS,
      logger: this.logger,
    });
  }

  get ready(): boolean {
    return this.kept.ready;
  }

  /** workers started so far (the first included) */
  get started(): number {
    return this.kept.started;
  }

  private received(m: Exclude<FromSearchWorker, { type: 'ready' }>): void {
    if (m.type === 'found') this.kept.answer(m.id, m.found);
    else if (m.type === 'error') this.kept.fail(m.id, new Error(`route search failed: ${m.message}`));
    else return this.logger.error(`search worker failed: ${m.message}`);
    this.answered++;
  }

  /** a new worker thread running search-worker with `data` */
  protected spawn(data: SearchWorkerData): Worker {
    return startWorkerThread('search-worker', data);
  }

  /** starts the worker, and again whenever it dies (see above); not awaited: the service searches on its own thread until it is ready */
  run(): void {
    this.kept.keep();
  }

  search(req: SearchRequest, max: number): Promise<Found> {
    return this.kept.ask<Found>((id) => ({ type: 'search', id, req, max }) satisfies ToSearchWorker);
  }

  close(): Promise<void> {
    return this.kept.close();
  }
}

/** SEARCH_WORKER=on: a WorkerSearcher, started (see run); off: none (the service searches on its own thread) */
export function searcherFor(config: AppConfig): WorkerSearcher | null {
  if (config.searchWorker !== 'on') return null;
  const searcher = new WorkerSearcher(config);
  searcher.run();
  return searcher;
}
