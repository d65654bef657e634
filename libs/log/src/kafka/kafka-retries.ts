/**
 * How the Kafka adapter describes kafkajs failures and retries the transient ones (a coordinator
 * loading, a leader moving, a just-created topic not served yet) with a short backoff.
 */

export function errText(err: unknown): string {
  const e = err as { message?: string; type?: string };
  return e?.message ? (e.type && !e.message.includes(e.type) ? `${e.type}: ${e.message}` : e.message) : String(err);
}

export function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Retries a retriable kafkajs failure (coordinator loading, leader moving) a few times. */
export async function withRetries<T>(what: string, fn: () => Promise<T>, attempts = 8, retriable: (err: unknown) => boolean = isRetriable): Promise<T> {
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

export function isRetriable(err: unknown): boolean {
  return (err as { retriable?: boolean })?.retriable === true;
}

/**
 * kafkajs' fetchTopicOffsets throws a TypeError (destructuring an absent ListOffsets answer)
 * while a just-created topic's partitions are not served by their leader yet: transient.
 */
export function isRetriableOffsets(err: unknown): boolean {
  return isRetriable(err) || err instanceof TypeError;
}
