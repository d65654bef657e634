import { Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { LogModule } from '@app/log';
import { AccessModule } from '@app/auth';
import { StreamGateway } from './stream.gateway';
import { StreamService } from './stream.service';

/** WS /api/v1/stream. Mount it on the same HTTP server as the REST API (all-in-one) or alone. */
@Module({
  imports: [ConfigModule, LogModule, AccessModule],
  providers: [StreamService, StreamGateway],
  exports: [StreamService],
})
export class StreamModule {}
