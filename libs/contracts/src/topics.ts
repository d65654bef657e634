/** Topic names: the contract between the apps (docs/architecture.md lists who writes and reads each). */
export const TOPICS = {
  poolUpdates: 'pool-updates',
  quoteInterest: 'quote-interest',
  quotesChanged: 'quotes-changed',
  quotesServed: 'quotes-served',
  /** chain sources' heartbeats: the chain's slot and the slot ingested (libs/contracts/src/ingest-status.ts) */
  ingestStatus: 'ingest-status',
  apiKeys: 'api-keys',
} as const;

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS];
