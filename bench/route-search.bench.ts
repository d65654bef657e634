/**
 * Route search latency: findBestRoute alone, one search at a time, on a synthetic graph of fake
 * constant-product pools (no projection, no quote response around it).
 *   npm run bench -- route-search
 *   node -r ./test/support/ts-register.js bench/route-search.bench.ts [pools] [tokens] [queries]
 * Graph: 3 hub tokens; every other token gets one or two pools against a hub, the rest of the
 * pools join random token pairs (several parallel pools per popular pair), prices consistent.
 */
import { findBestRoute, RouteError, type SwapMode } from '@app/amm';
import { FakePool, graphOf } from '@app/amm/routing/testing/fake-pool';
import { fmtMs, summarize, type BenchRow, type BenchSection } from './harness';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** one set of searches: latencies (ms, warm-up excluded), route hop counts, route errors by message */
interface Run {
  label: string;
  times: number[];
  hops: Map<number, number>;
  errors: Map<string, number>;
}

/** the synthetic graph of `POOLS` pools over `TOKENS` tokens, then `QUERIES` searches of each pair mix */
function measure(POOLS: number, TOKENS: number, QUERIES: number): { pools: number; runs: Run[] } {
  const rnd = lcg(7);
  const tokens = Array.from({ length: TOKENS }, (_, i) => `T${String(i).padStart(5, '0')}`);
  const price = tokens.map((_, i) => (i < 3 ? 1 : 10 ** (rnd() * 6 - 3)));
  const pools: FakePool[] = [];
  function addPool(a: number, b: number): void {
    if (a === b) return;
    const usd = 10 ** (3 + rnd() * 5);
    const ra = BigInt(Math.max(1000, Math.floor((usd / price[a]) * 1e6)));
    const rb = BigInt(Math.max(1000, Math.floor((usd / price[b]) * 1e6)));
    pools.push(new FakePool(`P${pools.length}`, tokens[a], tokens[b], ra, rb, [1, 5, 25, 100][Math.floor(rnd() * 4)]));
  }
  addPool(0, 1);
  addPool(0, 2);
  addPool(1, 2);
  for (let t = 3; t < TOKENS && pools.length < POOLS; t++) {
    addPool(t, Math.floor(rnd() * 3));
    if (rnd() < 0.5) addPool(t, Math.floor(rnd() * 3));
  }
  while (pools.length < POOLS) {
    // popular tokens attract more pools (squared uniform skews to low indices)
    const a = Math.floor(rnd() ** 2 * TOKENS);
    const b = Math.floor(rnd() * TOKENS);
    addPool(a, b);
  }
  const graph = { ...graphOf(pools), topologyVersion: 1 };

  function run(label: string, pick: () => [number, number]): Run {
    const times: number[] = [];
    const errors = new Map<string, number>();
    const hops = new Map<number, number>();
    for (let q = 0; q < QUERIES + 200; q++) {
      const [a, b] = pick();
      const mode: SwapMode = rnd() < 0.5 ? 'ExactIn' : 'ExactOut';
      const amount = BigInt(Math.max(1, Math.floor((10 ** (rnd() * 4) / price[mode === 'ExactIn' ? a : b]) * 1e6)));
      const t0 = process.hrtime.bigint();
      try {
        const r = findBestRoute(graph, { inputMint: tokens[a], outputMint: tokens[b], amount, mode, maxHops: 5 });
        if (q >= 200) hops.set(r.hops.length, (hops.get(r.hops.length) ?? 0) + 1);
      } catch (e) {
        if (!(e instanceof RouteError)) throw e;
        if (q >= 200) errors.set(e.message, (errors.get(e.message) ?? 0) + 1);
      }
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (q >= 200) times.push(ms); // the first 200 are warm-up
    }
    return { label, times, hops, errors };
  }

  const other = (a: number): number => {
    let b = Math.floor(rnd() * TOKENS);
    if (b === a) b = (b + 1) % TOKENS;
    return b;
  };
  const runs = [
    run('random pairs', () => {
      const a = Math.floor(rnd() * TOKENS);
      return [a, other(a)];
    }),
    // a realistic mix: one side is one of 20 popular tokens (hubs and majors), the other random
    run('one side among 20 popular tokens', () => {
      const popular = Math.floor(rnd() * 20);
      const x = other(popular);
      return rnd() < 0.5 ? [x, popular] : [popular, x];
    }),
  ];
  return { pools: pools.length, runs };
}

export async function bench(pools = 10_000, tokens = 2_000, queries = 2_000): Promise<BenchSection[]> {
  const m = measure(pools, tokens, queries);
  const rows: BenchRow[] = m.runs.map((r) => {
    const l = summarize(r.times);
    let single = 0;
    for (const [n, count] of r.hops) if (n === 1) single += count;
    let errors = 0;
    for (const count of r.errors.values()) errors += count;
    return {
      metric: `findBestRoute latency p50 / p90 / p99, ${r.label}`,
      value: `${fmtMs(l.p50)} / ${fmtMs(l.p90)} / ${fmtMs(l.p99)}`,
      notes: `${l.n} searches (max ${fmtMs(l.max)}), ${single} single-hop routes, ${errors} route errors`,
    };
  });
  return [
    {
      title: 'Route search latency',
      description:
        'findBestRoute alone, one search at a time on one core (`bench/route-search.bench.ts`), on a synthetic graph of ' +
        `${m.pools.toLocaleString('en-US')} fake constant-product pools over ${tokens.toLocaleString('en-US')} tokens (3 hubs; every token ` +
        'pooled against a hub, the rest random pairs); ExactIn and ExactOut at random, 1–10,000 USD, up to 5 hops; 200 warm-up searches ' +
        'not counted.',
      rows,
    },
  ];
}

if (require.main === module) {
  const m = measure(Number(process.argv[2] ?? 10_000), Number(process.argv[3] ?? 2_000), Number(process.argv[4] ?? 2_000));
  for (const r of m.runs) {
    const times = [...r.times].sort((x, y) => x - y);
    const pct = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)].toFixed(3);
    console.log(`${r.label}: pools=${m.pools} tokens=${process.argv[3] ?? 2_000} queries=${times.length}`);
    console.log(`  latency ms: p50=${pct(50)} p90=${pct(90)} p99=${pct(99)} max=${pct(100)}`);
    console.log('  hops:', Object.fromEntries([...r.hops].sort()), 'errors:', Object.fromEntries(r.errors));
  }
}
