/**
 * What an ExactOut route yields when executed forwards for its own input (for tests and
 * benches): each hop given the input it asked, the last hop out of a token what is left of it.
 * ExactOut's rounding up at every hop makes this at least the requested output; an ExactIn
 * route for the same input that yields more found a branch the ExactOut search missed.
 */
import { PoolQuoteError } from '../../pool';
import type { Route } from '../types';

/** the forward output of `r` for r.amountIn; null when a hop cannot fill */
export function forwardYield(r: Route): bigint | null {
  const held = new Map<string, bigint>([[r.inputMint, r.amountIn]]);
  const lastOut = new Map<string, number>();
  r.hops.forEach((h, i) => lastOut.set(h.inputMint, i));
  try {
    for (let i = 0; i < r.hops.length; i++) {
      const h = r.hops[i];
      const have = held.get(h.inputMint) ?? 0n;
      const give = lastOut.get(h.inputMint) === i ? have : h.amountIn < have ? h.amountIn : have;
      held.set(h.inputMint, have - give);
      if (give === 0n) continue;
      const q = h.pool.quoteExactIn(h.inputMint, give);
      held.set(h.outputMint, (held.get(h.outputMint) ?? 0n) + q.amountOut);
    }
  } catch (e) {
    if (e instanceof PoolQuoteError) return null;
    throw e;
  }
  return held.get(r.outputMint) ?? 0n;
}
