/**
 * Market-like routing instances and their exact references, for the routing quality bench.
 *
 * Markets: the simulated market of the six programs (SimMarket, `programs: 'all'`: Raydium CPMM,
 * Orca Whirlpool with adaptive fees, Raydium CLMM, Raydium AMM v4, PumpSwap and pump.fun curves,
 * Token-2022 mints with transfer fees), projected as the router sees it (Projection), after some
 * slots of swaps. Long-tail tokens hang off SOL / USDC / USDT, pump.fun coins off SOL, and random
 * token↔token pools of any depth join long-tail tokens directly: a pair of long-tail tokens is
 * two to five hops apart through the hubs, and a shallow direct pool often sits in front of a
 * deeper road through them. Requests pick pairs with a bias towards the long tail (both sides
 * long-tail or pump.fun coins), both swap modes, sizes log-uniform in USD.
 *
 * The exact reference of a request: the best EXACT route of at most MAX_HOPS hops we can show,
 * the best of
 *  - the best single path: a layered search over exact amounts (every pool quoted with its
 *    integer math, `quoteExactIn` forwards / `quoteExactOut` backwards), keeping per token and hop
 *    count the best few simple partial paths; a pool's exact quote is monotone in its amount, so
 *    the best amount per token and hop count is what any longer path through it can build on
 *    (the few kept per token only guard the no-repeated-token rule); the winners are priced again
 *    with `evaluatePath`;
 *  - a 5%-step grid split over the best three pool-disjoint paths of that search, priced exactly;
 *  - the convex optimum's own split (support/convex-split.ts) priced exactly.
 */
import { PoolQuoteError, evaluatePath, type Pool, type Route, type SwapMode, type TokenGraph } from '@app/amm';
import { encodePoolUpdate } from '@app/contracts';
import { Projection } from '@app/pools';
import { SimMarket } from '@app/sim';
import type { SimToken } from '@app/sim/context';
import { MINTS } from '@app/solana';

export const MAX_HOPS = 5;

export interface MarketInstance {
  graph: TokenGraph;
  tokens: SimToken[];
  pools: Pool[];
}

/** a simulated market of the six programs, after `slots` slots of swaps, as the router's projection */
export function buildMarket(seed: number, pools = 160, tokens = 40, slots = 40): MarketInstance {
  const market = new SimMarket({ seed, pools, tokens, swapsPerSlot: 8, programs: 'all' });
  market.advance(slots);
  const p = new Projection();
  p.applyBatch(market.snapshot().map((u, i) => ({ partition: 0, offset: String(i), value: encodePoolUpdate(u) })));
  const list = market
    .allPools()
    .map((sp) => p.pool(sp.address))
    .filter((x): x is Pool => x !== undefined);
  return { graph: p, tokens: market.tokens, pools: list };
}

export interface ExactPath {
  pools: Pool[];
  mints: string[];
  /** ExactIn: exact output; ExactOut: exact input */
  value: bigint;
}

/** better for the mode: more output (ExactIn), less input (ExactOut) */
function better(mode: SwapMode, a: bigint, b: bigint): boolean {
  return mode === 'ExactIn' ? a > b : a < b;
}

/**
 * The best simple paths of at most `maxHops` hops by exact amounts (see the file comment), best
 * first, each priced again with evaluatePath (`value` is its exact output / input).
 */
export function exactPaths(graph: TokenGraph, mode: SwapMode, inputMint: string, outputMint: string, amount: bigint, maxHops = MAX_HOPS, keep = 3): ExactPath[] {
  const exactIn = mode === 'ExactIn';
  const start = exactIn ? inputMint : outputMint;
  const goal = exactIn ? outputMint : inputMint;
  // partial paths from the start, in search order (ExactOut: from the output backwards)
  let layer = new Map<string, ExactPath[]>([[start, [{ pools: [], mints: [start], value: amount }]]]);
  const done: ExactPath[] = [];
  for (let h = 1; h <= maxHops; h++) {
    const next = new Map<string, ExactPath[]>();
    for (const [mint, partials] of layer) {
      if (mint === goal) continue;
      for (const part of partials) {
        for (const pool of graph.poolsOf(mint)) {
          const other = pool.mintA === mint ? pool.mintB : pool.mintA;
          if (part.mints.includes(other)) continue;
          let value: bigint;
          try {
            value = exactIn ? pool.quoteExactIn(mint, part.value).amountOut : pool.quoteExactOut(other, part.value).amountIn;
          } catch (e) {
            if (e instanceof PoolQuoteError) continue;
            throw e;
          }
          if (exactIn && value <= 0n) continue;
          const list = next.get(other) ?? [];
          if (list.length >= keep && !better(mode, value, list[list.length - 1].value)) continue;
          const entry = { pools: [...part.pools, pool], mints: [...part.mints, other], value };
          let i = list.length;
          while (i > 0 && better(mode, value, list[i - 1].value)) i--;
          list.splice(i, 0, entry);
          if (list.length > keep) list.pop();
          next.set(other, list);
        }
      }
    }
    done.push(...(next.get(goal) ?? []));
    layer = next;
  }
  const priced: ExactPath[] = [];
  for (const d of done) {
    const path = exactIn ? d : { ...d, pools: [...d.pools].reverse(), mints: [...d.mints].reverse() };
    const r = priceRoute(path, mode, amount);
    if (r !== null) priced.push({ pools: path.pools, mints: path.mints, value: exactIn ? r.amountOut : r.amountIn });
  }
  priced.sort((a, b) => (better(mode, a.value, b.value) ? -1 : better(mode, b.value, a.value) ? 1 : a.pools.length - b.pools.length));
  return priced;
}

/** evaluatePath, null when a hop cannot fill */
export function priceRoute(path: { pools: readonly Pool[]; mints: readonly string[] }, mode: SwapMode, amount: bigint): Route | null {
  try {
    const r = evaluatePath(path, mode, amount);
    return mode === 'ExactIn' && r.amountOut <= 0n ? null : r;
  } catch (e) {
    if (e instanceof PoolQuoteError) return null;
    throw e;
  }
}

/**
 * The best 5%-step split of the amount over the best three pool-disjoint paths (ExactIn: parts
 * of the input, output summed; ExactOut: parts of the output, inputs summed); null when none fills.
 */
export function gridSplit(paths: readonly ExactPath[], mode: SwapMode, amount: bigint): bigint | null {
  const chosen: ExactPath[] = [];
  const used = new Set<Pool>();
  for (const p of paths) {
    if (chosen.length >= 3) break;
    if (p.pools.some((q) => used.has(q))) continue;
    chosen.push(p);
    for (const q of p.pools) used.add(q);
  }
  if (chosen.length === 0) return null;
  // value of k twentieths on path i (the first path takes the remainder of the division); null: cannot fill
  const table = chosen.map((p) =>
    Array.from({ length: 21 }, (_, k): bigint | null => {
      if (k === 0) return 0n;
      const part = (amount * BigInt(k)) / 20n;
      if (part === 0n) return null;
      return valueOf(p, mode, part);
    }),
  );
  let best: bigint | null = null;
  const n = chosen.length;
  for (let a = 0; a <= 20; a++) {
    for (let b = 0; b <= (n > 1 ? 20 - a : 0); b++) {
      const c = 20 - a - b;
      if (n === 1 && a !== 20) continue;
      if (n === 2 && c !== 0) continue;
      // parts sum to the amount: the rounding of the divisions goes to the first path
      const ks = [a, b, c].slice(0, n);
      const parts = ks.map((k) => (amount * BigInt(k)) / 20n);
      const rest = amount - parts.reduce((s, x) => s + x, 0n);
      let total = 0n;
      let ok = true;
      for (let i = 0; i < n && ok; i++) {
        if (ks[i] === 0 && !(i === 0 && rest > 0n)) continue;
        const v = i === 0 && rest > 0n ? valueOf(chosen[0], mode, parts[0] + rest) : table[i][ks[i]];
        if (v === null) ok = false;
        else total += v;
      }
      if (ok && (best === null || better(mode, total, best))) best = total;
    }
  }
  return best;
}

function valueOf(p: ExactPath, mode: SwapMode, amount: bigint): bigint | null {
  const r = priceRoute(p, mode, amount);
  return r === null ? null : mode === 'ExactIn' ? r.amountOut : r.amountIn;
}

/** seeded uniform [0, 1) (mulberry32) */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface MarketRequest {
  inputMint: string;
  outputMint: string;
  amount: bigint;
  mode: SwapMode;
  usd: number;
}

/**
 * Requests on a market: pairs biased towards the long tail (half of them both sides off the hubs,
 * pump.fun coins included), the rest any two tokens; sizes log-uniform from 1 to 300,000 USD of
 * the mode's amount token; both modes for every pair and size.
 */
export function requests(m: MarketInstance, seed: number, count: number): MarketRequest[] {
  const rnd = rng(seed);
  const routable = m.tokens.filter((t) => m.graph.poolsOf(t.mint).length > 0);
  const tail = routable.filter((t) => !t.stable && t.mint !== MINTS.SOL);
  const pick = (xs: SimToken[]): SimToken => xs[Math.floor(rnd() * xs.length)];
  const out: MarketRequest[] = [];
  while (out.length < 2 * count) {
    const pool = rnd() < 0.5 ? tail : routable;
    const a = pick(pool);
    const b = pick(pool);
    if (a.mint === b.mint) continue;
    const usd = 10 ** (5.5 * rnd());
    const units = (t: SimToken) => BigInt(Math.max(1, Math.round((usd / t.priceUsd) * 10 ** t.decimals)));
    out.push({ inputMint: a.mint, outputMint: b.mint, amount: units(a), mode: 'ExactIn', usd });
    out.push({ inputMint: a.mint, outputMint: b.mint, amount: units(b), mode: 'ExactOut', usd });
  }
  return out;
}
