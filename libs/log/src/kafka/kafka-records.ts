/**
 * Kafka messages as log records, and the offsets the adapter accepts (decimal strings, as bigint).
 */
import type { KafkaMessage } from 'kafkajs';
import type { LogRecord } from '../log.port';
import type { FetchedMessage } from './cluster-layer';

export function toRecord(topic: string, partition: number, m: FetchedMessage | KafkaMessage): LogRecord {
  return {
    topic,
    partition,
    offset: m.offset,
    key: m.key ? m.key.toString('utf8') : '',
    value: m.value ? Buffer.from(m.value) : Buffer.alloc(0),
    timestamp: Number(m.timestamp),
  };
}

export function parseOffset(value: string, what: string): bigint {
  if (!/^\d+$/.test(value)) throw new Error(`invalid ${what} offset "${value}"`);
  return BigInt(value);
}
