/**
 * The layered DP of the candidate search (see candidate-paths.ts): from a start token, layer by
 * layer, the best few partial paths per token, pruned by the zero-size rate tables' completion
 * bounds and a beam, complete paths collected. Floating point, a guide only. Pure.
 */
import type { Pool } from '../pool';
import { at, type Compiled } from './compiled-graph';
import { guideIn, guideOut } from './compiled-pools';

/** A partial path as a linked list from the start token. */
export interface Node {
  token: number;
  /** ExactIn: amount of `token` held; ExactOut: amount of `token` needed */
  amount: number;
  /** higher is better: amount (ExactIn) or -amount (ExactOut) */
  score: number;
  hops: number;
  pool: Pool | null;
  prev: Node | null;
}

/**
 * slack of the pruning bound: a partial path is dropped when even its zero-impact completion
 * falls short of the best complete estimate by more than this share (covers fee rates reported
 * rounded to the basis point and float noise)
 */
const PRUNE_SLACK = 1e-4;

/**
 * Whether a float output is the whole of what the pool can pay out of `outputMint`: a
 * concentrated pool pushed past the end of its liquidity (or of its loaded tick arrays) cannot
 * take the input exactly, its guide just stops growing. Constant-product pools never get there;
 * a bonding curve's buy takes what the rest of the curve costs out of the input (a budget) and
 * pays out the rest of the curve, so it fills.
 */
function saturated(pool: Pool, outputMint: string, amountOut: number): boolean {
  return pool.kind === 'concentrated-liquidity' && !(amountOut < pool.reserve(outputMint) * (1 - 1e-9));
}

/** the k-th largest of vals[0 .. m) (1-based k ≤ m), by quickselect; reorders vals */
function kthLargest(vals: Float64Array, m: number, k: number): number {
  let lo = 0;
  let hi = m - 1;
  const want = k - 1;
  while (lo < hi) {
    const pivot = vals[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (vals[i] > pivot) i++;
      while (vals[j] < pivot) j--;
      if (i <= j) {
        const t = vals[i];
        vals[i] = vals[j];
        vals[j] = t;
        i++;
        j--;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else return vals[want];
  }
  return vals[want];
}

/** list.splice(i, 1) without the array of removed elements */
function removeAt<T>(list: T[], i: number): void {
  for (let m = i + 1; m < list.length; m++) list[m - 1] = list[m];
  list.length--;
}

/** list.splice(i, 0, x) without the array of removed elements */
function insertAt<T>(list: T[], i: number, x: T): void {
  list.push(x);
  for (let m = list.length - 1; m > i; m--) list[m] = list[m - 1];
  list[i] = x;
}

/** whether two partial paths walk the same tokens (same length by construction of a layer) */
function sameTokens(a: Node | null, b: Node | null): boolean {
  while (a !== null && b !== null) {
    if (a === b) return true;
    if (a.token !== b.token) return false;
    a = a.prev;
    b = b.prev;
  }
  return a === b;
}

/**
 * One layered DP from `root` up to `maxHops` hops (see findCandidatePaths); complete paths of
 * at least `minHops` hops are pushed to `complete`. `bound` (score units: higher is better) prunes partial paths within
 * reach of the rate tables; `raise`: complete paths found raise it.
 */
export function layered(
  c: Compiled,
  root: Node,
  target: number,
  maxHops: number,
  k: number,
  exactIn: boolean,
  tables: Float64Array[],
  complete: Node[],
  bound: number,
  raise: boolean,
  beam: number,
  minHops: number,
): void {
  const mints = c.mints;
  const slack = (s: number): number => s - PRUNE_SLACK * Math.abs(s);
  const finish = (node: Node): void => {
    if (node.hops < minHops) return;
    complete.push(node);
    if (raise && node.score > bound) bound = node.score;
  };
  // best score per token over all shorter hop counts (a longer partial path that is not better
  // than a shorter one at the same token is not worth extending), and the index of a token's
  // list in the next layer; both restored on the way out
  let { best: bestSeen, index: nextIndex } = c.scratch(mints.length);
  const grow = (u: number): void => {
    ({ best: bestSeen, index: nextIndex } = c.scratch(u + 1));
  };
  const seenTokens: number[] = [];
  const indexed: number[] = [];
  // a layer token's nodes within the bound (reused; at most k)
  const kept: Node[] = [];
  try {
    let layerTokens: number[] = [root.token];
    let layerLists: Node[][] = [[root]];
    for (let h = 1; h <= maxHops && layerTokens.length > 0; h++) {
      const left = maxHops - h; // hops left after this one
      const nextTokens: number[] = [];
      const nextLists: Node[][] = [];
      if (left === 0) {
        // last hop: only pools of the target matter; scan them instead of every layer token's pools
        for (let li = 0; li < layerTokens.length; li++) {
          nextIndex[layerTokens[li]] = li;
          indexed.push(layerTokens[li]);
        }
        const ta = c.adj(target);
        if (!c.exact) c.refreshStale(ta, target);
        const tpools = ta.pools;
        const tothers = ta.others;
        // trades into the target (ExactIn: from the other mint) or out of it (ExactOut, backwards)
        const tguide = exactIn ? ta.guideIn : ta.guideOut;
        for (let j = 0; j < tpools.length; j++) {
          const o = tothers[j];
          const li = o < nextIndex.length ? nextIndex[o] : -1;
          if (li < 0) continue;
          const pool = tpools[j];
          const cp = ta.cp[j] === 1;
          for (const node of layerLists[li]) {
            const amount = cp
              ? exactIn
                ? guideOut(tguide, 4 * j, node.amount)
                : guideIn(tguide, 4 * j, node.amount)
              : exactIn
                ? pool.approxOut(mints[o], node.amount)
                : pool.approxIn(mints[target], node.amount);
            if (!(amount > 0) || amount === Infinity || (exactIn && !cp && saturated(pool, mints[target], amount))) continue;
            finish({ token: target, amount, score: exactIn ? amount : -amount, hops: h, pool, prev: node });
          }
        }
        for (let li = 0; li < layerTokens.length; li++) nextIndex[layerTokens[li]] = -1;
        break;
      }
      // within two hops of the target the tables tell reach and bound completions; farther, any
      // token may still get there
      const R = left < tables.length ? tables[left] : null;
      const Rhere = left + 1 < tables.length ? tables[left + 1] : null;
      for (let li = 0; li < layerTokens.length; li++) {
        const token = layerTokens[li];
        const mint = mints[token];
        const a = c.adj(token);
        const pools = a.pools;
        const others = a.others;
        const end = pools.length;
        // the nodes still within the bound (it may have risen since they were kept), best first
        let nodes = layerLists[li];
        if (Rhere !== null && h > 1) {
          const Rt = at(Rhere, token);
          const floor = slack(bound);
          // into a reused array (the layer's list stays as it is)
          const all = nodes;
          kept.length = 0;
          for (let i = 0; i < all.length; i++) {
            const node = all[i];
            if ((exactIn ? node.amount * Rt : -(node.amount / Rt)) >= floor) kept.push(node);
          }
          if (kept.length === 0) continue;
          nodes = kept;
        }
        // ExactIn: the most held; ExactOut: the least needed (lists are kept best first)
        const lead = nodes[0].amount;
        // the zero-size rates of the token's pools in the walk's direction, up to date
        if (!c.exact) c.refreshStale(a, token);
        const hopRates = exactIn ? a.rateOut : a.rateIn;
        // ExactIn trades from the token to u; ExactOut, walking backwards, from u to the token
        const guide = exactIn ? a.guideOut : a.guideIn;
        const Rlen = R === null ? 0 : R.length;
        // zero-size bound of the best completion through a pool (ExactIn: the hop token → u;
        // ExactOut, walking backwards: u → token), for the token's best node: below `cut`, the
        // pool is skipped for all of them
        let cut = slack(bound);
        let picked: Int32Array | null = null;
        let count = end;
        if (R !== null && end > beam) {
          // a hub: only the `beam` pools with the best completion bounds are evaluated (the
          // beam would drop what the others lead to)
          const vals = c.floats(end);
          const idx = c.ints(end);
          let m = 0;
          for (let j = 0; j < end; j++) {
            const o = others[j];
            const r = o < Rlen ? R[o] : 0;
            if (!(r > 0)) continue;
            const hop = hopRates[j];
            const v = exactIn ? lead * hop * r : -(lead / hop / r);
            if (v >= cut) {
              vals[m] = v;
              idx[m++] = j;
            }
          }
          if (m > beam) {
            const sorted = c.floats(2 * end).subarray(end, end + m);
            sorted.set(vals.subarray(0, m));
            cut = kthLargest(sorted, m, beam);
            let w = 0;
            for (let i = 0; i < m; i++) if (vals[i] >= cut) idx[w++] = idx[i];
            m = w;
          }
          // the scratch itself: nothing else takes c.ints() until this token's pools are done
          picked = idx;
          count = m;
        }
        for (let e = 0; e < count; e++) {
          const j = picked === null ? e : picked[e];
          const u = others[j];
          let r = 0;
          if (R !== null) {
            r = u < Rlen ? R[u] : 0;
            if (!(r > 0)) continue;
            if (picked === null) {
              const hop = hopRates[j];
              if (!((exactIn ? lead * hop * r : -(lead / hop / r)) >= cut)) continue;
            }
          }
          const pool = pools[j];
          const cp = a.cp[j] === 1;
          for (const node of nodes) {
            let seen = false;
            for (let x: Node | null = node; x !== null; x = x.prev) {
              if (x.token === u) {
                seen = true;
                break;
              }
            }
            if (seen) continue;
            let amount: number;
            if (exactIn) {
              if (cp) amount = guideOut(guide, 4 * j, node.amount);
              else {
                amount = pool.approxOut(mint, node.amount);
                if (saturated(pool, mints[u], amount)) continue;
              }
              if (!(amount > 0)) continue;
            } else {
              amount = cp ? guideIn(guide, 4 * j, node.amount) : pool.approxIn(mints[u], node.amount);
              if (!(amount > 0) || amount === Infinity) continue;
            }
            // score: higher is better in both modes
            const score = exactIn ? amount : -amount;
            if (u === target) {
              finish({ token: u, amount, score, hops: h, pool, prev: node });
              continue;
            }
            if (u >= bestSeen.length) grow(u);
            if (!(score > bestSeen[u])) continue;
            // the same bound with this hop's price impact
            if (R !== null && !((exactIn ? amount * r : -(amount / r)) >= slack(bound))) continue;
            let idx = nextIndex[u];
            let list: Node[];
            if (idx < 0) {
              idx = nextTokens.length;
              nextIndex[u] = idx;
              indexed.push(u);
              nextTokens.push(u);
              nextLists.push((list = []));
            } else list = nextLists[idx];
            // insert into the list kept best-first, capped at k, one entry per token sequence: a
            // second pool sequence over the same tokens would crowd out a different path (the
            // flow graph adds a pair's parallel pools anyway)
            let i = list.length;
            while (i > 0 && score > list[i - 1].score) i--;
            if (i >= k) continue;
            let twin = -1;
            for (let m = 0; m < list.length; m++) {
              if (sameTokens(list[m].prev, node)) {
                twin = m;
                break;
              }
            }
            if (twin >= 0 && twin < i) continue; // the same tokens already, with a better pool sequence
            if (twin >= 0) removeAt(list, twin);
            else if (list.length >= k) list.pop();
            insertAt(list, i, { token: u, amount, score, hops: h, pool, prev: node });
          }
        }
      }
      // beam: where the rate tables make tokens comparable (their best node's zero-size bound
      // in target units), at most `beam` tokens go on to the next layer
      if (R !== null && nextTokens.length > beam) {
        const opt = nextTokens.map((u, i) => {
          const x = nextLists[i][0].amount;
          const r = at(R, u);
          return exactIn ? x * r : -(x / r);
        });
        const order = nextTokens.map((_, i) => i).sort((x, y) => opt[y] - opt[x] || nextTokens[x] - nextTokens[y]);
        for (const u of nextTokens) nextIndex[u] = -1;
        const keep = order.slice(0, beam).sort((x, y) => x - y);
        const tokens = keep.map((i) => nextTokens[i]);
        const lists = keep.map((i) => nextLists[i]);
        nextTokens.length = 0;
        nextLists.length = 0;
        nextTokens.push(...tokens);
        nextLists.push(...lists);
      }
      for (let i = 0; i < nextTokens.length; i++) {
        const u = nextTokens[i];
        nextIndex[u] = -1;
        const top = nextLists[i][0].score;
        if (bestSeen[u] === -Infinity) seenTokens.push(u);
        if (top > bestSeen[u]) bestSeen[u] = top;
      }
      layerTokens = nextTokens;
      layerLists = nextLists;
    }
  } finally {
    // the scratch arrays go back as they came, whatever happened
    for (const u of seenTokens) bestSeen[u] = -Infinity;
    for (const u of indexed) nextIndex[u] = -1;
  }
}
