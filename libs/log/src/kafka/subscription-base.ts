/**
 * What the two kinds of Kafka subscription share: the base type the adapter tracks them by, the
 * long-poll time of a tailing fetch, batching into handler-sized chunks, and reporting a failure
 * without letting a throwing onError escape.
 */
import type { Subscription } from '../log.port';

/** long-poll time of a tailing fetch: the latency floor when idle is the broker's wake-up */
export const TAIL_WAIT_MS = 100;

export abstract class KafkaSubscriptionBase implements Subscription {
  abstract start(): Promise<void>;
  abstract close(): Promise<void>;
}

export function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

export function reportSafely(onError: (err: Error) => void, err: Error): void {
  try {
    onError(err);
  } catch (reportErr) {
    console.error('KafkaLog: the onError callback threw', reportErr, 'while reporting', err);
  }
}
