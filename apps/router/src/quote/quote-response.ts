/**
 * QuoteResponse (API.md §2) from an exact route. Plain functions, no Nest.
 */
import type { Route } from '@app/amm';
import { routeShares } from '@app/amm';
import { chargeRoute, type FeeSchedule } from './aggregator-fee';

export interface RouteInfo {
  poolAddress: string;
  poolType: string;
  percent: number;
  inputMint: string;
  outputMint: string;
}

export type PriceImpactSeverity = 'none' | 'low' | 'moderate' | 'high' | 'extreme';

export interface QuoteResponse {
  inputMint: string;
  outputMint: string;
  amountIn: string;
  amountOut: string;
  priceImpactBps: number;
  priceImpactPercent: string;
  priceImpactSeverity: PriceImpactSeverity;
  priceImpactWarning: string;
  feeBps: number;
  routes: RouteInfo[];
  routePath: string[];
  hopCount: number;
  otherAmountThreshold: string;
  /** the request's integrator fee (platformFeeBps): its amount (in the fee's mint: the output for ExactIn, the input for ExactOut, included in amountOut / amountIn) and rate */
  platformFee?: { amount: string; feeBps: number };
  /** provenance: the highest slot in the state the quote was computed from */
  contextSlot: number;
  /** provenance: offset of the last applied pool-updates record per partition */
  logPosition: Record<string, string>;
}

export interface QuoteContext {
  slippageBps: number;
  /** the aggregator fee (FEE_BPS / FEE_ROUTES): amountIn, amountOut and otherAmountThreshold include it, as /swap's do */
  fee?: FeeSchedule | null;
  contextSlot: number;
  logPosition: Record<string, string>;
}

/**
 * Price impact as a fraction: the shortfall of the execution price against the route's spot
 * price after fees,
 *
 *     impact = 1 − (amountOut / amountIn) / ideal
 *
 * where `ideal` is what the same route gives per unit of input at zero size: along a single path
 * Π spotPrice_i × Π (1 − feeBps_i / 10000) (spotPrice_i is hop i's marginal pre-fee price in
 * output smallest units per input smallest unit, `Pool.spotPrice`; feeBps_i its pool fee); for a
 * split route the same product along every branch, weighted by the route's own split fractions
 * at each token. It is the part of the shortfall due to the trade's size (the curves), fees
 * excluded; for ExactOut the same formula applies to the exact amounts. Clamped to [0, 1]
 * (integer rounding of tiny trades can make it a hair negative).
 */
export function priceImpact(route: Route): number {
  return impactOf(route.amountIn, route.amountOut, routeShares(route).ideal);
}

/** priceImpact of a route's amounts for its `ideal` (routeShares(route).ideal) */
export function impactOf(amountIn: bigint, amountOut: bigint, ideal: number): number {
  const inAmount = Number(amountIn);
  if (!(ideal > 0) || !(inAmount > 0)) return 1;
  const impact = 1 - Number(amountOut) / inAmount / ideal;
  return Math.min(1, Math.max(0, impact));
}

/**
 * The main path of a route: from the input mint, repeatedly to the next token that receives the
 * largest share of the flow (ties: the token listed first). A single path is its own main path.
 */
export function mainPath(route: Route, shares: readonly number[]): string[] {
  const path = [route.inputMint];
  const seen = new Set(path);
  let at = route.inputMint;
  while (at !== route.outputMint) {
    const next = new Map<string, number>();
    route.hops.forEach((h, i) => {
      if (h.inputMint === at) next.set(h.outputMint, (next.get(h.outputMint) ?? 0) + shares[i]);
    });
    let best: string | null = null;
    let bestShare = -1;
    for (const [m, s] of next) {
      if (s > bestShare && !seen.has(m)) {
        best = m;
        bestShare = s;
      }
    }
    if (best === null) break;
    path.push(best);
    seen.add(best);
    at = best;
  }
  return path;
}

/**
 * Severity from the impact in whole basis points (so it agrees with priceImpactBps and the
 * displayed percent): none < 10 bps (0.1 %), low < 100, moderate < 300, high ≤ 500, extreme > 500.
 */
export function priceImpactSeverity(bps: number): PriceImpactSeverity {
  if (bps < 10) return 'none';
  if (bps < 100) return 'low';
  if (bps < 300) return 'moderate';
  if (bps <= 500) return 'high';
  return 'extreme';
}

export function priceImpactWarning(bps: number, severity: PriceImpactSeverity): string {
  if (severity === 'none') return '';
  const pct = formatPercent(bps);
  switch (severity) {
    case 'low':
      return `price impact ${pct}%`;
    case 'moderate':
      return `moderate price impact: ${pct}%`;
    case 'high':
      return `high price impact: ${pct}%; consider a smaller amount`;
    default:
      return `extreme price impact: ${pct}%; you may lose a large part of the value`;
  }
}

/** bps as a percent string with two decimals: 12 → "0.12" */
export function formatPercent(bps: number): string {
  return (bps / 100).toFixed(2);
}

/**
 * The API's QuoteResponse. Split routes: `routes` lists every (hop, pool) edge of the route in
 * topological order of its input token, `percent` being the share of the swap's input that flows
 * through the edge (rounded, at least 1); at every intermediate token the percents in and out
 * agree (up to rounding). `routePath` / `hopCount` describe the main path (see mainPath);
 * `feeBps` is the flow-weighted sum of the pool fees along the route. `amountIn`, `amountOut` and
 * `otherAmountThreshold` are the user's, the aggregator fee included when it applies (see
 * aggregator-fee.ts: the amounts and bound /swap builds for the same route); the price impact is
 * that of the route's own amounts (fees excluded).
 */
export function buildQuoteResponse(route: Route, ctx: QuoteContext): QuoteResponse {
  const bps = Math.round(priceImpact(route) * 10_000);
  const severity = priceImpactSeverity(bps);
  const { shares, feeBps } = routeShares(route);
  const routePath = mainPath(route, shares);
  const user = chargeRoute(route, ctx.fee ?? null, ctx.slippageBps);
  return {
    inputMint: route.inputMint,
    outputMint: route.outputMint,
    amountIn: user.amountIn.toString(),
    amountOut: user.amountOut.toString(),
    priceImpactBps: bps,
    priceImpactPercent: formatPercent(bps),
    priceImpactSeverity: severity,
    priceImpactWarning: priceImpactWarning(bps, severity),
    feeBps: Math.round(feeBps),
    routes: route.hops.map((h, i) => ({
      poolAddress: h.pool.address,
      poolType: h.pool.label,
      percent: Math.max(1, Math.min(100, Math.round(shares[i] * 100))),
      inputMint: h.inputMint,
      outputMint: h.outputMint,
    })),
    routePath,
    hopCount: routePath.length - 1,
    otherAmountThreshold: user.threshold.toString(),
    ...(ctx.fee?.platformBps ? { platformFee: { amount: user.platformFeeAmount.toString(), feeBps: ctx.fee.platformBps } } : {}),
    contextSlot: ctx.contextSlot,
    logPosition: { ...ctx.logPosition },
  };
}
