/**
 * A /swap or /instructions request's parameters: its own fields, or, with quoteId, those of the
 * served quote it names (and that quote's exact route while its pools are unchanged). Plain.
 */
import { HttpStatus } from '@nestjs/common';
import type { Route } from '@app/amm';
import { ApiError } from '../http/api-error';
import { ROUTE_CONTROL_ORDER, routeControlsOf } from '../http/route-controls.dto';
import type { QuoteParams } from '../quote/quote.service';
import type { RouteControls } from '../quote/route-controls';
import { QUOTE_ID_ERRORS, type KeptQuote } from '../quote/served-quotes';
import type { InstructionsBodyDto } from './swap-body.dto';

export interface BuildTarget {
  params: QuoteParams;
  controls: RouteControls;
  /** the quote's route, built exactly (absent: search) */
  fixedRoute?: Route;
  /** the served quote built from */
  fromQuoteId?: string;
  /** its state had moved on: searched again (allowRequote) */
  requoted?: boolean;
}

/**
 * The target of a build. Without quoteId: the body's fields. With it: the kept quote's
 * parameters and controls (404 `quote not found` when not kept); a quote field or slippageBps of
 * the body that differs from the quote's → 400 `quoteId does not match <field>`; a route control
 * → 400 `<field> not allowed with quoteId`; the quote's route while `isCurrent(route)`, else 409
 * `quote state moved on`, or with allowRequote a new search on the quote's parameters.
 */
export function buildTarget(b: InstructionsBodyDto, configMaxHops: number, kept: (id: string) => KeptQuote | undefined, isCurrent: (route: Route) => boolean): BuildTarget {
  if (b.quoteId === undefined) {
    if (b.allowRequote !== undefined) throw new ApiError(HttpStatus.BAD_REQUEST, 'allowRequote needs quoteId');
    return {
      params: { inputMint: b.inputMint, outputMint: b.outputMint, amount: BigInt(b.amount), swapMode: b.swapMode, slippageBps: b.slippageBps ?? 50 },
      controls: routeControlsOf(b, configMaxHops),
    };
  }
  const q = kept(b.quoteId);
  if (q === undefined) throw new ApiError(HttpStatus.NOT_FOUND, QUOTE_ID_ERRORS.notFound);
  const given: Array<[string, unknown, unknown]> = [
    ['inputMint', b.inputMint, q.params.inputMint],
    ['outputMint', b.outputMint, q.params.outputMint],
    ['amount', b.amount === undefined ? undefined : BigInt(b.amount), q.params.amount],
    ['swapMode', b.swapMode, q.params.swapMode],
    ['slippageBps', b.slippageBps, q.params.slippageBps],
  ];
  for (const [field, value, quoted] of given) {
    if (value !== undefined && value !== quoted) throw new ApiError(HttpStatus.BAD_REQUEST, `quoteId does not match ${field}`);
  }
  const control = ROUTE_CONTROL_ORDER.find((f) => (b as unknown as Record<string, unknown>)[f] !== undefined);
  if (control !== undefined) throw new ApiError(HttpStatus.BAD_REQUEST, `${control} not allowed with quoteId`);
  const target: BuildTarget = { params: q.params, controls: q.controls, fromQuoteId: q.quoteId };
  if (isCurrent(q.route)) target.fixedRoute = q.route;
  else if (b.allowRequote === true) target.requoted = true;
  else throw new ApiError(HttpStatus.CONFLICT, QUOTE_ID_ERRORS.moved);
  return target;
}
