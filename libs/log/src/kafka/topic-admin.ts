/**
 * The admin requests of the Kafka adapter: creating a topic (with its retention), waiting until
 * metadata shows all of a topic's partitions led, and reading a topic's offsets and a group's
 * committed offsets.
 */
import type { Admin } from 'kafkajs';
import type { Positions } from '../log.port';
import type { KafkaLogLogger } from './kafka-client';
import { errText, isRetriableOffsets, sleep, withRetries } from './kafka-retries';
import { topicConfigEntries, type KafkaTopicRetention } from './topic-configs';

/** createTopics; where that fails (no CreateTopics, no controller) it logs why and leaves the topic to broker auto-creation */
export async function createTopic(admin: Admin, topic: string, retention: KafkaTopicRetention | undefined, log: KafkaLogLogger): Promise<void> {
  try {
    const configEntries = retention ? topicConfigEntries(retention) : undefined;
    await admin.createTopics({ topics: [{ topic, configEntries }], waitForLeaders: true, timeout: 10_000 });
  } catch (err) {
    // (an existing topic is not an error: createTopics then resolves false)
    log('warn', `could not create topic ${topic} (${errText(err)}); relying on broker auto-creation`);
  }
}

/** Waits until metadata shows the topic with all partitions led (this may auto-create it); its partition count. */
export async function waitForTopicPartitions(admin: Admin, topic: string, waitMs: number): Promise<number> {
  const deadline = Date.now() + waitMs;
  let lastProblem = 'no metadata yet';
  for (;;) {
    try {
      const md = await admin.fetchTopicMetadata({ topics: [topic] });
      const t = md.topics.find((x) => x.name === topic);
      if (t && t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0 && p.partitionErrorCode === 0)) {
        return t.partitions.length;
      }
      lastProblem = t ? `partitions not ready: ${JSON.stringify(t.partitions)}` : 'topic missing from metadata';
    } catch (err) {
      lastProblem = errText(err);
    }
    if (Date.now() > deadline) {
      throw new Error(`KafkaLog: topic ${topic} did not become available within ${waitMs} ms (${lastProblem})`);
    }
    await sleep(100);
  }
}

/** the low and high offsets of every partition of the topic, by partition */
export async function fetchTopicOffsets(admin: Admin, topic: string): Promise<Array<{ partition: number; high: string; low: string }>> {
  const offsets = await withRetries(`fetching offsets of ${topic}`, () => admin.fetchTopicOffsets(topic), 10, isRetriableOffsets);
  return offsets.map((o) => ({ partition: o.partition, high: o.high, low: o.low })).sort((a, b) => a.partition - b.partition);
}

/** the positions committed for the group on the topic, by partition (partitions without a commit left out) */
export async function fetchCommittedOffsets(admin: Admin, groupId: string, topic: string): Promise<Positions> {
  const res = await withRetries(`fetching committed offsets of group ${groupId}`, () => admin.fetchOffsets({ groupId, topics: [topic] }));
  const out: Positions = {};
  for (const t of res) {
    if (t.topic !== topic) continue;
    for (const p of t.partitions) if (p.offset !== '-1' && p.offset !== '') out[String(p.partition)] = p.offset;
  }
  return out;
}
