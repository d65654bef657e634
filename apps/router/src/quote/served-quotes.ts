/**
 * Served quotes kept for /swap and /instructions by quoteId (the X-Quote-Id of a served quote):
 * the parameters, route controls and exact route a quote reported, so a build can use exactly
 * that route and those amounts while the pools it was computed on are unchanged. The newest
 * QUOTES_KEPT quotes are kept in memory (the oldest go first; a restart forgets them all).
 */
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import type { Pool } from '@app/amm';
import type { Route } from '@app/amm';
import type { QuoteParams } from './quote.service';
import type { RouteControls } from './route-controls';

export interface KeptQuote {
  quoteId: string;
  params: QuoteParams;
  controls: RouteControls;
  route: Route;
}

/** the error texts and statuses of a build by quoteId (docs/api.md, OpenAPI) */
export const QUOTE_ID_ERRORS = {
  /** 404: never served here, or no longer kept */
  notFound: 'quote not found',
  /** 409: a pool of its route has changed since; allowRequote: true quotes again instead */
  moved: 'quote state moved on',
} as const;

@Injectable()
export class ServedQuotes {
  private readonly kept = new Map<string, KeptQuote>();
  private readonly max: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.max = config.quotesKept;
  }

  keep(q: KeptQuote): void {
    if (this.max === 0) return;
    this.kept.set(q.quoteId, q);
    if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value as string);
  }

  get(quoteId: string): KeptQuote | undefined {
    return this.kept.get(quoteId);
  }
}

/**
 * Whether the route's state is current: every pool of it is still the projection's pool object
 * (the projection materialises a pool anew whenever an account it is computed from changes).
 */
export function routeIsCurrent(route: Route, pools: { pool(address: string): Pool | undefined }): boolean {
  return route.hops.every((h) => pools.pool(h.pool.address) === h.pool);
}
