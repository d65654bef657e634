/**
 * Routing quality: how close the router's exact output comes to the true continuous optimum.
 *
 * Instances: random markets of constant-product pools (fees 1, 4, 25, 30, 100 bps) and Raydium
 * CLMM pools (real swap math via `buildSyntheticClmm` + `ClmmPool`, fee tiers 1, 5, 25, 100 bps,
 * a few positions around the price), over tokens laid out in levels 0..d from the input token
 * to the output token (pools only join tokens whose levels differ by at most one, so the pair
 * needs exactly d hops, d = 1..5; several tokens per level give alternative paths, parallel pools
 * and cross links). Pool prices follow latent token prices within ±0.5 bp (no arbitrage loop
 * beats the fees). Trade sizes are log-uniform from 1e-6 to 0.5 of the input token's depth.
 * ExactIn.
 *
 * The optimum: the optimal routing problem over these curves is convex (maximise the output
 * subject to token balances; each pool's output is concave in its input). Its Lagrange dual
 * D(ν) = ν_in · amount + Σ_pools,directions max_x [ν_out g(x) − ν_in x] (ν_output = 1) is an upper
 * bound of the optimum for ANY prices ν ≥ 0 (weak duality) and equals it at the minimiser
 * (strong duality). We minimise D by coordinate descent on the token prices (each step a
 * bisection on the token's net balance) and damped Newton steps, with each pool's arbitrage
 * subproblem solved in closed form on its continuous curve (constant product: the tangency
 * point; CLMM: walking the liquidity segments to the sqrt price where the marginal rate equals
 * the price ratio), from two starts: the latent token prices, and the prices read off a good
 * feasible flow (a generous run of our own search: each token's value is the best marginal rate
 * onwards at that flow; at an optimal flow these are the optimal dual prices). The lower D is
 * kept; any D is a certified upper bound, so the gaps can only be overstated. The reference is
 * floor(D): no route can pay out a fraction of a unit (the integer rounding of the programs'
 * math along the route stays part of our gap).
 *
 * Reported beside ours: the best single path (findBestRoute without splits, generous search) and
 * a 5%-step split grid (every allocation in 5% steps over the three best pool-disjoint paths,
 * each priced exactly).
 */
import { ClmmPool } from '@app/amm';
import { getSqrtPriceAtTick } from '@app/amm';
import { buildSyntheticClmm, type SyntheticPosition } from '@app/amm/programs/raydium-clmm/synthetic';
import { PoolQuoteError, type Pool } from '@app/amm';
import { evaluatePath, findBestRoute, findCandidatePaths, type CandidatePath } from '@app/amm';
import { FakePool, graphOf } from '@app/amm/routing/testing/fake-pool';
import { base58Encode } from '@app/solana';
import { fmtMs, summarize, verdict, type BenchRow, type BenchSection } from './harness';
import { marketSection, measureMarkets } from './support/market-quality';
import { rng } from './support/market-instances';
import { dualBound as dualBoundOf, dualSolve as dualSolveOf, type DualProblem, type Edge, type Oracle } from './support/dual-optimum';

interface Instance {
  pools: Pool[];
  edges: Edge[];
  mints: string[];
  price: number[];
  source: number;
  target: number;
  amount: bigint;
  hops: number;
  share: number;
}

const TWO64 = 2 ** 64;

/** constant product, fee on input: g(x) = k x Y / (X + k x) */
function cpOracle(X: number, Y: number, keep: number): Oracle {
  return (r) => {
    const s = Math.sqrt((keep * X * Y) / r);
    if (!(s > X)) return { x: 0, y: 0 };
    const net = s - X;
    return { x: net / keep, y: (net * Y) / (X + net) };
  };
}

/**
 * CLMM, fee on input: segments of constant liquidity between the initialized ticks; the
 * marginal rate is (1 − f) s² (zeroForOne) or (1 − f) / s² (oneForZero) at sqrt price s.
 */
function clmmOracle(s0: number, boundaries: { s: number; L: number }[], zeroForOne: boolean, keep: number, L0: number): Oracle {
  // segments in swap order: [start s, end s, liquidity]
  const segs: Array<[number, number, number]> = [];
  let cur = s0;
  let L = L0;
  for (const b of boundaries) {
    segs.push([cur, b.s, L]);
    cur = b.s;
    L = b.L;
  }
  return (r) => {
    const target = zeroForOne ? Math.sqrt(r / keep) : Math.sqrt(keep / r);
    let x = 0;
    let y = 0;
    for (const [a, b, liq] of segs) {
      const reached = zeroForOne ? target <= a : target >= a;
      if (!reached) break;
      const end = zeroForOne ? Math.max(b, target) : Math.min(b, target);
      if (liq > 0) {
        if (zeroForOne) {
          x += liq * (1 / end - 1 / a);
          y += liq * (a - end);
        } else {
          x += liq * (end - a);
          y += liq * (1 / a - 1 / end);
        }
      }
      if (end !== b) break;
    }
    return { x: x / keep, y };
  };
}

function makeInstance(seed: number, hops: number): Instance {
  const rnd = rng(seed);
  const U = (a: number, b: number) => a + (b - a) * rnd();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  // tokens per level: the input alone at level 0 (plus maybe a side token), 1..3 per inner level
  const levels: number[][] = [];
  const mints: string[] = [];
  const price: number[] = [];
  const newToken = (): number => {
    const b = new Uint8Array(32);
    for (let i = 0; i < 32; i++) b[i] = Math.floor(rnd() * 256);
    mints.push(base58Encode(b));
    price.push(10 ** U(-9, -4)); // USD per smallest unit
    return mints.length - 1;
  };
  for (let l = 0; l <= hops; l++) {
    const n = l === 0 || l === hops ? 1 + (rnd() < 0.3 ? 1 : 0) : 1 + Math.floor(rnd() * 3);
    levels.push(Array.from({ length: n }, newToken));
  }
  const level = new Map<number, number>();
  levels.forEach((ts, l) => ts.forEach((t) => level.set(t, l)));
  const source = levels[0][0];
  const target = levels[hops][0];

  const pools: Pool[] = [];
  const edges: Edge[] = [];
  let nPool = 0;
  const forward = (a: number, b: number): boolean => level.get(a)! < level.get(b)!;
  const addPool = (a: number, b: number): void => {
    if (a === b || Math.abs(level.get(a)! - level.get(b)!) !== 1) return;
    const address = base58Encode(Uint8Array.from({ length: 32 }, (_, i) => (i < 4 ? (seed >>> (8 * i)) & 255 : i === 4 ? nPool & 255 : (nPool >> 8) + 7)));
    nPool++;
    const depthUsd = 10 ** U(4, 7);
    const ratio = (price[a] / price[b]) * Math.exp(U(-0.5e-4, 0.5e-4)); // b units per a unit
    if (rnd() < 0.6) {
      const fee = pick([1, 4, 25, 30, 100]);
      const ra = BigInt(Math.max(1000, Math.round(depthUsd / price[a])));
      const rb = BigInt(Math.max(1000, Math.round(Number(ra) * ratio)));
      const p = new FakePool(address, mints[a], mints[b], ra, rb, fee);
      pools.push(p);
      const keep = 1 - fee / 10_000;
      if (forward(a, b)) edges.push({ from: a, to: b, oracle: cpOracle(Number(ra), Number(rb), keep) });
      else edges.push({ from: b, to: a, oracle: cpOracle(Number(rb), Number(ra), keep) });
      return;
    }
    // CLMM: mint0 = a; price of token0 in token1 units = ratio
    const spacing = pick([10, 60]);
    const feeRate = pick([100, 500, 2500, 10_000]);
    const sqrt = Math.sqrt(ratio);
    const sqrtX64 = BigInt(Math.round(sqrt * TWO64));
    const tick = Math.floor(Math.log(ratio) / Math.log(1.0001));
    const positions: SyntheticPosition[] = [];
    const nPos = 2 + Math.floor(rnd() * 3);
    for (let i = 0; i < nPos; i++) {
      const width = Math.round(U(2, 300)) * spacing * (i === 0 ? 8 : 1);
      const lo = Math.floor((tick - width * U(0.2, 1)) / spacing) * spacing;
      const hi = Math.ceil((tick + width * U(0.2, 1)) / spacing) * spacing;
      if (!(lo < tick && tick < hi)) continue;
      // liquidity so the position holds about depthUsd / nPos of token1 below the price
      const sLo = Number(getSqrtPriceAtTick(lo)) / TWO64;
      const amount1 = depthUsd / nPos / price[b];
      const liq = amount1 / (sqrt - sLo);
      if (!(liq >= 1) || liq > 1e30) continue;
      positions.push({ tickLower: lo, tickUpper: hi, liquidity: BigInt(Math.round(liq)) });
    }
    if (positions.length === 0) return;
    const s = buildSyntheticClmm({ address, mint0: mints[a], mint1: mints[b], ammConfig: address, tickSpacing: spacing, sqrtPriceX64: sqrtX64, positions, tradeFeeRate: feeRate });
    const pool = new ClmmPool({ address, state: s.state, config: s.config, extension: s.extension, tickArrays: s.tickArrays, slot: 1 });
    pools.push(pool);
    // continuous curve from the same positions
    const s0 = Number(s.state.sqrtPriceX64) / TWO64;
    const net = new Map<number, number>();
    for (const p of positions) {
      net.set(p.tickLower, (net.get(p.tickLower) ?? 0) + Number(p.liquidity));
      net.set(p.tickUpper, (net.get(p.tickUpper) ?? 0) - Number(p.liquidity));
    }
    const ticks = [...net.keys()].sort((x, y) => x - y);
    const L0 = Number(s.state.liquidity);
    const keep = 1 - feeRate / 1e6;
    // down (zeroForOne): boundaries at ticks ≤ current, liquidity after crossing = L − net
    const down: { s: number; L: number }[] = [];
    let L = L0;
    for (const t of [...ticks].reverse()) {
      if (t > s.state.tickCurrent) continue;
      L -= net.get(t)!;
      down.push({ s: Number(getSqrtPriceAtTick(t)) / TWO64, L: Math.max(0, L) });
    }
    const up: { s: number; L: number }[] = [];
    L = L0;
    for (const t of ticks) {
      if (t <= s.state.tickCurrent) continue;
      L += net.get(t)!;
      up.push({ s: Number(getSqrtPriceAtTick(t)) / TWO64, L: Math.max(0, L) });
    }
    if (forward(a, b)) edges.push({ from: a, to: b, oracle: clmmOracle(s0, down, true, keep, L0) });
    else edges.push({ from: b, to: a, oracle: clmmOracle(s0, up, false, keep, L0) });
  };

  // every inner token reaches both neighbouring levels; parallel pools on some pairs
  for (let l = 0; l < hops; l++) {
    for (const t of levels[l]) addPool(t, pick(levels[l + 1]));
    for (const u of levels[l + 1]) addPool(pick(levels[l]), u);
  }
  const extra = Math.floor(U(1, 3 + 2 * hops));
  for (let i = 0; i < extra; i++) {
    const l = Math.floor(rnd() * (hops + 1));
    const a = pick(levels[l]);
    const dl = pick([-1, 1]);
    const l2 = Math.min(hops, Math.max(0, l + dl));
    addPool(a, pick(levels[l2]));
  }

  // depth of the input token: what its pools hold of it
  let depth = 0;
  for (const p of pools) if (p.mintA === mints[source] || p.mintB === mints[source]) depth += p.reserve(mints[source]);
  const share = 10 ** U(-6, Math.log10(0.5));
  const amount = BigInt(Math.max(1, Math.round(depth * share)));
  return { pools, edges, mints, price, source, target, amount, hops, share };
}

/** 5%-step split grid over the three best pool-disjoint paths, each priced exactly */
function gridSplit(inst: Instance, candidates: CandidatePath[]): bigint {
  const chosen: CandidatePath[] = [];
  const used = new Set<Pool>();
  const ranked = candidates
    .map((c) => {
      try {
        return { c, out: evaluatePath(c, 'ExactIn', inst.amount).amountOut };
      } catch {
        return { c, out: -1n };
      }
    })
    .sort((a, b) => (b.out > a.out ? 1 : b.out < a.out ? -1 : 0));
  for (const { c } of ranked) {
    if (chosen.length >= 3) break;
    if (c.pools.some((p) => used.has(p))) continue;
    chosen.push(c);
    for (const p of c.pools) used.add(p);
  }
  const quote = (c: CandidatePath, parts: number): bigint => {
    if (parts === 0) return 0n;
    try {
      return evaluatePath(c, 'ExactIn', (inst.amount * BigInt(parts)) / 20n).amountOut;
    } catch (e) {
      if (e instanceof PoolQuoteError) return -(1n << 80n);
      throw e;
    }
  };
  if (chosen.length === 0) return -1n;
  const cache = chosen.map((c) => Array.from({ length: 21 }, (_, k) => quote(c, k)));
  let best = -1n;
  const k = chosen.length;
  for (let a = 0; a <= 20; a++) {
    for (let b = 0; b <= (k > 1 ? 20 - a : 0); b++) {
      const c = 20 - a - b;
      if (k === 1 && a !== 20) continue;
      if (k === 2 && c !== 0) continue;
      // the remainder of the integer division goes to the first path
      const total = cache[0][a] + (k > 1 ? cache[1][b] : 0n) + (k > 2 ? cache[2][c] : 0n);
      if (total > best) best = total;
    }
  }
  return best;
}

/** a generous search whose flow warm-starts the dual (not what the router serves) */
const GENEROUS = { candidatesPerToken: 8, splitCandidatesPerToken: 12, maxPaths: 40, parallelPools: 8, maxEdges: 256, maxSteps: 2048, polishRounds: 400, minShare: 0, hopSlack: 4 };

export async function bench(): Promise<BenchSection[]> {
  const COUNT = Number(process.env.ROUTING_QUALITY_INSTANCES ?? 300);
  const MARKETS = Number(process.env.ROUTING_MARKETS ?? 6);
  const PAIRS = Number(process.env.ROUTING_MARKET_PAIRS ?? 25);
  const ours: number[] = [];
  const single: number[] = [];
  const grid: number[] = [];
  const times: number[] = [];
  let worseThanSingle = 0;
  let beyond = 0;
  let failed = 0;
  let negative = 0;
  let splits = 0;
  let done = 0;
  for (let i = 0; i < COUNT; i++) {
    const inst = makeInstance(1000 + i, 1 + (i % 5));
    const graph = graphOf(inst.pools);
    const req = { inputMint: inst.mints[inst.source], outputMint: inst.mints[inst.target], amount: inst.amount, mode: 'ExactIn' as const, maxHops: inst.hops };
    // a good feasible flow (our router with generous settings) warm-starts the dual descent; when
    // even it finds nothing, no route can spend the amount (every path too small for it)
    let gen;
    try {
      gen = findBestRoute(graph, req, GENEROUS);
    } catch {
      continue;
    }
    const flows = inst.pools.map((p) => gen.hops.filter((h) => h.pool === p).reduce((sum, h) => sum + Number(h.amountIn), 0));
    const dual = dualSolve(inst, flows);
    if (dual.spent < 1 - 1e-6) {
      beyond++;
      continue;
    }
    let r;
    const t0 = process.hrtime.bigint();
    try {
      r = findBestRoute(graph, req);
    } catch {
      r = null;
    }
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    let s;
    try {
      s = findBestRoute(graph, req, { split: false, candidatesPerToken: 8, exactEvaluations: 64 });
    } catch {
      s = null;
    }
    // no integer route can pay out a fraction of a unit: the integer optimum is at most floor(D)
    const bound = Math.floor(dual.bound);
    const g = gridSplit(inst, findCandidatePaths(graph, req, { candidatesPerToken: 8, candidatePaths: Infinity }));
    const gap = (v: bigint): number => ((bound - Number(v)) / bound) * 10_000;
    // a route error where a route exists counts as the whole output lost
    const og = r ? gap(r.amountOut) : 10_000;
    if (!r) failed++;
    if (og < -1e-6) negative++;
    ours.push(og);
    single.push(s ? gap(s.amountOut) : 10_000);
    grid.push(g > 0n ? gap(g) : 10_000);
    if (s && (!r || r.amountOut < s.amountOut)) worseThanSingle++;
    if (r && r.hops.length > new Set(r.hops.map((h) => h.inputMint)).size) splits++;
    done++;
  }
  const o = summarize(ours);
  const sg = summarize(single);
  const gg = summarize(grid);
  const f = (x: number) => (Math.abs(x) < 0.01 ? x.toExponential(1) : x.toFixed(3));
  const row = (name: string, v: ReturnType<typeof summarize>, t?: [number, number]): BenchRow[] => [
    { metric: `${name}: gap p50`, value: `${f(v.p50)} bps`, target: t ? `≤ ${t[0]} bps` : '', verdict: t ? verdict(v.p50 <= t[0]) : '' },
    { metric: `${name}: gap p90`, value: `${f(v.p90)} bps` },
    { metric: `${name}: gap p99`, value: `${f(v.p99)} bps`, target: t ? `≤ ${t[1]} bps` : '', verdict: t ? verdict(v.p99 <= t[1]) : '' },
    { metric: `${name}: gap max`, value: `${f(v.max)} bps` },
  ];
  const tt = summarize(times);
  return [
    {
      title: 'Routing quality',
      description:
        'Gap of the exact output to the continuous optimum, in bps of the optimum (`bench/routing-quality.bench.ts`): ' +
        `${done} random ExactIn instances (constant-product pools with fees 1–100 bps and Raydium CLMM pools, pairs needing 1 to 5 hops, ` +
        'trades from 1e-6 to 0.5 of the input depth). The optimum is the Lagrange dual bound minimised by coordinate descent on token prices ' +
        '(an upper bound for any prices, so the gaps can only be overstated; integer rounding of the exact math is part of our gap).',
      rows: [
        ...row('router (split search)', o, [0.1, 1]),
        ...row('best single path', sg),
        ...row('5%-step split grid (3 best pool-disjoint paths)', gg),
        { metric: 'router worse than the best single path', value: `${worseThanSingle} of ${done}`, target: '0', verdict: verdict(worseThanSingle === 0) },
        { metric: 'instances answered with a split', value: `${splits} of ${done}` },
        { metric: 'router error where a route exists (counted as a 10,000 bps gap)', value: `${failed} of ${done}`, target: '0', verdict: verdict(failed === 0) },
        {
          metric: 'instances beyond the network capacity (left out)',
          value: String(beyond),
          notes: 'the continuous optimum leaves input unspent (every path crosses a concentrated pool that runs out of liquidity); a swap spends it all',
        },
        { metric: 'router time per instance p50 / p99', value: `${fmtMs(tt.p50)} / ${fmtMs(tt.p99)}`, notes: 'small instance graphs (not the speed benchmark)' },
        ...(negative > 0 ? [{ metric: 'instances above the dual bound (solver check)', value: String(negative), target: '0', verdict: verdict(false) }] : []),
      ],
    },
    marketSection(measureMarkets(MARKETS, PAIRS), MARKETS, PAIRS),
  ];
}

/** the dual problem of an instance */
function problem(inst: Instance): DualProblem {
  return { n: inst.mints.length, edges: inst.edges, price: inst.price, source: inst.source, target: inst.target, amount: Number(inst.amount) };
}
const dualSolve = (inst: Instance, flows?: number[]) => dualSolveOf(problem(inst), flows);
const dualBound = (inst: Instance, flows?: number[]) => dualBoundOf(problem(inst), flows);

export const _internal = { makeInstance, dualBound, dualSolve };

if (require.main === module) {
  bench().then((s) => {
    for (const r of s.flatMap((x) => x.rows)) console.log(`${r.metric}: ${r.value}${r.target ? ` (target ${r.target}: ${r.verdict})` : ''}`);
  });
}
