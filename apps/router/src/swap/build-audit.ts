/**
 * The audit of what /swap and /instructions answered: each answer is recorded on quotes-served
 * (its request, the quote of the route built, the answer and, for /swap, the hash of the message
 * the wallet signs) under a new quote id, sent back as X-Quote-Id; the build's target is
 * resolved here too (by-quote.ts), against the quotes kept by id.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { QuotesServedService } from '../audit/quotes-served.service';
import { QUOTE_ID_HEADER } from '../http/quote-id';
import { ProjectionService } from '../projection/projection.service';
import { QuoteService } from '../quote/quote.service';
import { servedRequest } from '../quote/served-request';
import { routeIsCurrent, ServedQuotes } from '../quote/served-quotes';
import { buildTarget, type BuildTarget } from './by-quote';
import type { InstructionsBodyDto } from './swap-body.dto';
import type { Answered } from './swap.service';

@Injectable()
export class BuildAudit {
  constructor(
    private readonly audit: QuotesServedService,
    private readonly kept: ServedQuotes,
    private readonly quotes: QuoteService,
    private readonly projections: ProjectionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** the request's target: its own fields, or the served quote its quoteId names */
  target(b: InstructionsBodyDto): BuildTarget {
    return buildTarget(
      b,
      this.config.maxHops,
      (id) => this.kept.get(id),
      (route) => routeIsCurrent(route, this.projections.projection),
    );
  }

  /** record the answer on quotes-served and name its record in the X-Quote-Id header */
  record<T extends object>(kind: 'swap' | 'instructions', userWallet: string, t: BuildTarget, answered: Answered<T>, res: Response): void {
    const build = { userWallet, answer: JSON.parse(JSON.stringify(answered.data)) as Record<string, unknown> };
    const quoteId = this.audit.record(servedRequest(t.params, t.controls, this.config.intermediateTokens), answered.quote, this.quotes.feeFor(t.controls), Date.now(), {
      kind,
      build: { ...build, ...(t.fromQuoteId !== undefined ? { fromQuoteId: t.fromQuoteId } : {}),
        ...(t.requoted === true ? { requoted: true } : {}), ...(answered.messageHash !== undefined ? { messageHash: answered.messageHash } : {}) },
    });
    res.setHeader(QUOTE_ID_HEADER, quoteId);
  }
}
