export * from './log.port';
export * from './create-log';
export * from './log.module';
