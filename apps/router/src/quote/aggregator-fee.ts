/**
 * The aggregator fee (FEE_BPS, FEE_WALLET, FEE_ROUTES) as every answer reports it: the quote,
 * /instructions, /swap and the stream's pushes take their amounts and bound from here, so a
 * quote's amountIn / amountOut / otherAmountThreshold are those of the transaction /swap builds
 * for the same route (API.md §1: amounts already account for all fees). Plain functions, no Nest.
 *
 * ExactIn takes the fee from the output: fee = floor(routeOut × bps / 10000),
 * amountOut = routeOut − fee, threshold (minimum output) = floor(amountOut × (10000 − s) / 10000).
 * ExactOut adds it to the input: fee = floor(routeIn × bps / 10000), amountIn = routeIn + fee,
 * threshold (maximum input) = ceil(routeIn × (10000 + s) / 10000) + fee (the fee is a fixed
 * transfer, so the slippage tolerance covers the route's input only).
 *
 * An integrator's fee (a request's platformFeeBps, paid to its feeAccount) comes on top of the
 * configured one: it is computed on the same base and floored on its own
 * (floor(base × platformBps / 10000)), on every route whatever FEE_ROUTES says, and `fee` above is
 * the sum of both.
 */
import { QUOTE_SEARCH } from './quote-search';
import { findBestRoute, RouteError, type CandidatePath, type Route, type RouteRequest, type RouteSearchOptions, type SwapMode, type TokenGraph } from '@app/amm';

const BPS = 10_000n;

export type FeeRoutes = 'all' | 'multi-hop';

/** what a quote needs of the fee: its rate and the routes that pay it (also in quotes-served records) */
export interface FeeSchedule {
  /** the configured fee's rate (0: none) */
  bps: number;
  /** which routes pay it: every route, or only multi-hop / split routes (more than one hop) */
  routes: FeeRoutes;
  /** a request's integrator fee (platformFeeBps), on every route, on top of `bps` */
  platformBps?: number;
}

export interface AggregatorFee extends FeeSchedule {
  /** the recipient of the configured fee's transfer in /swap and /instructions (its ATA; '' when bps is 0) */
  wallet: string;
  /** the token account the integrator fee is transferred to (the request's feeAccount) */
  platformAccount?: string;
}

/**
 * The fee of one request: the configured one (null: none) with the request's integrator fee on
 * top (platformBps 0 or absent: the configured one alone).
 */
export function withPlatformFee<F extends FeeSchedule>(fee: F | null, platformBps: number | undefined, platformAccount?: string): F | AggregatorFee | null {
  if (platformBps === undefined || platformBps <= 0) return fee;
  const base = fee ?? { bps: 0, routes: 'all' as const, wallet: '' };
  return { ...base, platformBps, ...(platformAccount !== undefined ? { platformAccount } : {}) };
}

/** The fee a configuration describes, or null when none applies (FEE_BPS 0 or no wallet). */
export function aggregatorFeeOf(config: { feeBps: number; feeWallet: string | null; feeRoutes: FeeRoutes }): AggregatorFee | null {
  return config.feeBps > 0 && config.feeWallet ? { bps: config.feeBps, wallet: config.feeWallet, routes: config.feeRoutes } : null;
}

/** The fee's bps on a route of `hopCount` hops (edges of a split counted each): 0 when it does not apply. */
export function feeBpsFor(fee: FeeSchedule | null, hopCount: number): number {
  if (fee === null || fee.bps <= 0) return 0;
  return fee.routes === 'all' || hopCount > 1 ? fee.bps : 0;
}

export interface Charged {
  /** what the user pays (ExactOut: the route's input + fee) */
  amountIn: bigint;
  /** what the user receives (ExactIn: the route's output − fee) */
  amountOut: bigint;
  /** every fee: the configured one plus the integrator's */
  feeAmount: bigint;
  /** the integrator's part of feeAmount */
  platformFeeAmount: bigint;
  /** ExactIn: minimum output; ExactOut: maximum input, both net of the fee */
  threshold: bigint;
  /** ExactOut: the most the route itself may take (threshold − fee); ExactIn: the route's input */
  maxRouteIn: bigint;
}

/** the largest amount a swap instruction's u64 can carry */
const U64_MAX = (1n << 64n) - 1n;

/** The user's amounts, the fees and the slippage bound of a route's exact amounts. */
export function charge(mode: SwapMode, routeIn: bigint, routeOut: bigint, feeBps: number, slippageBps: number, platformBps = 0): Charged {
  const s = BigInt(slippageBps);
  const base = mode === 'ExactIn' ? routeOut : routeIn;
  const platformFeeAmount = (base * BigInt(platformBps)) / BPS;
  const feeAmount = (base * BigInt(feeBps)) / BPS + platformFeeAmount;
  if (mode === 'ExactIn') {
    const amountOut = routeOut - feeAmount;
    return { amountIn: routeIn, amountOut, feeAmount, platformFeeAmount, threshold: (amountOut * (BPS - s)) / BPS, maxRouteIn: routeIn };
  }
  // the bound is a u64 of the swap instructions: clamped to the largest one, a maximum input no
  // wallet can exceed (an ExactOut quote of an input near 2^64 still builds)
  const unclamped = (routeIn * (BPS + s) + BPS - 1n) / BPS;
  const maxRouteIn = unclamped + feeAmount > U64_MAX ? U64_MAX - feeAmount : unclamped;
  return { amountIn: routeIn + feeAmount, amountOut: routeOut, feeAmount, platformFeeAmount, threshold: maxRouteIn + feeAmount, maxRouteIn };
}

/** charge() of a route under a fee configuration */
export function chargeRoute(route: Route, fee: FeeSchedule | null, slippageBps: number): Charged {
  return charge(route.mode, route.amountIn, route.amountOut, feeBpsFor(fee, route.hops.length), slippageBps, fee?.platformBps ?? 0);
}

/**
 * The better of two routes for the user, net of the fee (ExactIn: more received; ExactOut: less
 * paid; a tie keeps `a`). With FEE_ROUTES=multi-hop a direct route can net more than a
 * multi-hop one that is better before the fee.
 */
export function betterNet(a: Route, b: Route, fee: FeeSchedule | null): Route {
  const na = chargeRoute(a, fee, 0);
  const nb = chargeRoute(b, fee, 0);
  if (a.mode === 'ExactIn') return nb.amountOut > na.amountOut ? b : a;
  return nb.amountIn < na.amountIn ? b : a;
}

/**
 * Whether a direct single-pool route could beat `best` net of the fee: only when the fee is
 * charged on multi-hop routes alone and `best` is one.
 */
export function directMayNetMore(best: Route, fee: FeeSchedule | null): boolean {
  return fee !== null && fee.routes === 'multi-hop' && feeBpsFor(fee, best.hops.length) > 0;
}

/**
 * `best`, or the best direct route (`direct()`: a single pool, no split) when that nets the user
 * more after the fee; `direct()` runs only when it could (directMayNetMore) and a route error of
 * it (no direct pool, not enough liquidity) keeps `best`.
 */
export function netBest(best: Route, fee: FeeSchedule | null, direct: () => Route): Route {
  if (!directMayNetMore(best, fee)) return best;
  let d: Route;
  try {
    d = direct();
  } catch (e) {
    if (e instanceof RouteError) return best;
    throw e;
  }
  return betterNet(best, d, fee);
}

/**
 * The route served under a fee configuration: findBestRoute's, or the best direct single-pool
 * route when that nets the user more (netBest). The quote, /swap's ladder, the audit and the
 * stream's full searches all route through here, with QUOTE_SEARCH under `opts`. `searched`: see
 * findBestRoute (the main search's candidates).
 */
export function findBestNetRoute(graph: TokenGraph, req: RouteRequest, fee: FeeSchedule | null, opts: RouteSearchOptions = {}, searched?: (candidates: readonly CandidatePath[]) => void): Route {
  const search = { ...QUOTE_SEARCH, ...opts };
  return netBest(findBestRoute(graph, req, search, searched), fee, () => findBestRoute(graph, { ...req, maxHops: 1 }, { ...search, split: false }));
}
