import { SimMarket } from '@app/sim';
import { findBestRoute, RouteError, type Route } from '@app/amm';
import { buildQuoteResponse } from '../quote/quote-response';
import { routeShares } from '@app/amm';
import { pathIdeal, quoteFields } from './quote-fields';
import { planReplay } from './route-replay';
import { projectionOf } from '../../../../test/support/projection';

describe('quoteFields', () => {
  it('agrees with the REST QuoteResponse (priceImpactBps, hopCount) on single and split routes of both modes', () => {
    const market = new SimMarket({ seed: 5, pools: 300, tokens: 50, swapsPerSlot: 30, programs: 'all' });
    const p = projectionOf(market.genesis());
    const mints = market.tokens.map((t) => t.mint).filter((m) => p.poolsOf(m).length > 0);
    const routes: Route[] = [];
    for (let i = 0; routes.length < 200 && i < 2000; i++) {
      const a = mints[(i * 3) % mints.length];
      const b = mints[(i * 17 + 1) % mints.length];
      if (a === b) continue;
      try {
        routes.push(findBestRoute(p, { inputMint: a, outputMint: b, amount: 10n ** BigInt(3 + (i % 9)) + BigInt(i), mode: i % 3 === 0 ? 'ExactOut' : 'ExactIn', maxHops: 4 }));
      } catch (e) {
        if (!(e instanceof RouteError)) throw e;
      }
    }
    const split = routes.filter((r) => !planReplay(r).single);
    expect(split.length).toBeGreaterThan(5);
    expect(routes.some((r) => planReplay(r).single && r.hops.length > 1)).toBe(true);
    expect(new Set(routes.map((r) => Math.round(Math.log10(1 + buildQuoteResponse(r, { slippageBps: 0, contextSlot: 0, logPosition: {} }).priceImpactBps)))).size).toBeGreaterThan(1);
    for (const r of routes) {
      const q = buildQuoteResponse(r, { slippageBps: 0, contextSlot: 0, logPosition: {} });
      expect(quoteFields(r, planReplay(r).single)).toEqual({ priceImpactBps: q.priceImpactBps, hops: q.hopCount });
      // a single path's ideal is routeShares' to the last bit
      if (planReplay(r).single) expect(Object.is(pathIdeal(r), routeShares(r).ideal)).toBe(true);
    }
  });
});
