/**
 * Exact prices of a single path: every amount of the route from the pools' integer math
 * (`quoteExactIn` / `quoteExactOut`) hop by hop, ExactOut backwards; and, for a candidate's
 * token path, the parallel pools whose exact quotes are best at every hop. Pure.
 */
import { PoolQuoteError, type HopQuote, type Pool } from '../pool';
import type { Compiled } from './compiled-graph';
import type { CandidatePath, Route, RouteHop, SwapMode } from './types';

/**
 * Price one path exactly. ExactIn: forwards, each hop's exact output is the next hop's input.
 * ExactOut: backwards from the requested output, each hop's exact input is the previous hop's
 * required output. Throws PoolQuoteError when a hop cannot fill.
 */
export function evaluatePath(path: { readonly pools: readonly Pool[]; readonly mints: readonly string[] }, mode: SwapMode, amount: bigint): Route {
  const n = path.pools.length;
  const quotes: HopQuote[] = new Array(n);
  const given: bigint[] = new Array(n);
  if (mode === 'ExactIn') {
    let a = amount;
    for (let i = 0; i < n; i++) {
      given[i] = a;
      const q = path.pools[i].quoteExactIn(path.mints[i], a);
      if (q.amountOut <= 0n) throw new PoolQuoteError('zero-output', `hop ${i + 1} returns nothing`);
      quotes[i] = q;
      a = q.amountOut;
    }
  } else {
    let a = amount;
    for (let i = n - 1; i >= 0; i--) {
      const q = path.pools[i].quoteExactOut(path.mints[i], a);
      quotes[i] = q;
      a = q.amountIn;
    }
  }
  const hops: RouteHop[] = quotes.map((q, i) => ({
    pool: path.pools[i],
    inputMint: path.mints[i],
    outputMint: path.mints[i + 1],
    amountGiven: mode === 'ExactIn' ? given[i] : q.amountIn,
    amountIn: q.amountIn,
    amountOut: q.amountOut,
    feeAmount: q.feeAmount,
  }));
  return {
    mode,
    inputMint: path.mints[0],
    outputMint: path.mints[n],
    amountIn: hops[0].amountIn,
    amountOut: hops[n - 1].amountOut,
    hops,
  };
}

/** parallel pools of a hop whose exact quotes exactPools compares at most */
const PARALLEL_EXACT = 8;

/**
 * The candidate's token path with, at every hop, the parallel pool whose exact quote is best for
 * what the hop carries (ExactIn forwards: the most output for the hop's input; ExactOut backwards:
 * the least input for the hop's output). Every pool's quote is monotone in its amount, so this is
 * the best exact pool sequence over those tokens; the float guide alone can pick another one where
 * the integer rounding of small amounts decides. Beyond PARALLEL_EXACT parallel pools, the
 * candidate's own and those with the best float quotes are compared.
 */
export function exactPools(c: Compiled, cand: CandidatePath, mode: SwapMode, amount: bigint): CandidatePath {
  const n = cand.pools.length;
  const pools = cand.pools.slice();
  const options = (i: number, floatAmount: number): readonly Pool[] => {
    const all = c.pairPools(c.id(cand.mints[i]), c.id(cand.mints[i + 1]));
    if (all.length <= PARALLEL_EXACT) return all;
    const from = cand.mints[i];
    const scored = all.map((q) => ({ q, v: mode === 'ExactIn' ? q.approxOut(from, floatAmount) : -q.approxIn(from, floatAmount) }));
    scored.sort((x, y) => y.v - x.v);
    const picked = scored.slice(0, PARALLEL_EXACT - 1).map((x) => x.q);
    if (!picked.includes(cand.pools[i])) picked.push(cand.pools[i]);
    return picked;
  };
  if (mode === 'ExactIn') {
    let a = amount;
    for (let i = 0; i < n; i++) {
      let best: bigint = -1n;
      for (const q of options(i, Number(a))) {
        try {
          const out = q.quoteExactIn(cand.mints[i], a).amountOut;
          if (out > best || (out === best && q === cand.pools[i])) {
            best = out;
            pools[i] = q;
          }
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
        }
      }
      // no pool fills the hop: evaluatePath reports the candidate's own failure
      if (best <= 0n) return { ...cand, pools };
      a = best;
    }
  } else {
    let b = amount;
    for (let i = n - 1; i >= 0; i--) {
      let best: bigint | null = null;
      for (const q of options(i, Number(b))) {
        try {
          const inn = q.quoteExactOut(cand.mints[i], b).amountIn;
          if (best === null || inn < best || (inn === best && q === cand.pools[i])) {
            best = inn;
            pools[i] = q;
          }
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
        }
      }
      if (best === null) return { ...cand, pools };
      b = best;
    }
  }
  return { ...cand, pools };
}
