/**
 * The byte budget of a transaction: the best route may need more accounts and instructions than
 * 1232 bytes hold (a wide split, a long path whose accounts no lookup table covers), or more
 * than the 64 accounts the runtime lets a transaction lock (its account lock limit, lookup
 * tables or not). Then the route is searched again under every tighter shape of the ladder
 * (splits over fewer token paths and fewer pools per token pair, one token path over two pools
 * per pair, a single path, shorter single paths), and the best route whose transaction fits is
 * served (ExactIn: the most output; ExactOut: the least input; a tie goes to the earlier rung).
 * The shapes are heuristics of the route search, not nested sets: a tighter shape may price
 * better than a looser one, so every rung is searched rather than the first fit taken. Pure: the
 * caller supplies the search, the build, the measure and the comparison.
 */
import type { Route, RouteSearchOptions } from '@app/amm';
import { TransactionTooLargeError } from './transaction';

/** one rung: search options and, for single paths, the hop limit */
export interface RouteShape {
  label: string;
  options: RouteSearchOptions;
  maxHops?: number;
}

/**
 * The shapes tried when the unconstrained best route does not fit, for a request's hop limit.
 * Splits are bounded by the distinct token paths taken into the flow graph (`maxPaths`) and the
 * pools kept per token pair (`parallelPools`): about 10 to 15 accounts per pool, so at most four
 * to six pools stay under 64 accounts. Measured on the simulated market of all six programs with
 * lookup tables (2,400 requests of $1,000, 41% of best routes over the limits): the served route
 * gave up p50 13 / p90 92 bp of the best route's output with this ladder, against 20 / 132 bp
 * when every route over the limit fell back to a single path.
 */
export function fitLadder(maxHops: number): RouteShape[] {
  const shapes: RouteShape[] = [
    { label: 'split over at most 4 token paths, 2 pools per pair', options: { maxPaths: 4, parallelPools: 2, maxEdges: 10, minShare: 0.02 } },
    { label: 'split over at most 3 token paths, 1 pool per pair', options: { maxPaths: 3, parallelPools: 1, maxEdges: 8, minShare: 0.02 } },
    { label: 'split over at most 2 token paths, 2 pools per pair', options: { maxPaths: 2, parallelPools: 2, maxEdges: 6, minShare: 0.02 } },
    { label: 'split over at most 2 token paths, 1 pool per pair', options: { maxPaths: 2, parallelPools: 1, maxEdges: 4, minShare: 0.02 } },
    { label: 'one token path, 2 pools per pair', options: { maxPaths: 1, parallelPools: 2, maxEdges: 6, minShare: 0.02 } },
    { label: 'single path', options: { split: false } },
  ];
  for (let h = maxHops - 1; h >= 1; h--) shapes.push({ label: `single path of at most ${h} hops`, options: { split: false }, maxHops: h });
  return shapes;
}

export interface Fitted<B> {
  route: Route;
  built: B;
  /** serialized size of the transaction, bytes */
  size: number;
  /** the shape that fitted; null when the unconstrained best route did */
  shape: RouteShape | null;
}

/** the route's own comparison: ExactIn more output, ExactOut less input */
export function betterRoute(a: Route, b: Route): boolean {
  return a.mode === 'ExactIn' ? b.amountOut > a.amountOut : b.amountIn < a.amountIn;
}

/**
 * The best route (`search(null)`) when its transaction fits; otherwise the best of the ladder's
 * routes whose transactions fit (`better(a, b)`: b serves the user better than a; default: the
 * route's own amounts). `measure` returns the serialized size or throws TransactionTooLargeError
 * (TooManyAccountsError included: a route over the 64-account lock limit cannot be served any
 * more than one over 1232 bytes). A rung whose search fails (no route of that shape) is skipped;
 * a rung's route no better than the best fitting one so far is not built. The unconstrained
 * search's errors go to the caller. Throws NoFittingRouteError (carrying the best route's build)
 * when nothing fits.
 */
export function fitRoute<B>(
  search: (shape: RouteShape | null) => Route,
  build: (route: Route) => B,
  measure: (built: B) => number,
  ladder: RouteShape[],
  better: (a: Route, b: Route) => boolean = betterRoute,
): Fitted<B> {
  const route = search(null);
  const built = build(route);
  let first: TransactionTooLargeError;
  try {
    return { route, built, size: measure(built), shape: null };
  } catch (e) {
    if (!(e instanceof TransactionTooLargeError)) throw e;
    first = e;
  }
  const tried = new Set<string>([routeKey(route)]);
  let served: Fitted<B> | undefined;
  for (const shape of ladder) {
    let r: Route;
    try {
      r = search(shape);
    } catch {
      continue;
    }
    const key = routeKey(r);
    if (tried.has(key)) continue;
    tried.add(key);
    if (served !== undefined && !better(served.route, r)) continue;
    const b = build(r);
    try {
      served = { route: r, built: b, size: measure(b), shape };
    } catch (e) {
      if (!(e instanceof TransactionTooLargeError)) throw e;
    }
  }
  if (served !== undefined) return served;
  throw new NoFittingRouteError(first, tried.size, built, route);
}

/** No route of any shape makes a transaction of at most 1232 bytes (and 64 accounts). */
export class NoFittingRouteError<B = unknown> extends Error {
  /** the best route's serialized size, bytes (Infinity when it has more than 64 accounts) */
  readonly bestSize: number;

  constructor(
    /** why the best route's transaction does not fit */
    readonly reason: TransactionTooLargeError,
    readonly routesTried: number,
    /** what `build` made of the best route (a composer may bring its own lookup tables) */
    readonly best: B,
    /** the best route itself */
    readonly bestRoute?: Route,
  ) {
    super(`transaction too large: ${reason.excess}; no smaller route fits (${routesTried - 1} other routes tried)`);
    this.bestSize = reason.size;
    this.name = 'NoFittingRouteError';
  }
}

function routeKey(r: Route): string {
  return r.hops.map((h) => `${h.pool.address}:${h.inputMint}:${h.amountIn}`).join(',');
}
