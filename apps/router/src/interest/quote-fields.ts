/**
 * What a pushed quote carries of a route besides its amounts: priceImpactBps and hops exactly as
 * the REST QuoteResponse computes them (buildQuoteResponse: priceImpactBps, hopCount), without
 * building the rest of the response (route list, warnings, threshold) on every replay.
 */
import { routeShares } from '../../../../libs/amm/src/routing/split';
import type { Route } from '../../../../libs/amm/src/routing/route-search';
import { mainPath, priceImpact } from '../quote/quote-response';

export function quoteFields(route: Route, single: boolean): { priceImpactBps: number; hops: number } {
  const priceImpactBps = Math.round(priceImpact(route) * 10_000);
  // a single path is its own main path
  const hops = single ? route.hops.length : mainPath(route, routeShares(route).shares).length - 1;
  return { priceImpactBps, hops };
}
