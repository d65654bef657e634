import { Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { LogModule } from '@app/log';
import { IngestorService } from './ingestor.service';

/** Turns the configured chain source (sim | file) into `pool-updates` records on the log. */
@Module({
  imports: [ConfigModule, LogModule],
  providers: [IngestorService],
  exports: [IngestorService],
})
export class IngestorModule {}
