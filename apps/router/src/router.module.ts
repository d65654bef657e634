import { Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { LogModule } from '@app/log';
import { AccessModule } from '@app/auth';
import { QuotesServedService } from './audit/quotes-served.service';
import { HealthController } from './http/health.controller';
import { InterestHost } from './interest/interest-host';
import { MarketsController } from './http/markets.controller';
import { DexesController } from './http/dexes.controller';
import { QuoteController } from './http/quote.controller';
import { PriceController } from './price/price.controller';
import { PriceService } from './price/price.service';
import { IngestLagService } from './projection/ingest-lag.service';
import { ProjectionService } from './projection/projection.service';
import { QuoteService } from './quote/quote.service';
import { ServedQuotes } from './quote/served-quotes';
import { chainGatewayProvider } from './swap/chain.provider';
import { SimChainController, SwapController } from './swap/swap.controller';
import { SwapService } from './swap/swap.service';
import { BuildAudit } from './swap/build-audit';

/** The router: pool-updates → in-memory projection → quotes over HTTP. */
@Module({
  imports: [ConfigModule, LogModule, AccessModule],
  controllers: [QuoteController, MarketsController, DexesController, HealthController, PriceController, SwapController, SimChainController],
  providers: [ProjectionService, IngestLagService, QuoteService, ServedQuotes, PriceService, QuotesServedService, SwapService, BuildAudit, chainGatewayProvider, InterestHost],
  exports: [ProjectionService, QuoteService, PriceService, QuotesServedService, InterestHost],
})
export class RouterModule {}
