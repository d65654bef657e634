import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../../libs/config/src/config.module';
import type { AppConfig } from '../../../../libs/config/src/config';
import { findBestRoute, type SwapMode } from '../../../../libs/amm/src/routing/route-search';
import { ProjectionService } from '../projection/projection.service';
import { buildQuoteResponse, type QuoteResponse } from './quote-response';

export interface QuoteParams {
  inputMint: string;
  outputMint: string;
  amount: bigint;
  swapMode: SwapMode;
  slippageBps: number;
}

/** Quotes from the current projection; throws the route errors of route-search. */
@Injectable()
export class QuoteService {
  constructor(
    private readonly projections: ProjectionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  quote(p: QuoteParams): QuoteResponse {
    const projection = this.projections.projection;
    const route = findBestRoute(projection, {
      inputMint: p.inputMint,
      outputMint: p.outputMint,
      amount: p.amount,
      mode: p.swapMode,
      maxHops: this.config.maxHops,
    });
    return buildQuoteResponse(route, { slippageBps: p.slippageBps, contextSlot: projection.slot, logPosition: projection.positions });
  }
}
