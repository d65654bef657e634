/**
 * The whole hop limit (fullHopLimit, what REST quotes search with): on generated graphs
 * (fast-check), the router is never worse than the best
 * single path of at most maxHops hops found by brute force (every simple path priced with the
 * pools' exact math), in both swap modes, and it refuses with `insufficient liquidity` only when
 * no such path fills the amount. Amounts from 10^4 units: below, the integer rounding of each hop
 * (a unit of fee, a unit of floor) can outweigh the price differences the float guide ranks
 * paths by.
 */
import fc from 'fast-check';
import { PoolQuoteError, type Pool } from '../pool';
import { evaluatePath, findBestRoute, InsufficientLiquidityError, type Route, type RouteRequest } from './index';
import { FakePool, graphOf } from './testing/fake-pool';

const TOKENS = ['t0', 't1', 't2', 't3', 't4', 't5', 't6'];

/** the best exact single path of at most maxHops hops, by enumerating every simple path */
function bruteForceBest(pools: Pool[], req: RouteRequest): Route | null {
  let best: Route | null = null;
  const walk = (mint: string, path: Pool[], mints: string[]): void => {
    if (mint === req.outputMint && path.length > 0) {
      try {
        const r = evaluatePath({ pools: path, mints }, req.mode, req.amount);
        if (best === null || (req.mode === 'ExactIn' ? r.amountOut > best.amountOut : r.amountIn < best.amountIn)) best = r;
      } catch (e) {
        if (!(e instanceof PoolQuoteError)) throw e;
      }
      return;
    }
    if (path.length >= req.maxHops) return;
    for (const p of pools) {
      if (p.mintA !== mint && p.mintB !== mint) continue;
      const next = p.mintA === mint ? p.mintB : p.mintA;
      if (mints.includes(next)) continue;
      walk(next, [...path, p], [...mints, next]);
    }
  };
  walk(req.inputMint, [], [req.inputMint]);
  return best;
}

const poolArb = fc.record({
  a: fc.integer({ min: 0, max: TOKENS.length - 1 }),
  b: fc.integer({ min: 0, max: TOKENS.length - 1 }),
  // depths over six orders of magnitude: a shallow direct pool beside deep long paths
  depth: fc.integer({ min: 3, max: 12 }),
  skew: fc.double({ min: 0.8, max: 1.25, noNaN: true }),
  fee: fc.constantFrom(0, 1, 4, 25, 30, 100),
});

/** a chain t0 → t1 → … → t5 of deep pools: the graph always holds a 5-hop path */
const chainArb = fc.array(fc.constantFrom(1, 4, 25), { minLength: 5, maxLength: 5 });

describe('route search over the whole hop limit', () => {
  it('property: never worse than the best single path of at most maxHops hops; insufficient liquidity only when no such path fills', () => {
    fc.assert(
      fc.property(
        fc.array(poolArb, { minLength: 0, maxLength: 9 }),
        fc.option(chainArb, { nil: undefined }),
        fc.integer({ min: 4, max: 12 }),
        fc.constantFrom<'ExactIn' | 'ExactOut'>('ExactIn', 'ExactOut'),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: TOKENS.length - 1 }),
        (specs, chain, size, mode, maxHops, out) => {
          const pools: Pool[] = [];
          specs.forEach((s, i) => {
            if (s.a === s.b) return;
            const r = 10n ** BigInt(s.depth);
            pools.push(new FakePool(`p${i}`, TOKENS[s.a], TOKENS[s.b], r, BigInt(Math.max(1000, Math.round(Number(r) * s.skew))), s.fee));
          });
          chain?.forEach((fee, i) => pools.push(new FakePool(`c${i}`, TOKENS[i], TOKENS[i + 1], 10n ** 13n, 10n ** 13n, fee)));
          if (pools.length === 0) return;
          const req: RouteRequest = { inputMint: TOKENS[0], outputMint: TOKENS[out], amount: 10n ** BigInt(size), mode, maxHops };
          const best = bruteForceBest(pools, req);
          const graph = graphOf(pools);
          for (const split of [false, true]) {
            let r: Route;
            try {
              r = findBestRoute(graph, req, { split, fullHopLimit: true });
            } catch (e) {
              if (best === null) return;
              // a path fills the amount: no refusal
              throw e instanceof InsufficientLiquidityError ? new Error(`refused (${e.detail}) although ${best.hops.map((h) => h.pool.address)} fills it`) : e;
            }
            if (best === null) continue;
            if (mode === 'ExactIn') expect(r.amountOut).toBeGreaterThanOrEqual(best.amountOut);
            else {
              expect(r.amountIn).toBeLessThanOrEqual(best.amountIn);
              expect(r.amountOut).toBeGreaterThanOrEqual(req.amount);
            }
          }
        },
      ),
      { numRuns: 400, seed: 50 },
    );
  });

  it('a 5-hop path through deep pools beats a shallow direct pool with fullHopLimit; without, the search stays one hop past the shortest', () => {
    const chain = [0, 1, 2, 3, 4].map((i) => new FakePool(`c${i}`, TOKENS[i], TOKENS[i + 1], 10n ** 12n, 10n ** 12n, 1));
    const direct = new FakePool('direct', TOKENS[0], TOKENS[5], 10n ** 7n, 10n ** 7n, 1);
    const g = graphOf([...chain, direct]);
    const req: RouteRequest = { inputMint: TOKENS[0], outputMint: TOKENS[5], amount: 10n ** 7n, mode: 'ExactIn', maxHops: 5 };
    const r = findBestRoute(g, req, { split: false, fullHopLimit: true });
    expect(r.hops.map((h) => h.pool.address)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(r).toEqual(bruteForceBest([...chain, direct], req));
    expect(findBestRoute(g, req, { split: false }).hops.map((h) => h.pool.address)).toEqual(['direct']);
    // ExactOut: the same path asks the least input
    const out = findBestRoute(g, { ...req, mode: 'ExactOut', amount: 5_000_000n }, { split: false, fullHopLimit: true });
    expect(out.hops.map((h) => h.pool.address)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
  });
});
