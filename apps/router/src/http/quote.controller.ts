import { Controller, Get, HttpStatus, Inject, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { QuotesServedService } from '../audit/quotes-served.service';
import { QuoteService, type QuoteParams, type RoutedQuote } from '../quote/quote.service';
import { ServedQuotes } from '../quote/served-quotes';
import type { QuoteResponse } from '../quote/quote-response';
import { servedRequest } from '../quote/served-request';
import { SwapService } from '../swap/swap.service';
import { NO_ROUTE_WITHIN_MAX_ACCOUNTS } from '../swap/account-budget';
import { ApiError, SAME_MINT_ERROR, UNKNOWN_PARAMETER, createApiValidationPipe, toApiError } from './api-error';
import { QUOTE_PARAM_ORDER, QuoteQueryDto } from './quote-query.dto';
import { routeControlsOf } from './route-controls.dto';
import { QUOTE_ID_HEADER } from './quote-id';
import { ApiErrorTexts } from './api-errors';
import { QuoteEnvelopeDto } from './response.dto';

const quotePipe = createApiValidationPipe(QUOTE_PARAM_ORDER, { forbidUnknown: true });

export { QUOTE_ID_HEADER };

@ApiTags('quote')
@Controller('api/v1')
export class QuoteController {
  constructor(
    private readonly quotes: QuoteService,
    private readonly swaps: SwapService,
    private readonly audit: QuotesServedService,
    private readonly kept: ServedQuotes,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('quote')
  @ApiOperation({
    summary: 'Best route and exact quote for a swap',
    description:
      `Errors (envelope {success:false, error}): "${UNKNOWN_PARAMETER} <name>" (400: a parameter this API does not know), then, in this order: ` +
      'invalid inputMint, invalid outputMint, invalid amount, invalid swapMode, invalid slippageBps, invalid <route control> (400); ' +
      `"${SAME_MINT_ERROR}" (400); no pool found (404: a mint has no pool the controls allow), ` +
      'no route found (404: no path within the hop limit), insufficient liquidity (400: paths exist but none fills the amount), ' +
      `"${NO_ROUTE_WITHIN_MAX_ACCOUNTS}" (404). ` +
      `Every served quote is recorded on the quotes-served topic; its id is in the ${QUOTE_ID_HEADER} response header (POST /swap and /instructions take it as quoteId).`,
  })
  @ApiOkResponse({ type: QuoteEnvelopeDto, headers: { [QUOTE_ID_HEADER]: { description: 'id of the quotes-served audit record', schema: { type: 'string' } } } })
  @ApiErrorTexts({
    400: [`${UNKNOWN_PARAMETER} <name>`, 'invalid <parameter>', SAME_MINT_ERROR, 'insufficient liquidity'],
    404: ['no pool found', 'no route found', NO_ROUTE_WITHIN_MAX_ACCOUNTS],
  })
  quote(@Query(quotePipe) q: QuoteQueryDto, @Res({ passthrough: true }) res: Response): { success: true; data: QuoteResponse } {
    if (q.inputMint === q.outputMint) throw new ApiError(HttpStatus.BAD_REQUEST, SAME_MINT_ERROR);
    const controls = routeControlsOf(q, this.config.maxHops);
    const params: QuoteParams = { inputMint: q.inputMint, outputMint: q.outputMint, amount: BigInt(q.amount), swapMode: q.swapMode, slippageBps: q.slippageBps ?? 50 };
    let routed: RoutedQuote;
    try {
      // maxAccounts: the route whose transaction stays within it, as /swap would build it
      routed = controls.maxAccounts === undefined ? this.quotes.quote(params, controls) : this.quotes.quoteWithin(params, () => this.swaps.quoteRoute({ ...params, controls }), controls);
    } catch (e) {
      throw toApiError(e) ?? e;
    }
    const data = routed.response;
    const quoteId = this.audit.record(servedRequest(params, controls, this.config.intermediateTokens), data, this.quotes.feeFor(controls));
    this.kept.keep({ quoteId, params, controls, route: routed.route });
    res.setHeader(QUOTE_ID_HEADER, quoteId);
    return { success: true, data };
  }
}
