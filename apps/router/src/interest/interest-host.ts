/**
 * Where the live stream's quote work runs (INTEREST_WORKERS; auto by default, see workersFor).
 *   - N ≥ 1: N worker threads (interest-worker.ts), each with its own reader of the
 *     log and its own projection, running InterestService on a shard of the tuples (a hash of
 *     the tuple key); this thread appends the quotes-changed records they compute, in the order
 *     each hands them over. The main thread keeps the HTTP API, the REST quotes and the stream's
 *     sockets while a busy market makes thousands of tuples replay, and with N > 1 a debounce
 *     window's replays run in parallel over the shards (each worker costs its own projection:
 *     memory, and CPU per pool update). A worker that dies is started again after
 *     WORKER_RESTART_MS (a KeptWorker: doubling while it fails before it is ready); the new one reads the live interest back from the log and publishes its tuples'
 *     current quotes.
 *   - 0: InterestService on this thread, on the router's own projection.
 * SEARCH_WORKER=on: wherever InterestService runs, its background route searches run in a
 * worker thread of their own (WorkerSearcher, one per InterestService).
 */
import { availableParallelism } from 'os';
import type { EventLoopUtilization } from 'perf_hooks';
import type { Worker } from 'worker_threads';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { APP_CONFIG } from '@app/config';
import type { QuotesChanged } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { LOG_PORT, type LogMessage, type LogPort } from '@app/log';
import { ProjectionService } from '../projection/projection.service';
import type { GcSummary } from './gc-tally';
import { InterestService, type InterestStats, type PushKind } from './interest.service';
import type { FromWorker, InterestWorkerData, ToWorker } from './interest-worker';
import { KeptWorker } from './kept-worker';
import { enabledLogLevels, startWorkerThread } from './worker-thread';
import { searcherFor, type WorkerSearcher } from './worker-searcher';

export type PushObserver = (q: QuotesChanged, causeAppendedAt: number, by: PushKind, windowAppendedAt: number | undefined, computedAt: number, key: string) => void;

/**
 * INTEREST_WORKERS=auto: one worker from this many cores up, else the main thread. Measured on
 * 2 cores (BENCHMARKS.md): a worker shares them with the main thread and the rest of the
 * process; it lowered the stream's share of late pushes in some runs, not in others, and
 * lengthened the REST API's tail every time (the main thread waits for a core).
 */
export const AUTO_WORKER_CPUS = 4;

/** the number of workers INTEREST_WORKERS asks for on a machine with `cpus` cores */
export function workersFor(setting: number | 'auto', cpus: number): number {
  if (setting !== 'auto') return setting;
  return cpus >= AUTO_WORKER_CPUS ? 1 : 0;
}

/** a worker that exited unexpectedly is started again after this long (doubled while it keeps failing to start: KeptWorker) */
export const WORKER_RESTART_MS = 1_000;

/** the stats of the quote work and how busy its threads are (diagnostics, the stream benchmark) */
export interface InterestSnapshot {
  stats: InterestStats;
  /** per worker (by shard): its own stats, event loop utilization since it started, heap (bytes) and garbage collections while observed; none when the work runs on the main thread */
  workers: WorkerAnswer[];
}

export interface WorkerAnswer {
  stats: InterestStats;
  busy: EventLoopUtilization;
  heapUsed: number;
  /** its garbage collections since the push observer was set (none counted while it is not) */
  collections: GcSummary;
}


@Injectable()
export class InterestHost implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('InterestHost');
  private inline: InterestService | null = null;
  /** SEARCH_WORKER=on, with the quote work on this thread */
  private searcher: WorkerSearcher | null = null;
  /** the quote workers, by shard */
  private shards: Array<KeptWorker<FromWorker>> = [];
  private observer: PushObserver | null = null;
  private appending: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(LOG_PORT) private readonly log: LogPort,
    private readonly projections: ProjectionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.workerCount = workersFor(config.interestWorkers, availableParallelism());
  }

  /** how many workers run the quote work (0: this thread), INTEREST_WORKERS resolved */
  readonly workerCount: number;

  async onModuleInit(): Promise<void> {
    const count = this.workerCount;
    if (count === 0) {
      // searches run on this thread until the worker is ready (it catches up with the log first)
      this.searcher = searcherFor(this.config);
      this.inline = new InterestService(this.log, this.projections, this.config, undefined, this.searcher);
      await this.inline.start();
      return;
    }
    await this.log.ensureTopic(TOPICS.quotesChanged);
    this.shards = Array.from({ length: count }, (_, index) => this.shard(index, count));
    await Promise.all(this.shards.map((s) => s.start()));
  }

  async onModuleDestroy(): Promise<void> {
    if (this.inline) {
      await this.inline.close();
      await this.searcher?.close();
      return;
    }
    await Promise.all(this.shards.map((s) => s.close()));
    await this.appending.catch(() => undefined);
  }

  /** InterestService.stats, summed over the workers */
  async stats(): Promise<InterestStats> {
    return (await this.snapshot()).stats;
  }

  /** `gc`: the workers collect garbage first, when the process exposes gc (memory figures) */
  async snapshot(gc = false): Promise<InterestSnapshot> {
    if (this.inline) return { stats: this.inline.stats(), workers: [] };
    const answers = await Promise.all(this.shards.map((s) => s.ask<WorkerAnswer>((id) => ({ type: 'stats', id, gc }) satisfies ToWorker)));
    const stats = { ...answers[0].stats };
    for (const a of answers.slice(1)) for (const k of Object.keys(stats) as Array<keyof InterestStats>) stats[k] += a.stats[k];
    return { stats, workers: answers.map(({ stats: own, busy, heapUsed, collections }) => ({ stats: own, busy, heapUsed, collections })) };
  }

  /** InterestService.routeGaps (diagnostics); undefined when the quote work runs in workers (their tuples are theirs) */
  routeGaps(every?: number): number[] | undefined {
    return this.inline?.routeGaps(every);
  }

  /** InterestService.pushObserver (diagnostics), wherever it runs */
  set pushObserver(f: PushObserver | null) {
    this.observer = f;
    if (this.inline) this.inline.pushObserver = f;
    for (const s of this.shards) s.worker?.postMessage({ type: 'observe', on: f !== null } satisfies ToWorker);
  }

  /** the quote worker of shard `index` of `count`, not started; ready once it reads the log */
  private shard(index: number, count: number): KeptWorker<FromWorker> {
    const logger = this.logger;
    const kept: KeptWorker<FromWorker> = new KeptWorker<FromWorker>({
      name: `interest worker ${index}`,
      spawn: () => this.spawn({ config: this.config, shard: { index, count }, logLevels: enabledLogLevels() }),
      onReady: (worker) => {
        if (this.observer) worker.postMessage({ type: 'observe', on: true } satisfies ToWorker);
      },
      onMessage: (m) => {
        if (m.type === 'failed') logger.error(`interest worker ${index} failed: ${m.message}`);
        else if (m.type === 'publish') this.append(m);
        else kept.answer(m.id, m);
      },
      closeMessage: { type: 'close' } satisfies ToWorker,
      restartMs: WORKER_RESTART_MS,
      logger,
    });
    return kept;
  }

  /** a new worker thread running interest-worker with `data` */
  protected spawn(data: InterestWorkerData): Worker {
    return startWorkerThread('interest-worker', data);
  }

  private append(m: Extract<FromWorker, { type: 'publish' }>): void {
    const messages: LogMessage[] = m.messages.map(({ key, value: v }) => ({ key, value: Buffer.from(v.buffer, v.byteOffset, v.byteLength) }));
    this.appending = this.appending
      .then(() => this.log.append(TOPICS.quotesChanged, messages))
      .catch((e: unknown) => this.logger.error(`could not publish ${messages.length} quote change(s): ${(e as Error).message}`));
    const observe = this.observer;
    if (observe) for (const o of m.observed) observe(o.quote, o.cause, o.by, o.window, o.computed, o.key);
  }
}
