import { Controller, Get, HttpStatus, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { QuoteService } from '../quote/quote.service';
import type { QuoteResponse } from '../quote/quote-response';
import { ApiError, SAME_MINT_ERROR, createApiValidationPipe, toApiError } from './api-error';
import { QUOTE_PARAM_ORDER, QuoteQueryDto } from './quote-query.dto';
import { ErrorEnvelopeDto, QuoteEnvelopeDto } from './response.dto';

const quotePipe = createApiValidationPipe(QUOTE_PARAM_ORDER);

@ApiTags('quote')
@Controller('api/v1')
export class QuoteController {
  constructor(private readonly quotes: QuoteService) {}

  @Get('quote')
  @ApiOperation({
    summary: 'Best route and exact quote for a swap',
    description:
      'Errors (envelope {success:false, error}), checked in this order: invalid inputMint, invalid outputMint, invalid amount, ' +
      `invalid swapMode, invalid slippageBps (400); "${SAME_MINT_ERROR}" (400); no pool found (404: a mint has no pool), ` +
      'no route found (404: no path within the hop limit), insufficient liquidity (400: paths exist but none fills the amount).',
  })
  @ApiOkResponse({ type: QuoteEnvelopeDto })
  @ApiBadRequestResponse({ type: ErrorEnvelopeDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  quote(@Query(quotePipe) q: QuoteQueryDto): { success: true; data: QuoteResponse } {
    if (q.inputMint === q.outputMint) throw new ApiError(HttpStatus.BAD_REQUEST, SAME_MINT_ERROR);
    try {
      const data = this.quotes.quote({
        inputMint: q.inputMint,
        outputMint: q.outputMint,
        amount: BigInt(q.amount),
        swapMode: q.swapMode,
        slippageBps: q.slippageBps ?? 50,
      });
      return { success: true, data };
    } catch (e) {
      throw toApiError(e) ?? e;
    }
  }
}
