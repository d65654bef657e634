/**
 * A small constant-product pool for unit tests of the routing and the router (not a real
 * program): fee on the input in basis points, floor on the output, ceil on the exact-out input.
 */
import { PoolQuoteError, type HopQuote, type Pool, type PoolKind } from '../../pool';
import type { TokenGraph } from '../types';

export class FakePool implements Pool {
  readonly programId = 'Fake11111111111111111111111111111111111111';
  readonly kind: PoolKind = 'constant-product';
  readonly label = 'Fake CP';
  constructor(
    readonly address: string,
    readonly mintA: string,
    readonly mintB: string,
    readonly reserveA: bigint,
    readonly reserveB: bigint,
    readonly feeBps = 30,
    readonly slot = 1,
  ) {
    this.ra = Number(reserveA);
    this.rb = Number(reserveB);
    this.keep = 1 - feeBps / 10000;
  }
  private readonly ra: number;
  private readonly rb: number;
  private readonly keep: number;

  private fsides(inputMint: string): [number, number] {
    if (inputMint === this.mintA) return [this.ra, this.rb];
    if (inputMint === this.mintB) return [this.rb, this.ra];
    throw new Error(`mint ${inputMint} is not in pool ${this.address}`);
  }

  private sides(inputMint: string): [bigint, bigint] {
    if (inputMint === this.mintA) return [this.reserveA, this.reserveB];
    if (inputMint === this.mintB) return [this.reserveB, this.reserveA];
    throw new Error(`mint ${inputMint} is not in pool ${this.address}`);
  }

  quoteExactIn(inputMint: string, amountIn: bigint): HopQuote {
    const [x, y] = this.sides(inputMint);
    const fee = (amountIn * BigInt(this.feeBps) + 9999n) / 10000n;
    const net = amountIn - fee;
    const out = (net * y) / (x + net);
    if (out <= 0n) throw new PoolQuoteError('zero-output', 'nothing comes out');
    return { amountIn, amountOut: out, feeAmount: fee };
  }

  quoteExactOut(inputMint: string, amountOut: bigint): HopQuote {
    const [x, y] = this.sides(inputMint);
    if (amountOut <= 0n) throw new PoolQuoteError('zero-output', 'nothing asked');
    if (amountOut >= y) throw new PoolQuoteError('insufficient-liquidity', 'not enough reserve');
    const net = (x * amountOut + (y - amountOut) - 1n) / (y - amountOut);
    // gross such that gross - ceil(gross*fee/10000) >= net
    let gross = (net * 10000n + BigInt(10000 - this.feeBps) - 1n) / BigInt(10000 - this.feeBps);
    while (gross - (gross * BigInt(this.feeBps) + 9999n) / 10000n < net) gross++;
    const q = this.quoteExactIn(inputMint, gross);
    if (q.amountOut < amountOut) throw new PoolQuoteError('insufficient-liquidity', 'rounding');
    return { amountIn: gross, amountOut, feeAmount: q.feeAmount };
  }

  approxOut(inputMint: string, amountIn: number): number {
    const a = inputMint === this.mintA;
    if (!a && inputMint !== this.mintB) throw new Error(`mint ${inputMint} is not in pool ${this.address}`);
    const x = a ? this.ra : this.rb;
    const y = a ? this.rb : this.ra;
    if (!(amountIn > 0) || x === 0) return 0;
    const net = amountIn * this.keep;
    return (net * y) / (x + net);
  }

  approxIn(inputMint: string, amountOut: number): number {
    const a = inputMint === this.mintA;
    if (!a && inputMint !== this.mintB) throw new Error(`mint ${inputMint} is not in pool ${this.address}`);
    const x = a ? this.ra : this.rb;
    const y = a ? this.rb : this.ra;
    if (amountOut >= y || x === 0) return Infinity;
    if (!(amountOut > 0)) return 0;
    return (x * amountOut) / (y - amountOut) / this.keep;
  }

  spotPrice(inputMint: string): number {
    const [x, y] = this.fsides(inputMint);
    return x === 0 ? 0 : y / x;
  }

  reserve(mint: string): number {
    if (mint === this.mintA) return Number(this.reserveA);
    if (mint === this.mintB) return Number(this.reserveB);
    throw new Error(`mint ${mint} is not in pool ${this.address}`);
  }
}

/** A TokenGraph over a fixed list of pools. */
export function graphOf(pools: Pool[]): TokenGraph {
  const m = new Map<string, Pool[]>();
  for (const p of pools) {
    for (const t of [p.mintA, p.mintB]) {
      let l = m.get(t);
      if (!l) m.set(t, (l = []));
      l.push(p);
    }
  }
  return { poolsOf: (mint) => m.get(mint) ?? [] };
}
