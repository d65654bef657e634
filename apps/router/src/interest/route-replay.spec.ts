import fc from 'fast-check';
import { SimMarket } from '@app/sim';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { evaluatePath, findBestRoute, RouteError, type Route, type SwapMode } from '@app/amm';
import { PoolQuoteError } from '@app/amm';
import { Projection } from '@app/pools';
import { routeShares } from '@app/amm';
import { divideLike, isSinglePath, planReplay, PoolGoneError, replayPathQuote, replayQuote, replayRoute, type ReplayMemo } from './route-replay';
import { impactBps, pathIdeal, quoteFields } from './quote-fields';

function project(p: Projection, updates: PoolUpdate[], from: number): number {
  let off = from;
  for (const u of updates) p.apply({ partition: 0, offset: String(off++), value: encodePoolUpdate(u) });
  p.drainChanged();
  return off;
}

/**
 * A 300-pool market of all six programs and up to 150 routes on it (pairs picked by `pick`,
 * amounts from 100 to 1e10, both modes); `step()` moves the market one slot.
 */
function sampledRoutes(seed: number, swapsPerSlot: number, pick: (i: number) => [number, number]) {
  const market = new SimMarket({ seed, pools: 300, tokens: 50, swapsPerSlot, programs: 'all' });
  const p = new Projection();
  let off = project(p, market.genesis(), 0);
  const mints = market.tokens.map((t) => t.mint).filter((m) => p.poolsOf(m).length > 0);
  const routes: Array<{ amount: bigint; route: Route }> = [];
  for (let i = 0; routes.length < 150 && i < 1000; i++) {
    const [x, y] = pick(i);
    const [a, b] = [mints[x % mints.length], mints[y % mints.length]];
    if (a === b) continue;
    const amount = 10n ** BigInt(2 + (i % 9)) + BigInt(i);
    try {
      routes.push({ amount, route: findBestRoute(p, { inputMint: a, outputMint: b, amount, mode: i % 2 === 0 ? 'ExactOut' : 'ExactIn', maxHops: 4 }) });
    } catch (e) {
      if (!(e instanceof RouteError)) throw e;
    }
  }
  return { p, routes, step: () => void (off = project(p, market.step(), off)) };
}

const amounts = (r: Route) => ({
  amountIn: r.amountIn,
  amountOut: r.amountOut,
  hops: r.hops.map((h) => [h.pool.address, h.inputMint, h.outputMint, h.amountGiven, h.amountIn, h.amountOut, h.feeAmount]),
});

/** what a replay gives, seen through `view`, or the name of the error it threw (a pool gone, a hop that cannot fill) */
function attempt<T>(f: () => T, view: (x: T) => unknown): unknown {
  try {
    return view(f());
  } catch (e) {
    if (e instanceof PoolQuoteError || e instanceof PoolGoneError) return e.constructor.name;
    throw e;
  }
}

/** a replay's amounts, or the name of the error it threw */
const outcome = (f: () => Route) => attempt(f, amounts);

describe('divideLike', () => {
  it('parts add up to the total and equal the weights when the total is their sum', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 1n << 64n }), { minLength: 1, maxLength: 6 }), fc.bigInt({ min: 0n, max: 1n << 64n }), (w, total) => {
        const parts = divideLike(total, w);
        expect(parts.reduce((a, b) => a + b, 0n)).toBe(total);
        for (const p of parts) expect(p >= 0n).toBe(true);
        const sum = w.reduce((a, b) => a + b, 0n);
        if (sum > 0n) expect(divideLike(sum, w)).toEqual(w);
      }),
    );
  });
});

describe('replayRoute on the simulated market (all six programs)', () => {
  const market = new SimMarket({ seed: 21, pools: 240, tokens: 40, swapsPerSlot: 30, programs: 'all' });
  const p = new Projection();
  let off = project(p, market.genesis(), 0);
  const mints = market.tokens.map((t) => t.mint).filter((m) => p.poolsOf(m).length > 0);
  // tuples: random pairs, sizes from dust to large, both modes
  const tuples: Array<{ inputMint: string; outputMint: string; amount: bigint; mode: SwapMode }> = [];
  for (let i = 0; tuples.length < 160; i++) {
    const a = mints[(i * 7) % mints.length];
    const b = mints[(i * 13 + 1) % mints.length];
    if (a === b) continue;
    tuples.push({ inputMint: a, outputMint: b, amount: 10n ** BigInt(3 + (i % 8)) + BigInt(i), mode: i % 3 === 0 ? 'ExactOut' : 'ExactIn' });
  }
  const routes: Array<{ t: (typeof tuples)[number]; route: Route }> = [];
  for (const t of tuples) {
    try {
      routes.push({ t, route: findBestRoute(p, { ...t, maxHops: 4 }) });
    } catch (e) {
      if (!(e instanceof RouteError)) throw e;
    }
  }

  it('found single and split routes in both modes to replay', () => {
    const split = routes.filter((r) => r.route.hops.some((h, i) => r.route.hops.findIndex((x) => x.inputMint === h.inputMint) !== i));
    expect(routes.length).toBeGreaterThan(100);
    expect(split.length).toBeGreaterThan(5);
    expect(routes.some((r) => r.route.mode === 'ExactOut' && r.route.hops.length > 1)).toBe(true);
  });

  it('on unchanged pools a replay gives back exactly the route it started from', () => {
    for (const { t, route } of routes) expect(amounts(replayRoute(route, t.amount, (a) => p.pool(a)))).toEqual(amounts(route));
  });

  it('after the market moves: a single path replays exactly as evaluatePath on the current pools; a split keeps its flow consistent', () => {
    for (let s = 0; s < 5; s++) off = project(p, market.step(), off);
    let checked = 0;
    for (const { t, route } of routes) {
      let r: Route;
      try {
        r = replayRoute(route, t.amount, (a) => p.pool(a));
      } catch (e) {
        if (e instanceof PoolQuoteError || e instanceof PoolGoneError) continue;
        throw e;
      }
      checked++;
      const single = route.hops.every((h, i) => i === 0 || h.inputMint === route.hops[i - 1].outputMint);
      if (single) {
        const path = { pools: route.hops.map((h) => p.pool(h.pool.address)!), mints: [route.inputMint, ...route.hops.map((h) => h.outputMint)] };
        expect(amounts(r)).toEqual(amounts(evaluatePath(path, t.mode, t.amount)));
      }
      // every hop is the current pool's exact quote for what it is given
      for (const h of r.hops) {
        if (t.mode === 'ExactIn') {
          const q = h.pool.quoteExactIn(h.inputMint, h.amountGiven);
          expect([q.amountIn, q.amountOut]).toEqual([h.amountIn, h.amountOut]);
        } else {
          const q = h.pool.quoteExactOut(h.inputMint, h.amountOut);
          expect([q.amountIn, q.amountOut]).toEqual([h.amountIn, h.amountOut]);
        }
        expect(h.pool).toBe(p.pool(h.pool.address));
      }
      if (t.mode === 'ExactIn') {
        const given = r.hops.filter((h) => h.inputMint === t.inputMint).reduce((a, h) => a + h.amountGiven, 0n);
        expect(given).toBe(t.amount);
        const out = r.hops.filter((h) => h.outputMint === t.outputMint).reduce((a, h) => a + h.amountOut, 0n);
        expect(r.amountOut).toBe(out);
      } else {
        const out = r.hops.filter((h) => h.outputMint === t.outputMint).reduce((a, h) => a + h.amountOut, 0n);
        expect(out >= t.amount).toBe(true);
        const paid = r.hops.filter((h) => h.inputMint === t.inputMint).reduce((a, h) => a + h.amountIn, 0n);
        expect(r.amountIn).toBe(paid);
      }
    }
    expect(checked).toBeGreaterThan(routes.length / 2);
  });

  it('a pool that left the graph is reported, not guessed around', () => {
    const { t, route } = routes[0];
    expect(() => replayRoute(route, t.amount, () => undefined)).toThrow(PoolGoneError);
  });
});

describe('replayRoute: the single-path shortcut', () => {
  const { p, routes, step } = sampledRoutes(33, 40, (i) => [i * 5, i * 11 + 3]);

  const singles = routes.filter(({ route }) => planReplay(route).single);

  it('gives exactly what the general flow bookkeeping gives, or the same error, as the market moves', () => {
    expect(singles.length).toBeGreaterThan(50);
    expect(singles.some(({ route }) => route.mode === 'ExactOut' && route.hops.length > 1)).toBe(true);
    expect(singles.some(({ route }) => route.mode === 'ExactIn' && route.hops.length > 1)).toBe(true);
    let compared = 0;
    for (let s = 0; s < 6; s++) {
      step();
      for (const { amount, route } of singles) {
        const plan = planReplay(route);
        const general = { ...plan, single: false };
        for (const a of [amount, amount * 7n, 1n]) {
          expect(outcome(() => replayRoute(route, a, (x) => p.pool(x), plan))).toEqual(outcome(() => replayRoute(route, a, (x) => p.pool(x), general)));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(900);
    // a pool that left the graph: the same error
    const { amount, route } = singles[0];
    expect(() => replayRoute(route, amount, () => undefined, planReplay(route))).toThrow(PoolGoneError);
  });

  it("plans a single path's general bookkeeping only when a replay takes it; a split's at once", () => {
    const { amount, route } = singles[0];
    const plan = planReplay(route);
    expect(plan.flow).toBeUndefined();
    replayRoute(route, amount, (x) => p.pool(x), plan);
    expect(plan.flow).toBeUndefined();
    // amount 0 takes the general bookkeeping: planned then, and kept
    outcome(() => replayRoute(route, 0n, (x) => p.pool(x), plan));
    const flow = plan.flow;
    expect(flow?.order).toEqual([route.inputMint, ...route.hops.map((h) => h.outputMint)]);
    outcome(() => replayRoute(route, 0n, (x) => p.pool(x), plan));
    expect(plan.flow).toBe(flow);
    const split = routes.find(({ route: r }) => !planReplay(r).single)!;
    expect(planReplay(split.route).flow).toBeDefined();
  });

  it("replayPathQuote (no route built) gives replayRoute's amounts and pathIdeal to the last bit (or the same error), with and without a memo", () => {
    const memos = singles.map(() => [] as ReplayMemo);
    const fromRoute = (f: () => Route) => attempt(f, (r) => ({ amountIn: r.amountIn, amountOut: r.amountOut, ideal: pathIdeal(r) }));
    const quoted = (f: () => ReturnType<typeof replayPathQuote>) => attempt(f, (q) => (q === null ? null : { ...q }));
    let compared = 0;
    let errors = 0;
    for (let s = 0; s < 6; s++) {
      step();
      singles.forEach(({ amount, route }, i) => {
        for (const a of [amount, amount * 1000n, 1n]) {
          const want = fromRoute(() => replayRoute(route, a, (x) => p.pool(x), planReplay(route)));
          const got = quoted(() => replayPathQuote(route, a, (x) => p.pool(x), a === amount ? memos[i] : undefined));
          // null: replayRoute took its general path (an ExactOut hop asked for nothing)
          if (got === null) continue;
          if (typeof got === 'string') errors++;
          else expect(Object.is((got as { ideal: number }).ideal, (want as { ideal: number }).ideal)).toBe(true);
          expect(got).toEqual(want);
          compared++;
        }
      });
    }
    expect(compared).toBeGreaterThan(900);
    expect(errors).toBeGreaterThan(0);
    expect(() => replayPathQuote(singles[0].route, singles[0].amount, () => undefined)).toThrow(PoolGoneError);
  });
});

describe('replayQuote: what the stream pushes, without building the route', () => {
  const { p, routes, step } = sampledRoutes(55, 40, (i) => [i * 3, i * 7 + 2]);
  const isSplit = ({ route }: { route: Route }) => !planReplay(route).single;

  it("gives replayRoute's amounts, and quoteFields' ideal and main-path hops, to the last bit (or the same error), for splits and single paths, with and without a memo", () => {
    expect(routes.filter(isSplit).length).toBeGreaterThan(15);
    expect(routes.filter(isSplit).some(({ route }) => route.mode === 'ExactOut')).toBe(true);
    expect(routes.filter(isSplit).some(({ route }) => route.mode === 'ExactIn')).toBe(true);
    const memos = routes.map(() => [] as ReplayMemo);
    // what is pushed, and the ideal it comes from (which the impact ignores when nothing is paid:
    // a route left with no hop is a path of zero hops, ideal 1, or a split of ideal 0)
    const pushed = (amountIn: bigint, amountOut: bigint, ideal: number, f: { priceImpactBps: number; hops: number }) => ({
      amountIn,
      amountOut,
      ideal: amountIn > 0n ? ideal : 'unused',
      ...f,
    });
    // the reference: the replayed route, and quoteFields as the router applied it to one (a
    // route that kept all its hops keeps its plan's shape; one that lost some is looked at again)
    const reference = (route: Route, a: bigint, plan: ReturnType<typeof planReplay>) =>
      attempt(
        () => replayRoute(route, a, (x) => p.pool(x), plan),
        (r) => {
          const single = r.hops.length === route.hops.length ? plan.single : isSinglePath(r);
          const ideal = single ? pathIdeal(r) : routeSharesIdeal(r);
          return pushed(r.amountIn, r.amountOut, ideal, quoteFields(r, single));
        },
      );
    const fast = (route: Route, a: bigint, plan: ReturnType<typeof planReplay>, memo?: ReplayMemo) =>
      attempt(
        () => replayQuote(route, a, (x) => p.pool(x), plan, memo),
        (q) => pushed(q.amountIn, q.amountOut, q.ideal, { priceImpactBps: impactBps(q.amountIn, q.amountOut, q.ideal), hops: q.hops }),
      );
    let compared = 0;
    let dropped = 0;
    let errors = 0;
    for (let s = 0; s < 6; s++) {
      step();
      routes.forEach(({ amount, route }, i) => {
        const plan = planReplay(route);
        // a single path through the general bookkeeping too: the share formulas must agree with the path's
        const plans = plan.single ? [plan, { ...plan, single: false }] : [plan];
        for (const pl of plans) {
          for (const a of [amount, amount * 1000n, 1n, 0n]) {
            const want = reference(route, a, pl);
            const got = fast(route, a, pl, a === amount && pl === plan ? memos[i] : undefined);
            if (typeof got === 'string') errors++;
            else {
              expect(Object.is((got as { ideal: unknown }).ideal, (want as { ideal: unknown }).ideal)).toBe(true);
              if ((got as { hops: number }).hops < route.hops.length && !pl.single) dropped++;
            }
            expect(got).toEqual(want);
            compared++;
          }
        }
      });
    }
    expect(compared).toBeGreaterThan(3000);
    expect(errors).toBeGreaterThan(0);
    // splits whose main path is shorter than the route, or that left hops out
    expect(dropped).toBeGreaterThan(0);
    expect(() => replayQuote(routes[0].route, routes[0].amount, () => undefined)).toThrow(PoolGoneError);
  });
});

/** routeShares(route).ideal as quoteFields uses it for a split */
function routeSharesIdeal(r: Route): number {
  return routeShares(r).ideal;
}

describe('replayRoute: the memo of hop quotes', () => {
  const { p, routes, step } = sampledRoutes(44, 12, (i) => [i * 3, i * 17 + 5]);

  it('gives exactly what a replay without it gives (or the same error), and quotes only the hops whose pool or amount changed', () => {
    // every pool quote, counted by wrapping the lookup's pools
    let quoted = 0;
    const counting = new Map<object, object>();
    const counted = (x: string) => {
      const pool = p.pool(x);
      if (!pool) return undefined;
      let c = counting.get(pool);
      if (!c) {
        c = Object.create(pool, {
          quoteExactIn: { value: (m: string, a: bigint) => (quoted++, pool.quoteExactIn(m, a)) },
          quoteExactOut: { value: (m: string, a: bigint) => (quoted++, pool.quoteExactOut(m, a)) },
        });
        counting.set(pool, c!);
      }
      return c as typeof pool;
    };
    const memos = routes.map(() => [] as ReplayMemo);
    let compared = 0;
    let hops = 0;
    for (let s = 0; s < 8; s++) {
      if (s > 0) step();
      quoted = 0;
      hops = 0;
      routes.forEach(({ amount, route }, i) => {
        const plan = planReplay(route);
        const withMemo = outcome(() => replayRoute(route, amount, counted, plan, memos[i]));
        expect(withMemo).toEqual(outcome(() => replayRoute(route, amount, (x) => p.pool(x), plan)));
        hops += route.hops.length;
        compared++;
      });
      // the first round fills the memos; later ones quote a fraction of the hops (a few pools moved)
      if (s === 0) expect(quoted).toBeGreaterThanOrEqual(hops * 0.9);
      else expect(quoted).toBeLessThan(hops * 0.8);
      // a round on unchanged pools quotes nothing at all
      if (s === 7) {
        quoted = 0;
        routes.forEach(({ amount, route }, i) => outcome(() => replayRoute(route, amount, counted, planReplay(route), memos[i])));
        expect(quoted).toBe(0);
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});
