/**
 * The kafkajs clients the Kafka adapter talks through: the Kafka instance with kafkajs' own log
 * routed to the adapter's logger, and the producer (idempotent where the cluster supports it,
 * else acks=-1 with one request in flight so retries keep order).
 */
import { Kafka, logLevel as KafkaLogLevel, Partitioners, type LogEntry, type Producer } from 'kafkajs';
import { errText } from './kafka-retries';

export type KafkaLogLogger = (level: 'info' | 'warn' | 'error', msg: string) => void;

/** the logger of an adapter given none: the console, prefixed */
export const consoleKafkaLogger: KafkaLogLogger = (level, msg) => {
  if (level === 'error') console.error(`[KafkaLog] ${msg}`);
  else if (level === 'warn') console.warn(`[KafkaLog] ${msg}`);
  else console.log(`[KafkaLog] ${msg}`);
};

/** a kafkajs client that logs warnings and errors (with their details) through `log` */
export function createKafka(brokers: string[], clientId: string, log: KafkaLogLogger): Kafka {
  return new Kafka({
    brokers,
    clientId,
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

/** a connected producer: idempotent when the cluster allows it, else the plain one */
export async function connectProducer(kafka: Kafka, log: KafkaLogLogger): Promise<Producer> {
  const idempotent = kafka.producer({
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
    log('info', `idempotent producer unavailable (${errText(err)}); using acks=-1 with one request in flight`);
  }
  const plain = kafka.producer({
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: true,
  });
  await plain.connect();
  return plain;
}
