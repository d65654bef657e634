/**
 * One tailing subscription of the embedded log: a loop of read batch -> await handler -> commit
 * -> wait for more, taking the batches in-process appends hand over when they start at its next
 * offset and reading the file otherwise; it sleeps until an append, a change notification, a
 * data_version change seen by polling, or close().
 */
import type { EventEmitter } from 'events';
import type { BatchHandler, LogRecord, Subscription } from '../log.port';
import type { AppendedBatch } from './append-notifications';
import { toRecord, type TopicStore } from './topic-store';

/** delays (ms) of the quick looks after a change notification that showed nothing new yet */
const QUICK_LOOKS = [1, 2];
/** records handed over by in-process appends that a subscription keeps before it reads the file instead */
const HANDOFF_LIMIT = 20_000;

export interface SubscriptionParams {
  store: TopicStore;
  topic: string;
  groupId?: string;
  start: number;
  maxBatch: number;
  handler: BatchHandler;
  emitter: EventEmitter;
  pollIntervalMs: number;
  /** subscribe to / release the change notifications of the log directory */
  watch: () => void;
  unwatch: () => void;
  commit: (groupId: string, next: number) => void;
  onError: (err: Error) => void;
  onClosed: (s: EmbeddedSubscription) => void;
}

/** One tailing subscription: a loop of read batch -> await handler -> commit -> wait for more. */
export class EmbeddedSubscription implements Subscription {
  private next: number;
  private stopped = false;
  private wake: (() => void) | undefined;
  /** set by an in-process append; cleared before each read, so no wake-up is ever lost */
  private pending = false;
  private loop: Promise<void> | undefined;
  /** committed batches handed over by in-process appends, oldest first, and their record count */
  private handed: AppendedBatch[] = [];
  private handedCount = 0;
  private readonly onAppend = (batch?: AppendedBatch): void => {
    if (batch !== undefined && batch.first + batch.messages.length > this.next) {
      if (this.handedCount + batch.messages.length > HANDOFF_LIMIT) {
        // a backlog: the file has it all
        this.handed = [];
        this.handedCount = 0;
      } else {
        this.handed.push(batch);
        this.handedCount += batch.messages.length;
      }
    }
    this.pending = true;
    this.wakeUp();
  };
  /**
   * after a change notification: how many quick looks (1 ms, then 2 ms apart) are still due, in
   * case the notification came before the commit was visible to readers
   */
  private quickLooks = 0;
  private readonly onExternal = (): void => {
    this.quickLooks = QUICK_LOOKS.length;
    this.onAppend();
  };

  /**
   * Up to maxBatch records from the handed batches when they start exactly at `next` (stale ones
   * dropped); null when the file must be read (nothing handed, or records in between that were
   * not: another process's, or dropped past HANDOFF_LIMIT).
   */
  private takeHanded(): LogRecord[] | null {
    const { topic, maxBatch } = this.p;
    while (this.handed.length > 0) {
      const b = this.handed[0];
      if (b.first + b.messages.length > this.next) break;
      this.handed.shift();
      this.handedCount -= b.messages.length;
    }
    if (this.handed.length === 0 || this.handed[0].first > this.next) return null;
    const out: LogRecord[] = [];
    let at = this.next;
    while (out.length < maxBatch && this.handed.length > 0) {
      const b = this.handed[0];
      if (b.first > at) break;
      const from = at - b.first;
      const upto = Math.min(b.messages.length, from + (maxBatch - out.length));
      for (let i = from; i < upto; i++) {
        const m = b.messages[i];
        out.push({ topic, partition: 0, offset: String(b.first + i), key: m.key, value: m.value, timestamp: b.ts });
      }
      at = b.first + upto;
      if (upto === b.messages.length) {
        this.handed.shift();
        this.handedCount -= b.messages.length;
      }
    }
    return out;
  }

  constructor(private readonly p: SubscriptionParams) {
    this.next = p.start;
  }

  start(): void {
    this.p.emitter.on('append', this.onAppend);
    this.p.emitter.on('external', this.onExternal);
    this.p.watch();
    this.loop = this.run();
  }

  /** the next offset this subscription will deliver */
  get position(): string {
    return String(this.next);
  }

  close(): Promise<void> {
    this.stopped = true;
    this.wakeUp();
    return this.loop ?? Promise.resolve();
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private async run(): Promise<void> {
    const { store, handler, maxBatch, groupId } = this.p;
    try {
      let version = store.version();
      while (!this.stopped) {
        this.pending = false;
        let records = this.takeHanded();
        if (records === null) records = store.readFrom(this.next, maxBatch).map((r) => toRecord(this.p.topic, r));
        if (records.length > 0) {
          await handler(records);
          const after = Number(records[records.length - 1].offset) + 1;
          if (groupId) this.p.commit(groupId, after);
          this.next = after;
          continue;
        }
        // Nothing new: sleep until an append (in-process, or noticed on the file), a
        // data_version change, or close().
        while (!this.stopped && !this.pending) {
          let timer: NodeJS.Timeout | undefined;
          const sleepMs =
            this.quickLooks > 0 ? QUICK_LOOKS[QUICK_LOOKS.length - this.quickLooks--] : this.p.pollIntervalMs;
          const woken = await new Promise<boolean>((resolve) => {
            this.wake = () => resolve(true);
            timer = setTimeout(() => resolve(false), sleepMs);
          });
          clearTimeout(timer);
          this.wake = undefined;
          if (woken || this.stopped) break;
          const v = store.version();
          if (v !== version) {
            version = v;
            break;
          }
        }
      }
    } catch (err) {
      this.stopped = true;
      const error = err instanceof Error ? err : new Error(String(err));
      try {
        this.p.onError(error);
      } catch (reportErr) {
        console.error('EmbeddedLog: the onError callback threw', reportErr, 'while reporting', error);
      }
    } finally {
      this.p.emitter.off('append', this.onAppend);
      this.p.emitter.off('external', this.onExternal);
      this.p.unwatch();
      this.p.onClosed(this);
    }
  }
}
