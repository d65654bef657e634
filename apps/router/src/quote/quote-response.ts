/**
 * QuoteResponse (API.md §2) from an exact route. Plain functions, no Nest.
 */
import type { Route, SwapMode } from '../../../../libs/amm/src/routing/route-search';

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
  /** provenance: the highest slot in the state the quote was computed from */
  contextSlot: number;
  /** provenance: offset of the last applied pool-updates record per partition */
  logPosition: Record<string, string>;
}

export interface QuoteContext {
  slippageBps: number;
  contextSlot: number;
  logPosition: Record<string, string>;
}

/**
 * Price impact as a fraction: the shortfall of the execution price against the route's spot
 * price after fees,
 *
 *     impact = 1 − (amountOut / amountIn) / (Π spotPrice_i × Π (1 − feeBps_i / 10000))
 *
 * where spotPrice_i is hop i's marginal pre-fee price (output smallest units per input smallest
 * unit, `Pool.spotPrice`) and feeBps_i its pool fee. It is the part of the shortfall due to the
 * trade's size (the curve), fees excluded; for ExactOut the same formula applies to the exact
 * amounts. Clamped to [0, 1] (integer rounding of tiny trades can make it a hair negative).
 */
export function priceImpact(route: Route): number {
  let spot = 1;
  let keep = 1;
  for (const h of route.hops) {
    spot *= h.pool.spotPrice(h.inputMint);
    keep *= 1 - h.pool.feeBps / 10_000;
  }
  const ideal = spot * keep;
  const inAmount = Number(route.amountIn);
  if (!(ideal > 0) || !(inAmount > 0)) return 1;
  const impact = 1 - Number(route.amountOut) / inAmount / ideal;
  return Math.min(1, Math.max(0, impact));
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
 * Slippage-adjusted bound. ExactIn: minimum output floor(amountOut × (10000 − bps) / 10000).
 * ExactOut: maximum input ceil(amountIn × (10000 + bps) / 10000).
 */
export function otherAmountThreshold(mode: SwapMode, amountIn: bigint, amountOut: bigint, slippageBps: number): bigint {
  const bps = BigInt(slippageBps);
  if (mode === 'ExactIn') return (amountOut * (10_000n - bps)) / 10_000n;
  return (amountIn * (10_000n + bps) + 9_999n) / 10_000n;
}

export function buildQuoteResponse(route: Route, ctx: QuoteContext): QuoteResponse {
  const bps = Math.round(priceImpact(route) * 10_000);
  const severity = priceImpactSeverity(bps);
  return {
    inputMint: route.inputMint,
    outputMint: route.outputMint,
    amountIn: route.amountIn.toString(),
    amountOut: route.amountOut.toString(),
    priceImpactBps: bps,
    priceImpactPercent: formatPercent(bps),
    priceImpactSeverity: severity,
    priceImpactWarning: priceImpactWarning(bps, severity),
    feeBps: Math.round(route.hops.reduce((n, h) => n + h.pool.feeBps, 0)),
    routes: route.hops.map((h) => ({
      poolAddress: h.pool.address,
      poolType: h.pool.label,
      percent: 100,
      inputMint: h.inputMint,
      outputMint: h.outputMint,
    })),
    routePath: [route.inputMint, ...route.hops.map((h) => h.outputMint)],
    hopCount: route.hops.length,
    otherAmountThreshold: otherAmountThreshold(route.mode, route.amountIn, route.amountOut, ctx.slippageBps).toString(),
    contextSlot: ctx.contextSlot,
    logPosition: { ...ctx.logPosition },
  };
}
