import { SimMarket } from '@app/sim';
import { RouteError, type Route, type RouteRequest } from '@app/amm';
import { FakePool, graphOf } from '@app/amm/routing/testing/fake-pool';
import { findBestNetRoute, type FeeSchedule } from '../quote/aggregator-fee';
import { candidatePathsOn, searchOn, searchRoute } from './route-searcher';
import { projectionOf } from '../../../../test/support/projection';

/** a route's amounts and pools, comparable with toEqual */
const shape = (r: Route) => ({ mode: r.mode, amountIn: r.amountIn, amountOut: r.amountOut, hops: r.hops.map((h) => ({ ...h, pool: h.pool.address })) });

describe('searchRoute: one search gives the route and the candidate paths', () => {
  const market = new SimMarket({ seed: 11, pools: 300, tokens: 50, swapsPerSlot: 30, programs: 'all' });
  const p = projectionOf(market.genesis());
  const mints = market.tokens.map((t) => t.mint);
  const requests: RouteRequest[] = [];
  for (let i = 0; requests.length < 150; i++) {
    const a = mints[(i * 3) % mints.length];
    const b = mints[(i * 17 + 1) % mints.length];
    if (a !== b) requests.push({ inputMint: a, outputMint: b, amount: 10n ** BigInt(2 + (i % 12)) + BigInt(i), mode: i % 3 === 0 ? 'ExactOut' : 'ExactIn', maxHops: 1 + (i % 5) });
  }
  // the fee on multi-hop routes only: the direct route's second search must not touch the candidates
  const fees: Array<FeeSchedule | null> = [null, { bps: 20, routes: 'multi-hop' }];

  it.each(fees)('the same candidates as candidatePathsOn and the same route (or error) as findBestNetRoute, on 150 requests (fee %p)', (fee) => {
    const seen = { routes: 0, errors: 0, emptyCands: 0, capped: 0 };
    for (const req of requests) {
      const found = searchRoute(p, req, 12, fee);
      expect(found.cands).toEqual(candidatePathsOn(p, req, 12));
      let expected: Route | undefined;
      let error: string | undefined;
      try {
        expected = findBestNetRoute(p, req, fee);
      } catch (e) {
        if (!(e instanceof RouteError)) throw e;
        error = e.message;
      }
      if (expected === undefined) {
        expect(found.route).toBeUndefined();
        expect(found.error).toBe(error);
        seen.errors++;
      } else {
        expect(found.error).toBeUndefined();
        expect(shape(found.route!)).toEqual(shape(expected));
        seen.routes++;
      }
      // searchOn answers the same, routes by pool address
      const on = searchOn(p, 7, req, 3, fee);
      expect(on.cands).toEqual(candidatePathsOn(p, req, 3));
      expect(on.slot).toBe(7);
      if (found.cands.length === 0) seen.emptyCands++;
      if (found.cands.length === 12) seen.capped++;
    }
    // the requests cover routes, route errors, and candidate lists both empty and cut at the cap
    expect(seen.routes).toBeGreaterThan(50);
    expect(seen.errors).toBeGreaterThan(0);
    expect(seen.emptyCands).toBeGreaterThan(0);
    expect(seen.capped).toBeGreaterThan(0);
  });

  it('a fee on multi-hop routes: the candidates are the main search\'s, not those of the direct route searched after it', () => {
    // A→B direct but shallow; A→C→B deep: the best route has two hops, so the direct one is searched too
    const graph = graphOf([new FakePool('direct', 'A', 'B', 10n ** 6n, 10n ** 6n, 30), new FakePool('ac', 'A', 'C', 10n ** 12n, 10n ** 12n, 1), new FakePool('cb', 'C', 'B', 10n ** 12n, 10n ** 12n, 1)]);
    const req: RouteRequest = { inputMint: 'A', outputMint: 'B', amount: 10n ** 5n, mode: 'ExactIn', maxHops: 3 };
    const found = searchRoute(graph, req, 12, { bps: 20, routes: 'multi-hop' });
    expect(found.route!.hops.map((h) => h.pool.address)).toEqual(['ac', 'cb']);
    expect(found.cands.map((c) => c.pools.join('>')).sort()).toEqual(['ac>cb', 'direct']);
    expect(found.cands).toEqual(candidatePathsOn(graph, req, 12));
  });
});
