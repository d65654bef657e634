import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { type RouteSearchOptions, type SwapMode, type TokenGraph } from '@app/amm';
import { ProjectionService } from '../projection/projection.service';
import { buildQuoteResponse, type QuoteResponse } from './quote-response';
import { aggregatorFeeOf, findBestNetRoute, withPlatformFee, type FeeSchedule } from './aggregator-fee';
import { controlledSearch, type RouteControls } from './route-controls';
import type { Route } from '@app/amm';
import { metrics } from '@app/observability';

export interface QuoteParams {
  inputMint: string;
  outputMint: string;
  amount: bigint;
  swapMode: SwapMode;
  slippageBps: number;
}

/** the state a quote is computed on: the token graph plus its provenance */
export interface QuoteSource extends TokenGraph {
  /** newest slot applied */
  readonly slot: number;
  /** offset of the last applied pool-updates record per partition */
  readonly positions: Record<string, string>;
}

/**
 * A quote on a projection (plain function: no Nest, usable by replay and audit tools and by the
 * stream's recomputation). With an aggregator fee, the amounts and bound include it, and under
 * FEE_ROUTES=multi-hop the best direct route is served when it nets the user more than the best
 * route (see aggregator-fee.ts). Throws the route errors of the route search (NoPoolError, NoRouteError,
 * InsufficientLiquidityError). Provenance is read before the search; the search is synchronous,
 * so it runs on exactly that state.
 */
export function computeQuote(source: QuoteSource, p: QuoteParams, maxHops = 5, opts: RouteSearchOptions = {}, fee: FeeSchedule | null = null): QuoteResponse {
  return computeRoutedQuote(source, p, maxHops, opts, fee).response;
}

/** a quote and the exact route it reports */
export interface RoutedQuote {
  route: Route;
  response: QuoteResponse;
}

/** computeQuote, with the route it found */
export function computeRoutedQuote(source: QuoteSource, p: QuoteParams, maxHops = 5, opts: RouteSearchOptions = {}, fee: FeeSchedule | null = null): RoutedQuote {
  return routedQuoteOn(source, p, fee, () => findBestNetRoute(source, { inputMint: p.inputMint, outputMint: p.outputMint, amount: p.amount, mode: p.swapMode, maxHops }, fee, opts));
}

/** the quote of the route `find` chooses on `source`, its provenance read before `find` runs */
export function routedQuoteOn(source: QuoteSource, p: QuoteParams, fee: FeeSchedule | null, find: () => Route): RoutedQuote {
  const contextSlot = source.slot;
  const logPosition = source.positions;
  const route = find();
  return { route, response: buildQuoteResponse(route, { slippageBps: p.slippageBps, contextSlot, logPosition, fee }) };
}

/** Quotes from the current projection; throws the route errors of the route search. */
@Injectable()
export class QuoteService {
  /** the configured fee the quotes include (null: none) */
  readonly fee: FeeSchedule | null;
  private readonly liquid: ReadonlySet<string>;

  constructor(
    private readonly projections: ProjectionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const fee = aggregatorFeeOf(config);
    this.fee = fee === null ? null : { bps: fee.bps, routes: fee.routes };
    this.liquid = new Set(config.intermediateTokens);
  }

  /** the fees a request's quote includes: the configured one and its platformFeeBps (quotes-served records carry them for the audit) */
  feeFor(controls: RouteControls = {}): FeeSchedule | null {
    return withPlatformFee(this.fee, controls.platformFeeBps);
  }

  /** the best route under the request's route controls (maxAccounts aside: see quoteWithin) */
  quote(p: QuoteParams, controls: RouteControls = {}): RoutedQuote {
    const s = controlledSearch(controls, this.config.maxHops, this.liquid, p.inputMint, p.outputMint);
    return metrics.timeQuote('quote', () => computeRoutedQuote(this.projections.projection, p, s.maxHops, s.options, this.feeFor(controls)));
  }

  /** the quote of a route `find` chooses on the current projection (provenance read before it runs) */
  quoteWithin(p: QuoteParams, find: () => Route, controls: RouteControls = {}): RoutedQuote {
    return routedQuoteOn(this.projections.projection, p, this.feeFor(controls), () => metrics.timeQuote('quote', find));
  }
}
