import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig, type AppConfig } from '../../../libs/config/src/config';
import { IngestorModule } from './ingestor.module';
import { IngestorService } from './ingestor.service';

/**
 * The ingestor alone (no HTTP): LOG_DRIVER=kafka for the distributed deployment. Exits 0 when a
 * finite source ends (SIM_MAX_SLOTS, end of the recording), 2 on a configuration error, 1 when
 * it cannot start.
 */
async function bootstrap(): Promise<void> {
  const logger = new Logger('IngestorMain');
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (e) {
    console.error(`configuration error: ${(e as Error).message}`);
    process.exit(2);
  }
  const source =
    config.ingestSource === 'sim'
      ? `sim (seed ${config.simSeed}, ${config.simPools} pools, ${config.simTokens} tokens, ${config.simSwapsPerSlot} swaps per ${config.simSlotMs} ms slot` +
        `${config.simMaxSlots > 0 ? `, stop after ${config.simMaxSlots} slots` : ''})`
      : config.ingestSource === 'rpc'
        ? `rpc (${config.rpcUrls.length} endpoint(s); programs ${config.ingestPrograms.join(',')})`
        : `file ${config.ingestFile} (pace: ${config.ingestFilePace})`;
  const logTarget = config.logDriver === 'kafka' ? `kafka ${config.kafkaBrokers.join(',')}` : `embedded in ${config.dataDir}`;
  logger.log(`ingestor starting: source ${source}; log ${logTarget}${config.ingestRecordFile ? `; recording to ${config.ingestRecordFile}` : ''}`);
  let app;
  try {
    app = await NestFactory.createApplicationContext(IngestorModule, { abortOnError: false, logger: ['log', 'warn', 'error'] });
  } catch (e) {
    console.error(`ingestor failed to start: ${(e as Error).message}`);
    process.exit(1);
  }
  app.enableShutdownHooks();
  const service = app.get(IngestorService);
  logger.log('ingestor running');
  await service.finished;
  if (service.stats().finished) {
    logger.log(`source finished: ${JSON.stringify(service.stats())}`);
    await app.close();
  }
}

void bootstrap();
