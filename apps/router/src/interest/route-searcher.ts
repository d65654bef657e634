/**
 * The port through which InterestService hands out its background route searches
 * (SEARCH_WORKER): a searcher answers later, on pools of its own that may be a few
 * milliseconds apart from the service's, with routes and candidate paths named by pool address.
 * The service prices what it gets again on its own pools before it quotes it (see
 * QuoteCore.takeSearch), so every push stays an exact quote of the service's state.
 *
 * Adapters: InlineSearcher (this thread, on a graph it is given: the asynchronous contract without
 * a thread) and WorkerSearcher (worker-searcher.ts: a worker thread with its own projection of
 * the log, so the searches leave the thread that replays the routes).
 */
import type { Pool } from '@app/amm';
import { findCandidatePaths, RouteError, type CandidatePath, type Route, type RouteRequest, type RouteSearchOptions, type SwapMode, type TokenGraph } from '@app/amm';
import { TUPLE_MAX_HOPS } from '@app/contracts';
import { controlledSearch, type RouteControls } from '../quote/route-controls';
import { QUOTE_SEARCH } from '../quote/quote-search';
import { findBestNetRoute, type FeeSchedule } from '../quote/aggregator-fee';

/** a candidate path by its pools' addresses and its mints */
export interface FoundPath {
  pools: string[];
  mints: string[];
}

/** a Route with its pools named by address (a RouteHop's other fields as they are) */
export interface WireRoute {
  mode: SwapMode;
  inputMint: string;
  outputMint: string;
  amountIn: bigint;
  amountOut: bigint;
  hops: Array<{ pool: string; inputMint: string; outputMint: string; amountGiven: bigint; amountIn: bigint; amountOut: bigint; feeAmount: bigint }>;
}

export interface Found {
  /** the candidate paths on the searcher's pools, best estimate first, at most the number asked */
  cands: FoundPath[];
  /** the best route net of the fee (split routes included); none when there is none (`error` says why) */
  route?: WireRoute;
  error?: string;
  /** the slot of the pools searched */
  slot: number;
}

/**
 * A tuple's route request with its pair's route controls, as plain data (it crosses to the search
 * worker): the pool filter is built where the search runs (optionsOf).
 */
export interface SearchRequest extends RouteRequest {
  controls?: RouteControls;
  /** the intermediate tokens restrictIntermediateTokens allows (INTERMEDIATE_TOKENS) */
  liquid?: readonly string[];
}

/** the search options (the pool filter) of a request's controls; none without controls */
export function optionsOf(req: SearchRequest): RouteSearchOptions {
  if (req.controls === undefined) return {};
  return controlledSearch(req.controls, req.maxHops ?? TUPLE_MAX_HOPS, new Set(req.liquid ?? []), req.inputMint, req.outputMint).options;
}

export interface RouteSearcher {
  /** whether it answers now (a worker: once its projection has caught up with the log) */
  readonly ready: boolean;
  /** rejects only when the searcher failed (a worker that died); a request without a route resolves with `error` */
  search(req: SearchRequest, maxCandidates: number): Promise<Found>;
  close(): Promise<void>;
}

/** the request's candidate paths on `graph` (the route search's first step), at most `max`; none when there is no route */
export function candidatePathsOn(graph: TokenGraph, req: SearchRequest, max: number): FoundPath[] {
  try {
    return foundPaths(findCandidatePaths(graph, req, { ...QUOTE_SEARCH, ...optionsOf(req) }), max);
  } catch (e) {
    if (!(e instanceof RouteError)) throw e;
    return [];
  }
}

/** the first `max` of these candidate paths, by pool address */
function foundPaths(paths: readonly CandidatePath[], max: number): FoundPath[] {
  return paths.slice(0, max).map((c) => ({ pools: c.pools.map((p) => p.address), mints: c.mints }));
}

/**
 * A full search on `graph`: the best route net of the fee (none: `error`, the route error's
 * message), and the candidate paths (at most `max`) that candidatePathsOn would return, taken
 * from the search's own first step instead of a second candidate search.
 */
export function searchRoute(graph: TokenGraph, req: SearchRequest, max: number, fee: FeeSchedule | null): { cands: FoundPath[]; route?: Route; error?: string } {
  let cands: FoundPath[] = [];
  const searched = (paths: readonly CandidatePath[]): void => {
    cands = foundPaths(paths, max);
  };
  try {
    const route = findBestNetRoute(graph, req, fee, optionsOf(req), searched);
    return { cands, route };
  } catch (e) {
    if (!(e instanceof RouteError)) throw e;
    return { cands, error: e.message };
  }
}

/** the search itself, on `graph` at `slot` (both adapters run this) */
export function searchOn(graph: TokenGraph, slot: number, req: SearchRequest, maxCandidates: number, fee: FeeSchedule | null): Found {
  const { cands, route, error } = searchRoute(graph, req, maxCandidates, fee);
  return route !== undefined ? { cands, route: toWire(route), slot } : { cands, error, slot };
}

export function toWire(route: Route): WireRoute {
  const { mode, inputMint, outputMint, amountIn, amountOut } = route;
  return { mode, inputMint, outputMint, amountIn, amountOut, hops: route.hops.map((h) => ({ ...h, pool: h.pool.address })) };
}

/** the route on the pools `poolAt` finds (amounts as searched, not re-priced); undefined when one of its pools is unknown there */
export function fromWire(route: WireRoute, poolAt: (address: string) => Pool | undefined): Route | undefined {
  const hops: Route['hops'] = [];
  for (const h of route.hops) {
    const pool = poolAt(h.pool);
    if (pool === undefined) return undefined;
    hops.push({ ...h, pool });
  }
  return { ...route, hops };
}

/**
 * The searches on this thread, on `graph` as it is when they run: each answered on a later turn
 * of the event loop (setImmediate), as a worker's would be. Tests use it to drive the service's
 * asynchronous path deterministically, on the same pools.
 */
export class InlineSearcher implements RouteSearcher {
  readonly ready = true;
  /** requests answered so far */
  answered = 0;
  constructor(
    private readonly graph: () => { graph: TokenGraph; slot: number },
    private readonly fee: FeeSchedule | null,
  ) {}

  search(req: SearchRequest, maxCandidates: number): Promise<Found> {
    return new Promise((resolve, reject) =>
      setImmediate(() => {
        try {
          const { graph, slot } = this.graph();
          resolve(searchOn(graph, slot, req, maxCandidates, this.fee));
          this.answered++;
        } catch (e) {
          reject(e as Error);
        }
      }),
    );
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
