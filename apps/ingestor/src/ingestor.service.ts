import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { LOG_PORT, type LogPort } from '@app/log';
import { Ingestor, type IngestorStats } from './ingestor';
import { LookupTableIngest } from './rpc/lookup-tables';
import { RpcSource } from './rpc/rpc-source';
import { GeyserSource } from './geyser/geyser-source';

/**
 * Nest wiring of the Ingestor: starts the configured source once the application has
 * bootstrapped (a source that cannot start fails the bootstrap), stops it before the log
 * closes on shutdown (the in-flight append finishes, the timer stops).
 */
@Injectable()
export class IngestorService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly ingestor: Ingestor;
  /** LOOKUP_TABLES read from RPC_URL into the log (null when none are configured) */
  readonly lookupTables: LookupTableIngest | null;
  /** INGEST_SOURCE=rpc: the chain through RPC_URL (null for the other sources, which the Ingestor runs) */
  readonly rpc: RpcSource | null;
  /** INGEST_SOURCE=geyser: the RPC snapshot, then the Yellowstone stream on GEYSER_URL (null otherwise) */
  readonly geyser: GeyserSource | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(LOG_PORT) log: LogPort) {
    this.ingestor = new Ingestor(config, log, new Logger('Ingestor'));
    this.rpc = config.ingestSource === 'rpc' ? new RpcSource(config, log, new Logger('RpcIngest')) : null;
    this.geyser = config.ingestSource === 'geyser' ? new GeyserSource(config, log, new Logger('GeyserIngest')) : null;
    this.lookupTables =
      config.lookupTables.length > 0 && config.rpcUrl !== null
        ? new LookupTableIngest({ rpcUrl: config.rpcUrl, rpcKey: config.rpcKey, addresses: config.lookupTables, refreshMs: config.lookupTablesRefreshMs }, log, new Logger('LookupTables'))
        : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.rpc) await this.rpc.start();
    else if (this.geyser) await this.geyser.start();
    else await this.ingestor.start();
    await this.lookupTables?.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.lookupTables?.stop();
    await this.rpc?.stop();
    await this.geyser?.stop();
    await this.ingestor.stop();
  }

  /** counters for health / metrics: slots, records appended, lines rejected, ... */
  stats(): IngestorStats {
    return this.ingestor.stats();
  }

  /** resolves when the source ended (SIM_MAX_SLOTS reached, end of the recording) or was stopped */
  get finished(): Promise<void> {
    return this.ingestor.finished;
  }
}
