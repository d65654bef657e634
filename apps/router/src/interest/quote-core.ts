/**
 * The live stream's decider: given a tuple and the current pools, what to push. It keeps each
 * live tuple's state (tuple-state.ts), the indexes from a pool to the tuples whose route or
 * candidate paths use it, the queue of checks and of background searches, and decides:
 *   - a full search (first interest, a broken route, a background request): the route and the
 *     candidate paths of the search's own first step;
 *   - a replay: the current route re-priced exactly on the current pools (route-replay.ts), and
 *     right after it, when the route lost more than RESEARCH_GAIN, a check (see replayPush);
 *   - a check (see check): a candidate path estimated to gain on the route is priced exactly and
 *     becomes the route when it beats it (a switch);
 *   - a candidate refresh (see refreshCandidates);
 *   - the pushed record of a quote, the aggregator fee included as the REST quote includes it.
 * Plain TypeScript on a projection: no Nest, no log, no timers. When each of these runs is the
 * scheduler's (InterestService and debounce-windows.ts); the pending replays it holds are reached
 * through PendingReplays.
 */
import { RouteError, type Pool, type Route } from '@app/amm';
import type { LogMessage } from '@app/log';
import type { Projection } from '@app/pools';
import { encodeQuotesChanged, hasControls, type QuotesChanged, type QuoteTuple } from '@app/contracts';
import { betterNet, charge, feeBpsFor, findBestNetRoute, type FeeSchedule } from '../quote/aggregator-fee';
import { gainingOnRoute, gainingWithoutRoute, priceExactly } from './candidate-checks';
import { PathEstimates, PoolStamps, type EstimablePath } from './path-estimates';
import { PathInterner, type PathLists } from './path-interner';
import { impactBps, quoteFields } from './quote-fields';
import { planReplay, replayQuote, replayRoute, type RouteQuote } from './route-replay';
import { candidatePathsOn, fromWire, optionsOf, searchRoute, type SearchRequest } from './route-searcher';
import { SearchQueue } from './search-queue';
import { TupleQueue } from './tuple-queue';
import { CHECKS, MAX_CANDIDATES, RESEARCH_GAIN, Watched, candidatesOf, estimateRatio, heldUp, lossOf, unpriceable, type Answer, type CandidatePath, type PushKind } from './tuple-state';

/** no pools: what an unwatched tuple is indexed under */
const NO_POOLS: ReadonlySet<string> = new Set();

/** the scheduler's side: the debounce windows' replay queues and the first searches waiting */
export interface PendingReplays {
  /** a full search quotes the current pools: the tuple's pending replays are answered by it */
  drop(w: Watched): void;
  /** a replay or a first search is pending for the tuple (they come before a refresh) */
  has(w: Watched): boolean;
}

/** a replay's push: its quote (or a switch found right after it), what it answers, and the check it leaves owed */
export interface ReplayPush {
  q: QuotesChanged;
  by: PushKind;
  cause: number;
  /** the append time of the change a check is owed for after the window (undefined: none owed) */
  checkOwed: number | undefined;
}

export class QuoteCore {
  readonly watched = new Map<string, Watched>();
  /** pool address → the tuples whose current route uses it */
  readonly byRoutePool = new Map<string, Set<Watched>>();
  /** pool address → the tuples whose candidate paths use it */
  readonly byCandidatePool = new Map<string, Set<Watched>>();
  /** a candidate path's pool changed: does a candidate now beat the current route? */
  readonly checks = new TupleQueue<Watched>(CHECKS);
  readonly queue = new SearchQueue(this.watched);
  /** a stamp per pool on a watched path, bumped by each change of it: what the paths' estimates test (see PathEstimates) */
  readonly poolStamps = new PoolStamps(() => this.pools());
  /** the candidate paths' address lists, one copy per path shared by the tuples that keep it */
  private readonly pathLists = new PathInterner();
  /** the current pool at an address (what replays read) */
  readonly poolLookup = (address: string): Pool | undefined => this.pools().pool(address);
  readonly counters = { searches: 0, replays: 0, checks: 0, switches: 0, refreshes: 0 };

  constructor(
    private readonly pools: () => Projection,
    /** the aggregator fee the pushed amounts include, as the REST quote's (null: none) */
    private readonly fee: FeeSchedule | null,
    private readonly maxHops: number,
    private readonly pending: PendingReplays,
    /** the intermediate tokens a pair's restrictIntermediateTokens allows (INTERMEDIATE_TOKENS) */
    private readonly liquid: readonly string[] = [],
  ) {}

  /** a new live tuple (no route yet: its first search is the scheduler's) */
  watch(tuple: QuoteTuple, key: string): Watched {
    const w = new Watched(tuple, key);
    this.watched.set(key, w);
    return w;
  }

  /** the tuple is no longer live: off the indexes, the checks and the search queue; returns it */
  unwatch(key: string): Watched | undefined {
    const w = this.watched.get(key);
    if (!w) return undefined;
    this.watched.delete(key);
    this.checks.delete(w);
    this.queue.forget(key);
    this.index(this.byRoutePool, w, w.routeDeps, NO_POOLS);
    this.index(this.byCandidatePool, w, w.candDeps, NO_POOLS);
    w.candEst.release();
    w.routeEst?.release();
    return w;
  }

  /** the route request of the tuple, with its pair's route controls (the REST quote's, applied as REST applies them) */
  request(w: Watched): SearchRequest {
    const t = w.tuple;
    const req: SearchRequest = { inputMint: t.in, outputMint: t.out, amount: w.amount, mode: w.mode, maxHops: this.maxHops };
    if (!hasControls(t)) return req;
    return { ...req, maxHops: Math.min(this.maxHops, t.maxHops ?? this.maxHops), controls: t, liquid: this.liquid };
  }

  // ---- searches ----

  /** a full route search; refreshes the tuple's route and both pool indexes */
  search(w: Watched): QuotesChanged {
    this.queue.unqueue(w);
    const at = Date.now();
    // the candidate paths are those of the search's own first step
    const found = searchRoute(this.pools(), this.request(w), MAX_CANDIDATES, this.fee);
    this.searched(w, at, candidatesOf(found.cands, this.pathLists));
    return this.adopt(w, found.route, found.error);
  }

  /**
   * A searcher's answer taken as search() takes its own: its candidate paths become the tuple's,
   * and its route, priced again on these pools, becomes the tuple's route unless the current
   * route, priced on them too, nets the user as much (the searcher's pools may be a few ms behind
   * or ahead).
   */
  takeSearch(w: Watched, a: Answer): QuotesChanged {
    const found = a.found.route && this.repriced(w, fromWire(a.found.route, this.poolLookup));
    const current = w.route && this.repriced(w, w.route);
    const route = found && current ? betterNet(current, found, this.fee) : (found ?? current);
    // the searcher's route does not carry the amount on these pools, nor does the one in place:
    // the search this thread would run says why, and what does
    if (route === undefined && a.found.route !== undefined) return this.search(w);
    this.searched(w, a.at, candidatesOf(a.found.cands, this.pathLists));
    return this.adopt(w, route, a.found.error ?? 'no route found');
  }

  /**
   * What a full search (this thread's at `at`, or the searcher's asked then) settles before its
   * route is adopted: the tuple's pending replay and check (its quote is of the current pools),
   * and its candidate paths, which become `cands` (their ratios set against the route by adopt).
   */
  private searched(w: Watched, at: number, cands: CandidatePath[]): void {
    this.counters.searches++;
    w.searchedAt = at;
    this.pending.drop(w);
    w.changedAt = undefined;
    this.setCandidates(w, cands);
    w.candRatio = new Array<number>(cands.length).fill(NaN);
    this.checks.delete(w);
    w.checkCause = undefined;
  }

  /** `route` priced again for the tuple on the current pools; undefined when it cannot be (a pool left, or cannot fill its part) */
  private repriced(w: Watched, route: Route | undefined): Route | undefined {
    if (route === undefined) return undefined;
    try {
      return replayRoute(route, w.amount, this.poolLookup);
    } catch (e) {
      if (!unpriceable(e)) throw e;
      return undefined;
    }
  }

  /**
   * Make `route` the tuple's route (undefined: it has none, `error` says why): its replay plan,
   * both pool indexes, and its candidates' ratios against it. Returns its quote.
   */
  adopt(w: Watched, route: Route | undefined, error = 'no route'): QuotesChanged {
    let q: QuotesChanged;
    w.memo = [];
    w.ahead = undefined;
    w.route = route;
    const routeBefore = w.routeEst;
    // a single path's lists, shared with the tuples that keep the same path
    let lists: PathLists | undefined;
    if (route) {
      w.plan = planReplay(route);
      lists = w.plan.single ? this.pathLists.intern(route.hops.map((h) => h.pool.address), [route.inputMint, ...route.hops.map((h) => h.outputMint)]) : undefined;
      w.routeEst = lists !== undefined ? this.estimates(w, [lists]) : undefined;
      q = this.quote(w, route.amountIn, route.amountOut, quoteFields(route, w.plan.single));
    } else {
      w.plan = undefined;
      w.routeEst = undefined;
      q = { tuple: w.tuple, amountOut: '0', amountIn: '0', priceImpactBps: 0, hops: 0, slot: this.pools().slot, error };
    }
    // after the new route's estimates took their ids (see setCandidates)
    routeBefore?.release();
    const routeDeps = new Set(route ? route.hops.map((h) => h.pool.address) : []);
    const estimates = w.candEst.all();
    if (route) {
      const current = this.routeEstimate(w, q);
      for (let i = 0; i < w.candEst.count; i++) {
        const e = estimates[i];
        w.candRatio[i] = current === undefined || e !== e ? 1 : estimateRatio(w.mode, e, current);
      }
    } else {
      // without a route: each candidate's own estimate now (0: none), what checkWithoutRoute compares with
      for (let i = 0; i < w.candEst.count; i++) w.candRatio[i] = estimates[i] === estimates[i] ? estimates[i] : 0;
    }
    this.index(this.byRoutePool, w, w.routeDeps, routeDeps);
    // a path through distinct pools depends on its pool list as it is
    w.routeDeps = lists !== undefined && lists.pools.length === routeDeps.size ? lists.pools : [...routeDeps];
    this.indexCandidates(w, routeDeps);
    return q;
  }

  /** these become the tuple's candidate paths, with their own estimates (not yet indexed) */
  setCandidates(w: Watched, cands: CandidatePath[]): void {
    w.cands = cands;
    // the new estimates take their pools' ids before the old ones give theirs back: the ids of the
    // pools both have stay as they are
    const before = w.candEst;
    w.candEst = this.estimates(w, cands);
    before.release();
  }

  /** the tuple indexed under the pools of its candidate paths (not those of its route: see adopt) */
  private indexCandidates(w: Watched, routeDeps: ReadonlySet<string>): void {
    // a route pool's change is a replay; its candidate entry would only add a check
    const cand = new Set<string>();
    for (const c of w.cands) for (const p of c.pools) if (!routeDeps.has(p)) cand.add(p);
    this.index(this.byCandidatePool, w, w.candDeps, cand);
    w.candDeps = [...cand];
  }

  /** the tuple `w`, indexed under the pools `prev`, is indexed under `next` instead */
  private index(idx: Map<string, Set<Watched>>, w: Watched, prev: readonly string[], next: ReadonlySet<string>): void {
    for (const d of prev) {
      if (next.has(d)) continue;
      const s = idx.get(d);
      if (s) {
        s.delete(w);
        if (s.size === 0) idx.delete(d);
      }
    }
    for (const d of next) {
      let s = idx.get(d);
      if (!s) idx.set(d, (s = new Set()));
      s.add(w);
    }
  }

  // ---- replays ----

  /**
   * The replay of a tuple of the closing window, and what it pushes. When the route lost more
   * than a check's threshold since the last quote, a candidate path that did not share the change
   * now compares better by about as much, which is what a check looks for: it is checked now, on
   * the pools just replayed, and a switch is pushed instead of the replay's quote. Any other check
   * is owed for after the window's replays (so every replay of the window is pushed first: most
   * checks find no better path). None is owed when the route did not lose since the last quote and
   * no check is queued: its candidates' pools did not change (that queues a check of its own), so
   * none compares better with it than at the last check, which left none gaining.
   */
  replayPush(w: Watched, windowCause: number): ReplayPush {
    const cause = w.changedAt ?? windowCause;
    const before = w.last;
    const q = this.replay(w);
    // `since`: the earliest change behind a check of it (with any check queued meanwhile)
    const checkCause = w.checkCause;
    const since = Math.min(cause, checkCause ?? cause);
    const checkable = w.route !== undefined && (w.cands.length > 1 || checkCause !== undefined) && !(this.queue.has(w.key) && !w.searchForGain);
    const lost = checkable && lossOf(w.mode, before, q) > RESEARCH_GAIN;
    const switched = lost ? this.checkNow(w, since, q) : undefined;
    const owed = checkable && !lost && (checkCause !== undefined || !heldUp(w.mode, before, q)) ? since : undefined;
    if (switched !== undefined) return { q: switched, by: 'check', cause: since, checkOwed: owed };
    return { q, by: 'replay', cause, checkOwed: owed };
  }

  /** the current route re-priced exactly on the current pools; a search when it broke */
  replay(w: Watched): QuotesChanged {
    if (!w.route) return this.search(w);
    this.counters.replays++;
    w.changedAt = undefined;
    // priced ahead on the pools the route has now (no change of them since), or priced now
    const q = w.ahead ?? this.priceRoute(w, w.route);
    w.ahead = undefined;
    if (q === null) return this.search(w);
    return this.quote(w, q.amountIn, q.amountOut, { priceImpactBps: impactBps(q.amountIn, q.amountOut, q.ideal), hops: q.hops });
  }

  /**
   * The amounts, price and main path of the tuple's route on the current pools, without building
   * it (see replayQuote), its memo refreshed; null when a pool left or cannot fill its part
   */
  priceRoute(w: Watched, route: Route): RouteQuote | null {
    try {
      return replayQuote(route, w.amount, this.poolLookup, w.plan, w.memo);
    } catch (e) {
      if (!unpriceable(e)) throw e;
      return null;
    }
  }

  // ---- checks ----

  /** queue a check of the tuple's candidates; `cause`: the append time of the change behind it (the earliest kept) */
  queueCheck(w: Watched, cause: number): void {
    this.checks.add(w);
    w.checkCause ??= cause;
  }

  /** the tuple's check run now (see check), taken off the check queue with the change behind it */
  checkNow(w: Watched, cause: number | undefined, routeQuote: QuotesChanged | undefined): QuotesChanged | undefined {
    this.checks.delete(w);
    w.checkCause = undefined;
    return this.check(w, cause, routeQuote);
  }

  /**
   * A check of the tuple's candidate paths against its route, after a change of a pool on
   * either. The float estimate (the route search's own guide) picks the candidates that compare
   * better with the route than they did when it was chosen, by more than RESEARCH_GAIN
   * (comparing with the ratio at search time cancels the estimate's own bias; the route is
   * estimated the same way when it is a single path, and taken at its last exact amounts when it
   * is a split). Those are priced exactly on the current pools:
   *   - the best of them, when it beats the route's last exact quote, becomes the route at once
   *     and its quote is returned (pushed now; see switchTo);
   *   - when none does, the estimate erred: their ratios are taken as they are now (the same
   *     estimate does not fire again) and a search queued for an earlier gain is withdrawn.
   * A tuple whose route cannot be estimated is queued for a search; one without a route, see
   * checkWithoutRoute.
   */
  check(w: Watched, cause: number | undefined, routeQuote: QuotesChanged | undefined): QuotesChanged | undefined {
    this.counters.checks++;
    if (!w.route) return this.checkWithoutRoute(w, cause);
    const exactIn = w.mode === 'ExactIn';
    const last = routeQuote !== undefined && routeQuote.error === undefined ? routeQuote : undefined;
    const current = last ? this.routeEstimate(w, last) : undefined;
    if (current === undefined || !(current > 0)) {
      this.queue.queueForGain(w, cause);
      return undefined;
    }
    const gain = gainingOnRoute(w, current);
    if (gain === undefined) {
      this.queue.unqueue(w);
      return undefined;
    }
    // the route's exact amount on the current pools (no replay is pending: see the scheduler)
    const routeAmount = BigInt(exactIn ? last!.amountOut : last!.amountIn);
    const best = priceExactly(w, gain.gaining.map((i) => w.cands[i]), this.poolLookup);
    if (best !== undefined && (exactIn ? best.amountOut > routeAmount : best.amountIn < routeAmount)) return this.switchTo(w, best, cause);
    for (let i = 0; i < gain.gaining.length; i++) w.candRatio[gain.gaining[i]] = gain.ratios[i];
    this.queue.unqueue(w);
    return undefined;
  }

  /**
   * A check of a tuple without a route: its last search found none. Only the candidates whose
   * estimate gained since then (see gainingWithoutRoute) are priced exactly:
   *   - the best that carries the amount becomes the route at once (a switch, see switchTo);
   *   - when each of them gives nothing out (a dust amount: the float estimate sees a fraction of
   *     a unit that the program's integer math rounds to zero), no search could do better (an
   *     output does not grow when the amount is split): their estimates now are the new baseline
   *     and nothing is queued;
   *   - else (a pool cannot fill the amount: a split of paths might) a full search is queued.
   * Searching such dust tuples again whenever an estimate rose took most of the background
   * searches and almost never found a route (docs/live-stream.md).
   */
  private checkWithoutRoute(w: Watched, cause: number | undefined): QuotesChanged | undefined {
    const gaining = gainingWithoutRoute(w);
    if (gaining === undefined) {
      this.queue.unqueue(w);
      return undefined;
    }
    const paths = gaining.map((i) => w.cands[i]);
    const best = priceExactly(w, paths, this.poolLookup);
    if (best !== undefined) return this.switchTo(w, best, cause);
    if (paths.every((c) => c.failedFor === 'zero-output')) {
      for (const i of gaining) w.candRatio[i] = w.candEst.estimate(i) ?? 0;
      this.queue.unqueue(w);
    } else this.queue.queueForGain(w, cause);
    return undefined;
  }

  /**
   * A check's switch: the candidate path `route` becomes the tuple's route; its quote is pushed
   * now. What a full search adds to the best candidate path is mostly a split, and a split wins
   * back at most about half the path's price impact (impactBps is net of fees): a background
   * search refines the switch only when that can beat RESEARCH_GAIN.
   */
  switchTo(w: Watched, route: Route, cause: number | undefined): QuotesChanged {
    this.counters.switches++;
    const q = this.adopt(w, route);
    if (q.priceImpactBps / 10_000 / 2 > RESEARCH_GAIN) this.queue.queueForGain(w, cause);
    else this.queue.unqueue(w);
    return q;
  }

  /**
   * The tuple's candidate paths searched again on the current pools (the route search's first
   * step, not its split search): when they differ from those of its last search, the new ones
   * replace them and are checked against the route at once (a path new to them compares with the
   * route from scratch; a path it had keeps how it compared). Returns the switch's quote, if one
   * priced better than the route. Not for a tuple with a replay, check or search pending (they
   * come first), nor one without a route (see checkWithoutRoute).
   */
  refreshCandidates(w: Watched): QuotesChanged | undefined {
    if (!w.route || w.last === undefined || w.last.error !== undefined) return undefined;
    if (this.pending.has(w) || this.checks.has(w) || this.queue.has(w.key)) return undefined;
    this.counters.refreshes++;
    const cands = candidatesOf(candidatePathsOn(this.pools(), this.request(w), MAX_CANDIDATES), this.pathLists);
    const keyOf = (c: CandidatePath): string => c.pools.join(',');
    const kept = new Map<string, number>();
    w.cands.forEach((c, i) => kept.set(keyOf(c), w.candRatio[i]));
    if (cands.length === w.cands.length && cands.every((c) => kept.has(keyOf(c)))) return undefined;
    this.setCandidates(w, cands);
    w.candRatio = cands.map((c) => kept.get(keyOf(c)) ?? 1);
    this.indexCandidates(w, new Set(w.routeDeps));
    return this.check(w, Date.now(), w.last);
  }

  /** float estimates of these paths for the tuple's amount and mode */
  private estimates(w: Watched, paths: readonly EstimablePath[]): PathEstimates {
    return new PathEstimates(paths, this.poolStamps, Number(w.amount), w.mode === 'ExactIn');
  }

  /** the route's estimate: a single path's float guide, a split's last exact amounts (`quote`: the last quote) */
  private routeEstimate(w: Watched, quote: QuotesChanged | undefined = w.last): number | undefined {
    const r = w.route;
    if (!r) return undefined;
    if (w.routeEst) return w.routeEst.estimate(0);
    const last = quote && quote.error === undefined ? quote : undefined;
    const exact = w.mode === 'ExactIn' ? (last?.amountOut ?? r.amountOut.toString()) : (last?.amountIn ?? r.amountIn.toString());
    return Number(exact);
  }

  // ---- what is pushed ----

  /** the tuple's quote of these amounts and fields on the current projection */
  private quote(w: Watched, amountIn: bigint, amountOut: bigint, fields: { priceImpactBps: number; hops: number }): QuotesChanged {
    const { priceImpactBps, hops } = fields;
    return { tuple: w.tuple, amountOut: amountOut.toString(), amountIn: amountIn.toString(), priceImpactBps, hops, slot: this.pools().slot };
  }

  /**
   * The quotes-changed record of the tuple's quote (keyed by the tuple): its amounts are the
   * user's, the aggregator fee included as the REST quote includes it (`q` itself, what the checks
   * compare, keeps the route's own amounts).
   */
  message(w: Watched, q: QuotesChanged): LogMessage {
    const feeBps = q.error === undefined && w.route ? feeBpsFor(this.fee, w.route.hops.length) : 0;
    if (feeBps === 0) return { key: w.key, value: encodeQuotesChanged(q) };
    const user = charge(w.mode, BigInt(q.amountIn), BigInt(q.amountOut), feeBps, 0);
    return { key: w.key, value: encodeQuotesChanged({ ...q, amountIn: user.amountIn.toString(), amountOut: user.amountOut.toString() }) };
  }

  /**
   * Diagnostics (the stream benchmark): for every `every`-th live tuple whose last quote has a
   * route, how much better a full search on the current pools quotes it than that last quote, in
   * bp of the search's amount; 0: as good. Runs the searches at once.
   */
  routeGaps(every: number): number[] {
    const gaps: number[] = [];
    let i = 0;
    for (const w of this.watched.values()) {
      if (i++ % every !== 0) continue;
      const last = w.last;
      if (last === undefined || last.error !== undefined) continue;
      let fresh: Route;
      try {
        const req = this.request(w);
        fresh = findBestNetRoute(this.pools(), req, this.fee, optionsOf(req));
      } catch (e) {
        if (!(e instanceof RouteError)) throw e;
        continue;
      }
      // what the last quote loses against the search's route
      gaps.push(Math.max(0, lossOf(w.mode, fresh, last) * 10_000));
    }
    return gaps;
  }
}
