/**
 * The live stream's decider on its own: a projection of a simulated market and QuoteCore, no
 * Nest, no log, no timers. Given a tuple and the pools, when something happens to them, then
 * what it pushes.
 */
import { SimMarket } from '@app/sim';
import { encodePoolUpdate, sameQuote, tupleKey, type QuotesChanged, type QuoteTuple } from '@app/contracts';
import { evaluatePath, type Route } from '@app/amm';
import { Projection } from '@app/pools';
import { QuoteCore } from './quote-core';
import { replayRoute } from './route-replay';
import { searchRoute } from './route-searcher';
import { MAX_CANDIDATES, type CandidatePath, type Watched } from './tuple-state';

const MAX_HOPS = 3;

/** a 60-pool market projected from its genesis, a decider on it, and the tuples it can quote */
function given(seed = 4) {
  const market = new SimMarket({ seed, pools: 60, tokens: 12, swapsPerSlot: 12 });
  const projection = new Projection();
  let offset = 0;
  const apply = (updates: ReturnType<SimMarket['step']>): Set<string> => {
    for (const u of updates) projection.apply({ partition: 0, offset: String(offset++), value: encodePoolUpdate(u) });
    return projection.drainChanged();
  };
  apply(market.genesis());
  const pending = { dropped: [] as Watched[], busy: new Set<Watched>() };
  const core = new QuoteCore(() => projection, null, MAX_HOPS, { drop: (w) => void pending.dropped.push(w), has: (w) => pending.busy.has(w) });
  const mints = projection
    .tokens()
    .filter((t) => t.pools > 0)
    .map((t) => t.mint);
  const tuples: QuoteTuple[] = [];
  for (let i = 1; i < mints.length; i++) tuples.push({ in: mints[0], out: mints[i], amount: String(10 ** (4 + (i % 4))), exactIn: i % 3 !== 0 });
  /** the market moves one slot: the pools it changed, their stamps bumped (as the service does) */
  const step = (): Set<string> => {
    const changed = apply(market.step());
    for (const p of changed) core.poolStamps.changed(p);
    return changed;
  };
  return { market, projection, core, pending, tuples, step };
}

type Given = ReturnType<typeof given>;

/** a watched tuple searched once, with a route and at least two candidate paths */
function searchedTuple(g: Given): { w: Watched; q: QuotesChanged } {
  for (const t of g.tuples) {
    const w = g.core.watch(t, tupleKey(t));
    const q = g.core.search(w);
    w.last = q;
    if (w.route && q.error === undefined && w.cands.length > 1) return { w, q };
    g.core.unwatch(w.key);
  }
  throw new Error('no tuple with a route and two candidate paths');
}

/** a candidate path priced exactly on the current pools (undefined: it cannot carry the amount) */
function priced(g: Given, w: Watched, c: CandidatePath): Route | undefined {
  try {
    return evaluatePath({ pools: c.pools.map((a) => g.projection.pool(a)!), mints: c.mints }, w.mode, w.amount);
  } catch {
    return undefined;
  }
}

/** a candidate path of the tuple that pays at least 10 bp less than its route (or asks 10 bp more) */
function worseCandidate(g: Given, w: Watched): { c: CandidatePath; r: Route } | undefined {
  const route = w.route!;
  for (const c of w.cands) {
    const r = priced(g, w, c);
    if (r && (w.mode === 'ExactIn' ? r.amountOut * 10_000n < route.amountOut * 9_990n : r.amountIn * 9_990n > route.amountIn * 10_000n)) return { c, r };
  }
  return undefined;
}

/** a searched tuple made blind: its route is a path 10+ bp worse than its best, compared (as at a search) equal with its other candidates */
function blindTuple(g: Given): { w: Watched; best: QuotesChanged; worse: Route } {
  for (const t of g.tuples) {
    const w = g.core.watch(t, tupleKey(t));
    const best = (w.last = g.core.search(w));
    const found = w.route && best.error === undefined ? worseCandidate(g, w) : undefined;
    if (found) {
      w.last = g.core.adopt(w, found.r);
      w.candRatio = w.cands.map(() => 1);
      return { w, best, worse: found.r };
    }
    g.core.unwatch(w.key);
  }
  throw new Error('no tuple has a candidate path 10+ bp worse than its route');
}

const size = (w: Watched, q: { amountIn: string | bigint; amountOut: string | bigint }): bigint => BigInt(w.mode === 'ExactIn' ? q.amountOut : q.amountIn);
/** `a` is a better quote for the tuple than `b` */
const better = (w: Watched, a: QuotesChanged, b: QuotesChanged): boolean => (w.mode === 'ExactIn' ? size(w, a) > size(w, b) : size(w, a) < size(w, b));

describe('QuoteCore', () => {
  describe('a first search', () => {
    it('given a new tuple, when searched, then its quote is the route search\'s and it is indexed under its route\'s pools and, apart, its candidates\'', () => {
      const g = given();
      const { w, q } = searchedTuple(g);
      const found = searchRoute(g.projection, g.core.request(w), MAX_CANDIDATES, null);
      expect(found.route).toBeDefined();
      expect(q.amountIn).toBe(found.route!.amountIn.toString());
      expect(q.amountOut).toBe(found.route!.amountOut.toString());
      const routePools = new Set(w.route!.hops.map((h) => h.pool.address));
      for (const p of routePools) expect(g.core.byRoutePool.get(p)?.has(w)).toBe(true);
      for (const c of w.cands) for (const p of c.pools) expect(g.core.byCandidatePool.get(p)?.has(w) === true).toBe(!routePools.has(p));
      expect(g.pending.dropped).toContain(w);
      expect(g.core.counters.searches).toBeGreaterThan(0);
    });

    it('given a tuple, when it is unwatched, then no index, check or search queue holds it', () => {
      const g = given();
      const { w } = searchedTuple(g);
      g.core.queueCheck(w, Date.now());
      g.core.queue.queueForGain(w, Date.now());
      expect(g.core.unwatch(w.key)).toBe(w);
      for (const s of [...g.core.byRoutePool.values(), ...g.core.byCandidatePool.values()]) expect(s.has(w)).toBe(false);
      expect(g.core.checks.has(w)).toBe(false);
      expect(g.core.queue.has(w.key)).toBe(false);
      expect(g.core.watched.has(w.key)).toBe(false);
    });
  });

  describe('a replay', () => {
    it('given a searched tuple, when the market moves, then its replay quotes its route exactly on the new pools', () => {
      const g = given();
      const { w } = searchedTuple(g);
      const route = w.route!;
      for (let i = 0; i < 5; i++) g.step();
      const again = replayRoute(route, w.amount, g.core.poolLookup);
      const q = g.core.replay(w);
      expect([q.amountIn, q.amountOut]).toEqual([again.amountIn.toString(), again.amountOut.toString()]);
      expect(w.route).toBe(route);
      expect(g.core.counters.replays).toBe(1);
    });

    it('given no pool of its route changed, when replayed, then it quotes what it quoted', () => {
      const g = given();
      const { w, q } = searchedTuple(g);
      expect(sameQuote(g.core.replay(w), q)).toBe(true);
    });

    it('given a route that lost more than 5 bp since the last quote and a candidate that did not, when its replay is pushed, then the push is a check\'s switch to the better path', () => {
      const g = given();
      const { w, best, worse } = blindTuple(g);
      // the last quote was the best route's: the worse route's replay lost against it
      w.last = best;
      const switches = g.core.counters.switches;
      const p = g.core.replayPush(w, 1_000);
      expect(p.by).toBe('check');
      expect(p.cause).toBe(1_000);
      expect(g.core.counters.switches).toBe(switches + 1);
      expect(w.mode === 'ExactIn' ? size(w, p.q) > worse.amountOut : size(w, p.q) < worse.amountIn).toBe(true);
      expect(p.checkOwed).toBeUndefined();
    });

    it('given a route that held up and no check queued, when its replay is pushed, then it is the replay\'s quote and no check is owed', () => {
      const g = given();
      const { w, q } = searchedTuple(g);
      const p = g.core.replayPush(w, 1_000);
      expect(p.by).toBe('replay');
      expect(sameQuote(p.q, q)).toBe(true);
      expect(p.checkOwed).toBeUndefined();
    });

    it('given a check queued for the tuple, when its replay is pushed without a loss, then the check is owed after the window from the earliest change behind either', () => {
      const g = given();
      const { w } = searchedTuple(g);
      g.core.queueCheck(w, 500);
      w.changedAt = 800;
      const p = g.core.replayPush(w, 1_000);
      expect(p.by).toBe('replay');
      expect(p.cause).toBe(800);
      expect(p.checkOwed).toBe(500);
    });
  });

  describe('a check', () => {
    it('given a candidate path estimated more than 5 bp better than at the search, when checked, then it is priced exactly and becomes the route (a switch) when it beats it', () => {
      const g = given();
      const { w, worse } = blindTuple(g);
      const switches = g.core.counters.switches;
      const q = g.core.check(w, 1_000, w.last);
      expect(q).toBeDefined();
      expect(g.core.counters.switches).toBe(switches + 1);
      expect(w.mode === 'ExactIn' ? BigInt(q!.amountOut) > worse.amountOut : BigInt(q!.amountIn) < worse.amountIn).toBe(true);
      // its route is the switch's: indexed under its pools
      for (const h of w.route!.hops) expect(g.core.byRoutePool.get(h.pool.address)?.has(w)).toBe(true);
    });

    it('given no candidate gained since the search, when checked, then nothing is pushed and a search queued for an earlier gain is withdrawn', () => {
      const g = given();
      const { w } = searchedTuple(g);
      g.core.queue.queueForGain(w, 1_000);
      expect(g.core.check(w, 2_000, w.last)).toBeUndefined();
      expect(g.core.queue.has(w.key)).toBe(false);
      expect(w.searchForGain).toBeUndefined();
    });

    it('given a queued check, when it runs now, then it leaves the check queue', () => {
      const g = given();
      const { w } = searchedTuple(g);
      g.core.queueCheck(w, 1_000);
      g.core.queueCheck(w, 2_000);
      expect(w.checkCause).toBe(1_000);
      g.core.checkNow(w, w.checkCause, w.last);
      expect(g.core.checks.has(w)).toBe(false);
      expect(w.checkCause).toBeUndefined();
    });
  });

  describe('a candidate refresh', () => {
    it('given a tuple whose last search kept only a worse path, when its candidates are searched again, then the better path becomes the route', () => {
      const g = given();
      const { w, worse } = blindTuple(g);
      const c = w.cands.find((x) => x.pools.join() === worse.hops.map((h) => h.pool.address).join())!;
      g.core.setCandidates(w, [c]);
      w.candRatio = [NaN];
      w.last = g.core.adopt(w, worse);
      const q = g.core.refreshCandidates(w);
      expect(q).toBeDefined();
      expect(w.cands.length).toBeGreaterThan(1);
      expect(better(w, q!, w.last)).toBe(true);
    });

    it('given a replay pending for the tuple, when a refresh comes, then it waits (nothing searched)', () => {
      const g = given();
      const { w } = searchedTuple(g);
      g.pending.busy.add(w);
      const refreshes = g.core.counters.refreshes;
      expect(g.core.refreshCandidates(w)).toBeUndefined();
      expect(g.core.counters.refreshes).toBe(refreshes);
    });
  });

  describe('what is pushed', () => {
    it('given a quote, when its record is made, then it is keyed by the tuple and, without a fee, carries the route\'s amounts', () => {
      const g = given();
      const { w, q } = searchedTuple(g);
      const m = g.core.message(w, q);
      expect(m.key).toBe(w.key);
      expect(m.value.length).toBeGreaterThan(0);
    });
  });
});
