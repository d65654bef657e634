/**
 * What a pushed quote carries of a route besides its amounts: priceImpactBps and hops exactly as
 * the REST QuoteResponse computes them (buildQuoteResponse: priceImpactBps, hopCount), without
 * building the rest of the response (route list, warnings, threshold) on every replay.
 */
import { routeShares } from '@app/amm';
import type { Pool } from '@app/amm';
import type { Route } from '@app/amm';
import { impactOf, mainPath } from '../quote/quote-response';

/** one hop of pathIdeal's product: `ideal` so far times the hop's spot price after its fee (0 for a hop given nothing) */
export function hopIdeal(ideal: number, pool: Pool, inputMint: string, amountIn: bigint): number {
  const f = amountIn > 0n ? 1 : 0;
  return ideal * f * pool.spotPrice(inputMint) * (1 - pool.feeBps / 10_000);
}

/**
 * routeShares(route).ideal of a single path: the product along it (each hop takes the whole
 * flow), operation for operation, without its maps
 */
export function pathIdeal(route: Route): number {
  let ideal = 1;
  for (const h of route.hops) ideal = hopIdeal(ideal, h.pool, h.inputMint, h.amountIn);
  return ideal;
}

/** priceImpactBps of the QuoteResponse for a route's amounts and its ideal */
export function impactBps(amountIn: bigint, amountOut: bigint, ideal: number): number {
  return Math.round(impactOf(amountIn, amountOut, ideal) * 10_000);
}

export function quoteFields(route: Route, single: boolean): { priceImpactBps: number; hops: number } {
  // a single path is its own main path
  if (single) return { priceImpactBps: impactBps(route.amountIn, route.amountOut, pathIdeal(route)), hops: route.hops.length };
  const shares = routeShares(route);
  return { priceImpactBps: impactBps(route.amountIn, route.amountOut, shares.ideal), hops: mainPath(route, shares.shares).length - 1 };
}
