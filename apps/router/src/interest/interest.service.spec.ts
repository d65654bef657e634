/**
 * InterestService's debounce on a real embedded log (another EmbeddedLog instance appends the
 * pool updates, as an ingestor would): a burst of updates is one replay per tuple, published no
 * sooner than DEBOUNCE_MS after the burst's first append; updates applied while a window's
 * replays run go to the next window.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SimMarket } from '@app/sim';
import { loadConfig } from '@app/config';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { decodeQuotesChanged, encodeQuoteInterest, tupleKey, type QuotesChanged, type QuoteTuple } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import type { LogRecord } from '@app/log';
import { evaluatePath, type Route } from '@app/amm';
import { decodeTokenAccount, encodeTokenAccount } from '@app/solana';
import { ProjectionService } from '../projection/projection.service';
import { DEBOUNCE_MS, InterestService, SEARCH_STALE_MS } from './interest.service';
import { PathEstimates, PoolStamps } from './path-estimates';
import { replayQuote, type ReplayMemo, type ReplayPlan } from './route-replay';
import { InlineSearcher, toWire, type Found, type RouteSearcher } from './route-searcher';
import { waitFor } from '../../../../test/support/wait-for';

jest.setTimeout(30_000);

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The service's internals by name, whichever of its parts holds them (the service, its decider,
 * search queue, windows, pricing ahead, refreshes, searcher handoff, flush timer): what this spec
 * reads, sets and wraps. A method read through it is bound to its part; one set through it
 * replaces the part's own.
 */
const internalsOf = (s: InterestService): object => {
  const x = s as unknown as Record<string, Record<string, unknown>>;
  const core = x.core as Record<string, Record<string, unknown>>;
  const parts: Array<Record<string, unknown>> = [x, core, core.queue, x.windows, x.prewarmer, x.refresh, x.handoff, x.flushTimer];
  const owner = (k: PropertyKey): Record<string, unknown> => parts.find((p) => k in p) ?? x;
  return new Proxy(
    {},
    {
      get: (_, k) => {
        const o = owner(k);
        const v = o[k as string];
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(o) : v;
      },
      set: (_, k, v) => {
        owner(k)[k as string] = v;
        return true;
      },
    },
  );
};

describe('InterestService debounce', () => {
  let dir: string;
  let log: EmbeddedLog;
  let writer: EmbeddedLog;
  let projections: ProjectionService;
  let svc: InterestService;
  let market: SimMarket;
  let tuples: QuoteTuple[];

  const appendUpdates = (us: PoolUpdate[]) => writer.append(TOPICS.poolUpdates, us.map((u) => ({ key: u.address, value: encodePoolUpdate(u) })));
  const quotes = async (): Promise<LogRecord[]> => log.read(TOPICS.quotesChanged, 'beginning', 1_000_000);

  /** no first search, background search or check is waiting */
  const settled = async (): Promise<void> => {
    const q = internalsOf(svc) as unknown as { urgent: Set<string>; searches: Set<string>; checks: { size: number } };
    await waitFor(() => q.urgent.size + q.searches.size + q.checks.size === 0, 3_000, 'no first search, background search or check waiting', 10);
  };
  /** the float estimate of one candidate path of one tuple is `factor` times what it is; returns the undo */
  const skewEstimate = (w: object, c: object, factor: number): (() => void) => {
    const t = w as { cands: object[]; candEst: PathEstimates };
    const real = t.candEst;
    const at = t.cands.indexOf(c);
    expect(at).toBeGreaterThanOrEqual(0);
    let skewed: number[] = [];
    const fake: Pick<PathEstimates, 'count' | 'estimate' | 'all' | 'release'> = {
      count: real.count,
      release: () => real.release(),
      estimate: (i) => {
        const e = real.estimate(i);
        return i === at && e !== undefined ? e * factor : e;
      },
      all: () => {
        skewed = real.all().slice();
        skewed[at] *= factor;
        return skewed;
      },
    };
    t.candEst = fake as PathEstimates;
    return () => {
      // a search meanwhile gave the tuple new candidates and their own estimates
      if (t.candEst === fake) t.candEst = real;
    };
  };
  /** a tuple's candidate path estimated afresh on the current pools (no estimate kept from before) */
  const freshEstimate = (w: { amount: bigint; mode: string }, c: { pools: string[]; mints: string[] }): number | undefined =>
    new PathEstimates([c], new PoolStamps(() => projections.projection), Number(w.amount), w.mode === 'ExactIn').estimate(0);

  /** a candidate path priced exactly on the current pools (undefined: it cannot carry the amount) */
  const priced = (w: { mode: 'ExactIn' | 'ExactOut'; amount: bigint }, c: { pools: string[]; mints: string[] }): Route | undefined => {
    try {
      return evaluatePath({ pools: c.pools.map((a) => projections.projection.pool(a)!), mints: c.mints }, w.mode, w.amount);
    } catch {
      return undefined;
    }
  };
  /** a candidate path of the tuple that pays at least 10 bp less than its route (or asks 10 bp more), and its exact route */
  const worseCandidate = <C extends { pools: string[]; mints: string[] }>(w: { mode: 'ExactIn' | 'ExactOut'; amount: bigint; route?: Route; cands: C[] }): { c: C; r: Route } | undefined => {
    const route = w.route!;
    for (const c of w.cands) {
      const r = priced(w, c);
      if (r && (w.mode === 'ExactIn' ? r.amountOut * 10_000n < route.amountOut * 9_990n : r.amountIn * 9_990n > route.amountIn * 10_000n)) return { c, r };
    }
    return undefined;
  };

  type Watching = { key: string; tuple: QuoteTuple; route?: Route; cands: Array<{ pools: string[]; mints: string[] }> };
  const watchedTuples = (): Map<string, Watching> => (internalsOf(svc) as unknown as { watched: Map<string, Watching> }).watched;
  /**
   * a tuple with a route and a candidate path none of whose pools is on that route; of those, the
   * one that leaves the most other tuples' routes clear of both (`clear`: those tuples)
   */
  const disjointCandidate = (): { w: Watching; c: Watching['cands'][number]; clear: Watching[] } => {
    let best: { w: Watching; c: Watching['cands'][number]; clear: Watching[] } | undefined;
    const all = [...watchedTuples().values()];
    for (const w of all) {
      const on = new Set(w.route?.hops.map((h) => h.pool.address) ?? []);
      const c = w.route && w.cands.find((x) => x.pools.every((p) => !on.has(p)));
      if (!c) continue;
      const touched = new Set([...on, ...c.pools]);
      const clear = all.filter((x) => x !== w && x.route !== undefined && x.route.hops.every((h) => !touched.has(h.pool.address)));
      if (best === undefined || clear.length > best.clear.length) best = { w, c, clear };
    }
    if (best === undefined) throw new Error('no tuple has a candidate path disjoint from its route');
    return best;
  };
  /** an update of the vault through which the pool at `address` pays out `mint`: its balance times num / den */
  const scaleVault = (address: string, mint: string, slot: number, num: bigint, den: bigint): PoolUpdate => {
    const pool = market.pools.find((x) => x.address === address)!;
    const vault = pool.state.token0Mint === mint ? pool.state.token0Vault : pool.state.token1Vault;
    const acc = projections.projection.account(vault)!;
    const token = decodeTokenAccount(acc.data, acc.owner);
    return { slot, address: vault, owner: acc.owner, lamports: 2_039_280n, data: encodeTokenAccount({ ...token, amount: (token.amount * num) / den }), source: 'sim' };
  };
  /** the scheduling state of the service that the tests of its windows and searches set up by hand */
  type Scheduling = {
    watched: Map<string, { warmFor?: number }>;
    searches: Set<string>;
    replays: { add(w: object): void; has(w: object): boolean; size: number };
    checks: { add(w: object): void; size: number };
    replayDue: number | null;
    replayCause: number | null;
    syncedFor: number | null;
    catchUp: { due: number } | null;
    warm: unknown;
    lastSearchSlice: number;
    timer: { cancel(): void } | null;
    timerAt: number;
    prewarm: (started: number, waiting: boolean) => void;
  };
  const scheduling = (): Scheduling => internalsOf(svc) as unknown as Scheduling;
  /** no flush pending: what runs is what the test calls */
  const noFlushPending = (): void => {
    const internals = scheduling();
    internals.timer?.cancel();
    internals.timer = null;
    internals.timerAt = Infinity;
  };
  /** the open window due now and the log caught up, no flush pending: the next flush runs its replays; returns its deadline */
  const windowDueNow = (): number => {
    noFlushPending();
    const internals = scheduling();
    const due = Date.now() - 1;
    internals.replayDue = due;
    internals.syncedFor = due;
    return due;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interest-'));
    log = new EmbeddedLog({ dataDir: dir });
    writer = new EmbeddedLog({ dataDir: dir });
    market = new SimMarket({ seed: 4, pools: 60, tokens: 12, swapsPerSlot: 12 });
    await appendUpdates(market.genesis());
    projections = new ProjectionService(log);
    await projections.onModuleInit();
    await projections.whenReady();
    svc = new InterestService(log, projections, loadConfig({ DATA_DIR: dir }));
    await svc.start();
    const mints = (projections.projection.tokens() as Array<{ mint: string; pools: number }>).filter((t) => t.pools > 0).map((t) => t.mint);
    tuples = [];
    for (let i = 1; i < mints.length && tuples.length < 12; i++) tuples.push({ in: mints[0], out: mints[i], amount: String(10 ** (4 + (i % 4))), exactIn: i % 3 !== 0 });
    for (const tuple of tuples) await writer.append(TOPICS.quoteInterest, [{ key: tupleKey(tuple), value: encodeQuoteInterest({ op: 'add', instance: 'i1', tuple }) }]);
    await waitFor(async () => new Set((await quotes()).map((r) => r.key)).size === tuples.length, 10_000, "every tuple's first quote", 10);
    await pause(300); // background work of the first searches settles
  });

  afterAll(async () => {
    await svc.close();
    await projections.onModuleDestroy();
    await writer.close();
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a lease names tuples by key: a held one is kept, a new one is watched and quoted; a lease with a bad key is rejected whole', async () => {
    const held = tuples[0];
    const fresh = { ...tuples[1], amount: String(BigInt(tuples[1].amount) + 7n) };
    const lease = (keys: string[]): Buffer => encodeQuoteInterest({ op: 'lease', instance: 'i2', keys, ttlMs: 15_000 });
    const rejected0 = svc.stats().rejected;
    const tuples0 = svc.stats().tuples;
    // one bad key among good ones: nothing of the record applies (the new tuple is not watched)
    await writer.append(TOPICS.quoteInterest, [{ key: 'i2', value: lease([tupleKey(held), tupleKey(fresh), 'not:a:tuple:in']) }]);
    await waitFor(() => svc.stats().rejected === rejected0 + 1, 5_000, 'the bad lease rejected', 5);
    expect(svc.stats().tuples).toBe(tuples0);
    expect(watchedTuples().has(tupleKey(fresh))).toBe(false);
    // the same lease without it: the held tuple stays as it is, the new one gets its first quote
    const before = (await quotes()).length;
    await writer.append(TOPICS.quoteInterest, [{ key: 'i2', value: lease([tupleKey(held), tupleKey(fresh)]) }]);
    await waitFor(async () => (await quotes()).slice(before).some((r) => r.key === tupleKey(fresh)), 10_000, 'the new tuple quoted', 10);
    expect(svc.stats().tuples).toBe(tuples0 + 1);
    expect(svc.stats().rejected).toBe(rejected0 + 1);
    // held by i2 now too: announced again, its current quote published for the instance that joined
    expect((await quotes()).slice(before).some((r) => r.key === tupleKey(held))).toBe(true);
    await writer.append(TOPICS.quoteInterest, [{ key: tupleKey(fresh), value: encodeQuoteInterest({ op: 'remove', instance: 'i2', tuple: fresh }) }]);
    await waitFor(() => !watchedTuples().has(tupleKey(fresh)), 5_000, 'the new tuple removed', 5);
    await settled();
  });

  it('a burst of updates is one replay per tuple, published DEBOUNCE_MS after its first append at the soonest', async () => {
    const appendedAt = async (offset: string): Promise<number> => (await log.read(TOPICS.poolUpdates, { '0': offset }, 1))[0].timestamp;
    // four appends about 5 ms apart: a burst within one debounce window. On a machine so loaded
    // that they spread over more than the window (the premise fails, not the router), again
    let replays0 = 0;
    let before = 0;
    let firstAt = 0;
    for (let attempt = 0; ; attempt++) {
      replays0 = svc.stats().replays;
      before = (await quotes()).length;
      const [first] = await appendUpdates(market.step());
      firstAt = await appendedAt(first.offset);
      let last = first;
      for (let i = 0; i < 3; i++) {
        await pause(5);
        [last] = await appendUpdates(market.step());
      }
      await pause(400);
      if ((await appendedAt(last.offset)) - firstAt < DEBOUNCE_MS - 10 || attempt === 4) break;
    }
    const replays = svc.stats().replays - replays0;
    const pushed = (await quotes()).slice(before);
    expect(replays).toBeGreaterThan(0);
    expect(replays).toBeLessThanOrEqual(tuples.length);
    expect(pushed.length).toBeGreaterThan(0);
    // every push computed on the whole burst (a tuple may get a second push from a background
    // search its replay asked for, never a replay of part of the burst)
    const lastSlot = projections.projection.slot;
    for (const r of pushed) {
      expect(r.timestamp - firstAt).toBeGreaterThanOrEqual(DEBOUNCE_MS - 1);
      expect(decodeQuotesChanged(r.value).slot).toBe(lastSlot);
    }
  });

  it('updates spread over several windows: each window replays a tuple at most once', async () => {
    const replays0 = svc.stats().replays;
    const t0 = Date.now();
    let appends = 0;
    // 40 appends about 5 ms apart (some 250 ms): a handful of windows, not one replay per append
    while (appends < 40) {
      await appendUpdates(market.step());
      appends++;
      await pause(5);
    }
    await pause(400);
    const spanWindows = Math.ceil((Date.now() - 400 - t0) / DEBOUNCE_MS) + 1;
    const replays = svc.stats().replays - replays0;
    expect(replays).toBeGreaterThan(0);
    // windows coalesce appends (several per window), and no window replays a tuple twice
    expect(spanWindows).toBeLessThan(appends / 2);
    expect(replays).toBeLessThanOrEqual(tuples.length * spanWindows);
  });

  it('while a window waits for its deadline its routes are priced into their memos; the replays at the deadline push what a replay from nothing gives', async () => {
    await settled();
    type W = { route?: Route; plan?: ReplayPlan; memo: ReplayMemo; amount: bigint; warmFor?: number; last?: { amountIn?: string; amountOut?: string; error?: string } };
    const internals = internalsOf(svc) as unknown as { replays: Iterable<W>; replayDue: number | null; watched: Map<string, W>; prewarm: (started: number, waiting: boolean) => void };
    const poolAt = (a: string) => projections.projection.pool(a);
    const prewarm = internals.prewarm;
    let warmedChecked = 0;
    // right after each slice: the single paths it warmed hold the quotes of the current pools
    // (one that cannot carry its amount any more is left to the replay)
    internals.prewarm = function (this: unknown, started: number, waiting: boolean) {
      const due = internals.replayDue;
      const cold = [...internals.replays].filter((w) => w.warmFor !== due);
      prewarm.call(this, started, waiting);
      for (const w of cold) {
        if (w.warmFor !== due || !w.route || !w.plan?.single) continue;
        try {
          replayQuote(w.route, w.amount, poolAt, w.plan);
        } catch {
          continue;
        }
        w.route.hops.forEach((h, i) => expect(w.memo[3 * i]).toBe(poolAt(h.pool.address)));
        warmedChecked++;
      }
    };
    const warmed0 = svc.stats().prewarmed;
    try {
      // a window on a slow machine may have its update applied too close to its deadline to warm anything: a few tries
      for (let attempt = 0; attempt < 5 && warmedChecked === 0; attempt++) {
        await appendUpdates(market.step());
        await pause(DEBOUNCE_MS + 100);
        await settled();
      }
    } finally {
      internals.prewarm = prewarm;
    }
    expect(warmedChecked).toBeGreaterThan(0);
    expect(svc.stats().prewarmed).toBeGreaterThan(warmed0);
    // every tuple's last quote is its route priced afresh on the pools as they are (no memo)
    let compared = 0;
    for (const w of internals.watched.values()) {
      if (!w.route || !w.last || w.last.error !== undefined) continue;
      const q = replayQuote(w.route, w.amount, poolAt, w.plan);
      expect([w.last.amountIn, w.last.amountOut]).toEqual([q.amountIn.toString(), q.amountOut.toString()]);
      compared++;
    }
    expect(compared).toBeGreaterThan(5);
  });

  it('a window at its deadline waiting for the log goes on pricing its routes ahead; background searches wait for that pricing', async () => {
    await settled();
    const internals = scheduling();
    const keys = [...internals.watched.keys()];
    const { replays: replays0, searches: searches0, prewarmed: prewarmed0 } = svc.stats();
    noFlushPending();
    // a window of every tuple, not priced ahead yet, whose deadline has just passed
    const due = Date.now() - 1;
    for (const w of internals.watched.values()) internals.replays.add(w);
    internals.replayDue = due;
    internals.replayCause = due - DEBOUNCE_MS;
    internals.warm = 'start';
    svc.flush();
    // the flush at the deadline asked where the log ends (an answer that comes later): while it
    // waits, the window's routes are priced ahead, nothing is replayed yet
    expect(internals.catchUp?.due).toBe(due);
    expect(internals.syncedFor).not.toBe(due);
    expect(svc.stats().replays).toBe(replays0);
    expect(svc.stats().prewarmed).toBeGreaterThan(prewarmed0);
    expect([...internals.watched.values()].some((w) => w.warmFor === due)).toBe(true);
    await waitFor(() => svc.stats().replays >= replays0 + keys.length && internals.replays.size === 0, 5_000, "the window's replays", 5);
    await settled();

    // a window not due yet with routes left to price ahead, and searches whose slice is due: the
    // pricing ahead comes first (here it never finishes: no search runs while it has work left)
    const prewarm = internals.prewarm;
    internals.prewarm = () => undefined;
    try {
      noFlushPending();
      const later = Date.now() + 40;
      for (const w of internals.watched.values()) internals.replays.add(w);
      internals.replayDue = later;
      internals.replayCause = later - DEBOUNCE_MS;
      internals.warm = 'start';
      for (const k of keys) internals.searches.add(k);
      internals.lastSearchSlice = 0;
      svc.flush();
      expect(svc.stats().searches).toBe(searches0);
    } finally {
      internals.prewarm = prewarm;
    }
    // with the pricing ahead back, the window replays at its deadline and the searches run
    await waitFor(() => internals.replays.size === 0 && internals.searches.size === 0, 5_000, 'the window and the searches', 5);
    expect(svc.stats().searches - searches0).toBeGreaterThanOrEqual(keys.length);
  });

  it('background search slices come at the short pause while the open window only waits for its deadline, its routes priced ahead; at the long one while a window is still pricing them', async () => {
    await settled();
    const internals = scheduling();
    const keys = [...internals.watched.keys()];
    const tuples = [...internals.watched.values()];
    // a window of one tuple due in 40 ms; every tuple queued for a search; the last background
    // slice 5 ms ago (past the short pause, well within the long one)
    const open = (warm: 'start' | null): number => {
      noFlushPending();
      const due = Date.now() + 40;
      internals.replays.add(tuples[0]);
      internals.replayDue = due;
      internals.replayCause = due - DEBOUNCE_MS;
      internals.warm = warm;
      for (const k of keys) internals.searches.add(k);
      internals.lastSearchSlice = Date.now() - 5;
      return svc.stats().searches;
    };
    const prewarm = internals.prewarm;
    try {
      // its routes priced ahead: the slice runs now
      let searches0 = open(null);
      svc.flush();
      expect(svc.stats().searches).toBeGreaterThan(searches0);
      await waitFor(() => internals.replays.size === 0 && internals.searches.size === 0, 5_000, 'the window and the searches', 5);
      await settled();
      // a pass of pricing ahead under way (here it never finishes): no slice
      internals.prewarm = () => undefined;
      searches0 = open('start');
      svc.flush();
      expect(svc.stats().searches).toBe(searches0);
    } finally {
      internals.prewarm = prewarm;
    }
    await waitFor(() => internals.replays.size === 0 && internals.searches.size === 0, 5_000, 'the window and the searches', 5);
    await settled();
  });

  it('pending checks and searches do not spin the event loop while a window waits or replays', async () => {
    // background work that cannot run yet (a window is open): every tuple queued for a search
    const internals = internalsOf(svc) as unknown as { searches: Set<string>; checks: { add(w: unknown): void; size: number }; watched: Map<string, unknown> };
    for (const w of internals.watched.values()) internals.checks.add(w);
    const flush = jest.spyOn(svc, 'flush');
    try {
      let appends = 0;
      while (appends < 30) {
        await appendUpdates(market.step());
        appends++;
        await pause(5);
      }
      await pause(300);
      // a flush per replay slice, per window edge and per background slice: a few hundred at
      // most over these 450 ms; a loop re-scheduling itself with setImmediate makes thousands
      expect(flush.mock.calls.length).toBeLessThan(600);
      // and the held-back work still gets done once the market is quiet
      await waitFor(() => internals.checks.size === 0 && internals.searches.size === 0, 5_000, 'the checks and searches to drain', 10);
    } finally {
      flush.mockRestore();
    }
  });

  it('background searches held back in the last ms before a window closes wait for its deadline: no flush re-scheduled at once meanwhile', async () => {
    await settled();
    const internals = scheduling();
    const keys = [...internals.watched.keys()];
    const { replays: replays0, searches: searches0 } = svc.stats();
    // a window of every tuple 5 ms from its deadline, and a search slice due long ago (searches
    // queued as when a pool enters the graph); no other flush pending
    noFlushPending();
    const due = Date.now() + 5;
    for (const w of internals.watched.values()) internals.replays.add(w);
    internals.replayDue = due;
    internals.replayCause = due - DEBOUNCE_MS;
    for (const k of keys) internals.searches.add(k);
    internals.lastSearchSlice = 0;
    svc.flush();
    // the window comes first: no search now, and the next flush is the window's own at its
    // deadline, not one at once (it would find the same and schedule itself again, on every turn
    // of the event loop until the deadline)
    expect(svc.stats().searches).toBe(searches0);
    expect(internals.timerAt).toBeGreaterThanOrEqual(due);
    // the window replays at its deadline and the searches run after it
    await waitFor(() => svc.stats().replays >= replays0 + keys.length && internals.replays.size === 0, 5_000, "the window's replays", 5);
    await settled();
    expect(svc.stats().searches - searches0).toBeGreaterThanOrEqual(keys.length);
  });

  it('a pool leaving the graph searches again only the tuples whose route it breaks; a pool entering it queues every tuple', async () => {
    await pause(300); // earlier work settles
    const snapshot = market.snapshot();
    // a pool of the graph, closed then written back
    const pool = market.pools[0].address;
    const account = snapshot.find((u) => u.address === pool)!;
    const s0 = svc.stats().searches;
    await appendUpdates([{ ...account, slot: projections.projection.slot + 1, data: null }]);
    await waitFor(() => projections.projection.pool(pool) === undefined, 2_000, 'the pool to leave the graph', 10);
    await pause(300);
    const afterLeave = svc.stats().searches - s0;
    expect(afterLeave).toBeLessThan(tuples.length);
    await appendUpdates([{ ...account, slot: projections.projection.slot + 1 }]);
    await waitFor(() => projections.projection.pool(pool) !== undefined, 2_000, 'the pool to enter the graph again', 10);
    await waitFor(() => svc.stats().searches - s0 - afterLeave >= tuples.length, 5_000, 'every tuple searched after the pool entered', 10);
  });

  it('a candidate path that gains on the route and prices better becomes the route at the check, pushed at once', async () => {
    await pause(300); // earlier work settles
    const { w, c } = disjointCandidate();
    const before = (await quotes()).length;
    const { searches, switches } = svc.stats();
    const pushes: Array<{ slot: number; by: string; hops: number }> = [];
    svc.pushObserver = (q, _at, by) => {
      if (tupleKey(q.tuple) === w.key) pushes.push({ slot: q.slot, by, hops: q.hops ?? 0 });
    };
    // the candidate's pools get three times the reserve of the token each hop pays out
    const slot = projections.projection.slot + 1;
    const gifts = c.pools.map((address, i) => scaleVault(address, c.mints[i + 1], slot, 3n, 1n));
    try {
      await appendUpdates(gifts);
      await waitFor(() => (watchedTuples().get(w.key)?.route?.hops ?? []).some((h) => c.pools.includes(h.pool.address)), 5_000, 'the switch to the candidate path', 10);
      await waitFor(async () => (await quotes()).slice(before).some((r) => r.key === w.key && decodeQuotesChanged(r.value).slot >= slot), 2_000, 'the switched quote on the log', 10);
      // none of the route's pools changed, so no replay: the check switched the route and pushed it
      expect(svc.stats().switches).toBeGreaterThan(switches);
      expect(pushes.length).toBeGreaterThan(0);
      expect(pushes[0].by).toBe('check');
      expect(pushes[0].slot).toBeGreaterThanOrEqual(slot);
      // a later push for it, if any, is a refinement search's (or a replay's): never a second switch before one
      for (const p of pushes.slice(1)) expect(['search', 'replay', 'check']).toContain(p.by);
    } finally {
      svc.pushObserver = null;
    }
    expect(svc.stats().searches).toBeGreaterThanOrEqual(searches);
  });

  it('a replay that finds its route lost more than 5 bp checks the candidates at once: its switch is pushed instead of the replay, before the checks queued earlier', async () => {
    await pause(300); // earlier work settles
    await settled();
    const internals = scheduling();
    const { w, c, clear } = disjointCandidate();
    expect(clear.length).toBeGreaterThan(0);
    const route = w.route!;
    const { switches } = svc.stats();
    const pushes: Array<{ slot: number; by: string; checksWaiting: number }> = [];
    svc.pushObserver = (q, _at, by) => {
      if (tupleKey(q.tuple) === w.key) pushes.push({ slot: q.slot, by, checksWaiting: internals.checks.size });
    };
    // in one slot: every pool of the route keeps a third of what it pays out (the route loses
    // far more than 5 bp), and the candidate's pools get three times theirs
    const slot = projections.projection.slot + 1;
    const updates = [
      ...route.hops.map((h) => scaleVault(h.pool.address, h.outputMint, slot, 1n, 3n)),
      ...c.pools.map((address, i) => scaleVault(address, c.mints[i + 1], slot, 3n, 1n)),
    ];
    try {
      await appendUpdates(updates);
      await waitFor(() => internals.replays.has(w), 2_000, "the tuple in the slot's window", 1);
      // the window is due and synced with the log; before it, tuples whose routes it does not
      // touch were queued for checks (as by changes of their candidate pools)
      const due = windowDueNow();
      for (const x of clear) {
        (x as { checkCause?: number }).checkCause = due - DEBOUNCE_MS;
        internals.checks.add(x);
      }
      svc.flush();
      await waitFor(() => pushes.some((p) => p.by === 'check'), 2_000, 'the switch', 1);
      await settled();
      // the window's replay found the loss and checked at once: its one push for the slot is
      // the switch, made while the checks queued before were all still waiting (before: the
      // replay's quote of the route that lost, and the switch only after those checks)
      expect(svc.stats().switches).toBeGreaterThan(switches);
      expect((watchedTuples().get(w.key)?.route?.hops ?? []).some((h) => c.pools.includes(h.pool.address))).toBe(true);
      const ofSlot = pushes.filter((p) => p.slot >= slot);
      expect(ofSlot.length).toBeGreaterThan(0);
      expect(ofSlot[0].by).toBe('check');
      expect(ofSlot.filter((p) => p.by === 'replay')).toEqual([]);
      expect(ofSlot[0].checksWaiting).toBeGreaterThanOrEqual(clear.length);
    } finally {
      svc.pushObserver = null;
    }
  });

  it('a switch is refined by a full search only when its price impact leaves a split room to gain more than 5 bp', async () => {
    await pause(300); // earlier work settles
    type W = { key: string; route?: Route; last?: { priceImpactBps: number } };
    const internals = internalsOf(svc) as unknown as { watched: Map<string, W>; searches: Set<string>; checks: { add(w: W): void; size: number }; urgent: Set<string>; switchTo: (w: W, r: Route, cause: number) => { priceImpactBps: number } };
    // larger amounts of the first pair, for routes with some price impact
    const big = [8, 9, 10, 11].map((e) => ({ ...tuples[0], amount: String(10 ** e), exactIn: true }));
    for (const tuple of big) await writer.append(TOPICS.quoteInterest, [{ key: tupleKey(tuple), value: encodeQuoteInterest({ op: 'add', instance: 'i1', tuple }) }]);
    await waitFor(() => big.every((t) => internals.watched.get(tupleKey(t))?.last !== undefined), 5_000, 'the first quotes of the larger amounts', 10);
    await settled();
    const routed = [...internals.watched.values()].filter((w) => w.route && w.last);
    const low = routed.find((w) => w.last!.priceImpactBps <= 10);
    const high = routed.find((w) => w.last!.priceImpactBps > 10);
    expect(low).toBeDefined();
    expect(high).toBeDefined();
    const { switches } = svc.stats();
    // each switches to its own current route (the same exact quote, so the same impact)
    expect(internals.switchTo(low!, low!.route!, Date.now()).priceImpactBps).toBeLessThanOrEqual(10);
    expect(internals.searches.has(low!.key)).toBe(false);
    expect(internals.switchTo(high!, high!.route!, Date.now()).priceImpactBps).toBeGreaterThan(10);
    expect(internals.searches.has(high!.key)).toBe(true);
    expect(svc.stats().switches).toBe(switches + 2);
    // the queued refinement runs in the background
    await waitFor(() => !internals.searches.has(high!.key), 2_000, 'the refinement search', 10);
    for (const tuple of big) await writer.append(TOPICS.quoteInterest, [{ key: tupleKey(tuple), value: encodeQuoteInterest({ op: 'remove', instance: 'i1', tuple }) }]);
    await waitFor(() => big.every((t) => !internals.watched.has(tupleKey(t))), 3_000, 'the larger amounts unwatched', 10);
  });

  it('a candidate estimated to gain that does not price better exactly (the estimate erred) is taken as it compares now: no switch, no search, no push', async () => {
    await pause(300); // earlier work settles
    type C = { pools: string[]; mints: string[] };
    type W = { key: string; tuple: QuoteTuple; mode: string; amount: bigint; route?: Route; cands: C[]; candRatio: number[]; last?: { amountOut: string } };
    const internals = internalsOf(svc) as unknown as { watched: Map<string, W>; searches: Set<string>; checks: { add(w: W): void; size: number }; urgent: Set<string> };
    await settled();
    // an ExactIn tuple and a candidate path that is not its route and prices worse than it exactly (but within a factor 5)
    let pick: { w: W; c: C } | undefined;
    for (const w of internals.watched.values()) {
      if (!w.route || w.mode !== 'ExactIn' || !w.last) continue;
      const routePools = w.route.hops.map((h) => h.pool.address).join();
      const c = w.cands.find((x) => {
        if (x.pools.join() === routePools) return false;
        try {
          const pools = x.pools.map((a) => projections.projection.pool(a)!);
          const out = evaluatePath({ pools, mints: x.mints }, 'ExactIn', w.amount).amountOut;
          return out < BigInt(w.last!.amountOut) && out * 5n > BigInt(w.last!.amountOut);
        } catch {
          return false;
        }
      });
      if (c) {
        pick = { w, c };
        break;
      }
    }
    expect(pick).toBeDefined();
    const { w, c } = pick!;
    const route = w.route;
    const before = svc.stats();
    const pushed: string[] = [];
    svc.pushObserver = (q, _at, by) => pushed.push(`${tupleKey(q.tuple)} ${by}`);
    const ratioBefore = w.candRatio[w.cands.indexOf(c)];
    // the float estimate of that candidate errs: a hundred times what it really pays out
    const undo = skewEstimate(w, c, 100);
    try {
      internals.checks.add(w);
      svc.flush();
      await pause(100);
      const after = svc.stats();
      expect(after.checks).toBeGreaterThan(before.checks);
      expect(after.switches).toBe(before.switches);
      expect(internals.searches.has(w.key)).toBe(false);
      expect(after.searches).toBe(before.searches);
      expect(w.route).toBe(route);
      expect(pushed.filter((x) => x.startsWith(w.key))).toEqual([]);
      // re-baselined: the same estimate does not fire again
      expect(w.candRatio[w.cands.indexOf(c)]).toBeGreaterThan(ratioBefore * 10);
      internals.checks.add(w);
      svc.flush();
      expect(svc.stats().switches).toBe(before.switches);
      expect(internals.searches.has(w.key)).toBe(false);
    } finally {
      undo();
      svc.pushObserver = null;
    }
  });

  it('a tuple without a route: a candidate path whose estimate gained more than 5 bp since its last search is priced exactly and becomes the route when it carries the amount; one that cannot fill it queues a search', async () => {
    await pause(300); // earlier work settles
    type C = { pools: string[]; mints: string[]; failedOn?: unknown[]; failedFor?: string };
    type W = { key: string; mode: string; amount: bigint; route?: Route; cands: C[]; candRatio: number[] };
    const internals = internalsOf(svc) as unknown as {
      watched: Map<string, W>;
      searches: Set<string>;
      checks: { add(w: W): void; size: number };
      urgent: Set<string>;
      adopt: (w: W, r: Route | undefined, error?: string) => unknown;
    };
    await settled();
    const w = [...internals.watched.values()].find((x) => x.route && x.mode === 'ExactIn' && x.cands.length > 1)!;
    expect(w).toBeDefined();
    // as if its last search had found no route: the candidates' estimates now are the baseline
    internals.adopt(w, undefined, 'no route');
    expect(w.cands.every((c, i) => w.candRatio[i] === (freshEstimate(w, c) ?? 0))).toBe(true);
    const before = svc.stats();
    noFlushPending();
    internals.checks.add(w);
    svc.flush();
    expect(internals.searches.has(w.key)).toBe(false);
    expect(w.route).toBeUndefined();
    // a candidate now estimated 1% better: it carries the amount, so the check makes it the route
    // at once (a switch, pushed), without a full search
    const c = w.cands.find((x) => freshEstimate(w, x) !== undefined)!;
    const undo = skewEstimate(w, c, 1.01);
    try {
      noFlushPending();
      internals.checks.add(w);
      svc.flush();
      expect(w.route).toBeDefined();
      // the route is the skewed candidate, or another candidate that gained meanwhile (the market
      // moves under the spec) and priced at least as well
      const taken = w.route!.hops.map((h) => h.pool.address);
      expect(w.cands.some((x) => x.pools.join() === taken.join())).toBe(true);
      const mine = priced(w as unknown as { mode: 'ExactIn'; amount: bigint }, c);
      if (taken.join() !== c.pools.join() && mine !== undefined) expect(w.route!.amountOut).toBeGreaterThanOrEqual(mine.amountOut);
    } finally {
      undo();
    }
    expect(svc.stats().switches).toBe(before.switches + 1);
    // (a search refines the switch only when its price impact leaves a split room to gain)
    await settled();
    const searches = svc.stats().searches;
    expect(searches - before.searches).toBeLessThanOrEqual(1);
    // a candidate that cannot fill the amount (not dust): a split of paths might, so a search is
    // queued, and it finds the route
    internals.adopt(w, undefined, 'no route');
    const c2 = w.cands.find((x) => freshEstimate(w, x) !== undefined)!;
    c2.failedOn = c2.pools.map((a) => projections.projection.pool(a));
    c2.failedFor = 'insufficient-liquidity';
    const undo2 = skewEstimate(w, c2, 1.01);
    try {
      noFlushPending();
      internals.checks.add(w);
      svc.flush();
      expect(w.route === undefined ? internals.searches.has(w.key) : svc.stats().searches > searches).toBe(true);
      await waitFor(() => w.route !== undefined, 2_000, 'a route for the tuple', 10);
    } finally {
      undo2();
    }
    expect(svc.stats().searches).toBe(searches + 1);
  });

  it('a tuple without a route whose gaining candidate paths give nothing out for its amount (dust) is not searched again: their estimates become the baseline', async () => {
    type C = { pools: string[]; mints: string[]; failedFor?: string };
    type W = { key: string; mode: string; amount: bigint; route?: Route; cands: C[]; candRatio: number[] };
    const internals = internalsOf(svc) as unknown as { watched: Map<string, W>; searches: Set<string>; checks: { add(w: W): void } };
    // one unit of the first token in: every path rounds it to nothing out
    const dust: QuoteTuple = { ...tuples[0], amount: '1', exactIn: true };
    const key = tupleKey(dust);
    await writer.append(TOPICS.quoteInterest, [{ key, value: encodeQuoteInterest({ op: 'add', instance: 'i1', tuple: dust }) }]);
    try {
      await waitFor(async () => (await quotes()).some((r) => r.key === key), 5_000, "the dust tuple's first answer", 10);
      const first = (await quotes()).filter((r) => r.key === key).map((r) => decodeQuotesChanged(r.value));
      expect(first[0].error).toBe('insufficient liquidity');
      await settled();
      const w = internals.watched.get(key)!;
      expect(w.route).toBeUndefined();
      const i = w.cands.findIndex((x) => freshEstimate(w, x) !== undefined);
      expect(i).toBeGreaterThanOrEqual(0);
      const c = w.cands[i];
      const searches = svc.stats().searches;
      const undo = skewEstimate(w, c, 1.01);
      try {
        noFlushPending();
        internals.checks.add(w);
        svc.flush();
        // priced exactly: nothing out, so no search, and the gain is the baseline now
        expect(c.failedFor).toBe('zero-output');
        expect(internals.searches.has(key)).toBe(false);
        expect(w.candRatio[i]).toBeCloseTo(freshEstimate(w, c)! * 1.01, 12);
        // the same estimate does not fire again
        noFlushPending();
        internals.checks.add(w);
        svc.flush();
        expect(internals.searches.has(key)).toBe(false);
      } finally {
        undo();
      }
      await pause(100);
      expect(svc.stats().searches).toBe(searches);
      expect(w.route).toBeUndefined();
    } finally {
      await writer.append(TOPICS.quoteInterest, [{ key, value: encodeQuoteInterest({ op: 'remove', instance: 'i1', tuple: dust }) }]);
      await waitFor(() => !internals.watched.has(key), 5_000, 'the dust tuple dropped', 10);
    }
  });

  it('routeGaps: how much more a fresh search pays than each tuple\'s last quote, in bp (none right after its search; a worse route shows)', async () => {
    await settled();
    type C = { pools: string[]; mints: string[] };
    type W = { key: string; mode: 'ExactIn' | 'ExactOut'; amount: bigint; route?: Route; cands: C[]; last?: { error?: string } };
    const internals = internalsOf(svc) as unknown as { watched: Map<string, W>; search: (w: W) => W['last']; adopt: (w: W, r: Route) => W['last'] };
    noFlushPending();
    // every tuple searched on the pools as they are: its last quote is what a search gives now
    for (const w of internals.watched.values()) w.last = internals.search(w);
    const routed = [...internals.watched.values()].filter((w) => w.last && w.last.error === undefined);
    expect(routed.length).toBeGreaterThan(3);
    const gaps = svc.routeGaps(1);
    expect(gaps).toHaveLength(routed.length);
    expect(gaps.every((g) => g === 0)).toBe(true);
    // a tuple quoted along a candidate path that pays less than its route: its gap is that difference
    let found: { w: W; worse: Route } | undefined;
    for (const w of routed) {
      const r = worseCandidate(w)?.r;
      if (r) {
        found = { w, worse: r };
        break;
      }
    }
    expect(found).toBeDefined();
    const { w, worse } = found!;
    const best = w.route!;
    w.last = internals.adopt(w, worse);
    try {
      const after = svc.routeGaps(1);
      const expected = w.mode === 'ExactIn' ? (Number(best.amountOut) - Number(worse.amountOut)) / Number(best.amountOut) : (Number(worse.amountIn) - Number(best.amountIn)) / Number(best.amountIn);
      expect(after.filter((g) => g > 0)).toEqual([expect.closeTo(expected * 10_000, 6)]);
      expect(expected * 10_000).toBeGreaterThan(10);
    } finally {
      w.last = internals.search(w);
    }
  });

  it('a candidate refresh searches a tuple\'s candidate paths again: a better path its last search did not keep becomes the route (a switch); an unchanged set does nothing', async () => {
    await settled();
    type C = { pools: string[]; mints: string[] };
    type W = { key: string; mode: 'ExactIn' | 'ExactOut'; amount: bigint; route?: Route; cands: C[]; candRatio: number[]; last?: { error?: string; amountOut: string; amountIn: string } };
    const internals = internalsOf(svc) as unknown as {
      watched: Map<string, W>;
      search: (w: W) => W['last'];
      adopt: (w: W, r: Route) => W['last'];
      setCandidates: (w: W, cands: C[]) => void;
      refreshCandidates: (w: W) => W['last'] | undefined;
    };
    noFlushPending();
    // a tuple whose route is the best of its candidate paths, and a candidate 10+ bp worse
    let found: { w: W; worse: C; best: Route } | undefined;
    for (const w of internals.watched.values()) {
      w.last = internals.search(w);
      if (!w.route || w.last?.error !== undefined) continue;
      const c = worseCandidate(w)?.c;
      if (c) {
        found = { w, worse: c, best: w.route };
        break;
      }
    }
    expect(found).toBeDefined();
    const { w, worse, best } = found!;
    const switches = svc.stats().switches;
    try {
      // as if its last search had kept that path alone and made it the route: the better ones are out of its sight
      internals.setCandidates(w, [worse]);
      w.candRatio = [NaN];
      w.last = internals.adopt(w, priced(w, worse)!);
      expect(w.cands).toHaveLength(1);
      const q = internals.refreshCandidates(w);
      expect(q).toBeDefined();
      expect(w.cands.length).toBeGreaterThan(1);
      expect(svc.stats().switches).toBe(switches + 1);
      // the switch priced a fresh candidate path at least as well as the search's route did (or its best single path, when that was a split)
      const single = best.hops.length === new Set(best.hops.map((h) => h.inputMint)).size;
      if (single) {
        if (w.mode === 'ExactIn') expect(BigInt(q!.amountOut)).toBe(best.amountOut);
        else expect(BigInt(q!.amountIn)).toBe(best.amountIn);
      } else if (w.mode === 'ExactIn') expect(BigInt(q!.amountOut)).toBeGreaterThan(priced(w, worse)!.amountOut);
      w.last = q;
      // the same candidate paths again: nothing to do
      expect(internals.refreshCandidates(w)).toBeUndefined();
      expect(svc.stats().switches).toBe(switches + 1);
    } finally {
      w.last = internals.search(w);
    }
  });

  it('the candidate refreshes owed take the time nothing else wants: while a window waits for its deadline, not in its last ms before it closes', async () => {
    await settled();
    const internals = scheduling() as Scheduling & { refreshOwed: number; refreshedAt: number };
    const tuples = [...internals.watched.values()] as Array<{ searchedAt: number }>;
    const refreshes = (): number => svc.stats().refreshes;
    // a window of one tuple open, not priced ahead, its deadline 40 ms away; the background
    // slice just ran (the next is SEARCH_PAUSE_MS away); every other tuple owes its refresh
    const open = (dueIn: number): void => {
      noFlushPending();
      for (const w of tuples) w.searchedAt = 0;
      const due = Date.now() + dueIn;
      internals.replays.add(tuples[0]);
      internals.replayDue = due;
      internals.replayCause = due - DEBOUNCE_MS;
      internals.warm = null;
      internals.lastSearchSlice = Date.now();
      internals.refreshOwed = tuples.length;
      internals.refreshedAt = Date.now();
    };
    try {
      // the window closes within a background slice's length: nothing may hold it up
      open(3);
      let before = refreshes();
      svc.flush();
      expect(refreshes()).toBe(before);
      await waitFor(() => internals.replays.size === 0, 5_000, "the window's replay", 5);
      await settled();
      // the thread would only wait for the deadline: the refreshes take that time (the window's replay is not run early)
      open(40);
      before = refreshes();
      const replays = svc.stats().replays;
      svc.flush();
      expect(refreshes()).toBeGreaterThan(before);
      expect(svc.stats().replays).toBe(replays);
      await waitFor(() => internals.replays.size === 0, 5_000, "the window's replay", 5);
      expect(svc.stats().replays).toBe(replays + 1);
    } finally {
      internals.refreshOwed = 0;
      internals.refreshedAt = Date.now();
      for (const w of tuples) w.searchedAt = Date.now();
    }
    await settled();
  });

  it('STREAM_REFRESH_MS paces the candidate refreshes: none at all with 0; a tuple searched within the interval is not refreshed', async () => {
    await settled();
    noFlushPending();
    const internals = scheduling() as Scheduling & { refreshOwed: number; refreshedAt: number; refreshMs: number; refreshSome(emit: () => void): void };
    const tuples = [...internals.watched.values()] as Array<{ searchedAt: number }>;
    const refreshes = (): number => svc.stats().refreshes;
    // the service was built with the default
    expect(internals.refreshMs).toBe(10_000);
    const hourAgo = Date.now() - 3_600_000;
    try {
      // 0: never, however long since the last refresh and the tuples' last searches
      internals.refreshMs = 0;
      for (const w of tuples) w.searchedAt = 0;
      internals.refreshOwed = 0;
      internals.refreshedAt = hourAgo;
      let before = refreshes();
      internals.refreshSome(() => undefined);
      expect(refreshes()).toBe(before);
      expect(internals.refreshOwed).toBe(0);
      // an hour: every tuple owes one after an hour, but none whose last search is 20 s old
      internals.refreshMs = 3_600_000;
      for (const w of tuples) w.searchedAt = Date.now() - 20_000;
      internals.refreshedAt = hourAgo;
      before = refreshes();
      internals.refreshSome(() => undefined);
      expect(refreshes()).toBe(before);
      // ... and those whose last search is older than that are refreshed
      for (const w of tuples) w.searchedAt = hourAgo - 1;
      internals.refreshOwed = 0;
      internals.refreshedAt = hourAgo;
      internals.refreshSome(() => undefined);
      expect(refreshes()).toBeGreaterThan(before);
    } finally {
      internals.refreshMs = 10_000;
      internals.refreshOwed = 0;
      internals.refreshedAt = Date.now();
      for (const w of tuples) w.searchedAt = Date.now();
    }
    await settled();
  });

  describe('with a searcher (SEARCH_WORKER)', () => {
    type C = { pools: string[]; mints: string[] };
    type W = { key: string; mode: 'ExactIn' | 'ExactOut'; amount: bigint; route?: Route; cands: C[]; candRatio: number[]; queuedBy?: number; searchedAt: number; last?: QuotesChanged };
    type Internals = {
      searcher: RouteSearcher | null;
      watched: Map<string, W>;
      searches: Set<string>;
      answers: unknown[];
      asked: number;
      search: (w: W) => QuotesChanged;
      adopt: (w: W, r: Route) => QuotesChanged;
      setCandidates: (w: W, cands: C[]) => void;
      ask: (s: RouteSearcher, w: W, cause: number | undefined) => void;
    };
    const internals = (): Internals => internalsOf(svc) as unknown as Internals;
    /** a tuple searched now whose route is the best of its candidate paths, and a candidate path 10+ bp worse */
    const tupleWithWorse = (): { w: W; worse: C; best: Route } => {
      for (const w of internals().watched.values()) {
        w.last = internals().search(w);
        if (!w.route || w.last.error !== undefined) continue;
        const c = worseCandidate(w)?.c;
        if (c) return { w, worse: c, best: w.route };
      }
      throw new Error('no tuple has a candidate path 10+ bp worse than its route');
    };
    /** the tuple's candidate paths and route are that worse path alone, as if its last search had seen nothing better */
    const blind = (w: W, worse: C): void => {
      internals().setCandidates(w, [worse]);
      w.candRatio = [NaN];
      w.last = internals().adopt(w, priced(w, worse)!);
    };
    /** the searcher's requests have come back and every answer has been taken */
    const answersTaken = () => waitFor(() => internals().asked === 0 && internals().answers.length === 0, 3_000, 'the answers to be taken', 5);
    const pushes: Array<{ key: string; by: string; cause: number }> = [];
    let inlineSearches = 0;
    let search: Internals['search'];

    beforeEach(async () => {
      await settled();
      noFlushPending();
      pushes.length = 0;
      svc.pushObserver = (q, cause, by) => pushes.push({ key: tupleKey(q.tuple), by, cause });
      search = internals().search;
      inlineSearches = 0;
    });
    afterEach(() => {
      internals().searcher = null;
      internals().search = search;
      svc.pushObserver = null;
    });
    /** from here on the service searches through `s`; searches on its own thread are counted */
    const use = (s: RouteSearcher): void => {
      internals().searcher = s;
      internals().search = function (this: unknown, w: W) {
        inlineSearches++;
        return search.call(this, w);
      };
    };

    it('a queued background search goes to the searcher, off the queue; its answer becomes the route, priced on the service\'s pools, pushed as the search\'s quote', async () => {
      const { w, worse, best } = tupleWithWorse();
      blind(w, worse);
      const inline = new InlineSearcher(() => ({ graph: projections.projection, slot: projections.projection.slot }), null);
      use(inline);
      const searches = svc.stats().searches;
      const cause = Date.now() - 7;
      // as a pool entering the graph queues it
      internals().searches.add(w.key);
      w.queuedBy = cause;
      svc.flush();
      expect(internals().searches.has(w.key)).toBe(false);
      await waitFor(() => svc.stats().searches === searches + 1, 3_000, 'the answer to be taken', 5);
      expect(inline.answered).toBe(1);
      expect(inlineSearches).toBe(0);
      // the route the search on these pools finds, its candidate paths too
      expect(w.cands.length).toBeGreaterThan(1);
      expect(w.route!.hops.map((h) => h.pool.address)).toEqual(best.hops.map((h) => h.pool.address));
      expect(w.route!.amountOut).toBe(best.amountOut);
      expect(w.route!.amountIn).toBe(best.amountIn);
      expect(pushes).toEqual([{ key: w.key, by: 'search', cause }]);
    });

    it('an answer worse than the route in place, priced on the service\'s pools (a searcher behind them), leaves the route and takes its candidate paths', async () => {
      const { w, worse, best } = tupleWithWorse();
      const worseRoute = priced(w, worse)!;
      const stale: RouteSearcher = { ready: true, search: () => Promise.resolve({ cands: [worse], route: toWire(worseRoute), slot: 0 }), close: () => Promise.resolve() };
      use(stale);
      const searches = svc.stats().searches;
      internals().searches.add(w.key);
      w.queuedBy = Date.now();
      svc.flush();
      await waitFor(() => svc.stats().searches === searches + 1, 3_000, 'the answer to be taken', 5);
      expect(w.route!.hops.map((h) => h.pool.address)).toEqual(best.hops.map((h) => h.pool.address));
      expect(w.route!.amountOut).toBe(best.amountOut);
      expect(w.cands).toEqual([expect.objectContaining(worse)]);
      // the same quote as before: nothing pushed
      expect(pushes).toEqual([]);
    });

    it('when neither the answer\'s route nor the route in place can be priced on the service\'s pools, the service searches the tuple itself', async () => {
      const { w, best } = tupleWithWorse();
      // both routes run through a pool the service does not know (it left the graph)
      const gone = (r: Route): Route => ({ ...r, hops: r.hops.map((h, i) => (i === 0 ? { ...h, pool: { ...h.pool, address: 'gone' } as typeof h.pool } : h)) });
      const answer = toWire(gone(best));
      const lost: RouteSearcher = { ready: true, search: () => Promise.resolve({ cands: [], route: answer, slot: 0 }), close: () => Promise.resolve() };
      use(lost);
      w.route = gone(best);
      internals().ask(lost, w, Date.now());
      await answersTaken();
      expect(inlineSearches).toBe(1);
      expect(w.route!.hops.map((h) => h.pool.address)).toEqual(best.hops.map((h) => h.pool.address));
      expect(w.route!.amountOut).toBe(best.amountOut);
      expect(w.cands.length).toBeGreaterThan(0);
    });

    it('an answer for a tuple searched on the service\'s thread since it was asked is dropped', async () => {
      const { w, worse, best } = tupleWithWorse();
      let answer: (f: Found) => void = () => undefined;
      const held: RouteSearcher = { ready: true, search: () => new Promise<Found>((resolve) => (answer = resolve)), close: () => Promise.resolve() };
      use(held);
      const searches = svc.stats().searches;
      internals().ask(held, w, Date.now());
      await pause(3);
      // a first quote or a broken route searches it here meanwhile
      w.last = internals().search(w);
      const cands = w.cands;
      answer({ cands: [worse], route: toWire(priced(w, worse)!), slot: 0 });
      await answersTaken();
      expect(w.cands).toBe(cands);
      expect(w.route!.amountOut).toBe(best.amountOut);
      expect(svc.stats().searches).toBe(searches + 1);
      expect(pushes).toEqual([]);
    });
  });

  it('a candidate path\'s estimate walks again only from the first hop whose pool changed: always equal to a fresh estimate', async () => {
    type C = { pools: string[]; mints: string[] };
    type W = { mode: string; amount: bigint; cands: C[]; candEst: PathEstimates; route?: Route; routeEst?: PathEstimates };
    const internals = internalsOf(svc) as unknown as { watched: Map<string, W> };
    const compare = (): number => {
      let n = 0;
      for (const w of internals.watched.values()) {
        const kept = w.candEst.all();
        w.cands.forEach((c, i) => {
          const fresh = freshEstimate(w, c);
          expect(kept[i]).toBe(fresh ?? NaN);
          expect(w.candEst.estimate(i)).toBe(fresh);
          n++;
        });
      }
      return n;
    };
    expect(compare()).toBeGreaterThan(20);
    const modes = new Set([...internals.watched.values()].map((w) => w.mode));
    expect(modes).toEqual(new Set(['ExactIn', 'ExactOut']));
    // the market moves a few pools at a time: most paths keep some hops
    for (let i = 0; i < 5; i++) {
      await appendUpdates(market.step());
      await pause(100);
      compare();
    }
    // a pool of a candidate path leaves (its account closed) and comes back: the estimates through
    // it are none in between and its own again after (its pool found anew, not the one that left)
    const onPaths = new Map<string, number>();
    for (const w of internals.watched.values()) for (const c of w.cands) for (const a of c.pools) onPaths.set(a, (onPaths.get(a) ?? 0) + 1);
    const address = [...onPaths].sort((a, b) => b[1] - a[1])[0][0];
    const account = market.snapshot().find((u) => u.address === address)!;
    const slot = projections.projection.slot;
    await appendUpdates([{ ...account, slot: slot + 1, data: null }]);
    await waitFor(() => projections.projection.pool(address) === undefined, 2_000, 'the pool to leave the graph', 10);
    compare();
    await appendUpdates([{ ...account, slot: slot + 2 }]);
    await waitFor(() => projections.projection.pool(address) !== undefined, 2_000, 'the pool to enter the graph again', 10);
    expect(compare()).toBeGreaterThan(20);
    const through = [...internals.watched.values()].flatMap((w) => w.cands.flatMap((c, i) => (c.pools.includes(address) ? [w.candEst.estimate(i)] : [])));
    expect(through.some((e) => e !== undefined)).toBe(true);
    await settled();
    // the stamp table holds the pools of the live paths, once per hop through them, no more: every
    // search, switch and route change gave back the holds of the paths it replaced
    const holds = new Map<string, number>();
    const hold = (a: string): void => void holds.set(a, (holds.get(a) ?? 0) + 1);
    for (const w of internals.watched.values()) {
      for (const c of w.cands) c.pools.forEach(hold);
      if (w.routeEst) w.route!.hops.forEach((h) => hold(h.pool.address));
    }
    const table = (internalsOf(svc) as unknown as { poolStamps: { size: number; ids: Map<string, number>; holders: number[] } }).poolStamps;
    expect(table.size).toBe(holds.size);
    for (const [a, n] of holds) expect(table.holders[table.ids.get(a)!]).toBe(n);
  });

  it('a search queued for a candidate gain is withdrawn when a later check finds no gain; one queued because a pool entered the graph is not', async () => {
    await pause(300); // earlier work settles: every route was searched on the current pools, no candidate gains
    type W = { key: string; route?: unknown; cands: unknown[]; queuedBy?: number; searchForGain?: boolean };
    const internals = internalsOf(svc) as unknown as { watched: Map<string, W>; searches: Set<string>; checks: { add(w: W): void; size: number }; urgent: Set<string> };
    const [w, v] = [...internals.watched.values()].filter((x) => x.route && x.cands.length > 1);
    expect(v).toBeDefined();
    await settled();
    const searches = svc.stats().searches;
    // w: queued for a gain seen earlier; v: queued because a pool entered the graph; both checked now
    for (const [x, forGain] of [[w, true], [v, false]] as const) {
      internals.searches.add(x.key);
      x.searchForGain = forGain || undefined;
      x.queuedBy = 1;
      internals.checks.add(x);
    }
    svc.flush();
    expect(internals.searches.has(w.key)).toBe(false);
    expect(w.queuedBy).toBeUndefined();
    // v was searched in the same flush (nothing else to do) or is still queued
    expect(internals.searches.has(v.key) || svc.stats().searches > searches).toBe(true);
    await waitFor(() => svc.stats().searches > searches, 2_000, 'the gain search', 10);
    expect(svc.stats().searches).toBe(searches + 1);
    expect(internals.searches.size).toBe(0);
  });

  it('searches queued for a candidate gain are served newest first; one that waited longer than SEARCH_STALE_MS is withdrawn unrun', async () => {
    await pause(300); // earlier work settles
    type W = { key: string; route?: unknown; queuedBy?: number; searchForGain?: boolean };
    const internals = internalsOf(svc) as unknown as { watched: Map<string, W>; searches: Set<string>; gainSearches: string[]; checks: { add(w: W): void; size: number }; urgent: Set<string> };
    await settled();
    const [stale, older, newer] = [...internals.watched.values()].filter((x) => x.route);
    expect(newer).toBeDefined();
    // the order the searches run in, and the change each answers
    const ran: Array<[string, number | undefined]> = [];
    const spied = internalsOf(svc) as unknown as { search: (w: W) => unknown };
    const search = spied.search;
    spied.search = function (this: unknown, w: W) {
      ran.push([w.key, w.queuedBy]);
      return search.call(this, w);
    };
    const before = svc.stats();
    try {
      const now = Date.now();
      // queued as a check that finds a gain queues them, in this order
      const queued = [[stale, now - SEARCH_STALE_MS - 500], [older, now - 20], [newer, now - 10]] as const;
      for (const [x, at] of queued) {
        internals.searches.add(x.key);
        x.searchForGain = true;
        x.queuedBy = at;
        internals.gainSearches.push(x.key);
      }
      svc.flush();
      await waitFor(() => internals.searches.size === 0, 3_000, 'the queued searches', 10);
      // newest first (search() clears queuedBy after the push is attributed: seen here as undefined)
      expect(ran.map(([k]) => k)).toEqual([newer.key, older.key]);
      expect(svc.stats().searches).toBe(before.searches + 2);
      expect(svc.stats().shedSearches).toBe(before.shedSearches + 1);
      expect(stale.queuedBy).toBeUndefined();
      expect(stale.searchForGain).toBeUndefined();
      expect(internals.gainSearches).toEqual([]);
    } finally {
      spied.search = search;
    }
  });

  it('reports each push a pool change caused with the append time of the first change of its route it answers, and when it was computed', async () => {
    const seen: Array<{ key: string; slot: number; at: number; by: string; window?: number; computed: number }> = [];
    svc.pushObserver = (q, at, by, window, computed, key) => {
      expect(key).toBe(tupleKey(q.tuple));
      seen.push({ key, slot: q.slot, at, by, window, computed });
    };
    try {
      await pause(200); // earlier work settles
      const appendedAt = async (us: PoolUpdate[]) => {
        const [r] = await appendUpdates(us);
        return (await log.read(TOPICS.poolUpdates, { '0': r.offset }, 1))[0].timestamp;
      };
      // two appends within one debounce window. Some tuple's route must be changed by the second
      // append only (its push answers that one): which routes a step touches depends on the
      // market, so a pair of appends that touches no such route is followed by another pair
      let firstAt = 0;
      let secondAt = 0;
      let replays: typeof seen = [];
      let answeredSecond = false;
      for (let attempt = 0; attempt < 8 && !answeredSecond; attempt++) {
        seen.length = 0;
        firstAt = await appendedAt(market.step());
        await pause(20);
        secondAt = await appendedAt(market.step());
        await pause(400);
        replays = seen.filter((x) => x.by === 'replay');
        expect(replays.length).toBeGreaterThan(0);
        for (const r of replays) {
          // the window runs from the first append; each push answers the first append that
          // changed a pool of its tuple's route
          expect(r.window).toBe(firstAt);
          expect([firstAt, secondAt]).toContain(r.at);
        }
        expect(secondAt - firstAt).toBeGreaterThanOrEqual(15);
        expect(replays.some((r) => r.at === firstAt)).toBe(true);
        answeredSecond = replays.some((r) => r.at === secondAt);
      }
      expect(answeredSecond).toBe(true);
      // computed after the window's deadline, before the quotes-changed record that carries it was appended
      const published = new Map<string, number>();
      for (const r of await quotes()) {
        const q = decodeQuotesChanged(r.value);
        published.set(`${r.key}|${q.slot}`, r.timestamp);
      }
      for (const r of replays) {
        expect(r.computed).toBeGreaterThanOrEqual(firstAt + DEBOUNCE_MS - 1);
        const appended = published.get(`${r.key}|${r.slot}`);
        expect(appended).toBeDefined();
        expect(r.computed).toBeLessThanOrEqual(appended!);
      }
    } finally {
      svc.pushObserver = null;
    }
  });

  it('a route priced ahead is pushed at the deadline without pricing it again, unless a pool of it changed since: then it is priced on the pools as they are', async () => {
    await pause(300); // earlier work settles
    await settled();
    type W = Watching & { plan?: ReplayPlan; amount: bigint; mode: 'ExactIn' | 'ExactOut'; ahead?: { amountIn: bigint; amountOut: bigint }; warmFor?: number; last?: QuotesChanged };
    const internals = scheduling() as unknown as Scheduling & { priceRoute: (w: W, r: Route) => unknown };
    const poolAt = (a: string) => projections.projection.pool(a);
    const amounts = (q: { amountIn: bigint; amountOut: bigint }): string[] => [q.amountIn.toString(), q.amountOut.toString()];
    /** the tuple's route priced afresh on the pools as they are (no memo) */
    const fresh = (w: W): string[] => amounts(replayQuote(w.route!, w.amount, poolAt, w.plan));
    // a tuple with a route (this market's pools are all constant-product: scaling the vault a
    // pool pays out from moves its quote)
    const w = [...watchedTuples().values()].find((x) => x.route && (x as W).last?.error === undefined) as W;
    expect(w).toBeDefined();
    // (its route may change between the windows: a check after a replay may switch it)
    const hop = () => w.route!.hops[0];
    const priced = new Map<W, number>();
    const priceRoute = internals.priceRoute;
    internals.priceRoute = function (this: unknown, x: W, r: Route) {
      priced.set(x, (priced.get(x) ?? 0) + 1);
      return priceRoute.call(this, x, r);
    };
    // a window holding the tuple, priced ahead by hand, not due for a long time
    const openWindow = async (num: bigint, den: bigint): Promise<void> => {
      await appendUpdates([scaleVault(hop().pool.address, hop().outputMint, projections.projection.slot + 1, num, den)]);
      await waitFor(() => internals.replays.has(w), 2_000, "the tuple in the update's window", 1);
      noFlushPending();
      const due = Date.now() + 60_000;
      internals.replayDue = due;
      internals.warm = 'start';
      internals.prewarm.call(svc, Date.now(), false);
      expect(w.warmFor).toBe(due);
      expect(w.ahead).toBeDefined();
      expect(amounts(w.ahead!)).toEqual(fresh(w));
    };
    /** the open window due now, the log caught up: its replays run */
    const closeWindow = async (): Promise<void> => {
      windowDueNow();
      priced.clear();
      svc.flush();
      await waitFor(() => !internals.replays.has(w), 2_000, "the window's replays", 1);
    };
    try {
      // nothing of the route changed since it was priced ahead: the replay pushes that quote
      // (small changes: a loss of more than 5 bp would check the candidate paths at once)
      await openWindow(9_999n, 10_000n);
      await closeWindow();
      expect(priced.get(w) ?? 0).toBe(0);
      expect(w.ahead).toBeUndefined();
      expect([w.last!.amountIn, w.last!.amountOut]).toEqual(fresh(w));
      await settled();

      // a pool of the route changed after it was priced ahead: the quote priced ahead is dropped
      // at the change, and the replay prices the route on the pools as they are
      await openWindow(9_999n, 10_000n);
      const ahead = amounts(w.ahead!);
      const stamp = projections.projection.slot;
      await appendUpdates([scaleVault(hop().pool.address, hop().outputMint, stamp + 1, 99n, 100n)]);
      await waitFor(() => projections.projection.slot > stamp, 2_000, 'the second update applied', 1);
      expect(w.ahead).toBeUndefined();
      expect(fresh(w)).not.toEqual(ahead);
      await closeWindow();
      expect(priced.get(w)).toBe(1);
      expect([w.last!.amountIn, w.last!.amountOut]).toEqual(fresh(w));
    } finally {
      internals.priceRoute = priceRoute;
    }
    await settled();
  });

  it("a window that becomes current once the window before it replayed has its routes priced ahead from then on, not only after a later change", async () => {
    await pause(300); // earlier work settles
    await settled();
    type W = Watching & { ahead?: unknown; warmFor?: number };
    type Windows = Scheduling & { nextReplays: { add(w: object): void; has(w: object): boolean; size: number }; nextDue: number | null; nextCause: number | null };
    const internals = scheduling() as unknown as Windows;
    const routed = [...watchedTuples().values()].filter((x) => x.route !== undefined) as W[];
    const [a, b] = routed;
    expect(b).toBeDefined();
    // the open window (a) due now, the log caught up; the next one (b) queued while it waited,
    // due in a minute, not priced ahead; no pass of pricing ahead under way
    windowDueNow();
    internals.replays.add(a);
    internals.nextReplays.add(b);
    const nextDue = Date.now() + 60_000;
    internals.nextDue = nextDue;
    internals.nextCause = Date.now();
    internals.warm = null;
    b.ahead = undefined;
    svc.flush();
    // one flush: a replayed, b's window current and its route priced ahead before its deadline
    expect(internals.replays.has(a)).toBe(false);
    expect(internals.replays.has(b)).toBe(true);
    expect(internals.replayDue).toBe(nextDue);
    expect(b.warmFor).toBe(nextDue);
    expect(b.ahead).toBeDefined();
    // and replayed at its deadline
    windowDueNow();
    svc.flush();
    await waitFor(() => internals.replays.size === 0 && internals.nextReplays.size === 0, 2_000, 'both windows replayed', 1);
    await settled();

    // a next window already due when it becomes current (the current one's replays ran past its
    // deadline) is not priced ahead: it replays at once
    noFlushPending();
    const currentDue = Date.now() - 20;
    internals.replayDue = currentDue;
    internals.syncedFor = currentDue;
    internals.replays.add(a);
    internals.nextReplays.add(b);
    const pastDue = Date.now() - 5;
    internals.nextDue = pastDue;
    internals.nextCause = pastDue - 50;
    internals.warm = null;
    b.ahead = undefined;
    svc.flush();
    expect(internals.replays.has(b)).toBe(true);
    expect(internals.replayDue).toBe(pastDue);
    expect(internals.warm).toBeNull();
    expect(b.warmFor).not.toBe(pastDue);
    await waitFor(() => internals.replays.size === 0 && internals.nextReplays.size === 0, 2_000, 'the late window replayed', 1);
    await settled();
  });

  it('after a replay the candidates are checked when the route lost since the last quote or a check is owed, not when it held up', async () => {
    await pause(300); // earlier work settles
    await settled();
    type W = Watching & { mode: 'ExactIn' | 'ExactOut'; last?: QuotesChanged; checkCause?: number; searchedAt: number };
    const internals = scheduling() as unknown as Scheduling & { check: (w: W, ...rest: unknown[]) => unknown };
    // a tuple with a route, large enough amounts that a 1 bp move of a pool moves its quote, and a
    // candidate path with a pool off its route (this market's pools are all constant-product)
    const offRoute = (x: W): string | undefined => x.cands.flatMap((c) => c.pools).find((a) => !x.route!.hops.some((h) => h.pool.address === a));
    const w = [...watchedTuples().values()].find((x) => {
      const t = x as W;
      const size = t.last && t.last.error === undefined ? Number(t.mode === 'ExactIn' ? t.last.amountOut : t.last.amountIn) : 0;
      return t.route && t.cands.length > 1 && size > 1e6 && offRoute(t) !== undefined;
    }) as W;
    expect(w).toBeDefined();
    let checked = 0;
    const check = internals.check;
    internals.check = function (this: unknown, x: W, ...rest: unknown[]) {
      if (x === w) checked++;
      return check.call(this, x, ...rest);
    };
    const hop = () => w.route!.hops[0];
    const size = (q: QuotesChanged): bigint => BigInt(w.mode === 'ExactIn' ? q.amountOut : q.amountIn);
    /** the route's first pool pays out `num / den` of what it held (and, with `candidate`, a candidate pool off the route moves too) */
    const moves = (num: bigint, den: bigint, candidate = false): PoolUpdate[] => {
      const slot = projections.projection.slot + 1;
      const ups = [scaleVault(hop().pool.address, hop().outputMint, slot, num, den)];
      if (candidate) {
        const a = offRoute(w)!;
        const pool = market.pools.find((x) => x.address === a)!;
        ups.push(scaleVault(a, pool.state.token0Mint, slot, 10_001n, 10_000n));
      }
      return ups;
    };
    /** one slot of updates, replayed by its window as it comes; returns the tuple's quotes before and after */
    const replayed = async (updates: PoolUpdate[]): Promise<[QuotesChanged, QuotesChanged]> => {
      const before = w.last!;
      const slot = updates[0].slot;
      // no candidate refresh of the tuple meanwhile (it checks too)
      w.searchedAt = Date.now();
      checked = 0;
      await appendUpdates(updates);
      await waitFor(() => (w.last?.slot ?? 0) >= slot, 2_000, "the tuple's replay of the slot", 1);
      await settled();
      return [before, w.last!];
    };
    try {
      // the first update after the suite's setup may move every pool (so the candidates' too)
      await replayed(moves(10_001n, 10_000n));
      // the route pays more (or asks less): no check
      let [before, after] = await replayed(moves(2n, 1n));
      expect(w.mode === 'ExactIn' ? size(after) > size(before) : size(after) < size(before)).toBe(true);
      expect(checked).toBe(0);

      // the route loses about 1 bp (under the 5 bp of a check at once): a check is queued and runs
      [before, after] = await replayed(moves(9_999n, 10_000n));
      expect(w.mode === 'ExactIn' ? size(after) < size(before) : size(after) > size(before)).toBe(true);
      expect(checked).toBe(1);

      // the route pays more and a candidate pool moved in the same slot: the check that change
      // queued, dropped while the tuple's replay was pending, is owed and runs after the replay
      w.searchedAt = Date.now();
      checked = 0;
      await appendUpdates(moves(2n, 1n, true));
      await waitFor(() => internals.replays.has(w), 2_000, "the tuple in the slot's window", 1);
      noFlushPending();
      internals.replayDue = Date.now() + 60_000;
      svc.flush();
      expect(internals.replays.has(w)).toBe(true);
      expect(checked).toBe(0);
      expect(w.checkCause).toBeDefined();
      windowDueNow();
      svc.flush();
      await waitFor(() => !internals.replays.has(w), 2_000, "the window's replays", 1);
      await settled();
      expect(checked).toBe(1);
    } finally {
      internals.check = check;
    }
    await settled();
  });
});
