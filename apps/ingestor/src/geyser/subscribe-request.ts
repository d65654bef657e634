/**
 * The Yellowstone `SubscribeRequest` the geyser source sends: one account filter per followed
 * program (by owner), one for the accounts followed by address, a slot filter, the commitment,
 * `from_slot` (first request after a reconnect only) and `ping` (keep-alives carry the whole
 * subscription, since the server takes every request as the new subscription). Pure.
 */
import { CommitmentLevel, type SubscribeRequest } from '@triton-one/yellowstone-grpc';
import type { WatchSet } from './watch-set';

export type GeyserCommitment = 'processed' | 'confirmed' | 'finalized';

export const COMMITMENT_LEVELS: Record<GeyserCommitment, CommitmentLevel> = {
  processed: CommitmentLevel.PROCESSED,
  confirmed: CommitmentLevel.CONFIRMED,
  finalized: CommitmentLevel.FINALIZED,
};

/** name of the account filter of the accounts followed by address */
export const ADDRESS_FILTER = 'addresses';
/** prefix of the account filters by owner (one per program) */
export const OWNER_FILTER_PREFIX = 'owner:';
export const SLOT_FILTER = 'slots';

export interface RequestOptions {
  commitment: GeyserCommitment;
  /** replay from this slot (the first request of a stream that resumes) */
  fromSlot?: number;
  /** a keep-alive ping's id */
  pingId?: number;
}

export function subscribeRequest(watch: WatchSet, opts: RequestOptions): SubscribeRequest {
  const accounts: SubscribeRequest['accounts'] = {};
  for (const owner of [...watch.owners].sort()) {
    accounts[OWNER_FILTER_PREFIX + owner] = { account: [], owner: [owner], filters: [] };
  }
  if (watch.addresses.size > 0) accounts[ADDRESS_FILTER] = { account: [...watch.addresses.keys()].sort(), owner: [], filters: [] };
  const req: SubscribeRequest = {
    accounts,
    // filterByCommitment: slot messages at the requested commitment only (the chain slot of the lag)
    slots: { [SLOT_FILTER]: { filterByCommitment: true } },
    transactions: {},
    transactionsStatus: {},
    blocks: {},
    blocksMeta: {},
    entry: {},
    accountsDataSlice: [],
    commitment: COMMITMENT_LEVELS[opts.commitment],
  };
  if (opts.fromSlot !== undefined) req.fromSlot = String(opts.fromSlot);
  if (opts.pingId !== undefined) req.ping = { id: opts.pingId };
  return req;
}
