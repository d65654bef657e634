/**
 * The arithmetic of a check (see QuoteCore.check): which candidate paths the float estimates say
 * gained on the tuple's route by more than RESEARCH_GAIN, and the best of them priced exactly on
 * the current pools. Pure functions of a tuple's state and the pools.
 */
import { evaluatePath, PoolQuoteError, type Pool, type Route } from '@app/amm';
import { RESEARCH_GAIN, estimateRatio, type CandidatePath, type Watched } from './tuple-state';

/**
 * The candidates (by index) whose estimate compares with the route's `current` better than it
 * did at the last search (`candRatio`, at least even) by more than RESEARCH_GAIN, and how they
 * compare now; undefined when none does
 */
export function gainingOnRoute(w: Watched, current: number): { gaining: number[]; ratios: number[] } | undefined {
  let gaining: number[] | undefined;
  let ratios: number[] | undefined;
  const estimates = w.candEst.all();
  const baseline = w.candRatio;
  for (let i = 0; i < w.candEst.count; i++) {
    const e = estimates[i];
    if (e !== e) continue;
    const ratio = estimateRatio(w.mode, e, current);
    if (ratio > Math.max(1, baseline[i]) * (1 + RESEARCH_GAIN)) {
      (gaining ??= []).push(i);
      (ratios ??= []).push(ratio);
    }
  }
  return gaining === undefined ? undefined : { gaining, ratios: ratios! };
}

/**
 * For a tuple without a route: the candidates whose estimate moved in its favour by more than
 * RESEARCH_GAIN since its baseline (`candRatio`: the estimate then; 0: it had none, and gains
 * when it has one); undefined when none did
 */
export function gainingWithoutRoute(w: Watched): number[] | undefined {
  const exactIn = w.mode === 'ExactIn';
  let gaining: number[] | undefined;
  for (let i = 0; i < w.candEst.count; i++) {
    const e = w.candEst.estimate(i);
    const base = w.candRatio[i];
    if (e !== undefined && (base <= 0 ? e > 0 : exactIn ? e > base * (1 + RESEARCH_GAIN) : e * (1 + RESEARCH_GAIN) < base)) (gaining ??= []).push(i);
  }
  return gaining;
}

/**
 * The best of these candidate paths priced exactly on the current pools (undefined: none carries
 * the amount). A path that failed is not tried again on the same pool objects; it keeps why.
 */
export function priceExactly(w: Watched, paths: CandidatePath[], poolAt: (address: string) => Pool | undefined): Route | undefined {
  const exactIn = w.mode === 'ExactIn';
  let best: Route | undefined;
  for (const c of paths) {
    const pools: Pool[] = [];
    for (const a of c.pools) {
      const p = poolAt(a);
      if (p === undefined) break;
      pools.push(p);
    }
    if (pools.length !== c.pools.length) continue;
    const failed = c.failedOn;
    if (failed !== undefined && pools.every((p, i) => p === failed[i])) continue;
    let r: Route;
    try {
      r = evaluatePath({ pools, mints: c.mints }, w.mode, w.amount);
    } catch (e) {
      if (!(e instanceof PoolQuoteError)) throw e;
      c.failedOn = pools;
      c.failedFor = e.reason;
      continue;
    }
    c.failedOn = undefined;
    c.failedFor = undefined;
    if (best === undefined || (exactIn ? r.amountOut > best.amountOut : r.amountIn < best.amountIn)) best = r;
  }
  return best;
}
