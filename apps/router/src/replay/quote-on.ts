/**
 * A quote on a given projection, with the API's parameter checks and error texts, for tools
 * that work outside the HTTP app (replay, audit). Plain TypeScript.
 */
import { isPublicKey } from '@app/solana';
import { RouteError } from '@app/amm';
import type { Projection } from '@app/pools';
import { computeQuote } from '../quote/quote.service';
import type { QuoteResponse } from '../quote/quote-response';
import type { FeeSchedule } from '../quote/aggregator-fee';
import { controlledSearch } from '../quote/route-controls';
import type { ServedRouteControls } from '@app/contracts';

export interface RawQuoteParams {
  inputMint: string;
  outputMint: string;
  amount: string;
  swapMode: string;
  slippageBps?: string | number;
}

export type QuoteOutcome = { quote: QuoteResponse } | { error: string };

const U64_MAX = (1n << 64n) - 1n;

/**
 * `fee`: the aggregator fee to include (a quotes-served record's, or a replay's --feeBps /
 * --feeRoutes); `controls`: a record's route controls (its maxAccounts is not applied: that
 * needs the transaction, which the audit does not build)
 */
export function quoteOn(projection: Projection, p: RawQuoteParams, maxHops = 5, fee: FeeSchedule | null = null, controls: ServedRouteControls = {}): QuoteOutcome {
  if (!isPublicKey(p.inputMint)) return { error: 'invalid inputMint' };
  if (!isPublicKey(p.outputMint)) return { error: 'invalid outputMint' };
  if (!/^[1-9][0-9]*$/.test(p.amount) || BigInt(p.amount) > U64_MAX) return { error: 'invalid amount' };
  if (p.swapMode !== 'ExactIn' && p.swapMode !== 'ExactOut') return { error: 'invalid swapMode' };
  const slippage = p.slippageBps === undefined ? 50 : Number(p.slippageBps);
  if (!Number.isInteger(slippage) || slippage < 0 || slippage > 10_000) return { error: 'invalid slippageBps' };
  const search = controlledSearch(controls, maxHops, new Set(controls.intermediateTokens ?? []), p.inputMint, p.outputMint);
  try {
    return {
      quote: computeQuote(
        projection,
        { inputMint: p.inputMint, outputMint: p.outputMint, amount: BigInt(p.amount), swapMode: p.swapMode, slippageBps: slippage },
        search.maxHops,
        search.options,
        fee,
      ),
    };
  } catch (e) {
    if (e instanceof RouteError) return { error: e.message };
    throw e;
  }
}
