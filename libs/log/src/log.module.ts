import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { createLog } from './create-log';
import { LOG_PORT, type LogPort } from './log.port';

/** Provides the LogPort chosen by LOG_DRIVER; closes it when the app shuts down. */
@Global()
@Module({
  providers: [{ provide: LOG_PORT, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createLog(config) }],
  exports: [LOG_PORT],
})
export class LogModule implements OnApplicationShutdown {
  constructor(@Inject(LOG_PORT) private readonly log: LogPort) {}

  async onApplicationShutdown(): Promise<void> {
    await this.log.close();
  }
}
