/**
 * Quote latency on the market users have, while pool updates stream in: the simulated market of
 * all six programs (bench/quote-market.ts) at each size, its genesis applied to a Projection as
 * the router applies the log's records, then quotes timed one by one through the router's quote
 * path (QuoteService.quote: computeRoutedQuote → findBestNetRoute under QUOTE_SEARCH, the full hop
 * limit, the default configuration's MAX_HOPS and fee) while the market's swaps are applied
 * between them at a steady rate (records falling due by the wall clock; the applying is not
 * timed). Memory per pool: heap after a full collection with the projection built, less the heap
 * before it, divided by the pools. Start to serving: the genesis records applied to an empty
 * projection, then the first quote.
 *
 * Flags (environment): QUOTE_BENCH_POOLS sizes, comma-separated (default 1000,10000; 100000 takes
 * about 5 minutes and 7 GB to build on two cores), QUOTE_BENCH_QUERIES quotes per size,
 * QUOTE_BENCH_UPDATES_PER_SECOND records applied per second (default 1,000).
 */
import { SimMarket } from '@app/sim/market';
import { Projection } from '@app/pools';
import { loadConfig } from '@app/config';
import { RouteError } from '@app/amm';
import { encodePoolUpdate } from '@app/contracts';
import { QuoteService } from '../apps/router/src/quote/quote.service';
import type { ProjectionService } from '../apps/router/src/projection/projection.service';
import { fmtMs, summarize, verdict, type BenchRow, type BenchSection } from './harness';
import { P99_TARGET_MS, SteadyPace, benchQueries, quoteBenchFlags, quoteMarketOptions, sizeLabel } from './quote-market';

const WARM = 200;

interface Measured {
  pools: number;
  routable: number;
  records: number;
  latency: ReturnType<typeof summarize>;
  bytesPerPool: number;
  buildSeconds: number;
  applySeconds: number;
  firstQuoteMs: number;
  quotes: number;
  errors: number;
  splits: number;
  updates: number;
  seconds: number;
}

function measure(pools: number, queries: number, updatesPerSecond: number): Measured {
  const b0 = performance.now();
  const market = new SimMarket(quoteMarketOptions(pools));
  const genesis = market.genesis().map(encodePoolUpdate);
  const buildSeconds = (performance.now() - b0) / 1000;
  const asked = benchQueries(market, queries + WARM, pools);
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const projection = new Projection();
  let offset = 0;
  for (const value of genesis) projection.apply({ partition: 0, offset: String(offset++), value });
  projection.drainChanged();
  const applySeconds = (performance.now() - t0) / 1000;
  const records = genesis.length;
  genesis.length = 0;
  // the router's quote service on this projection, in the default configuration
  const service = new QuoteService({ projection } as unknown as ProjectionService, loadConfig({}));
  const quote = (i: number): { routes: number; hops: number } | null => {
    const q = asked[i];
    try {
      const r = service.quote({ ...q, slippageBps: 50 }).response;
      return { routes: r.routes.length, hops: r.hopCount };
    } catch (e) {
      if (!(e instanceof RouteError)) throw e;
      return null;
    }
  };
  const f0 = performance.now();
  quote(0);
  const firstQuoteMs = performance.now() - t0;
  const first = performance.now() - f0;
  global.gc?.();
  const heap1 = process.memoryUsage().heapUsed;

  const times: number[] = [first];
  let errors = 0;
  let splits = 0;
  let updates = 0;
  let pending: Buffer[] = [];
  const pace = new SteadyPace(updatesPerSecond);
  const r0 = performance.now();
  for (let i = 1; i < asked.length; i++) {
    // the records due by now, from the market's next slots
    while (updates < pace.dueBy()) {
      if (pending.length === 0) pending = market.step().map(encodePoolUpdate);
      projection.apply({ partition: 0, offset: String(offset++), value: pending.shift()! });
      updates++;
    }
    projection.drainChanged();
    const s = performance.now();
    const r = quote(i);
    const ms = performance.now() - s;
    if (i < WARM) continue;
    times.push(ms);
    if (r === null) errors++;
    else if (r.routes > r.hops) splits++;
  }
  times.shift();
  const seconds = (performance.now() - r0) / 1000;
  return { pools, routable: projection.stats.routablePools, records, latency: summarize(times), bytesPerPool: (heap1 - heap0) / pools, buildSeconds, applySeconds, firstQuoteMs, quotes: times.length, errors, splits, updates, seconds };
}

function rowsOf(m: Measured): BenchRow[] {
  const target = P99_TARGET_MS[m.pools];
  const label = sizeLabel(m.pools);
  return [
    {
      metric: `quote latency p50 / p99, ${label}`,
      value: `${fmtMs(m.latency.p50)} / ${fmtMs(m.latency.p99)}`,
      target: target ? `p99 ≤ ${target} ms` : '',
      verdict: target ? verdict(m.latency.p99 <= target) : '',
      notes: `max ${fmtMs(m.latency.max)}; ${m.quotes.toLocaleString('en-US')} quotes, ${m.splits} split, ${m.errors} route errors; ${m.updates.toLocaleString('en-US')} pool-updates records applied between them (${Math.round(m.updates / m.seconds).toLocaleString('en-US')}/s)`,
    },
    {
      metric: `memory per pool, ${label}`,
      value: `${(m.bytesPerPool / 1024).toFixed(1)} KiB`,
      notes: `heap after a full collection with the projection built, less before, / ${m.pools.toLocaleString('en-US')} pools (${m.routable.toLocaleString('en-US')} routable)`,
    },
    {
      metric: `start to serving, ${label}`,
      value: `${(m.firstQuoteMs / 1000).toFixed(1)} s`,
      notes: `${m.records.toLocaleString('en-US')} genesis records applied to an empty projection in ${m.applySeconds.toFixed(1)} s, then the first quote; building the simulated market itself took ${m.buildSeconds.toFixed(1)} s (not counted)`,
    },
  ];
}

export async function bench(): Promise<BenchSection[]> {
  const flags = quoteBenchFlags();
  const rows: BenchRow[] = [];
  for (const pools of flags.sizes) {
    rows.push(...rowsOf(measure(pools, flags.queries(pools), flags.updatesPerSecond)));
    global.gc?.();
  }
  return [
    {
      title: 'Quote latency',
      description:
        'One quote at a time on one core (`bench/quote.bench.ts`): the router\'s quote path (QuoteService: findBestNetRoute under QUOTE_SEARCH, the full hop limit, ' +
        'the default MAX_HOPS) on a Projection of the simulated market of all six programs (concentrated pools with their tick arrays, Raydium CPMM, AMM v4, PumpSwap, pump.fun; tokens = pools / 4), ' +
        `with the market's swaps applied between quotes at ${flags.updatesPerSecond.toLocaleString('en-US')} pool-updates records/s; random pairs (half with one side among the 20 tokens with the most pools), ` +
        `1–10,000 USD, ExactIn and ExactOut alternating; ${WARM} warm-up quotes not counted. Sizes: QUOTE_BENCH_POOLS (default ${'1,000 and 10,000'}).`,
      rows,
    },
  ];
}

if (require.main === module) {
  void bench().then((s) => {
    for (const sec of s) for (const r of sec.rows) console.log(`${r.metric}: ${r.value} ${r.target ?? ''} ${r.verdict ?? ''} ${r.notes ?? ''}`);
  });
}
