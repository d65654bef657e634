/**
 * The routing quality section on market-like instances (support/market-instances.ts): the served
 * search's gap to the best exact route of at most MAX_HOPS hops we can show, in both swap modes,
 * its refusals where a route fills, and whether an ExactOut answer asks more input than the
 * ExactIn route that yields its output.
 *   ROUTING_MARKETS (default 6) markets × ROUTING_MARKET_PAIRS (default 25) pairs, each pair in
 *   both modes.
 */
import { RouteError, findBestRoute, type Route, type RouteSearchOptions, type TokenGraph } from '@app/amm';
import { forwardYield } from '@app/amm/routing/testing/forward-yield';
import { fmtMs, summarize, verdict, type BenchRow, type BenchSection } from '../harness';
import { OracleCache, convexSplit } from './convex-split';
import { MAX_HOPS, buildMarket, exactPaths, gridSplit, requests, type MarketRequest } from './market-instances';

/** what the served quotes search (the router's quote search options) */
const SERVED: RouteSearchOptions = { fullHopLimit: true };

export interface MarketFigures {
  /** gap to the exact reference in bp of it, per mode (negative: better than every reference) */
  gaps: { ExactIn: number[]; ExactOut: number[] };
  worseThanSingle: number;
  falseRefusals: number;
  /** requests where a reference fills, per mode */
  filled: { ExactIn: number; ExactOut: number };
  /** neither the reference nor the router fills */
  unfillable: number;
  /** the best single path's hop counts */
  singleHops: number[];
  /** which reference was best: single path, grid, convex split */
  bestOf: [number, number, number];
  /**
   * ExactIn with an ExactOut answer's input: its output beyond what the ExactOut route yields for
   * that input executed forwards, in bp of the ExactOut answer's output
   */
  outVsIn: number[];
  /** ExactOut answers where ExactIn with 1 bp (at least one unit) less input reaches the output */
  outAsksMore: number;
  times: number[];
}

function run(graph: TokenGraph, req: MarketRequest, opts: RouteSearchOptions): Route | null {
  try {
    return findBestRoute(graph, { ...req, maxHops: MAX_HOPS }, opts);
  } catch (e) {
    if (e instanceof RouteError) return null;
    throw e;
  }
}

export function measureMarkets(markets: number, pairs: number, opts: RouteSearchOptions = SERVED): MarketFigures {
  const fig: MarketFigures = { gaps: { ExactIn: [], ExactOut: [] }, worseThanSingle: 0, falseRefusals: 0, filled: { ExactIn: 0, ExactOut: 0 }, unfillable: 0, singleHops: [], bestOf: [0, 0, 0], outVsIn: [], outAsksMore: 0, times: [] };
  for (let k = 0; k < markets; k++) {
    const m = buildMarket(101 + k);
    const oracles = new OracleCache();
    const token = new Map(m.tokens.map((t) => [t.mint, t]));
    const price = (mint: string): number => {
      const t = token.get(mint);
      return t ? t.priceUsd / 10 ** t.decimals : 1e-9;
    };
    for (const req of requests(m, 7 + k, pairs)) {
      const exactIn = req.mode === 'ExactIn';
      const t0 = process.hrtime.bigint();
      const r = run(m.graph, req, opts);
      fig.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      const paths = exactPaths(m.graph, req.mode, req.inputMint, req.outputMint, req.amount);
      const refs: (bigint | null)[] = [paths[0]?.value ?? null, gridSplit(paths, req.mode, req.amount), null];
      const input = exactIn ? req.amount : (r?.amountIn ?? paths[0]?.value);
      if (input !== undefined) {
        const support = [...new Set([...paths.slice(0, 12).flatMap((p) => p.mints), ...(r ? r.hops.map((h) => h.inputMint) : [])])];
        const c = convexSplit(m.graph, oracles, { ...req, input }, price, MAX_HOPS, support, r ?? undefined);
        if (c !== null) refs[2] = exactIn ? c.amountOut : c.amountIn;
      }
      const better = (a: bigint, b: bigint) => (exactIn ? a > b : a < b);
      let best: bigint | null = null;
      let which = -1;
      refs.forEach((v, i) => {
        if (v !== null && (best === null || better(v, best))) {
          best = v;
          which = i;
        }
      });
      if (best === null) {
        if (r === null) fig.unfillable++;
        continue;
      }
      const ref: bigint = best;
      fig.filled[req.mode]++;
      fig.bestOf[which]++;
      if (paths[0]) fig.singleHops.push(paths[0].pools.length);
      if (r === null) {
        fig.falseRefusals++;
        continue;
      }
      const ours = exactIn ? r.amountOut : r.amountIn;
      fig.gaps[req.mode].push((Number(exactIn ? ref - ours : ours - ref) / Number(ref)) * 10_000);
      if (paths[0] && better(paths[0].value, ours)) fig.worseThanSingle++;
      if (!exactIn) {
        const back = run(m.graph, { ...req, mode: 'ExactIn', amount: r.amountIn }, opts);
        // what the ExactOut route itself yields for its input (its hops' rounding up): the
        // ExactIn route must beat that, not just the requested output
        const own = forwardYield(r);
        const floor = own !== null && own > r.amountOut ? own : r.amountOut;
        if (back !== null) fig.outVsIn.push((Number(back.amountOut - floor) / Number(r.amountOut)) * 10_000);
        // the invariant itself: with 1 bp (at least one unit) less input, ExactIn does not reach the output
        const less = r.amountIn - (r.amountIn / 10_000n > 1n ? r.amountIn / 10_000n : 1n);
        const short = less > 0n ? run(m.graph, { ...req, mode: 'ExactIn', amount: less }, opts) : null;
        if (short !== null && short.amountOut >= req.amount) fig.outAsksMore++;
      }
    }
  }
  return fig;
}

const f = (x: number) => (Math.abs(x) < 0.01 ? x.toExponential(1) : x.toFixed(3));

export function marketSection(fig: MarketFigures, markets: number, pairs: number): BenchSection {
  const all = [...fig.gaps.ExactIn, ...fig.gaps.ExactOut];
  const rows: BenchRow[] = [];
  const gapRows = (name: string, v: number[], targets: boolean): void => {
    const s = summarize(v);
    rows.push(
      { metric: `${name}: gap p50`, value: `${f(s.p50)} bps`, target: targets ? '≤ 0.1 bps' : '', verdict: targets ? verdict(s.p50 <= 0.1) : '' },
      { metric: `${name}: gap p90`, value: `${f(s.p90)} bps` },
      { metric: `${name}: gap p99`, value: `${f(s.p99)} bps`, target: targets ? '≤ 1 bps' : '', verdict: targets ? verdict(s.p99 <= 1) : '' },
      { metric: `${name}: gap max`, value: `${f(s.max)} bps`, target: targets ? '≤ 5 bps' : '', verdict: targets ? verdict(s.max <= 5) : '' },
    );
  };
  gapRows('router, both modes', all, true);
  gapRows('router, ExactIn', fig.gaps.ExactIn, false);
  gapRows('router, ExactOut', fig.gaps.ExactOut, false);
  const n = fig.filled.ExactIn + fig.filled.ExactOut;
  const long = fig.singleHops.filter((h) => h >= 3).length;
  const ov = summarize(fig.outVsIn);
  const missed = fig.outVsIn.filter((x) => x > 0.5).length;
  const tt = summarize(fig.times);
  rows.push(
    { metric: 'router worse than the best single path', value: `${fig.worseThanSingle} of ${n}`, target: '0', verdict: verdict(fig.worseThanSingle === 0) },
    { metric: 'false refusals (no route / insufficient liquidity where a reference fills)', value: `${fig.falseRefusals} of ${n}`, target: '0', verdict: verdict(fig.falseRefusals === 0) },
    { metric: 'best reference: single path / 5% grid / convex split', value: fig.bestOf.join(' / ') },
    { metric: 'best single path of 3 hops or more', value: `${long} of ${fig.singleHops.length}` },
    { metric: 'requests nothing fills (left out)', value: String(fig.unfillable) },
    {
      metric: 'ExactIn with the ExactOut answer’s input: extra output p50 / p99 / max',
      // (beyond what the ExactOut route itself yields for that input: its rounding up is not a missed branch)
      value: `${f(ov.p50)} / ${f(ov.p99)} / ${f(ov.max)} bps`,
      notes: `${missed} of ${fig.outVsIn.length} over 0.5 bps (the ExactOut answer could have asked less)`,
      target: '0 over 0.5 bps',
      verdict: verdict(missed === 0),
    },
    {
      metric: 'ExactOut answers that ExactIn beats with 1 bp (≥ 1 unit) less input',
      value: `${fig.outAsksMore} of ${fig.outVsIn.length}`,
      target: '0',
      verdict: verdict(fig.outAsksMore === 0),
    },
    { metric: 'router time per request p50 / p99', value: `${fmtMs(tt.p50)} / ${fmtMs(tt.p99)}`, notes: 'markets of 160 pools (not the speed benchmark)' },
  );
  return {
    title: 'Routing quality on market-like instances',
    description:
      'The served search (full hop limit) against the best exact route of at most 5 hops we can show (`bench/support/market-quality.ts`): ' +
      `${markets} simulated markets of the six programs (160 pools, 40 tokens and the pump.fun coins, after 40 slots of swaps), ${pairs} pairs each ` +
      'biased to the long tail, 1 to 300,000 USD, each pair in both modes. The reference is the best of the best single path (a layered search ' +
      'over exact amounts), a 5%-step grid split over its best three pool-disjoint paths and the convex optimum’s own split, all priced with the ' +
      'pools’ integer math; the gap is in bps of it (ExactIn: output short of it; ExactOut: input over it; negative: better than every reference).',
    rows,
  };
}
