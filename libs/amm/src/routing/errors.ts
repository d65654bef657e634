/**
 * The route search's refusals: no pool for a mint, no path within the hop limit, no path that
 * can fill the amount. Their messages are the API's error texts.
 */

/** Route errors; `message` is the API's error text. */
export abstract class RouteError extends Error {}

/** There is no path in the graph between the mints (within the hop limit). */
export class NoRouteError extends RouteError {
  constructor() {
    super('no route found');
    this.name = 'NoRouteError';
  }
}

/** One of the mints has no pool at all. */
export class NoPoolError extends RouteError {
  constructor(readonly mint: string) {
    super('no pool found');
    this.name = 'NoPoolError';
  }
}

/** Paths exist but none of them can fill the amount. */
export class InsufficientLiquidityError extends RouteError {
  constructor(readonly detail: string) {
    super('insufficient liquidity');
    this.name = 'InsufficientLiquidityError';
  }
}
