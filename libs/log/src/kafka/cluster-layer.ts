/**
 * The part of kafkajs' internal cluster layer the adapter uses (stable in the pinned 2.2.4):
 * direct Fetch requests to the partition leaders, and OffsetCommit to a group coordinator,
 * without a consumer group.
 */
import type { Kafka } from 'kafkajs';
import { withRetries } from './kafka-retries';

export const READ_COMMITTED = 1;

export interface FetchedMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  isControlRecord?: boolean;
}
export interface FetchResponse {
  responses: Array<{
    topicName: string;
    partitions: Array<{ partition: number; errorCode: number; highWatermark: string; messages: FetchedMessage[] }>;
  }>;
}
export interface InternalBroker {
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
export interface InternalCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): Array<{ partitionId: number; leader: number }>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(args: { nodeId: string | number }): Promise<InternalBroker>;
  findGroupCoordinator(args: { groupId: string }): Promise<InternalBroker>;
}

export function createInternalCluster(kafka: Kafka): InternalCluster {
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

/**
 * One Fetch round over the given partitions (in parallel per leader).
 * Returns the messages per partition (may include offsets below the requested one).
 */
export async function fetchRound(cluster: InternalCluster, topic: string, positions: Map<number, bigint>, maxWaitTime: number): Promise<Map<number, FetchedMessage[]>> {
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
