/**
 * A subscription with a consumer group: a kafkajs consumer (autoCommit off) whose batches are
 * committed after the handler resolves; it starts at the committed positions, else at `from`.
 */
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { BatchHandler, Positions, StartFrom } from '../log.port';
import { toError } from './kafka-retries';
import { parseOffset, toRecord } from './kafka-records';
import { chunks, KafkaSubscriptionBase, reportSafely, TAIL_WAIT_MS } from './subscription-base';

/** With a group: a kafkajs consumer; offsets committed after each handled batch. */
export class GroupSubscription extends KafkaSubscriptionBase {
  private readonly consumer: Consumer;
  private stopped = false;
  private failed = false;
  private stopping: Promise<void> | undefined;
  /** `from` positions for partitions without a commit: records below are skipped (seek safety net) */
  private readonly minOffset = new Map<number, bigint>();

  constructor(
    kafka: Kafka,
    sessionTimeoutMs: number | undefined,
    readonly topic: string,
    readonly groupId: string,
    private readonly from: StartFrom,
    private readonly committed: Positions,
    private readonly maxBatch: number,
    private readonly handler: BatchHandler,
    private readonly onError: (err: Error) => void,
    private readonly onClosed: (s: KafkaSubscriptionBase) => void,
  ) {
    super();
    this.consumer = kafka.consumer({
      groupId,
      allowAutoTopicCreation: true,
      maxWaitTimeInMs: TAIL_WAIT_MS,
      retry: { retries: 8 },
      ...(sessionTimeoutMs
        ? { sessionTimeout: sessionTimeoutMs, heartbeatInterval: Math.max(100, Math.floor(sessionTimeoutMs / 10)) }
        : {}),
    });
    this.consumer.on(this.consumer.events.CRASH, (e) => {
      const { error, restart } = e.payload as { error: Error; restart: boolean };
      if (!restart && !this.stopped) {
        this.failed = true;
        this.stopped = true;
        reportSafely(this.onError, toError(error));
        void this.stop();
      }
    });
  }

  isRunning(): boolean {
    return !this.stopped;
  }

  async commitThrough(partitions: Array<{ partition: number; offset: string }>): Promise<void> {
    await this.consumer.commitOffsets(partitions.map((p) => ({ topic: this.topic, ...p })));
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [this.topic], fromBeginning: this.from !== 'end' });
    const seeks: Array<{ partition: number; offset: string }> = [];
    if (typeof this.from === 'object') {
      for (const [p, o] of Object.entries(this.from)) {
        if (this.committed[p] === undefined) {
          seeks.push({ partition: Number(p), offset: parseOffset(o, 'start').toString() });
          this.minOffset.set(Number(p), BigInt(o));
        }
      }
    }
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 1,
      eachBatch: (payload) => this.eachBatch(payload),
    });
    for (const s of seeks) this.consumer.seek({ topic: this.topic, ...s });
  }

  private async eachBatch({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
    commitOffsetsIfNecessary,
  }: EachBatchPayload): Promise<void> {
    if (this.stopped) return;
    const min = this.minOffset.get(batch.partition);
    let messages = batch.messages;
    if (min !== undefined) {
      messages = messages.filter((m) => BigInt(m.offset) >= min);
      if (messages.length === 0 && batch.messages.length > 0) {
        // below the requested start: skip without committing
        resolveOffset(batch.lastOffset());
        return;
      }
    }
    for (const chunk of chunks(messages, this.maxBatch)) {
      if (this.stopped || !isRunning() || isStale()) return;
      try {
        await this.handler(chunk.map((m) => toRecord(this.topic, batch.partition, m)));
      } catch (err) {
        this.failed = true;
        this.stopped = true;
        reportSafely(this.onError, toError(err));
        setImmediate(() => void this.stop());
        return;
      }
      const last = chunk[chunk.length - 1].offset;
      resolveOffset(last);
      this.minOffset.delete(batch.partition);
      // Through the batch payload: consumer.commitOffsets() is a silent no-op once close() has
      // begun, and the batch in flight during close() must still be committed.
      const offset = (BigInt(last) + 1n).toString();
      await commitOffsetsIfNecessary({ topics: [{ topic: this.topic, partitions: [{ partition: batch.partition, offset }] }] });
      await heartbeat();
    }
  }

  private stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = this.consumer
        .disconnect()
        .catch(() => undefined)
        .finally(() => this.onClosed(this));
    }
    return this.stopping;
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.stop();
  }
}
