/**
 * What a route's API answer reports beside its amounts: each hop's share of the input, the
 * weighted fee and the zero-size rate the price impact is measured against. Pure.
 */
import type { Route } from './types';

/**
 * Price impact of a route as a fraction (see quote-response): 1 − (amountOut / amountIn) / ideal,
 * where ideal is what the same route (same pools, same split fractions at each token) gives per
 * unit of input at zero size: Σ over the flow of Π spotPrice × (1 − fee). Clamped to [0, 1].
 * Also returns the route's input shares per hop (the `percent` of the API) and the weighted fee.
 */
export function routeShares(route: Route): { shares: number[]; ideal: number; feeBps: number } {
  const held = new Map<string, number>([[route.inputMint, 1]]);
  const value = new Map<string, number>([[route.inputMint, 1]]);
  const outTotal = new Map<string, bigint>();
  for (const h of route.hops) outTotal.set(h.inputMint, (outTotal.get(h.inputMint) ?? 0n) + h.amountIn);
  const shares: number[] = [];
  let fee = 0;
  for (const h of route.hops) {
    const total = outTotal.get(h.inputMint)!;
    const f = total > 0n ? Number(h.amountIn) / Number(total) : 0;
    const s = (held.get(h.inputMint) ?? 0) * f;
    shares.push(s);
    fee += s * h.pool.feeBps;
    held.set(h.outputMint, (held.get(h.outputMint) ?? 0) + s);
    const v = (value.get(h.inputMint) ?? 0) * f * h.pool.spotPrice(h.inputMint) * (1 - h.pool.feeBps / 10_000);
    value.set(h.outputMint, (value.get(h.outputMint) ?? 0) + v);
  }
  return { shares, ideal: value.get(route.outputMint) ?? 0, feeBps: fee };
}
