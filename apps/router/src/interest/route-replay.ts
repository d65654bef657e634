/**
 * Re-price a route found earlier on the CURRENT pools, exactly, without searching again: the
 * same pools and the same division of the flow at every token, with each pool's own integer
 * math. This is what the live stream does between full route searches: a push is always an
 * exact quote of the current state (along a route at most one search old), and it costs a few
 * pool quotes instead of a route search.
 *
 * Works for a single path and for a split route (a flow graph whose hops are its edges):
 *   - ExactIn, forwards in topological order of the tokens: the amount now held in a token is
 *     divided among its outgoing hops in proportion to what each was given at search time;
 *   - ExactOut, backwards: the amount now needed of a token is divided among its incoming hops
 *     in proportion to what each delivered at search time.
 * Parts are floored with the remainder to the largest share, so on unchanged pools the replay
 * gives back exactly the route it started from.
 *
 * A pool object is immutable (a change of its accounts makes a new one) and its quotes are pure
 * functions of (pool, input mint, amount), so a ReplayMemo, kept per route between replays,
 * hands back the previous quote of a hop whose pool is the same object and whose amount is the
 * same: a replay after a change of one pool of a route recomputes only the hops that change
 * touches (in ExactIn, that pool and the hops its output feeds; in ExactOut, that pool and the
 * hops feeding it). Plain TypeScript: no Nest, no log.
 */
import { PoolQuoteError, type HopQuote, type Pool } from '@app/amm';
import type { Route, RouteHop } from '@app/amm';
import { hopIdeal } from './quote-fields';

/** the current pool at an address, undefined when it is no longer routable */
export type PoolLookup = (address: string) => Pool | undefined;

/**
 * the last quote of each hop of a route: hop i's pool object, the amount it was asked and its
 * answer at 3i, 3i + 1 and 3i + 2 (one flat array per route, no object per hop: the memos of all
 * watched routes live as long as their tuples, and every object in them is one more for each
 * major collection to mark)
 */
export type ReplayMemo = Array<Pool | bigint | HopQuote | undefined>;

/** hop `i`'s exact quote: the memo's when the same pool object was asked the same amount */
function hopQuote(memo: ReplayMemo | undefined, i: number, pool: Pool, inputMint: string, amount: bigint, exactIn: boolean): HopQuote {
  const at = 3 * i;
  if (memo !== undefined && memo[at] === pool && memo[at + 1] === amount) return memo[at + 2] as HopQuote;
  const quote = exactIn ? pool.quoteExactIn(inputMint, amount) : pool.quoteExactOut(inputMint, amount);
  // the memo is the route's own (never shared): refreshed in place
  if (memo !== undefined) {
    // a hop before this one not quoted yet (an ExactOut walk fills the last hop first) is a hole until it is
    while (memo.length < at) memo.push(undefined);
    memo[at] = pool;
    memo[at + 1] = amount;
    memo[at + 2] = quote;
  }
  return quote;
}

/** Thrown when a hop's pool left the graph; the route must be searched again. */
export class PoolGoneError extends Error {
  constructor(readonly address: string) {
    super(`pool ${address} is no longer routable`);
    this.name = 'PoolGoneError';
  }
}

/** tokens of the route in topological order (input mint first), from its hops */
function tokenOrder(route: Route): string[] {
  const indegree = new Map<string, number>();
  const outs = new Map<string, string[]>();
  for (const h of route.hops) {
    indegree.set(h.outputMint, (indegree.get(h.outputMint) ?? 0) + 1);
    if (!indegree.has(h.inputMint)) indegree.set(h.inputMint, 0);
    const o = outs.get(h.inputMint);
    if (o) o.push(h.outputMint);
    else outs.set(h.inputMint, [h.outputMint]);
  }
  const order: string[] = [];
  const ready = [...indegree].filter(([, d]) => d === 0).map(([t]) => t);
  while (ready.length > 0) {
    const t = ready.shift()!;
    order.push(t);
    for (const next of outs.get(t) ?? []) {
      const d = indegree.get(next)! - 1;
      indegree.set(next, d);
      if (d === 0) ready.push(next);
    }
  }
  if (order.length !== indegree.size) throw new Error('route hops contain a cycle');
  return order;
}

/** divide `total` in proportion to `weights` (floor each, remainder to the largest weight) */
export function divideLike(total: bigint, weights: readonly bigint[]): bigint[] {
  // one share takes it all (a token with one hop: most tokens of a split)
  if (weights.length === 1) return [total];
  let sum = 0n;
  for (const w of weights) sum += w;
  if (sum === 0n) {
    const parts = weights.map(() => 0n);
    if (parts.length > 0) parts[0] = total;
    return parts;
  }
  const parts = weights.map((w) => (total * w) / sum);
  let given = 0n;
  let big = 0;
  for (let i = 0; i < parts.length; i++) {
    given += parts[i];
    if (weights[i] > weights[big]) big = i;
  }
  parts[big] += total - given;
  return parts;
}

/** what a replay needs from a route's shape, computed once per route (see replayRoute) */
export interface ReplayPlan {
  /** the hops form one path (each hop takes what the previous one gave): replayed hop by hop */
  single: boolean;
  /**
   * the per-token bookkeeping of the general replay: planned with a split; for a single path on
   * first use only (its replays take it only in rare cases, see replayPath), as most watched
   * routes are single paths and this is most of a plan's memory
   */
  flow?: FlowPlan;
}

/** the token positions and divisions of the general replay (see walkFlow) */
export interface FlowPlan {
  /** the route's tokens in topological order (input mint first) */
  order: string[];
  /** positions in `order` of the input and output mints */
  inputAt: number;
  outputAt: number;
  /** per hop: positions in `order` of its input and output token */
  from: number[];
  to: number[];
  /** per token position: the hops leaving it and what each was given at search time (the ExactIn division) */
  outs: number[][];
  outWeights: bigint[][];
  /** per token position: the hops entering it and what each delivered at search time (the ExactOut division) */
  ins: number[][];
  inWeights: bigint[][];
}

/** the route's hops form one path: each takes what the previous one gave */
export function isSinglePath(route: Route): boolean {
  return route.hops.every((h, i) => i === 0 || h.inputMint === route.hops[i - 1].outputMint);
}

export function planReplay(route: Route): ReplayPlan {
  const single = isSinglePath(route);
  return single ? { single } : { single, flow: planFlow(route) };
}

/** the plan's general bookkeeping, planned now when it was left for first use */
function flowOf(route: Route, plan: ReplayPlan): FlowPlan {
  return (plan.flow ??= planFlow(route));
}

function planFlow(route: Route): FlowPlan {
  const hops = route.hops;
  const order = tokenOrder(route);
  const at = new Map(order.map((t, i) => [t, i]));
  const from = hops.map((h) => at.get(h.inputMint)!);
  const to = hops.map((h) => at.get(h.outputMint)!);
  const outs = order.map((_, t) => hops.flatMap((_h, i) => (from[i] === t ? [i] : [])));
  const ins = order.map((_, t) => hops.flatMap((_h, i) => (to[i] === t ? [i] : [])));
  return {
    order,
    inputAt: at.get(route.inputMint) ?? 0,
    outputAt: at.get(route.outputMint) ?? order.length - 1,
    from,
    to,
    outs,
    outWeights: outs.map((l) => l.map((i) => hops[i].amountGiven)),
    ins,
    inWeights: ins.map((l) => l.map((i) => hops[i].amountOut)),
  };
}

/**
 * The route re-priced on the current pools for the same requested `amount` (ExactIn: input;
 * ExactOut: output). Throws PoolGoneError when a pool left the graph and PoolQuoteError when a
 * hop cannot fill its part any more. `memo`: the route's previous hop quotes (see ReplayMemo),
 * refreshed with this replay's.
 */
export function replayRoute(route: Route, amount: bigint, poolAt: PoolLookup, plan: ReplayPlan = planReplay(route), memo?: ReplayMemo): Route {
  if (plan.single && amount > 0n) {
    const r = replayPath(route, amount, poolAt, memo);
    if (r) return r;
  }
  const fp = flowOf(route, plan);
  const { order, from, to } = fp;
  const pools = currentPools(route, poolAt);
  const flow = walkFlow(route, amount, pools, fp, memo);
  const hops: RouteHop[] = [];
  for (let i = 0; i < route.hops.length; i++) {
    const q = flow.quotes[i];
    if (q === undefined) continue;
    hops.push({ pool: pools[i], inputMint: order[from[i]], outputMint: order[to[i]], amountGiven: flow.given[i], amountIn: q.amountIn, amountOut: q.amountOut, feeAmount: q.feeAmount });
  }
  return { mode: route.mode, inputMint: route.inputMint, outputMint: route.outputMint, amountIn: flow.amountIn, amountOut: flow.amountOut, hops };
}

/** the general flow bookkeeping of a replay (see walkFlow) */
interface Flow {
  /** per hop: its quote, undefined for a hop given nothing (left out of the replayed route) */
  quotes: (HopQuote | undefined)[];
  /** per hop: what it was given (ExactIn: its part of the flow; ExactOut: what it asks for) */
  given: bigint[];
  amountIn: bigint;
  amountOut: bigint;
}

/**
 * The route's hops quoted on `pools` through the plan's token positions: ExactIn forwards, the
 * amount held in a token divided among its outgoing hops like their search-time inputs; ExactOut
 * backwards, the amount needed of a token divided among its incoming hops like their search-time
 * outputs. amountIn: ExactIn, what the hops leaving the input mint took; ExactOut, what the input
 * mint must give.
 */
function walkFlow(route: Route, amount: bigint, pools: Pool[], plan: FlowPlan, memo: ReplayMemo | undefined): Flow {
  const { order, from, to } = plan;
  const n = route.hops.length;
  const quotes: (HopQuote | undefined)[] = new Array(n).fill(undefined);
  const given: bigint[] = new Array(n);
  // per token position: the amount held (ExactIn) or needed (ExactOut)
  const amounts: bigint[] = new Array(order.length).fill(0n);
  if (route.mode === 'ExactIn') {
    amounts[plan.inputAt] = amount;
    for (let t = 0; t < order.length; t++) {
      const total = amounts[t];
      const outs = plan.outs[t];
      if (outs.length === 0 || total === 0n) continue;
      const parts = divideLike(total, plan.outWeights[t]);
      for (let k = 0; k < outs.length; k++) {
        if (parts[k] === 0n) continue;
        const i = outs[k];
        const q = hopQuote(memo, i, pools[i], order[t], parts[k], true);
        if (q.amountOut <= 0n) throw new PoolQuoteError('zero-output', `pool ${pools[i].address} returns nothing`);
        amounts[to[i]] += q.amountOut;
        quotes[i] = q;
        given[i] = parts[k];
      }
    }
    let spent = 0n;
    for (let i = 0; i < n; i++) if (quotes[i] !== undefined && order[from[i]] === route.inputMint) spent += quotes[i]!.amountIn;
    return { quotes, given, amountIn: spent, amountOut: amounts[plan.outputAt] };
  }
  amounts[plan.outputAt] = amount;
  let delivered = 0n;
  for (let t = order.length - 1; t >= 0; t--) {
    const total = amounts[t];
    const ins = plan.ins[t];
    if (ins.length === 0 || total === 0n) continue;
    const parts = divideLike(total, plan.inWeights[t]);
    for (let k = 0; k < ins.length; k++) {
      if (parts[k] === 0n) continue;
      const i = ins[k];
      const q = hopQuote(memo, i, pools[i], order[from[i]], parts[k], false);
      amounts[from[i]] += q.amountIn;
      if (t === plan.outputAt) delivered += q.amountOut;
      quotes[i] = q;
      given[i] = q.amountIn;
    }
  }
  return { quotes, given, amountIn: amounts[plan.inputAt], amountOut: delivered };
}

/** the current pool of each hop of the route; PoolGoneError when one left the graph */
function currentPools(route: Route, poolAt: PoolLookup): Pool[] {
  const n = route.hops.length;
  const pools: Pool[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const p = poolAt(route.hops[i].pool.address);
    if (!p) throw new PoolGoneError(route.hops[i].pool.address);
    pools[i] = p;
  }
  return pools;
}

/**
 * The hops of a single path quoted in order on `pools` (ExactIn forwards, ExactOut backwards):
 * `quotes` is filled per hop. False when an ExactOut hop would be asked for nothing (the general
 * bookkeeping handles that: it leaves the hops before it out).
 */
function walkPath(route: Route, amount: bigint, pools: Pool[], memo: ReplayMemo | undefined, quotes: HopQuote[]): boolean {
  const n = route.hops.length;
  if (route.mode === 'ExactIn') {
    let a = amount;
    for (let i = 0; i < n; i++) {
      const q = hopQuote(memo, i, pools[i], route.hops[i].inputMint, a, true);
      if (q.amountOut <= 0n) throw new PoolQuoteError('zero-output', `pool ${pools[i].address} returns nothing`);
      quotes[i] = q;
      a = q.amountOut;
    }
    return true;
  }
  let need = amount;
  for (let i = n - 1; i >= 0; i--) {
    if (need === 0n) return false;
    const q = hopQuote(memo, i, pools[i], route.hops[i].inputMint, need, false);
    quotes[i] = q;
    need = q.amountIn;
  }
  return true;
}

/**
 * replayRoute for a single path: the same result (every division of a single flow gives the
 * whole amount to its one hop) without the per-token bookkeeping; null for the general path
 */
function replayPath(route: Route, amount: bigint, poolAt: PoolLookup, memo: ReplayMemo | undefined): Route | null {
  const n = route.hops.length;
  const pools = currentPools(route, poolAt);
  const quotes: HopQuote[] = new Array(n);
  if (!walkPath(route, amount, pools, memo, quotes)) return null;
  const hops: RouteHop[] = new Array(n);
  const exactIn = route.mode === 'ExactIn';
  for (let i = 0; i < n; i++) {
    const h = route.hops[i];
    const q = quotes[i];
    // ExactIn: each hop is given what the previous one gave; ExactOut: what it asks for
    const given = !exactIn ? q.amountIn : i === 0 ? amount : quotes[i - 1].amountOut;
    hops[i] = { pool: pools[i], inputMint: h.inputMint, outputMint: h.outputMint, amountGiven: given, amountIn: q.amountIn, amountOut: q.amountOut, feeAmount: q.feeAmount };
  }
  return { mode: route.mode, inputMint: route.inputMint, outputMint: route.outputMint, amountIn: quotes[0].amountIn, amountOut: quotes[n - 1].amountOut, hops };
}

/** what a pushed quote needs of a replayed single path (see replayPathQuote) */
export interface PathQuote {
  amountIn: bigint;
  amountOut: bigint;
  /** the path's price per unit of input at zero size (quote-fields pathIdeal of the replayed route) */
  ideal: number;
}

/**
 * The amounts and zero-size price of replayRoute(route, amount, …) for a single path (plan.single),
 * without building the route: what the live stream pushes after each change. Same errors; null
 * where replayRoute takes its general path (amount 0, an ExactOut hop asked for nothing).
 */
export function replayPathQuote(route: Route, amount: bigint, poolAt: PoolLookup, memo?: ReplayMemo): PathQuote | null {
  if (amount <= 0n) return null;
  const n = route.hops.length;
  const pools = currentPools(route, poolAt);
  const quotes: HopQuote[] = new Array(n);
  if (!walkPath(route, amount, pools, memo, quotes)) return null;
  // pathIdeal of the replayed route, hop by hop
  let ideal = 1;
  for (let i = 0; i < n; i++) ideal = hopIdeal(ideal, pools[i], route.hops[i].inputMint, quotes[i].amountIn);
  return { amountIn: quotes[0].amountIn, amountOut: quotes[n - 1].amountOut, ideal };
}

/** what a pushed quote needs of any replayed route (see replayQuote) */
export interface RouteQuote extends PathQuote {
  /** hops of the route's main path (quote-fields quoteFields().hops) */
  hops: number;
}

/**
 * The amounts, zero-size price and main-path hop count of replayRoute(route, amount, …) as the
 * live stream pushes them (quoteFields of the replayed route), for a single path or a split,
 * without building the route: the same hop quotes, the same flow division, the same float
 * operations in the same order as routeShares and mainPath on the replayed route, over the
 * plan's token positions instead of maps of mints. Same errors as replayRoute.
 */
export function replayQuote(route: Route, amount: bigint, poolAt: PoolLookup, plan: ReplayPlan = planReplay(route), memo?: ReplayMemo): RouteQuote {
  if (plan.single) {
    const q = replayPathQuote(route, amount, poolAt, memo);
    if (q !== null) return { amountIn: q.amountIn, amountOut: q.amountOut, ideal: q.ideal, hops: route.hops.length };
  }
  const fp = flowOf(route, plan);
  const { order, from, to } = fp;
  const n = route.hops.length;
  const pools = currentPools(route, poolAt);
  const { quotes, amountIn, amountOut } = walkFlow(route, amount, pools, fp, memo);
  // per hop: what it took (undefined: left out, as replayRoute leaves out a hop given nothing)
  const took: (bigint | undefined)[] = quotes.map((q) => q?.amountIn);
  // routeShares of the kept hops, in hop order: each token's outflow divided by what its hops took
  const outTotal: bigint[] = new Array(order.length).fill(0n);
  for (let i = 0; i < n; i++) if (took[i] !== undefined) outTotal[from[i]] += took[i]!;
  const held: number[] = new Array(order.length).fill(0);
  const value: number[] = new Array(order.length).fill(0);
  held[fp.inputAt] = 1;
  value[fp.inputAt] = 1;
  const shares: number[] = new Array(n).fill(0);
  for (let i = 0; i < n; i++) {
    const a = took[i];
    if (a === undefined) continue;
    const total = outTotal[from[i]];
    const f = total > 0n ? Number(a) / Number(total) : 0;
    const s = held[from[i]] * f;
    shares[i] = s;
    held[to[i]] = held[to[i]] + s;
    const pool = pools[i];
    const v = value[from[i]] * f * pool.spotPrice(order[from[i]]) * (1 - pool.feeBps / 10_000);
    value[to[i]] = value[to[i]] + v;
  }
  return { amountIn, amountOut, ideal: value[fp.outputAt], hops: mainPathHops(fp, took, shares) };
}

/**
 * mainPath(route, shares).length - 1 of the kept hops, over token positions: from the input, to
 * the token its kept hops give the largest share (summed per token; ties: the first reached)
 */
function mainPathHops(plan: FlowPlan, took: readonly (bigint | undefined)[], shares: readonly number[]): number {
  const { from, to } = plan;
  // token positions reached (a route has a few tokens: a list, not a set)
  const seen: number[] = [plan.inputAt];
  let at = plan.inputAt;
  let hops = 0;
  const next: number[] = [];
  const sum: number[] = [];
  while (at !== plan.outputAt) {
    next.length = 0;
    sum.length = 0;
    for (let i = 0; i < from.length; i++) {
      if (took[i] === undefined || from[i] !== at) continue;
      const k = next.indexOf(to[i]);
      if (k < 0) {
        next.push(to[i]);
        sum.push(0 + shares[i]);
      } else sum[k] = sum[k] + shares[i];
    }
    let best = -1;
    let bestShare = -1;
    for (let k = 0; k < next.length; k++) {
      if (sum[k] > bestShare && !seen.includes(next[k])) {
        best = next[k];
        bestShare = sum[k];
      }
    }
    if (best < 0) break;
    seen.push(best);
    at = best;
    hops++;
  }
  return hops;
}
