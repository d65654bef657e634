import * as path from 'path';
import type { AppConfig } from '../../config/src/config';
import { EmbeddedLog } from './embedded/embedded-log';
import { KafkaLog } from './kafka/kafka-log';
import type { LogPort } from './log.port';

/** The adapter the configuration names: embedded (default) or kafka. */
export function createLog(config: Pick<AppConfig, 'logDriver' | 'dataDir' | 'kafkaBrokers' | 'kafkaClientId'>): LogPort {
  if (config.logDriver === 'kafka') {
    return new KafkaLog({ brokers: config.kafkaBrokers, clientId: config.kafkaClientId });
  }
  return new EmbeddedLog({ dataDir: path.resolve(config.dataDir) });
}
