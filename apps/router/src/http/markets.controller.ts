import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { MarketInfo, TokenInfo } from '@app/pools';
import { ProjectionService } from '../projection/projection.service';
import { createApiValidationPipe, UNKNOWN_PARAMETER } from './api-error';
import { ApiErrorTexts } from './api-errors';
import { MARKETS_PARAM_ORDER, MAX_PAGE, MarketsQueryDto, TOKENS_PARAM_ORDER, TokensQueryDto, marketFilter, pageOf, tokenFilter } from './listing-query.dto';
import { MarketsEnvelopeDto, TokensEnvelopeDto } from './response.dto';

const marketsPipe = createApiValidationPipe(MARKETS_PARAM_ORDER, { forbidUnknown: true });
const tokensPipe = createApiValidationPipe(TOKENS_PARAM_ORDER, { forbidUnknown: true });
const PAGING = `Paged: at most limit entries (default and maximum ${MAX_PAGE}) from offset; total counts the filtered list, nextOffset is the next page's offset (null on the last).`;

/** GET /api/v1/tokens and /api/v1/markets: what the projection holds, filtered and paged */
@ApiTags('markets')
@Controller('api/v1')
export class MarketsController {
  constructor(private readonly projections: ProjectionService) {}

  @Get('tokens')
  @ApiOperation({
    summary: 'Tokens of the routing graph with their decimals, number of routable pools, and symbol and name from their on-chain metadata (Token-2022 extension or Metaplex Metadata; null when none), filtered by mint or symbol',
    description: PAGING,
  })
  @ApiOkResponse({ type: TokensEnvelopeDto })
  @ApiErrorTexts({ 400: [`${UNKNOWN_PARAMETER} <name>`, 'invalid mint', 'invalid symbol', 'invalid limit', 'invalid offset'] })
  tokens(@Query(tokensPipe) q: TokensQueryDto): { success: true; data: { tokens: TokenInfo[]; total: number; nextOffset: number | null } } {
    const page = pageOf(this.projections.projection.tokens(), tokenFilter(q), q);
    return { success: true, data: { tokens: page.items, total: page.total, nextOffset: page.nextOffset } };
  }

  @Get('markets')
  @ApiOperation({ summary: 'Every pool the router knows, filtered by mint, program or routability; unroutable pools carry the reason', description: PAGING })
  @ApiOkResponse({ type: MarketsEnvelopeDto })
  @ApiErrorTexts({ 400: [`${UNKNOWN_PARAMETER} <name>`, 'invalid mint', 'invalid program', 'invalid routable', 'invalid limit', 'invalid offset'] })
  markets(@Query(marketsPipe) q: MarketsQueryDto): { success: true; data: { markets: MarketInfo[]; total: number; nextOffset: number | null } } {
    const page = pageOf(this.projections.projection.markets(), marketFilter(q), q);
    return { success: true, data: { markets: page.items, total: page.total, nextOffset: page.nextOffset } };
  }
}
