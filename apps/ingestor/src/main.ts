import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { LOG_PORT, type LogPort } from '@app/log';
import { startOpsServer } from '@app/observability';
import { startApp } from '@app/observability';
import { IngestorModule } from './ingestor.module';
import { IngestorService } from './ingestor.service';

/**
 * The ingestor alone (no HTTP API; /metrics and /health on METRICS_PORT when set): LOG_DRIVER=kafka
 * for the distributed deployment. Exits 0 when a finite source ends (SIM_MAX_SLOTS, end of the
 * recording), 2 on a configuration error, 1 when it cannot start.
 */
async function bootstrap(): Promise<void> {
  const { config, nestLogger } = startApp('ingestor');
  const logger = new Logger('IngestorMain');
  Logger.overrideLogger(nestLogger);
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
    app = await NestFactory.createApplicationContext(IngestorModule, { abortOnError: false, logger: nestLogger });
  } catch (e) {
    logger.error(`ingestor failed to start: ${(e as Error).message}`);
    process.exit(1);
  }
  app.enableShutdownHooks();
  const service = app.get(IngestorService);
  const log = app.get<LogPort>(LOG_PORT);
  if (config.metricsPort > 0) {
    const ops = await startOpsServer(config.metricsPort, async () => {
      const stats = service.stats();
      const reachable = await log.ping().catch(() => false);
      const ok = reachable && (stats.running || stats.finished);
      return { ok, body: ok ? { status: 'ok', lastSlot: stats.lastSlot } : { status: 'unavailable', reason: reachable ? 'ingestor stopped' : 'log unreachable' } };
    });
    void service.finished.then(() => ops.close());
  }
  logger.log('ingestor running');
  await service.finished;
  if (service.stats().finished) {
    logger.log(`source finished: ${JSON.stringify(service.stats())}`);
    await app.close();
  }
}

void bootstrap();
