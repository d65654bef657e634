/**
 * An app's start: the configuration read (a bad setting stops the process with exit status 2
 * and a message naming the variable) and the process's logger configured from it.
 */
import { loadConfig, type AppConfig } from '@app/config';
import { configureLogging, PinoNestLogger, type AppName } from './logger';

export function startApp(app: AppName): { config: AppConfig; nestLogger: PinoNestLogger } {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (e) {
    console.error(`configuration error: ${(e as Error).message}`);
    process.exit(2);
  }
  configureLogging({ app, level: config.logLevel, format: config.logFormat });
  return { config, nestLogger: new PinoNestLogger() };
}
