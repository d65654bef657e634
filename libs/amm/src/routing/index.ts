/**
 * Route search over a token graph of `Pool`s: the routing's entry. Pure: no Nest, no log, no HTTP.
 *
 * 1. Candidate paths (floating point, a guide only; candidate-paths.ts, layered-search.ts over
 *    the compiled graph of compiled-graph.ts): a layered Bellman-Ford-like DP. Layer h holds, per
 *    token, the best few partial paths of exactly h hops from the start token (ExactIn: forwards
 *    from the input mint, most output first; ExactOut: backwards from the output mint, least
 *    input first). A path never repeats a token; zero-size rate tables bound what a partial path
 *    can still reach.
 * 2. Exact evaluation (path-evaluation.ts): the best candidates are recomputed EXACTLY with the
 *    pools' integer math hop by hop (ExactOut backwards). Every amount in a `Route` comes from
 *    `quoteExactIn` / `quoteExactOut`.
 * 3. Splits (split-route.ts): when the best single path moves the price enough, the amount is
 *    spread over a flow graph of several candidate paths and parallel pools (flow-graph.ts,
 *    flow-allocation.ts) and that allocation is priced exactly (flow-evaluation.ts).
 * 4. `findBestRoute` (best-route.ts) returns the best of them.
 */
export { InsufficientLiquidityError, NoPoolError, NoRouteError, RouteError } from './errors';
export { findBestRoute } from './best-route';
export { findCandidatePaths } from './candidate-paths';
export { evaluatePath } from './path-evaluation';
export { routeShares } from './route-shares';
export { MAX_HOPS_LIMIT } from './types';
export type { CandidatePath, PoolFilter, ReplacedPool, Route, RouteHop, RouteRequest, RouteSearchOptions, SplitOptions, SwapMode, TokenGraph } from './types';
