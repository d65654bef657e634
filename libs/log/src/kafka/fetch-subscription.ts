/**
 * A subscription without a consumer group: a loop of direct Fetch rounds over every partition of
 * the topic, each partition's records handed over in order; nothing committed.
 */
import type { BatchHandler, LogRecord } from '../log.port';
import type { FetchedMessage } from './cluster-layer';
import { sleep, toError } from './kafka-retries';
import { toRecord } from './kafka-records';
import { chunks, KafkaSubscriptionBase, reportSafely, TAIL_WAIT_MS } from './subscription-base';

/** what the subscription fetches through (the adapter's cluster connection) */
export interface PartitionFetcher {
  cluster(): Promise<unknown>;
  fetchOnce(topic: string, positions: Map<number, bigint>, maxWaitTime: number): Promise<Map<number, FetchedMessage[]>>;
}

/** No group: a fetch loop over every partition; nothing committed. */
export class FetchSubscription extends KafkaSubscriptionBase {
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly owner: PartitionFetcher,
    private readonly topic: string,
    private readonly positions: Map<number, bigint>,
    private readonly maxBatch: number,
    private readonly handler: BatchHandler,
    private readonly onError: (err: Error) => void,
    private readonly onClosed: (s: KafkaSubscriptionBase) => void,
  ) {
    super();
  }

  async start(): Promise<void> {
    await this.owner.cluster();
    this.loop = this.run();
  }

  close(): Promise<void> {
    this.stopped = true;
    return this.loop ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped) {
        const t0 = Date.now();
        const fetched = await this.owner.fetchOnce(this.topic, this.positions, TAIL_WAIT_MS);
        let delivered = false;
        // deterministic order of partitions within a round
        for (const partition of [...fetched.keys()].sort((a, b) => a - b)) {
          let next = this.positions.get(partition)!;
          const records: LogRecord[] = [];
          for (const m of fetched.get(partition)!) {
            const off = BigInt(m.offset);
            if (off < next) continue;
            if (m.isControlRecord) {
              next = off + 1n;
              continue;
            }
            records.push(toRecord(this.topic, partition, m));
          }
          for (const chunk of chunks(records, this.maxBatch)) {
            if (this.stopped) return;
            await this.handler(chunk);
            delivered = true;
            next = BigInt(chunk[chunk.length - 1].offset) + 1n;
            this.positions.set(partition, next);
          }
          this.positions.set(partition, next);
        }
        // a broker that answers an empty fetch at once (no long poll) must not make us spin
        if (!delivered && Date.now() - t0 < TAIL_WAIT_MS / 2) await sleep(10);
      }
    } catch (err) {
      this.stopped = true;
      reportSafely(this.onError, toError(err));
    } finally {
      this.onClosed(this);
    }
  }
}
