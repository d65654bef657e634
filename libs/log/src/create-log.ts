import * as path from 'path';
import { TOPICS } from '@app/contracts';
import type { AppConfig } from '@app/config';
import { EmbeddedLog } from './embedded/embedded-log';
import type { TopicRetentionPolicy } from './embedded/retention';
import { KafkaLog } from './kafka/kafka-log';
import type { KafkaTopicRetention } from './kafka/topic-configs';
import type { LogPort } from './log.port';
import { SnapshotFiles } from './snapshots/snapshot-files';

type LogSettings = Pick<AppConfig, 'logDriver' | 'dataDir' | 'kafkaBrokers' | 'kafkaClientId'> & Partial<Pick<AppConfig, 'logRetention' | 'snapshotDir'>>;

/** where the router keeps its projection snapshots */
export function snapshotDirOf(config: Pick<AppConfig, 'dataDir'> & Partial<Pick<AppConfig, 'snapshotDir'>>): string {
  return path.resolve(config.snapshotDir ?? path.join(config.dataDir, 'snapshots'));
}

/**
 * The adapter the configuration names: embedded (default) or kafka, with the topics' retention
 * (LOG_RETENTION_*). pool-updates is never trimmed past the oldest projection snapshot (embedded:
 * the floor; Kafka: compacted by account, so its latest writes always stay).
 */
export function createLog(config: LogSettings): LogPort {
  const retention = config.logRetention;
  if (config.logDriver === 'kafka') {
    const topics: Record<string, KafkaTopicRetention> = {};
    if (retention) for (const [topic, ms] of Object.entries(retention)) topics[topic] = { retentionMs: ms, compact: topic === TOPICS.poolUpdates };
    return new KafkaLog({ brokers: config.kafkaBrokers, clientId: config.kafkaClientId, retention: topics });
  }
  const policies: Record<string, TopicRetentionPolicy> = {};
  if (retention) {
    const snapshots = new SnapshotFiles(snapshotDirOf(config), TOPICS.poolUpdates, { onWarn: () => undefined });
    for (const [topic, ms] of Object.entries(retention)) {
      policies[topic] = topic === TOPICS.poolUpdates ? { ms, floor: () => floorOf(snapshots) } : { ms };
    }
  }
  return new EmbeddedLog({ dataDir: path.resolve(config.dataDir), retention: policies });
}

/** the first pool-updates offset the oldest snapshot still needs (null: no snapshot, keep all) */
function floorOf(snapshots: SnapshotFiles): number | null {
  const p = snapshots.oldestPositions();
  return p === null || p['0'] === undefined ? null : Number(p['0']);
}
