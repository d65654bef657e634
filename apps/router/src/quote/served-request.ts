/**
 * The request part of a quotes-served record: the quote's parameters and, when the request had
 * any, its route controls as the router applied them (dexes as program ids; with
 * restrictIntermediateTokens, the liquid set), so an audit can search again under them. Plain.
 */
import type { ServedQuoteRequest, ServedRouteControls } from '@app/contracts';
import type { QuoteParams } from './quote.service';
import type { RouteControls } from './route-controls';

export function servedRequest(p: QuoteParams, controls: RouteControls, intermediateTokens: readonly string[]): ServedQuoteRequest {
  const request: ServedQuoteRequest = { inputMint: p.inputMint, outputMint: p.outputMint, amount: p.amount.toString(), swapMode: p.swapMode, slippageBps: p.slippageBps };
  const { platformFeeBps: _platform, ...search } = controls; // the fee is recorded with the fee (quotes-served `fee`)
  const c: ServedRouteControls = { ...search, dexes: controls.dexes && [...controls.dexes], excludeDexes: controls.excludeDexes && [...controls.excludeDexes] };
  if (controls.restrictIntermediateTokens) c.intermediateTokens = [...intermediateTokens];
  for (const k of Object.keys(c) as (keyof ServedRouteControls)[]) if (c[k] === undefined) delete c[k];
  if (Object.keys(c).length > 0) request.controls = c;
  return request;
}
