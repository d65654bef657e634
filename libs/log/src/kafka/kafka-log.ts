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
import { randomUUID } from 'crypto';
import {
  Kafka,
  logLevel as KafkaLogLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type KafkaMessage,
  type LogEntry,
  type Producer,
} from 'kafkajs';
import type {
  AppendResult,
  BatchHandler,
  LogMessage,
  LogPort,
  LogRecord,
  Positions,
  StartFrom,
  SubscribeOptions,
  Subscription,
} from '../log.port';
import { metrics, secondsSince } from '@app/observability';
import { topicConfigEntries, type KafkaTopicRetention } from './topic-configs';

export type KafkaLogLogger = (level: 'info' | 'warn' | 'error', msg: string) => void;

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
/** long-poll time of a tailing fetch: the latency floor when idle is the broker's wake-up */
const TAIL_WAIT_MS = 100;
const READ_COMMITTED = 1;

/* ---- the part of kafkajs' internal cluster layer we use (stable in the pinned 2.2.4) ---- */
interface FetchedMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  isControlRecord?: boolean;
}
interface FetchResponse {
  responses: Array<{
    topicName: string;
    partitions: Array<{ partition: number; errorCode: number; highWatermark: string; messages: FetchedMessage[] }>;
  }>;
}
interface InternalBroker {
  fetch(request: {
    replicaId: number;
    isolationLevel: number;
    maxWaitTime: number;
    minBytes: number;
    maxBytes: number;
    topics: Array<{ topic: string; partitions: Array<{ partition: number; fetchOffset: string; maxBytes: number }> }>;
  }): Promise<FetchResponse>;
  offsetCommit(request: {
    groupId: string;
    groupGenerationId: number;
    memberId: string;
    topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>;
  }): Promise<unknown>;
}
interface InternalCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): Array<{ partitionId: number; leader: number }>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(args: { nodeId: string | number }): Promise<InternalBroker>;
  findGroupCoordinator(args: { groupId: string }): Promise<InternalBroker>;
}

function createInternalCluster(kafka: Kafka): InternalCluster {
  const sym = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const factory = sym ? (kafka as unknown as Record<symbol, unknown>)[sym] : undefined;
  if (typeof factory !== 'function') {
    throw new Error('KafkaLog: this kafkajs version does not expose its cluster layer (expected kafkajs 2.2.x)');
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Emitter = require('kafkajs/src/instrumentation/emitter');
  return (factory as (o: object) => InternalCluster)({
    allowAutoTopicCreation: true,
    instrumentationEmitter: new Emitter(),
    isolationLevel: READ_COMMITTED,
  });
}

function errText(err: unknown): string {
  const e = err as { message?: string; type?: string };
  return e?.message ? (e.type && !e.message.includes(e.type) ? `${e.type}: ${e.message}` : e.message) : String(err);
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Retries a retriable kafkajs failure (coordinator loading, leader moving) a few times. */
async function withRetries<T>(what: string, fn: () => Promise<T>, attempts = 8, retriable: (err: unknown) => boolean = isRetriable): Promise<T> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await fn();
    } catch (err) {
      last = err;
      if (!retriable(err)) break;
      await sleep(Math.min(1000, 50 * 2 ** i));
    }
  }
  throw new Error(`KafkaLog: ${what} failed: ${errText(last)}`, { cause: last });
}

function isRetriable(err: unknown): boolean {
  return (err as { retriable?: boolean })?.retriable === true;
}

/**
 * kafkajs' fetchTopicOffsets throws a TypeError (destructuring an absent ListOffsets answer)
 * while a just-created topic's partitions are not served by their leader yet: transient.
 */
function isRetriableOffsets(err: unknown): boolean {
  return isRetriable(err) || err instanceof TypeError;
}

function toRecord(topic: string, partition: number, m: FetchedMessage | KafkaMessage): LogRecord {
  return {
    topic,
    partition,
    offset: m.offset,
    key: m.key ? m.key.toString('utf8') : '',
    value: m.value ? Buffer.from(m.value) : Buffer.alloc(0),
    timestamp: Number(m.timestamp),
  };
}

function parseOffset(value: string, what: string): bigint {
  if (!/^\d+$/.test(value)) throw new Error(`invalid ${what} offset "${value}"`);
  return BigInt(value);
}

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
    this.log =
      options.logger ??
      ((level, msg) => {
        if (level === 'error') console.error(`[KafkaLog] ${msg}`);
        else if (level === 'warn') console.warn(`[KafkaLog] ${msg}`);
        else console.log(`[KafkaLog] ${msg}`);
      });
    this.topicWaitMs = options.topicWaitMs ?? 30_000;
    const log = this.log;
    this.kafka = new Kafka({
      brokers: options.brokers,
      clientId: options.clientId,
      logLevel: KafkaLogLevel.WARN,
      logCreator:
        () =>
        ({ namespace, level, log: entry }: LogEntry) => {
          const { message, ...extra } = entry as { message: string; [k: string]: unknown };
          delete extra.timestamp;
          delete extra.logger;
          const detail = Object.keys(extra).length ? ` ${JSON.stringify(extra)}` : '';
          const lvl = level <= KafkaLogLevel.ERROR ? 'error' : level === KafkaLogLevel.WARN ? 'warn' : 'info';
          log(lvl, `kafkajs ${namespace}: ${message}${detail}`);
        },
    });
  }

  // ---- LogPort ----

  async ensureTopic(topic: string): Promise<void> {
    const admin = await this.admin();
    try {
      const retention = this.options.retention?.[topic];
      const configEntries = retention ? topicConfigEntries(retention) : undefined;
      await admin.createTopics({ topics: [{ topic, configEntries }], waitForLeaders: true, timeout: 10_000 });
    } catch (err) {
      // (an existing topic is not an error: createTopics then resolves false)
      this.log('warn', `could not create topic ${topic} (${errText(err)}); relying on broker auto-creation`);
    }
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
    const res = await withRetries(`fetching committed offsets of group ${groupId}`, () =>
      admin.fetchOffsets({ groupId, topics: [topic] }),
    );
    const out: Positions = {};
    for (const t of res) {
      if (t.topic !== topic) continue;
      for (const p of t.partitions) if (p.offset !== '-1' && p.offset !== '') out[String(p.partition)] = p.offset;
    }
    return out;
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
      this.producerP = (async () => {
        const idempotent = this.kafka.producer({
          idempotent: true,
          maxInFlightRequests: 1,
          createPartitioner: Partitioners.DefaultPartitioner,
          allowAutoTopicCreation: true,
        });
        try {
          await idempotent.connect();
          return idempotent;
        } catch (err) {
          await idempotent.disconnect().catch(() => undefined);
          this.log(
            'info',
            `idempotent producer unavailable (${errText(err)}); using acks=-1 with one request in flight`,
          );
        }
        const plain = this.kafka.producer({
          maxInFlightRequests: 1,
          createPartitioner: Partitioners.DefaultPartitioner,
          allowAutoTopicCreation: true,
        });
        await plain.connect();
        return plain;
      })();
      this.producerP.catch(() => (this.producerP = undefined));
    }
    return this.producerP;
  }

  private async topicOffsets(topic: string): Promise<Array<{ partition: number; high: string; low: string }>> {
    // kafkajs' fetchTopicOffsets fails with a TypeError on a topic whose metadata has no
    // partitions yet (another process's ensureTopic still in flight, or auto-creation pending)
    if (!this.partitionCounts.has(topic)) await this.waitForTopic(topic);
    const admin = await this.admin();
    const offsets = await withRetries(`fetching offsets of ${topic}`, () => admin.fetchTopicOffsets(topic), 10, isRetriableOffsets);
    return offsets.map((o) => ({ partition: o.partition, high: o.high, low: o.low })).sort((a, b) => a.partition - b.partition);
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
    const deadline = Date.now() + this.topicWaitMs;
    let lastProblem = 'no metadata yet';
    for (;;) {
      try {
        const md = await admin.fetchTopicMetadata({ topics: [topic] });
        const t = md.topics.find((x) => x.name === topic);
        if (t && t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0 && p.partitionErrorCode === 0)) {
          this.partitionCounts.set(topic, t.partitions.length);
          return;
        }
        lastProblem = t ? `partitions not ready: ${JSON.stringify(t.partitions)}` : 'topic missing from metadata';
      } catch (err) {
        lastProblem = errText(err);
      }
      if (Date.now() > deadline) {
        throw new Error(`KafkaLog: topic ${topic} did not become available within ${this.topicWaitMs} ms (${lastProblem})`);
      }
      await sleep(100);
    }
  }

  /**
   * @internal One Fetch round over the given partitions (in parallel per leader).
   * Returns the messages per partition (may include offsets below the requested one).
   */
  async fetchOnce(topic: string, positions: Map<number, bigint>, maxWaitTime: number): Promise<Map<number, FetchedMessage[]>> {
    const cluster = await this.cluster();
    const result = new Map<number, FetchedMessage[]>();
    await withRetries(`fetch from ${topic}`, async () => {
      result.clear();
      await cluster.addTargetTopic(topic);
      const byLeader = cluster.findLeaderForPartitions(topic, [...positions.keys()]);
      await Promise.all(
        Object.entries(byLeader).map(async ([nodeId, partitions]) => {
          const broker = await cluster.findBroker({ nodeId });
          const res = await broker.fetch({
            replicaId: -1,
            isolationLevel: READ_COMMITTED,
            maxWaitTime,
            minBytes: 1,
            maxBytes: 16 * 1024 * 1024,
            topics: [
              {
                topic,
                partitions: partitions.map((p) => ({
                  partition: p,
                  fetchOffset: positions.get(p)!.toString(),
                  maxBytes: 2 * 1024 * 1024,
                })),
              },
            ],
          });
          for (const t of res.responses) {
            if (t.topicName !== topic) continue;
            for (const p of t.partitions) result.set(p.partition, p.messages);
          }
        }),
      ).catch(async (err) => {
        // stale leadership: refresh metadata before the retry
        await cluster.refreshMetadata().catch(() => undefined);
        throw err;
      });
    });
    return result;
  }
}

/* ---- subscriptions ---- */

abstract class KafkaSubscriptionBase implements Subscription {
  abstract start(): Promise<void>;
  abstract close(): Promise<void>;
}

function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** No group: a fetch loop over every partition; nothing committed. */
class FetchSubscription extends KafkaSubscriptionBase {
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly owner: KafkaLog,
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

function reportSafely(onError: (err: Error) => void, err: Error): void {
  try {
    onError(err);
  } catch (reportErr) {
    console.error('KafkaLog: the onError callback threw', reportErr, 'while reporting', err);
  }
}

/** With a group: a kafkajs consumer; offsets committed after each handled batch. */
class GroupSubscription extends KafkaSubscriptionBase {
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
