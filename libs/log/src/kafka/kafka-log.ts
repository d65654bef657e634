/**
 * KafkaLog: the LogPort on Kafka through kafkajs 2.2.4.
 *
 * - append: one producer (idempotent where the cluster supports it, else acks=-1 with one
 *   request in flight so retries keep order). Every message's partition is computed up front
 *   with kafkajs' default (Java-compatible murmur2) partitioner over the topic's partition
 *   count, so the same key always lands in the same partition and each result is
 *   `baseOffset + index` within its partition's part of the batch, in input order.
 * - read and group-less subscribe: direct Fetch requests to the partition leaders (kafkajs'
 *   cluster layer), no consumer group: no join delay, no ephemeral groups left behind, nothing
 *   committed.
 * - subscribe with a groupId: a kafkajs consumer group (autoCommit off; the offsets of each
 *   batch are committed after the handler resolves; start at the committed positions, else
 *   at `from`).
 * - commit / committed: OffsetCommit with generation -1 (the "simple consumer" commit, which
 *   needs the group to have no running members, like admin.setOffsets, but also works on the
 *   librdkafka mock cluster which lacks DescribeGroups) / admin.fetchOffsets. A commit for a
 *   group this instance is running goes through that consumer instead.
 * - ensureTopic: admin.createTopics; where that fails (the mock has no CreateTopics and no
 *   controller) it logs why and relies on broker auto-creation (a metadata request with
 *   allowAutoTopicCreation), then waits until metadata shows the topic's partitions.
 *
 * Handler errors: the subscription stops, nothing of that batch is committed, and the error
 * goes to SubscribeOptions.onError or, without one, to the logger at level 'error'.
 */
import { Partitioners, type Admin, type Kafka, type Producer } from 'kafkajs';
import type {
  AppendResult,
  BatchHandler,
  LogMessage,
  LogPort,
  LogRecord,
  Positions,
  SubscribeOptions,
  Subscription,
} from '../log.port';
import { metrics, secondsSince } from '@app/observability';
import { createInternalCluster, fetchRound, type FetchedMessage, type InternalCluster } from './cluster-layer';
import { FetchSubscription } from './fetch-subscription';
import { GroupSubscription } from './group-subscription';
import { connectProducer, consoleKafkaLogger, createKafka, type KafkaLogLogger } from './kafka-client';
import { parseOffset, toRecord } from './kafka-records';
import { sleep, withRetries } from './kafka-retries';
import type { KafkaSubscriptionBase } from './subscription-base';
import { createTopic, fetchCommittedOffsets, fetchTopicOffsets, waitForTopicPartitions } from './topic-admin';
import type { KafkaTopicRetention } from './topic-configs';

export type { KafkaLogLogger } from './kafka-client';

export interface KafkaLogOptions {
  brokers: string[];
  clientId: string;
  logger?: KafkaLogLogger;
  /** how long ensureTopic waits for the topic's partitions to show in metadata; default 30 s */
  topicWaitMs?: number;
  /**
   * retention of the topics ensureTopic creates (topic-configs.ts); a topic not listed gets the
   * broker's defaults. An existing topic keeps its configuration (change it with kafka-configs).
   */
  retention?: Record<string, KafkaTopicRetention>;
  /**
   * consumer-group session timeout (kafkajs default 30 s). A member that dies without leaving is
   * replaced after this long; the librdkafka mock cluster also waits this long after a member
   * left before it lets a new one join, so tests use a shorter value (>= 6 s for real brokers).
   */
  sessionTimeoutMs?: number;
}

const DEFAULT_MAX_BATCH = 1000;

export class KafkaLog implements LogPort {
  readonly driver = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly log: KafkaLogLogger;
  private readonly topicWaitMs: number;
  private adminP: Promise<Admin> | undefined;
  private producerP: Promise<Producer> | undefined;
  private clusterP: Promise<InternalCluster> | undefined;
  private readonly partitioner = Partitioners.DefaultPartitioner();
  private readonly partitionCounts = new Map<string, number>();
  private readonly subscriptions = new Set<KafkaSubscriptionBase>();
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: KafkaLogOptions) {
    if (!options?.brokers?.length) throw new Error('KafkaLog needs at least one broker');
    this.log = options.logger ?? consoleKafkaLogger;
    this.topicWaitMs = options.topicWaitMs ?? 30_000;
    this.kafka = createKafka(options.brokers, options.clientId, this.log);
  }

  // ---- LogPort ----

  async ensureTopic(topic: string): Promise<void> {
    const admin = await this.admin();
    await createTopic(admin, topic, this.options.retention?.[topic], this.log);
    await this.waitForTopic(topic);
  }

  async append(topic: string, messages: LogMessage[]): Promise<AppendResult[]> {
    this.assertOpen();
    for (const m of messages) {
      if (typeof m.key !== 'string') throw new TypeError('LogMessage.key must be a string');
      if (!Buffer.isBuffer(m.value)) throw new TypeError('LogMessage.value must be a Buffer');
    }
    if (messages.length === 0) return [];
    const count = await this.partitionCount(topic);
    const partitionMetadata = Array.from({ length: count }, (_, i) => ({
      partitionId: i,
      leader: 0,
      replicas: [],
      isr: [],
      partitionErrorCode: 0,
    }));
    const partitions = messages.map((m) =>
      this.partitioner({ topic, partitionMetadata, message: { key: m.key, value: m.value } }),
    );
    const producer = await this.producer();
    const started = process.hrtime.bigint();
    const meta = await producer.send({
      topic,
      acks: -1,
      messages: messages.map((m, i) => ({ key: m.key, value: m.value, partition: partitions[i] })),
    });
    metrics.logAppend('kafka', topic, secondsSince(started));
    const base = new Map<number, bigint>();
    for (const r of meta) {
      if (r.errorCode) throw new Error(`KafkaLog: append to ${topic}/${r.partition} failed with error code ${r.errorCode}`);
      base.set(r.partition, BigInt(r.baseOffset ?? '-1'));
    }
    const index = new Map<number, bigint>();
    return partitions.map((p) => {
      const b = base.get(p);
      if (b === undefined || b < 0n) throw new Error(`KafkaLog: no base offset for ${topic}/${p} in the produce response`);
      const i = index.get(p) ?? 0n;
      index.set(p, i + 1n);
      return { partition: p, offset: (b + i).toString() };
    });
  }

  async read(topic: string, from: Positions | 'beginning', limit: number): Promise<LogRecord[]> {
    this.assertOpen();
    if (!Number.isInteger(limit) || limit < 0) throw new Error(`invalid read limit ${limit}`);
    if (limit === 0) return [];
    const offsets = await this.topicOffsets(topic);
    const pos = new Map<number, bigint>();
    const end = new Map<number, bigint>();
    for (const o of offsets) {
      const given = from === 'beginning' ? undefined : from[String(o.partition)];
      const start = given !== undefined ? parseOffset(given, 'read') : BigInt(o.low);
      const high = BigInt(o.high);
      if (start < high) {
        pos.set(o.partition, start < BigInt(o.low) ? BigInt(o.low) : start);
        end.set(o.partition, high);
      }
    }
    const out: LogRecord[] = [];
    let idleRounds = 0;
    while (pos.size > 0 && out.length < limit) {
      const fetched = await this.fetchOnce(topic, pos, 0);
      let progressed = false;
      for (const [partition, messages] of fetched) {
        const stop = end.get(partition)!;
        let next = pos.get(partition)!;
        for (const m of messages) {
          const off = BigInt(m.offset);
          if (off < next) continue;
          next = off + 1n;
          progressed = true;
          if (off >= stop) break;
          if (!m.isControlRecord && out.length < limit) out.push(toRecord(topic, partition, m));
        }
        if (next >= stop) pos.delete(partition);
        else pos.set(partition, next);
      }
      if (progressed) idleRounds = 0;
      else if (++idleRounds > 50) {
        throw new Error(`KafkaLog: read of ${topic} made no progress (positions ${JSON.stringify([...pos].map(([p, o]) => [p, o.toString()]))})`);
      } else await sleep(20);
    }
    return out.slice(0, limit);
  }

  async beginPositions(topic: string): Promise<Positions> {
    const out: Positions = {};
    for (const o of await this.topicOffsets(topic)) out[String(o.partition)] = o.low;
    return out;
  }

  async endPositions(topic: string): Promise<Positions> {
    const out: Positions = {};
    for (const o of await this.topicOffsets(topic)) out[String(o.partition)] = o.high;
    return out;
  }

  async subscribe(topic: string, options: SubscribeOptions, handler: BatchHandler): Promise<Subscription> {
    this.assertOpen();
    const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error(`invalid maxBatch ${maxBatch}`);
    const from = options.from ?? 'beginning';
    const onError =
      options.onError ??
      ((err: Error) =>
        this.log(
          'error',
          `subscription to topic ${topic}${options.groupId ? ` (group ${options.groupId})` : ''} STOPPED after an error: ${err.stack ?? err.message}`,
        ));
    await this.waitForTopic(topic);
    let sub: KafkaSubscriptionBase;
    if (options.groupId) {
      const committed = await this.committed(options.groupId, topic);
      sub = new GroupSubscription(this.kafka, this.options.sessionTimeoutMs, topic, options.groupId, from, committed, maxBatch, handler, onError, (s) =>
        this.subscriptions.delete(s),
      );
    } else {
      const offsets = await this.topicOffsets(topic);
      const start = new Map<number, bigint>();
      for (const o of offsets) {
        const p = String(o.partition);
        if (from === 'beginning') start.set(o.partition, BigInt(o.low));
        else if (from === 'end') start.set(o.partition, BigInt(o.high));
        else start.set(o.partition, from[p] !== undefined ? parseOffset(from[p], 'start') : BigInt(o.low));
      }
      sub = new FetchSubscription(this, topic, start, maxBatch, handler, onError, (s) => this.subscriptions.delete(s));
    }
    this.subscriptions.add(sub);
    try {
      await sub.start();
    } catch (err) {
      this.subscriptions.delete(sub);
      await sub.close().catch(() => undefined);
      throw err;
    }
    return sub;
  }

  async commit(groupId: string, topic: string, positions: Positions): Promise<void> {
    this.assertOpen();
    if (!groupId) throw new Error('commit needs a groupId');
    const partitions = Object.entries(positions).map(([p, o]) => {
      if (!/^\d+$/.test(p)) throw new Error(`invalid partition "${p}"`);
      return { partition: Number(p), offset: parseOffset(o, 'commit').toString() };
    });
    if (partitions.length === 0) return;
    for (const s of this.subscriptions) {
      if (s instanceof GroupSubscription && s.groupId === groupId && s.topic === topic && s.isRunning()) {
        await s.commitThrough(partitions);
        return;
      }
    }
    const cluster = await this.cluster();
    await withRetries(`commit for group ${groupId} on ${topic}`, async () => {
      const coordinator = await cluster.findGroupCoordinator({ groupId });
      await coordinator.offsetCommit({ groupId, groupGenerationId: -1, memberId: '', topics: [{ topic, partitions }] });
    });
  }

  async committed(groupId: string, topic: string): Promise<Positions> {
    const admin = await this.admin();
    return fetchCommittedOffsets(admin, groupId, topic);
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const admin = await this.admin();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('ping timed out')), 5000);
      });
      try {
        const d = await Promise.race([admin.describeCluster(), timeout]);
        return d.brokers.length > 0;
      } finally {
        clearTimeout(timer);
      }
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    if (!this.closing) {
      this.closed = true;
      this.closing = (async () => {
        await Promise.allSettled([...this.subscriptions].map((s) => s.close()));
        const tasks: Array<Promise<unknown>> = [];
        if (this.producerP) tasks.push(this.producerP.then((p) => p.disconnect()));
        if (this.adminP) tasks.push(this.adminP.then((a) => a.disconnect()));
        if (this.clusterP) tasks.push(this.clusterP.then((c) => c.disconnect()));
        await Promise.allSettled(tasks);
      })();
    }
    return this.closing;
  }

  // ---- internals ----

  private assertOpen(): void {
    if (this.closed) throw new Error('KafkaLog is closed');
  }

  private admin(): Promise<Admin> {
    this.assertOpen();
    if (!this.adminP) {
      const admin = this.kafka.admin();
      this.adminP = admin.connect().then(() => admin);
      this.adminP.catch(() => (this.adminP = undefined));
    }
    return this.adminP;
  }

  /** @internal used by FetchSubscription */
  cluster(): Promise<InternalCluster> {
    this.assertOpen();
    if (!this.clusterP) {
      const cluster = createInternalCluster(this.kafka);
      this.clusterP = cluster.connect().then(() => cluster);
      this.clusterP.catch(() => (this.clusterP = undefined));
    }
    return this.clusterP;
  }

  private producer(): Promise<Producer> {
    this.assertOpen();
    if (!this.producerP) {
      this.producerP = connectProducer(this.kafka, this.log);
      this.producerP.catch(() => (this.producerP = undefined));
    }
    return this.producerP;
  }

  private async topicOffsets(topic: string): Promise<Array<{ partition: number; high: string; low: string }>> {
    // kafkajs' fetchTopicOffsets fails with a TypeError on a topic whose metadata has no
    // partitions yet (another process's ensureTopic still in flight, or auto-creation pending)
    if (!this.partitionCounts.has(topic)) await this.waitForTopic(topic);
    const admin = await this.admin();
    return fetchTopicOffsets(admin, topic);
  }

  private async partitionCount(topic: string): Promise<number> {
    const known = this.partitionCounts.get(topic);
    if (known) return known;
    await this.waitForTopic(topic);
    return this.partitionCounts.get(topic)!;
  }

  /** Waits until metadata shows the topic with all partitions led (this may auto-create it). */
  private async waitForTopic(topic: string): Promise<void> {
    const admin = await this.admin();
    this.partitionCounts.set(topic, await waitForTopicPartitions(admin, topic, this.topicWaitMs));
  }

  /**
   * @internal One Fetch round over the given partitions (in parallel per leader).
   * Returns the messages per partition (may include offsets below the requested one).
   */
  async fetchOnce(topic: string, positions: Map<number, bigint>, maxWaitTime: number): Promise<Map<number, FetchedMessage[]>> {
    const cluster = await this.cluster();
    return fetchRound(cluster, topic, positions, maxWaitTime);
  }
}
