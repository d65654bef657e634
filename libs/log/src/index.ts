export * from './log.port';
