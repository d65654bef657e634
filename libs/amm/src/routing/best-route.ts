/**
 * The best route of a request: the candidate paths of the float search (candidate-paths.ts),
 * the best few recomputed exactly (path-evaluation.ts), then a split over several pools and paths
 * when it pays (split-route.ts). Every amount in the route comes from the pools' integer math.
 * Pure: no Nest, no log, no HTTP.
 */
import { PoolQuoteError } from '../pool';
import { searchCandidates, shortestHops } from './candidate-paths';
import { compiled } from './compiled-graph';
import { InsufficientLiquidityError, NoPoolError, NoRouteError } from './errors';
import { evaluatePath, exactPools } from './path-evaluation';
import { filteredGraph } from './pool-filter';
import { trySplit } from './split-route';
import { MAX_HOPS_LIMIT, type CandidatePath, type Route, type RouteRequest, type RouteSearchOptions, type TokenGraph } from './types';

/** true when route a is strictly better than b (ties: fewer hops, then pool addresses) */
function routeBetter(a: Route, b: Route): boolean {
  if (a.mode === 'ExactIn') {
    if (a.amountOut !== b.amountOut) return a.amountOut > b.amountOut;
  } else if (a.amountIn !== b.amountIn) return a.amountIn < b.amountIn;
  if (a.hops.length !== b.hops.length) return a.hops.length < b.hops.length;
  const ka = a.hops.map((h) => h.pool.address).join(',');
  const kb = b.hops.map((h) => h.pool.address).join(',');
  return ka < kb;
}

/**
 * The best route: the best single path, or a split over several pools and paths when it gives
 * more (ExactIn) or asks less (ExactOut). Never worse than the best single path found. Throws
 * NoPoolError (a mint with no pool), NoRouteError (no path within maxHops),
 * InsufficientLiquidityError (paths exist, none fills the amount, nor does a split).
 * `searched` is given the candidate paths of its first step (what findCandidatePaths returns for
 * the request and options) before they are evaluated; it is not called when an error is thrown
 * before that step (a mint without pools, no path within maxHops: findCandidatePaths finds none).
 */
export function findBestRoute(graph: TokenGraph, req: RouteRequest, opts: RouteSearchOptions = {}, searched?: (candidates: readonly CandidatePath[]) => void): Route {
  if (req.amount <= 0n) throw new RangeError('amount must be positive');
  if (req.inputMint === req.outputMint) throw new RangeError('inputMint and outputMint must differ');
  if (opts.poolFilter) graph = filteredGraph(graph, opts.poolFilter);
  if (graph.poolsOf(req.inputMint).length === 0) throw new NoPoolError(req.inputMint);
  if (graph.poolsOf(req.outputMint).length === 0) throw new NoPoolError(req.outputMint);
  const maxHops = Math.max(1, Math.min(MAX_HOPS_LIMIT, Math.floor(req.maxHops)));
  const exactIn = req.mode === 'ExactIn';
  const target = exactIn ? req.outputMint : req.inputMint;
  const start = exactIn ? req.inputMint : req.outputMint;
  const c = compiled(graph);
  const targetId = c.id(target);
  if (shortestHops(c, c.id(start), c.nearRates(targetId, exactIn)) > maxHops) throw new NoRouteError();

  const candidates = searchCandidates(c, { ...req, maxHops }, opts);
  searched?.(candidates);
  const limit = opts.exactEvaluations ?? 12;
  let best: Route | null = null;
  let lastFailure = 'no path can carry the amount';
  const tried = new Set<string>();
  for (const cand of candidates) {
    // past the limit only while nothing fills: a refusal needs every candidate tried
    if (tried.size >= limit && best !== null) break;
    const key = cand.pools.map((p) => p.address).join(',');
    if (tried.has(key)) continue;
    tried.add(key);
    try {
      const r = evaluatePath(opts.fullHopLimit ? exactPools(c, cand, req.mode, req.amount) : cand, req.mode, req.amount);
      if (best === null || routeBetter(r, best)) best = r;
    } catch (e) {
      if (!(e instanceof PoolQuoteError)) throw e;
      lastFailure = e.message;
    }
  }

  if (opts.split !== false) {
    const split = trySplit(c, candidates, { ...req, maxHops }, best, opts);
    if (split !== null && (best === null || routeBetter(split, best))) best = split;
  }
  if (best === null) throw new InsufficientLiquidityError(lastFailure);
  return best;
}
