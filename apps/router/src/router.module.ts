import { Module } from '@nestjs/common';
import { ConfigModule } from '../../../libs/config/src/config.module';
import { LogModule } from '../../../libs/log/src/log.module';
import { HealthController } from './http/health.controller';
import { MarketsController } from './http/markets.controller';
import { QuoteController } from './http/quote.controller';
import { ProjectionService } from './projection/projection.service';
import { QuoteService } from './quote/quote.service';

/** The router: pool-updates → in-memory projection → quotes over HTTP. */
@Module({
  imports: [ConfigModule, LogModule],
  controllers: [QuoteController, MarketsController, HealthController],
  providers: [ProjectionService, QuoteService],
  exports: [ProjectionService, QuoteService],
})
export class RouterModule {}
