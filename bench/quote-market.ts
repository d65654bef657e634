/**
 * The market the quote latency benchmarks quote on, and what they ask of it: the simulated market
 * of all six programs (concentrated pools with their tick arrays, Raydium CPMM, AMM v4, PumpSwap,
 * pump.fun) at a given size, the sizes and rates the benchmarks run at (environment flags), the
 * quotes asked (seeded: the same list in process and over HTTP) and the steady pace at which the
 * market's swaps are applied between them. Plain: no Nest, no I/O.
 */
import { SimMarket, type SimMarketOptions } from '@app/sim/market';
import type { SimToken } from '@app/sim/market';
import type { SwapMode } from '@app/amm';
import { Prng } from '@app/sim/prng';

/** the market of `pools` pools of every program (tokens = pools / 4, at least 64) */
export function quoteMarketOptions(pools: number): SimMarketOptions {
  return { seed: 11, pools, tokens: Math.max(64, Math.floor(pools / 4)), swapsPerSlot: 64, programs: 'all' };
}

/** the sizes measured by default: a default run stays within a few minutes on two cores */
export const DEFAULT_SIZES = [1_000, 10_000];

/** the p99 targets, ms, per market size (in process) */
export const P99_TARGET_MS: Readonly<Record<number, number>> = { 10_000: 5, 100_000: 25 };

/** pool-updates records per second applied while the quotes run (the stream benchmark's rate) */
export const UPDATES_PER_SECOND = 1000;

/** the benchmark's settings, from the environment (see bench/quote.bench.ts's header) */
export interface QuoteBenchFlags {
  sizes: number[];
  /** measured quotes per size (after the warm-up) */
  queries: (pools: number) => number;
  updatesPerSecond: number;
}

function list(v: string | undefined, fallback: number[]): number[] {
  if (v === undefined || v.trim() === '') return fallback;
  const out = v.split(',').map((x) => Number(x.trim().replace(/_/g, '')));
  for (const n of out) if (!Number.isSafeInteger(n) || n < 10) throw new RangeError(`QUOTE_BENCH_POOLS: pool counts of at least 10, comma-separated; got ${JSON.stringify(v)}`);
  return out;
}

export function quoteBenchFlags(env: NodeJS.ProcessEnv = process.env): QuoteBenchFlags {
  const queries = env.QUOTE_BENCH_QUERIES === undefined ? null : Number(env.QUOTE_BENCH_QUERIES);
  return {
    sizes: list(env.QUOTE_BENCH_POOLS, DEFAULT_SIZES),
    queries: (pools) => queries ?? (pools >= 100_000 ? 1_000 : 2_000),
    updatesPerSecond: Number(env.QUOTE_BENCH_UPDATES_PER_SECOND ?? UPDATES_PER_SECOND),
  };
}

export interface BenchQuery {
  inputMint: string;
  outputMint: string;
  amount: bigint;
  swapMode: SwapMode;
}

/**
 * `count` quotes on the market as it is: half of them random pairs of tokens with a routable
 * pool, half with one side among the 20 tokens with the most pools; either direction; amounts
 * log-uniform from 1 to 10,000 USD (of the input for ExactIn, of the output for ExactOut, at the
 * latent price); ExactIn and ExactOut alternating.
 */
export function benchQueries(market: SimMarket, count: number, seed: number): BenchQuery[] {
  const tokens = market.tokens;
  const degree = new Array<number>(tokens.length).fill(0);
  for (const p of market.allPools()) {
    if (!p.routable) continue;
    degree[p.tokenA]++;
    degree[p.tokenB]++;
  }
  const byDegree = tokens.map((t, i) => ({ t, n: degree[i] })).sort((a, b) => b.n - a.n);
  const popular = byDegree.slice(0, 20).map((d) => d.t);
  const routable = byDegree.filter((d) => d.n > 0).map((d) => d.t);
  const gen = new Prng(seed);
  const rnd = (): number => gen.next();
  const pick = (from: SimToken[]): SimToken => from[Math.floor(rnd() * from.length)];
  const out: BenchQuery[] = [];
  while (out.length < count) {
    let a = pick(routable);
    let b = rnd() < 0.5 ? pick(popular) : pick(routable);
    if (a === b) continue;
    if (rnd() < 0.5) [a, b] = [b, a];
    const exactIn = out.length % 2 === 0;
    const usd = 10 ** (rnd() * 4);
    const priced = exactIn ? a : b;
    const amount = BigInt(Math.max(1, Math.floor((usd / priced.priceUsd) * 10 ** priced.decimals)));
    out.push({ inputMint: a.mint, outputMint: b.mint, amount, swapMode: exactIn ? 'ExactIn' : 'ExactOut' });
  }
  return out;
}

/**
 * A steady rate of records from a start time: how many are due by a moment (the benchmarks apply
 * or append the market's swaps as they fall due, between quotes).
 */
export class SteadyPace {
  private readonly startedAt: number;

  constructor(
    private readonly perSecond: number,
    now = performance.now(),
  ) {
    this.startedAt = now;
  }

  /** records due since the start, by `now` (ms, performance.now()) */
  dueBy(now = performance.now()): number {
    return Math.floor(((now - this.startedAt) * this.perSecond) / 1000);
  }
}

/** the size as the rows name it */
export function sizeLabel(pools: number): string {
  return `${pools.toLocaleString('en-US')} pools`;
}
