import { Controller, Get, HttpStatus, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { QuotesServedService } from '../audit/quotes-served.service';
import { QuoteService } from '../quote/quote.service';
import type { QuoteResponse } from '../quote/quote-response';
import { ApiError, SAME_MINT_ERROR, createApiValidationPipe, toApiError } from './api-error';
import { QUOTE_PARAM_ORDER, QuoteQueryDto } from './quote-query.dto';
import { ErrorEnvelopeDto, QuoteEnvelopeDto } from './response.dto';

const quotePipe = createApiValidationPipe(QUOTE_PARAM_ORDER);

/** response header carrying the id under which the quote was recorded on `quotes-served` */
export const QUOTE_ID_HEADER = 'X-Quote-Id';

@ApiTags('quote')
@Controller('api/v1')
export class QuoteController {
  constructor(
    private readonly quotes: QuoteService,
    private readonly audit: QuotesServedService,
  ) {}

  @Get('quote')
  @ApiOperation({
    summary: 'Best route and exact quote for a swap',
    description:
      'Errors (envelope {success:false, error}), checked in this order: invalid inputMint, invalid outputMint, invalid amount, ' +
      `invalid swapMode, invalid slippageBps (400); "${SAME_MINT_ERROR}" (400); no pool found (404: a mint has no pool), ` +
      'no route found (404: no path within the hop limit), insufficient liquidity (400: paths exist but none fills the amount). ' +
      `Every served quote is recorded on the quotes-served topic; its id is in the ${QUOTE_ID_HEADER} response header.`,
  })
  @ApiOkResponse({ type: QuoteEnvelopeDto, headers: { [QUOTE_ID_HEADER]: { description: 'id of the quotes-served audit record', schema: { type: 'string' } } } })
  @ApiBadRequestResponse({ type: ErrorEnvelopeDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  quote(@Query(quotePipe) q: QuoteQueryDto, @Res({ passthrough: true }) res: Response): { success: true; data: QuoteResponse } {
    if (q.inputMint === q.outputMint) throw new ApiError(HttpStatus.BAD_REQUEST, SAME_MINT_ERROR);
    const slippageBps = q.slippageBps ?? 50;
    let data: QuoteResponse;
    try {
      data = this.quotes.quote({ inputMint: q.inputMint, outputMint: q.outputMint, amount: BigInt(q.amount), swapMode: q.swapMode, slippageBps });
    } catch (e) {
      throw toApiError(e) ?? e;
    }
    const quoteId = this.audit.record({ inputMint: q.inputMint, outputMint: q.outputMint, amount: q.amount, swapMode: q.swapMode, slippageBps }, data, this.quotes.fee);
    res.setHeader(QUOTE_ID_HEADER, quoteId);
    return { success: true, data };
  }
}
