export * from './topics';
export * from './errors';
export * from './pool-update';
export * from './stream';
export * from './quotes-served';
export * from './interner';
export * from './api-keys';
export { decodeIngestStatus, encodeIngestStatus, ingestLag } from './ingest-status';
export type { IngestStatus } from './ingest-status';
