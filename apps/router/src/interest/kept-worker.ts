/**
 * A worker thread kept running (InterestHost's quote workers, WorkerSearcher's search worker): it
 * is ready once it posts `{ type: 'ready' }`; when it exits unexpectedly after that, it is started
 * again after `restartMs`, and again, twice as long each time (up to `restartMaxMs`), while the
 * new one exits before it is ready. Requests to it (`ask`) wait for their answer by id and fail
 * when it exits.
 */
import type { Logger } from '@nestjs/common';
import type { Worker } from 'worker_threads';
import { stopWorkerThread } from './worker-thread';

/** the longest wait between starts, unless the options say otherwise */
const RESTART_MAX_MS = 30_000;
/** how long a worker asked to close has to exit before it is terminated, unless the options say otherwise */
const CLOSE_MS = 5_000;

export interface KeptWorkerOptions<From extends { type: string }> {
  /** what log lines and errors call it: "interest worker 0", "search worker" */
  name: string;
  /** a new worker thread */
  spawn: () => Worker;
  /** every message it posts but `ready` */
  onMessage: (m: Exclude<From, { type: 'ready' }>) => void;
  /** it just posted `ready` */
  onReady?: (worker: Worker) => void;
  /** the message that asks it to close */
  closeMessage: unknown;
  restartMs: number;
  /** the longest wait between starts; default RESTART_MAX_MS */
  restartMaxMs?: number;
  /** a worker asked to close is terminated if it has not exited after this long; default CLOSE_MS */
  closeMs?: number;
  logger: Logger;
}

export class KeptWorker<From extends { type: string }> {
  private current: Worker | null = null;
  private isReady = false;
  private closing = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (a: unknown) => void; reject: (e: Error) => void }>();
  /** workers started so far (the first included) */
  started = 0;

  constructor(private readonly o: KeptWorkerOptions<From>) {}

  /** the running worker, ready or not; null between an exit and the next start */
  get worker(): Worker | null {
    return this.current;
  }

  get ready(): boolean {
    return this.isReady;
  }

  /**
   * Starts one worker; resolves once it is ready, rejects when it exits before. Once ready, an
   * unexpected exit starts another (see above).
   */
  start(): Promise<void> {
    this.started++;
    const worker = this.o.spawn();
    this.current = worker;
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.on('message', (m: From) => {
        if (m.type !== 'ready') return this.o.onMessage(m as Exclude<From, { type: 'ready' }>);
        ready = true;
        this.isReady = true;
        this.o.onReady?.(worker);
        resolve();
      });
      worker.on('error', (e) => this.o.logger.error(`${this.o.name}: ${e.stack ?? e.message}`));
      worker.once('exit', (code) => {
        if (this.current === worker) {
          this.current = null;
          this.isReady = false;
        }
        for (const w of this.waiting.values()) w.reject(new Error(`${this.o.name} exited (${code})`));
        this.waiting.clear();
        if (!ready) reject(new Error(`${this.o.name} exited (${code}) before it was ready`));
        else if (!this.closing) {
          this.o.logger.error(`${this.o.name} exited (${code})`);
          this.restart(this.o.restartMs);
        }
      });
    });
  }

  /** starts a worker, not awaited: while one exits before it is ready, another after `restartMs`, doubling */
  keep(): void {
    this.attempt(this.o.restartMs);
  }

  private attempt(retryMs: number): void {
    this.start().catch((e: Error) => {
      this.o.logger.error(e.message);
      if (!this.closing) this.restart(retryMs);
    });
  }

  private restart(delayMs: number): void {
    this.o.logger.error(`starting ${this.o.name} again in ${delayMs} ms`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.closing) this.attempt(Math.min(this.o.restartMaxMs ?? RESTART_MAX_MS, delayMs * 2));
    }, delayMs);
  }

  /** posts `message(id)` to the ready worker; resolves with what `answer(id, …)` is given, rejects on `fail(id, …)` or its exit */
  ask<A>(message: (id: number) => unknown): Promise<A> {
    const worker = this.current;
    if (!worker || !this.isReady) return Promise.reject(new Error(`${this.o.name} is not running`));
    const id = this.nextId++;
    return new Promise<A>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (a: unknown) => void, reject });
      worker.postMessage(message(id));
    });
  }

  /** the answer to request `id`; false when nothing waits for it */
  answer(id: number, value: unknown): boolean {
    const w = this.waiting.get(id);
    this.waiting.delete(id);
    w?.resolve(value);
    return w !== undefined;
  }

  /** request `id` failed; false when nothing waits for it */
  fail(id: number, error: Error): boolean {
    const w = this.waiting.get(id);
    this.waiting.delete(id);
    w?.reject(error);
    return w !== undefined;
  }

  /** asks the worker to close, no restart after; resolves once it exited */
  close(): Promise<void> {
    this.closing = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    return stopWorkerThread(this.current, this.o.closeMessage, this.o.closeMs ?? CLOSE_MS);
  }
}
