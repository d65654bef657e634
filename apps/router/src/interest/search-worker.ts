/**
 * The live stream's background route searches in their own thread (WorkerSearcher): this worker
 * opens its own connection to the log (another reader of `pool-updates`), keeps its own
 * projection, and answers each search request on it (searchOn), routes and paths by pool address.
 */
import 'reflect-metadata';
import { ConsoleLogger, Logger, type LogLevel } from '@nestjs/common';
import { parentPort, workerData } from 'worker_threads';
import type { AppConfig } from '@app/config';
import { createLog } from '@app/log';
import { ProjectionService } from '../projection/projection.service';
import { aggregatorFeeOf } from '../quote/aggregator-fee';
import { searchOn, type Found, type SearchRequest } from './route-searcher';
import { lowerThisThreadsPriority } from './worker-thread';

export interface SearchWorkerData {
  config: AppConfig;
  /** the log levels enabled on the main thread (the worker logs the same ones) */
  logLevels: LogLevel[];
}

export type ToSearchWorker = { type: 'search'; id: number; req: SearchRequest; max: number } | { type: 'close' };
export type FromSearchWorker =
  | { type: 'ready' }
  | { type: 'found'; id: number; found: Found }
  /** the search threw (not a route error: a bug); the request is answered with it */
  | { type: 'error'; id: number; message: string }
  | { type: 'failed'; message: string };

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('search-worker runs as a worker thread (see WorkerSearcher)');
  const post = (m: FromSearchWorker): void => port.postMessage(m);
  const { config, logLevels } = workerData as SearchWorkerData;
  Logger.overrideLogger(new ConsoleLogger({ prefix: 'Nest search-worker', logLevels }));
  // it takes what the other threads of the machine leave
  lowerThisThreadsPriority();
  const log = createLog(config);
  const projections = new ProjectionService(log, config, 'read');
  const fee = aggregatorFeeOf(config);
  port.on('message', (m: ToSearchWorker) => {
    if (m.type === 'search') {
      try {
        const projection = projections.projection;
        post({ type: 'found', id: m.id, found: searchOn(projection, projection.slot, m.req, m.max, fee) });
      } catch (e) {
        post({ type: 'error', id: m.id, message: (e as Error).message });
      }
    } else if (m.type === 'close') {
      void (async () => {
        await projections.onModuleDestroy();
        await log.close();
        port.close();
      })();
    }
  });
  await projections.onModuleInit();
  await projections.whenReady();
  post({ type: 'ready' });
}

main().catch((e: unknown) => {
  parentPort?.postMessage({ type: 'failed', message: (e as Error).message } satisfies FromSearchWorker);
  process.exit(1);
});
