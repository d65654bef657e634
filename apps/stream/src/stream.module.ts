import { Module } from '@nestjs/common';
import { ConfigModule } from '../../../libs/config/src/config.module';
import { LogModule } from '../../../libs/log/src/log.module';
import { AccessModule } from '../../../libs/auth/src/access.module';
import { StreamGateway } from './stream.gateway';
import { StreamService } from './stream.service';

/** WS /api/v1/stream. Mount it on the same HTTP server as the REST API (all-in-one) or alone. */
@Module({
  imports: [ConfigModule, LogModule, AccessModule],
  providers: [StreamService, StreamGateway],
  exports: [StreamService],
})
export class StreamModule {}
