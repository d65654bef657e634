/**
 * The live stream's background route searches in their own thread (WorkerSearcher): this worker
 * opens its own connection to the log (another reader of `pool-updates`), keeps its own
 * projection, and answers each search request on it (searchOn), routes and paths by pool address.
 */
import 'reflect-metadata';
import { ConsoleLogger, Logger, type LogLevel } from '@nestjs/common';
import { readlinkSync } from 'fs';
import { setPriority } from 'os';
import { parentPort, workerData } from 'worker_threads';
import type { RouteRequest } from '../../../../libs/amm/src/routing/route-search';
import type { AppConfig } from '../../../../libs/config/src/config';
import { createLog } from '../../../../libs/log/src/create-log';
import { ProjectionService } from '../projection/projection.service';
import { aggregatorFeeOf } from '../quote/aggregator-fee';
import { searchOn, type Found } from './route-searcher';

export interface SearchWorkerData {
  config: AppConfig;
  /** the log levels enabled on the main thread (the worker logs the same ones) */
  logLevels: LogLevel[];
}

export type ToSearchWorker = { type: 'search'; id: number; req: RouteRequest; max: number } | { type: 'close' };
export type FromSearchWorker =
  | { type: 'ready' }
  | { type: 'found'; id: number; found: Found }
  /** the search threw (not a route error: a bug); the request is answered with it */
  | { type: 'error'; id: number; message: string }
  | { type: 'failed'; message: string };

/**
 * This thread runs at the lowest scheduling priority (nice 19) where the system lets a thread have
 * its own (Linux: /proc/thread-self names it): it takes what the other threads of the machine
 * leave, so the thread that replays the routes and the stream's sockets never wait for a core
 * because of it. Elsewhere it keeps the process's priority. Returns whether it was lowered.
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

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('search-worker runs as a worker thread (see WorkerSearcher)');
  const post = (m: FromSearchWorker): void => port.postMessage(m);
  const { config, logLevels } = workerData as SearchWorkerData;
  Logger.overrideLogger(new ConsoleLogger({ prefix: 'Nest search-worker', logLevels }));
  lowerThisThreadsPriority();
  const log = createLog(config);
  const projections = new ProjectionService(log);
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
