/**
 * Nest wiring of the gate: one AccessService per process (the REST API and the stream share it
 * when served together): the api-keys projection (with AUTH_MODE=keys) read to the end before
 * the app serves, the rate limiter (in Redis with REDIS_URL, else in memory), the self-hosted
 * license watch. Logs name keys by id only.
 */
import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, ConfigModule } from '@app/config';
import type { AppConfig } from '@app/config';
import { TierRateLimiter } from '@app/http';
import { LOG_PORT, type LogPort } from '@app/log';
import { LogModule } from '@app/log';
import { AccessGate } from './access-gate';
import { ApiKeysFeed } from './api-keys-feed';
import { LicenseWatch } from './self-hosted';

@Injectable()
export class AccessService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('access');
  readonly gate: AccessGate;
  private readonly feed: ApiKeysFeed | null;
  private readonly redis: Redis | null;
  private readonly license: LicenseWatch | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOG_PORT) private readonly log: LogPort,
  ) {
    this.feed =
      config.authMode === 'keys'
        ? new ApiKeysFeed(
            (e) => this.logger.error(`api-keys: a record skipped: ${e.message}`),
            (r) => this.logger.log(`api key ${r.id} (tier ${r.tier}) is ${r.state}`),
          )
        : null;
    this.redis =
      config.redisUrl === null
        ? null
        : new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    this.redis?.on('error', (e: Error) => this.logger.warn(`redis: ${e.message} (rate limits counted in memory meanwhile)`));
    this.license = config.deployment === 'self-hosted' ? new LicenseWatch(config.licenseKey!, config.licensePublicKey!) : null;
    this.gate = new AccessGate({
      authMode: config.authMode,
      registry: this.feed?.registry ?? null,
      limiter: new TierRateLimiter(config.rateLimitTiers, this.redis),
      trustedProxies: new Set(config.trustedProxies),
      license: this.license,
    });
  }

  async onModuleInit(): Promise<void> {
    this.license?.start();
    await this.redis?.connect().catch((e: Error) => this.logger.warn(`redis at start: ${e.message}`));
    await this.feed?.start(this.log);
    if (this.feed !== null) this.logger.log(`API keys: ${this.feed.registry.list().filter((r) => r.state === 'active').length} active`);
  }

  async onApplicationShutdown(): Promise<void> {
    this.license?.stop();
    await this.feed?.stop();
    this.redis?.disconnect();
  }
}

@Global()
@Module({ imports: [ConfigModule, LogModule], providers: [AccessService], exports: [AccessService] })
export class AccessModule {}
