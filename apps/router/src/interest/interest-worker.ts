/**
 * The live stream's quote work in its own thread (see InterestHost): this worker opens its own
 * connection to the log (the same topics, as another reader), keeps its own projection of
 * `pool-updates` and runs InterestService on it for its shard of the tuples, so the replays,
 * checks and searches of the subscribed tuples do not share the main thread with the HTTP API,
 * the projection REST quotes read and the stream's sockets. The quotes-changed records it
 * computes are handed to the main thread, which appends them to the log (so an all-in-one stream
 * instance gets them in process, without reading them back).
 */
import 'reflect-metadata';
import { ConsoleLogger, Logger, type LogLevel } from '@nestjs/common';
import { performance, type EventLoopUtilization } from 'perf_hooks';
import { getHeapStatistics } from 'v8';
import { parentPort, workerData } from 'worker_threads';
import type { AppConfig } from '@app/config';
import type { QuotesChanged } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { createLog } from '@app/log';
import type { AppendResult, LogMessage, LogPort } from '@app/log';
import { ProjectionService } from '../projection/projection.service';
import { GcTally, type GcSummary } from './gc-tally';
import { InterestService, type InterestStats, type PushKind } from './interest.service';
import { searcherFor } from './worker-searcher';

export interface InterestWorkerData {
  config: AppConfig;
  shard: { index: number; count: number };
  /** the log levels enabled on the main thread (the worker logs the same ones) */
  logLevels: LogLevel[];
}

/** a push the main thread's pushObserver is told about (InterestService.pushObserver's arguments) */
export interface Observation {
  quote: QuotesChanged;
  cause: number;
  by: PushKind;
  window?: number;
  /** when the worker computed it (Unix ms) */
  computed: number;
  /** the tuple's key (tupleKey) */
  key: string;
}

/** observe: also counts this thread's garbage collections from then on; stats: `gc`, collect garbage first when the process exposes gc (the benchmark's memory figures) */
export type ToWorker = { type: 'observe'; on: boolean } | { type: 'stats'; id: number; gc?: boolean } | { type: 'close' };
export type FromWorker =
  | { type: 'ready' }
  /** quotes-changed records to append, in order; `observed`: the pushes among them, while observed */
  | { type: 'publish'; messages: Array<{ key: string; value: Uint8Array }>; observed: Observation[] }
  /** `busy`: the worker's event loop utilization since it started; `heapUsed`: its heap, bytes; `collections`: its garbage collections since observed */
  | { type: 'stats'; id: number; stats: InterestStats; busy: EventLoopUtilization; heapUsed: number; collections: GcSummary }
  | { type: 'failed'; message: string };

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('interest-worker runs as a worker thread (see InterestHost)');
  const post = (m: FromWorker): void => port.postMessage(m);
  const { config, shard, logLevels } = workerData as InterestWorkerData;
  // its lines say which worker wrote them (its projection logs as the main thread's does)
  Logger.overrideLogger(new ConsoleLogger({ prefix: `Nest interest-worker-${shard.index}`, logLevels }));
  const log = createLog(config);
  let observed: Observation[] = [];
  const handOver = (messages: LogMessage[]): Promise<AppendResult[]> => {
    // a Buffer arrives as a Uint8Array over the same bytes
    post({ type: 'publish', messages, observed });
    observed = [];
    // the main thread appends (and reports a failure); InterestService only counts what it handed over
    return Promise.resolve([]);
  };
  // quotes-changed goes to the main thread; everything else is this thread's own connection
  const bridge: LogPort = {
    driver: log.driver,
    ensureTopic: (topic) => log.ensureTopic(topic),
    append: (topic, messages) => (topic === TOPICS.quotesChanged ? handOver(messages) : log.append(topic, messages)),
    read: (topic, from, limit) => log.read(topic, from, limit),
    beginPositions: (topic) => log.beginPositions(topic),
    endPositions: (topic) => log.endPositions(topic),
    subscribe: (topic, options, handler) => log.subscribe(topic, options, handler),
    commit: (groupId, topic, positions) => log.commit(groupId, topic, positions),
    committed: (groupId, topic) => log.committed(groupId, topic),
    ping: () => log.ping(),
    close: () => log.close(),
  };
  const projections = new ProjectionService(log, config, 'read');
  // SEARCH_WORKER=on: this shard's background searches in a worker of its own
  const searcher = searcherFor(config);
  const interest = new InterestService(bridge, projections, config, shard, searcher);
  const collections = new GcTally();
  port.on('message', (m: ToWorker) => {
    if (m.type === 'observe') {
      interest.pushObserver = m.on ? (quote, cause, by, window, computed, key) => observed.push({ quote, cause, by, window, computed, key }) : null;
      if (m.on) collections.start();
      else collections.stop();
    } else if (m.type === 'stats') {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (m.gc && gc) gc();
      post({ type: 'stats', id: m.id, stats: interest.stats(), busy: performance.eventLoopUtilization(), heapUsed: getHeapStatistics().used_heap_size, collections: collections.summary() });
    }
    else if (m.type === 'close') {
      void (async () => {
        collections.stop();
        await interest.close();
        await searcher?.close();
        await projections.onModuleDestroy();
        await log.close();
        port.close();
      })();
    }
  });
  await projections.onModuleInit();
  await interest.start();
  post({ type: 'ready' });
}

main().catch((e: unknown) => {
  parentPort?.postMessage({ type: 'failed', message: (e as Error).message } satisfies FromWorker);
  process.exit(1);
});
