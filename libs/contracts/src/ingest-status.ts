/**
 * `ingest-status`: the heartbeat a chain source (INGEST_SOURCE=rpc, geyser) appends about once a
 * second, so that a router in another process knows how far the chain is ahead of what reached
 * `pool-updates` (its /health answers 503 past MAX_INGEST_LAG_SLOTS, or when the heartbeats stop).
 * Wire form (JSON): {v: 1, source, chainSlot, ingestedSlot, at (Unix ms)}.
 */
import { ContractError } from './errors';
import { TOPICS } from './topics';

export interface IngestStatus {
  source: string;
  /** the newest slot the source has seen the chain at */
  chainSlot: number;
  /** the newest slot the written state is known complete at */
  ingestedSlot: number;
  /** when the heartbeat was written (Unix ms) */
  at: number;
}

export const INGEST_STATUS_VERSION = 1;

export function encodeIngestStatus(s: IngestStatus): Buffer {
  return Buffer.from(JSON.stringify({ v: INGEST_STATUS_VERSION, source: s.source, chainSlot: s.chainSlot, ingestedSlot: s.ingestedSlot, at: s.at }));
}

export function decodeIngestStatus(value: Buffer): IngestStatus {
  const fail = (reason: string): never => {
    throw new ContractError(TOPICS.ingestStatus, reason);
  };
  let o: Record<string, unknown> = {};
  try {
    o = JSON.parse(value.toString());
  } catch {
    fail('malformed record: not JSON');
  }
  if (typeof o !== 'object' || o === null) fail('malformed record: not an object');
  if (o.v !== INGEST_STATUS_VERSION) fail(`unsupported schema version ${JSON.stringify(o.v)}`);
  const slot = (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (typeof o.source !== 'string' || !slot(o.chainSlot) || !slot(o.ingestedSlot) || !slot(o.at)) fail('malformed record: source, chainSlot, ingestedSlot, at');
  return { source: o.source as string, chainSlot: o.chainSlot as number, ingestedSlot: o.ingestedSlot as number, at: o.at as number };
}

/** the ingest lag a heartbeat reports (chain slot minus the slot ingested, never negative) */
export function ingestLag(s: IngestStatus): number {
  return Math.max(0, s.chainSlot - s.ingestedSlot);
}
