/**
 * Quote latency on one core while pool updates stream in: a Projection is built from the
 * simulated market's genesis (Raydium CPMM pools over SPL mints, real account bytes), then
 * quotes (computeQuote: the full search with splits, exact recompute and the QuoteResponse) are
 * timed one by one while the market's slots of swaps are applied to the projection between
 * them (one slot of updates every 4 quotes). Pairs: half random token pairs, half with one side
 * among the 20 most traded tokens; amounts log-uniform from 1 to 10,000 USD; ExactIn and
 * ExactOut alternate. Memory per pool: heap growth while the genesis is applied, divided by the
 * routable pools (decoded pools, raw accounts, token graph).
 */
import { SimMarket } from '@app/sim';
import { Projection } from '@app/pools';
import { computeQuote } from '../apps/router/src/quote/quote.service';
import { RouteError } from '@app/amm';
import { encodePoolUpdate } from '@app/contracts';
import { fmtMs, summarize, verdict, type BenchRow, type BenchSection } from './harness';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Measured {
  pools: number;
  routable: number;
  latency: ReturnType<typeof summarize>;
  bytesPerPool: number;
  quotes: number;
  errors: number;
  splits: number;
  updates: number;
}

function measure(pools: number, queries: number): Measured {
  const programs = process.env.QUOTE_BENCH_PROGRAMS === 'cpmm' ? (['raydium-cpmm'] as const) : 'all';
  const market = new SimMarket({ seed: 11, pools, tokens: Math.max(64, Math.floor(pools / 4)), swapsPerSlot: 64, programs });
  const genesis = market.genesis().map(encodePoolUpdate);
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const p = new Projection();
  let offset = 0;
  for (const value of genesis) p.apply({ partition: 0, offset: String(offset++), value });
  p.drainChanged();
  const routable = p.stats.routablePools;
  global.gc?.();
  const heap1 = process.memoryUsage().heapUsed;
  genesis.length = 0;

  const rnd = rng(pools);
  const tokens = market.tokens;
  // the most traded tokens: by number of pools
  const degree = tokens.map((t) => ({ t, n: p.poolsOf(t.mint).length })).sort((a, b) => b.n - a.n);
  const popular = degree.slice(0, 20).map((d) => d.t);
  const routableTokens = degree.filter((d) => d.n > 0).map((d) => d.t);
  const times: number[] = [];
  let errors = 0;
  let splits = 0;
  let updates = 0;
  const warm = 200;
  for (let q = 0; q < queries + warm; q++) {
    if (q % 4 === 0) {
      for (const u of market.step()) {
        p.apply({ partition: 0, offset: String(offset++), value: encodePoolUpdate(u) });
        updates++;
      }
      p.drainChanged();
    }
    let a = routableTokens[Math.floor(rnd() * routableTokens.length)];
    let b = rnd() < 0.5 ? popular[Math.floor(rnd() * popular.length)] : routableTokens[Math.floor(rnd() * routableTokens.length)];
    if (a === b) continue;
    if (rnd() < 0.5) [a, b] = [b, a];
    const exactIn = q % 2 === 0;
    const usd = 10 ** (rnd() * 4);
    const t = exactIn ? a : b;
    const amount = BigInt(Math.max(1, Math.floor((usd / t.priceUsd) * 10 ** t.decimals)));
    const t0 = process.hrtime.bigint();
    try {
      const r = computeQuote(p, { inputMint: a.mint, outputMint: b.mint, amount, swapMode: exactIn ? 'ExactIn' : 'ExactOut', slippageBps: 50 }, 5, { fullHopLimit: true });
      if (q >= warm && r.routes.length > r.hopCount) splits++;
    } catch (e) {
      if (!(e instanceof RouteError)) throw e;
      if (q >= warm) errors++;
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (q >= warm) times.push(ms);
  }
  return { pools, routable, latency: summarize(times), bytesPerPool: (heap1 - heap0) / Math.max(1, routable), quotes: times.length, errors, splits, updates };
}

export async function bench(): Promise<BenchSection[]> {
  const rows: BenchRow[] = [];
  const targets: Record<number, number> = { 10_000: 5, 100_000: 25 };
  const sizes = (process.env.QUOTE_BENCH_POOLS ?? '1000,10000,100000').split(',').map(Number);
  for (const pools of sizes) {
    const queries = Number(process.env.QUOTE_BENCH_QUERIES ?? (pools >= 100_000 ? 1_000 : 2_000));
    const m = measure(pools, queries);
    const target = targets[pools];
    const label = `${pools.toLocaleString('en-US')} pools`;
    rows.push({
      metric: `quote latency p50 / p99, ${label}`,
      value: `${fmtMs(m.latency.p50)} / ${fmtMs(m.latency.p99)}`,
      target: target ? `p99 ≤ ${target} ms` : '',
      verdict: target ? verdict(m.latency.p99 <= target) : '',
      notes: `${m.quotes} quotes (max ${fmtMs(m.latency.max)}), ${m.splits} split, ${m.errors} route errors; ${m.updates.toLocaleString('en-US')} pool updates applied between them`,
    });
    rows.push({
      metric: `memory per pool, ${label}`,
      value: `${(m.bytesPerPool / 1024).toFixed(1)} KiB`,
      notes: `heap growth over the genesis / ${m.routable.toLocaleString('en-US')} routable pools`,
    });
    global.gc?.();
  }
  return [
    {
      title: 'Quote latency',
      description:
        'One quote at a time on one core (`bench/quote.bench.ts`): computeQuote on a Projection of the simulated Raydium CPMM market ' +
        '(tokens = pools / 4), with a slot of pool updates applied every 4 quotes; random pairs (half with one side among the 20 most ' +
        'traded tokens), 1–10,000 USD, ExactIn and ExactOut alternating; 200 warm-up quotes not counted.',
      rows,
    },
  ];
}

if (require.main === module) {
  bench().then((s) => {
    for (const r of s[0].rows) console.log(`${r.metric}: ${r.value} ${r.target ?? ''} ${r.verdict ?? ''} ${r.notes ?? ''}`);
  });
}
