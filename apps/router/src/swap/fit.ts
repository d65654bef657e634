/**
 * The byte budget of a transaction: the best route may need more accounts and instructions than
 * 1232 bytes hold (a wide split, a long path whose accounts no lookup table covers), or more
 * than the 64 accounts the runtime lets a transaction lock (its account lock limit, lookup
 * tables or not). Then the route is searched again under
 * tighter shapes, loosest first, and the first whose transaction fits is taken: fewer split
 * branches, then a single path, then shorter single paths. A looser shape can only give as much
 * or more (it allows every route of the tighter one), so the first fit is the best the ladder
 * offers. Pure: the caller supplies the search, the build and the measure.
 */
import type { Route, RouteSearchOptions } from '../../../../libs/amm/src/routing/route-search';
import { TransactionTooLargeError } from './transaction';

/** one rung: search options and, for single paths, the hop limit */
export interface RouteShape {
  label: string;
  options: RouteSearchOptions;
  maxHops?: number;
}

/** the shapes tried after the unconstrained search, loosest first, for a request's hop limit */
export function fitLadder(maxHops: number): RouteShape[] {
  const shapes: RouteShape[] = [
    { label: 'split over at most 12 pools', options: { maxEdges: 12, minShare: 0.01 } },
    { label: 'split over at most 6 pools', options: { maxEdges: 6, parallelPools: 2, minShare: 0.05 } },
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

/**
 * The best route (`search(null)`), or, when its transaction is too large, the first shape of
 * the ladder whose route's transaction fits. `measure` returns the serialized size or throws
 * TransactionTooLargeError (TooManyAccountsError included: a route over the 64-account lock
 * limit cannot be served any more than one over 1232 bytes). A rung whose search fails (no route of that shape)
 * is skipped; the unconstrained search's errors go to the caller. Throws NoFittingRouteError
 * (carrying the best route's build) when nothing fits.
 */
export function fitRoute<B>(
  search: (shape: RouteShape | null) => Route,
  build: (route: Route) => B,
  measure: (built: B) => number,
  ladder: RouteShape[],
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
    const b = build(r);
    try {
      return { route: r, built: b, size: measure(b), shape };
    } catch (e) {
      if (!(e instanceof TransactionTooLargeError)) throw e;
    }
  }
  throw new NoFittingRouteError(first, tried.size, built);
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
  ) {
    super(`transaction too large: ${reason.excess}; no smaller route fits (${routesTried - 1} other routes tried)`);
    this.bestSize = reason.size;
    this.name = 'NoFittingRouteError';
  }
}

function routeKey(r: Route): string {
  return r.hops.map((h) => `${h.pool.address}:${h.inputMint}:${h.amountIn}`).join(',');
}
