export * from './log.port';
export * from './create-log';
export * from './log.module';
export { SnapshotFiles } from './snapshots/snapshot-files';
export type { SnapshotHeader } from './snapshots/snapshot-files';
