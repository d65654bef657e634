import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { encodeQuoteServed, type QuoteServed, type ServedBuild, type ServedFee, type ServedQuoteRequest } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { LOG_PORT, type LogPort } from '@app/log';
import type { QuoteResponse } from '../quote/quote-response';

/** pending records that trigger an immediate append */
const BATCH = 64;
/** longest a served quote waits before its batch is appended */
const LINGER_MS = 5;
/** attempts per batch before it is given up (loudly) */
const ATTEMPTS = 5;
/** pending records kept at most while the log is failing; older ones are dropped (loudly) */
const MAX_PENDING = 100_000;

/**
 * The audit trail of served quotes: every quote answered over HTTP is appended to
 * `quotes-served` (key: quote id). `record` only queues the record and returns the quote id, so
 * the request path never waits for the log; batches of up to 64 records are appended after at
 * most 5 ms. A failed append is retried with backoff (the batch keeps its place, order is kept);
 * every failure is logged as an error, and a batch given up after the last attempt, or records
 * dropped because too many are pending, are logged with their quote ids — never silently lost.
 */
@Injectable()
export class QuotesServedService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('QuotesServed');
  private pending: QuoteServed[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private failures = 0;
  private closed = false;
  /** counters for health and tests */
  readonly stats = { recorded: 0, appended: 0, dropped: 0, failedAppends: 0 };

  constructor(@Inject(LOG_PORT) private readonly log: LogPort) {}

  async onModuleInit(): Promise<void> {
    await this.log.ensureTopic(TOPICS.quotesServed);
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  /**
   * queue a served answer (`fee`: the aggregator fee its amounts include; `build`: what /swap or
   * /instructions built on the quote `response`); returns its quote id
   */
  record(request: ServedQuoteRequest, response: QuoteResponse, fee: ServedFee | null = null, servedAt = Date.now(), build?: { kind: 'swap' | 'instructions'; build: ServedBuild }): string {
    const quoteId = randomUUID();
    const served: QuoteServed = { quoteId, servedAt, request, response, slot: response.contextSlot, logPosition: response.logPosition };
    if (fee !== null) served.fee = fee;
    if (build !== undefined) {
      served.kind = build.kind;
      served.build = build.build;
    }
    this.pending.push(served);
    this.stats.recorded++;
    if (this.pending.length > MAX_PENDING) {
      const dropped = this.pending.splice(0, this.pending.length - MAX_PENDING);
      this.stats.dropped += dropped.length;
      this.logger.error(
        `quotes-served: ${dropped.length} served quote(s) DROPPED, the log is not keeping up (pending > ${MAX_PENDING}); ids: ${dropped.map((d) => d.quoteId).join(',')}`,
      );
    }
    if (this.closed) {
      this.logger.error(`quotes-served: quote ${quoteId} served after shutdown started; appending it now`);
    }
    this.schedule();
    return quoteId;
  }

  /** resolves once every quote recorded so far has been appended (or given up, loudly) */
  async flush(): Promise<void> {
    while (this.pending.length > 0 || this.running) {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
      }
      if (!this.running) this.running = this.drain();
      await this.running;
    }
  }

  private schedule(): void {
    if (this.running) return; // the running drain picks the new record up
    if (this.pending.length >= BATCH) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.running = this.drain();
      return;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        if (!this.running) this.running = this.drain();
      }, LINGER_MS);
      this.timer.unref?.();
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.slice(0, BATCH);
        try {
          await this.log.append(
            TOPICS.quotesServed,
            batch.map((q) => ({ key: q.quoteId, value: encodeQuoteServed(q) })),
          );
          this.pending.splice(0, batch.length);
          this.stats.appended += batch.length;
          this.failures = 0;
        } catch (e) {
          this.failures++;
          this.stats.failedAppends++;
          const msg = (e as Error).message;
          if (this.failures >= ATTEMPTS) {
            this.pending.splice(0, batch.length);
            this.stats.dropped += batch.length;
            this.failures = 0;
            this.logger.error(
              `quotes-served: append failed ${ATTEMPTS} times (${msg}); ${batch.length} served quote(s) NOT RECORDED; ids: ${batch.map((q) => q.quoteId).join(',')}`,
            );
          } else {
            this.logger.error(`quotes-served: append of ${batch.length} record(s) failed (attempt ${this.failures}/${ATTEMPTS}): ${msg}; retrying`);
            await new Promise((r) => setTimeout(r, 50 * 2 ** this.failures).unref?.());
          }
        }
      }
    } finally {
      this.running = null;
    }
  }
}
