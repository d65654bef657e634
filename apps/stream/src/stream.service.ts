import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { TOPICS } from '@app/contracts';
import { decodeQuotesChanged, encodeQuoteInterest, tupleKey, type QuoteTuple } from '@app/contracts';
import { ContractError } from '@app/contracts';
import { LOG_PORT, type LogMessage, type LogPort, type Subscription } from '@app/log';
import { StreamHub } from './hub';
import { metrics } from '@app/observability';

/** How often this instance re-announces its whole interest set, and how long the router keeps it. */
export const LEASE_INTERVAL_MS = 5_000;
export const LEASE_TTL_MS = 15_000;
/** tuples per lease record (keeps records far below Kafka's default 1 MB message limit) */
export const LEASE_CHUNK = 500;

/** the quote-interest records that lease the tuples of `keys` (tupleKey) for `instance`: at most LEASE_CHUNK each, keyed by the instance */
export function leaseMessages(instance: string, keys: readonly string[]): LogMessage[] {
  const out: LogMessage[] = [];
  for (let i = 0; i < keys.length; i += LEASE_CHUNK) {
    out.push({ key: instance, value: encodeQuoteInterest({ op: 'lease', instance, keys: keys.slice(i, i + LEASE_CHUNK), ttlMs: LEASE_TTL_MS }) });
  }
  return out;
}

/**
 * Wires the StreamHub to the log: interest changes go to `quote-interest`, quotes come from
 * `quotes-changed` (tailed from its end; the router answers every new interest with a quote).
 */
@Injectable()
export class StreamService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('stream');
  readonly instance = `stream-${randomUUID()}`;
  readonly hub: StreamHub;
  private sub?: Subscription;
  private lease?: NodeJS.Timeout;
  private pending: Promise<unknown> = Promise.resolve();
  private stopGauges: () => void = () => undefined;
  /** quotes-changed records rejected (malformed, unknown version, key not the tuple) */
  rejected = 0;
  /** quotes-changed records of tuples no client of this instance holds (not decoded) */
  skipped = 0;

  constructor(@Inject(LOG_PORT) private readonly log: LogPort) {
    this.hub = new StreamHub((op, tuple) => this.publish(op, tuple));
  }

  async onModuleInit(): Promise<void> {
    await this.log.ensureTopic(TOPICS.quoteInterest);
    await this.log.ensureTopic(TOPICS.quotesChanged);
    this.sub = await this.log.subscribe(TOPICS.quotesChanged, { from: 'end' }, (records) => {
      for (const r of records) {
        // the key is the tuple: a quote no client of this instance holds is not even decoded
        // (every stream instance reads the whole topic; each decodes only its own tuples)
        const held = this.hub.held(r.key);
        if (held === undefined) {
          this.skipped++;
          continue;
        }
        try {
          // the record's tuple must be the one its key names (the held tuple, already validated)
          this.hub.onQuote(decodeQuotesChanged(r.value, held), r.key);
          metrics.streamQuoteDelivered((Date.now() - r.timestamp) / 1000);
        } catch (e) {
          if (!(e instanceof ContractError)) throw e;
          this.rejected++;
          this.logger.warn(`rejected quotes-changed record at ${r.partition}:${r.offset}: ${e.reason}`);
        }
      }
    });
    this.stopGauges = metrics.streamStatsFrom(() => this.hub.stats());
    this.lease = setInterval(() => this.renewLease(), LEASE_INTERVAL_MS);
    this.lease.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.lease) clearInterval(this.lease);
    this.stopGauges();
    await this.pending.catch(() => undefined);
    await this.sub?.close();
  }

  private publish(op: 'add' | 'remove', tuple: QuoteTuple): void {
    this.enqueue(tupleKey(tuple), encodeQuoteInterest({ op, instance: this.instance, tuple }));
  }

  /** Re-announce every held tuple, in records of at most LEASE_CHUNK tuples (leases add up). */
  renewLease(): void {
    for (const m of leaseMessages(this.instance, this.hub.activeKeys())) this.enqueue(m.key, m.value);
  }

  /** Appends in order, one at a time, so add/remove for one tuple never overtake each other. */
  private enqueue(key: string, value: Buffer): void {
    this.pending = this.pending
      .then(() => this.log.append(TOPICS.quoteInterest, [{ key, value }]))
      .catch((e: unknown) => this.logger.error(`could not publish interest: ${(e as Error).message}`));
  }
}
