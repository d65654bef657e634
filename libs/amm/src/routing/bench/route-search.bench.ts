/**
 * Quick latency measurement of findBestRoute on a synthetic graph (not a test; prints figures).
 *   node -r ./test/support/ts-register.js libs/amm/src/routing/bench/route-search.bench.ts [pools] [tokens] [queries]
 * Graph: 3 hub tokens; every other token gets one or two pools against a hub, the rest of the
 * pools join random token pairs (several parallel pools per popular pair), prices consistent.
 */
import { findBestRoute, RouteError, type SwapMode } from '../route-search';
import { FakePool, graphOf } from '../testing/fake-pool';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const POOLS = Number(process.argv[2] ?? 10_000);
const TOKENS = Number(process.argv[3] ?? 2_000);
const QUERIES = Number(process.argv[4] ?? 2_000);
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

function run(label: string, pick: () => [number, number]): void {
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
  times.sort((x, y) => x - y);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)].toFixed(3);
  console.log(`${label}: pools=${pools.length} tokens=${TOKENS} queries=${times.length}`);
  console.log(`  latency ms: p50=${pct(50)} p90=${pct(90)} p99=${pct(99)} max=${pct(100)}`);
  console.log('  hops:', Object.fromEntries([...hops].sort()), 'errors:', Object.fromEntries(errors));
}

const other = (a: number): number => {
  let b = Math.floor(rnd() * TOKENS);
  if (b === a) b = (b + 1) % TOKENS;
  return b;
};
run('random pairs', () => {
  const a = Math.floor(rnd() * TOKENS);
  return [a, other(a)];
});
// a realistic mix: one side is one of 20 popular tokens (hubs and majors), the other random
run('one side among 20 popular tokens', () => {
  const popular = Math.floor(rnd() * 20);
  const x = other(popular);
  return rnd() < 0.5 ? [x, popular] : [popular, x];
});
