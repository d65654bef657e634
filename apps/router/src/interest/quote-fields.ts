/**
 * What a pushed quote carries of a route besides its amounts: priceImpactBps and hops exactly as
 * the REST QuoteResponse computes them (buildQuoteResponse: priceImpactBps, hopCount), without
 * building the rest of the response (route list, warnings, threshold) on every replay.
 */
import { routeShares } from '../../../../libs/amm/src/routing/split';
import type { Route } from '../../../../libs/amm/src/routing/route-search';
import { impactFromIdeal, mainPath } from '../quote/quote-response';

/**
 * routeShares(route).ideal of a single path: the product along it (each hop takes the whole
 * flow), operation for operation, without its maps
 */
export function pathIdeal(route: Route): number {
  let ideal = 1;
  for (const h of route.hops) {
    const f = h.amountIn > 0n ? 1 : 0;
    ideal = ideal * f * h.pool.spotPrice(h.inputMint) * (1 - h.pool.feeBps / 10_000);
  }
  return ideal;
}

export function quoteFields(route: Route, single: boolean): { priceImpactBps: number; hops: number } {
  // a single path is its own main path
  if (single) return { priceImpactBps: Math.round(impactFromIdeal(route, pathIdeal(route)) * 10_000), hops: route.hops.length };
  const shares = routeShares(route);
  return { priceImpactBps: Math.round(impactFromIdeal(route, shares.ideal) * 10_000), hops: mainPath(route, shares.shares).length - 1 };
}
