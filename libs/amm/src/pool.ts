/**
 * The one pool interface the router uses for every liquidity kind. A program module
 * (libs/amm/src/programs/<program>/) turns decoded accounts into a `Pool`; the router never
 * looks inside. All returned amounts come from the program's exact integer math; the `approx*`
 * functions are floating-point guides for the route search only.
 */
export type PoolKind = 'concentrated-liquidity' | 'constant-product' | 'bonding-curve';

export interface HopQuote {
  /** input the user pays into the pool, smallest units */
  amountIn: bigint;
  /** output the pool pays out, smallest units */
  amountOut: bigint;
  /** total fee taken by the pool, in input-token units */
  feeAmount: bigint;
}

export type QuoteFailure = 'insufficient-liquidity' | 'zero-output' | 'not-quotable';

/**
 * A hop that cannot be quoted; `reason` says why. An expected outcome, not a fault: the route
 * search and the live stream's checks meet thousands per second (paths beyond a pool's depth) and
 * answer them, so it carries no stack trace (capturing one cost more than the quote that failed).
 */
export class PoolQuoteError extends Error {
  readonly reason: QuoteFailure;
  constructor(reason: QuoteFailure, message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.reason = reason;
    this.name = 'PoolQuoteError';
  }
}

/** see Pool.constantProductGuide */
export interface ConstantProductGuide {
  readonly x: number;
  readonly y: number;
  readonly kIn: number;
  readonly kOut: number;
}

export interface Pool {
  readonly address: string;
  readonly programId: string;
  readonly kind: PoolKind;
  /** RouteInfo.poolType, e.g. "Raydium CPMM" */
  readonly label: string;
  readonly mintA: string;
  readonly mintB: string;
  /** pool fee in basis points (may be fractional on chain; reported rounded) */
  readonly feeBps: number;
  /** slot of the newest account write this pool's state was built from */
  readonly slot: number;

  /** exact: the user pays `amountIn` of `inputMint`; throws PoolQuoteError when it cannot fill */
  quoteExactIn(inputMint: string, amountIn: bigint): HopQuote;
  /** exact: the user receives `amountOut` of the other mint; throws PoolQuoteError when it cannot fill */
  quoteExactOut(inputMint: string, amountOut: bigint): HopQuote;

  /** float guide: output for an input (0 when nothing comes out) */
  approxOut(inputMint: string, amountIn: number): number;
  /** float guide: input needed for an output (Infinity when it cannot be filled) */
  approxIn(inputMint: string, amountOut: number): number;
  /**
   * Optional, for constant-product pools: the float guide's parameters for trades from
   * `inputMint`, such that approxOut(a) = ((a·kIn)·y / (x + a·kIn))·kOut and approxIn(b) =
   * x·g / (y − g) / kIn with g = b / kOut (x = 0: nothing trades). The search keeps them in flat
   * arrays and evaluates the guide without touching the pool object; the results must be those
   * of approxOut / approxIn, operation for operation.
   */
  constantProductGuide?(inputMint: string): ConstantProductGuide;
  /** marginal price before fees: output smallest units per input smallest unit */
  spotPrice(inputMint: string): number;
  /** the pool's reserve of `mint` in smallest units (float), for depth comparisons */
  reserve(mint: string): number;
}

export function otherMint(pool: Pool, mint: string): string {
  if (mint === pool.mintA) return pool.mintB;
  if (mint === pool.mintB) return pool.mintA;
  throw new Error(`mint ${mint} is not in pool ${pool.address}`);
}
