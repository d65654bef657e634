import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { MarketInfo, TokenInfo } from '../projection/projection';
import { ProjectionService } from '../projection/projection.service';
import { MarketsEnvelopeDto, TokensEnvelopeDto } from './response.dto';

@ApiTags('markets')
@Controller('api/v1')
export class MarketsController {
  constructor(private readonly projections: ProjectionService) {}

  @Get('tokens')
  @ApiOperation({ summary: 'Tokens of the routing graph with their decimals and number of routable pools' })
  @ApiOkResponse({ type: TokensEnvelopeDto })
  tokens(): { success: true; data: { tokens: TokenInfo[] } } {
    return { success: true, data: { tokens: this.projections.projection.tokens() } };
  }

  @Get('markets')
  @ApiOperation({ summary: 'Every pool the router knows; unroutable pools carry the reason' })
  @ApiOkResponse({ type: MarketsEnvelopeDto })
  markets(): { success: true; data: { markets: MarketInfo[] } } {
    return { success: true, data: { markets: this.projections.projection.markets() } };
  }
}
