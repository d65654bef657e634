/**
 * The Yellowstone `SubscribeRequest` the geyser source sends: one account filter per followed
 * program (by owner), one for the accounts followed by address, a slot filter, the commitment,
 * `from_slot` (first request after a reconnect only) and `ping` (keep-alives carry the whole
 * subscription, since the server takes every request as the new subscription). Pure.
 */
import type { GetProgramAccountsFilter } from '@solana/web3.js';
import { CommitmentLevel, type SubscribeRequest, type SubscribeRequestFilterAccountsFilter } from '@triton-one/yellowstone-grpc';
import type { WatchSet } from './watch-set';

export type GeyserCommitment = 'processed' | 'confirmed' | 'finalized';

export const COMMITMENT_LEVELS: Record<GeyserCommitment, CommitmentLevel> = {
  processed: CommitmentLevel.PROCESSED,
  confirmed: CommitmentLevel.CONFIRMED,
  finalized: CommitmentLevel.FINALIZED,
};

/** name of the account filter of the accounts followed by address */
export const ADDRESS_FILTER = 'addresses';
/** prefix of the account filters by owner (`program:<id>:<i>`, one per filter list of a program) */
export const PROGRAM_FILTER_PREFIX = 'program:';
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
  for (const p of watch.programs) {
    p.filters.forEach((list, i) => {
      accounts[`${PROGRAM_FILTER_PREFIX}${p.programId}:${i}`] = { account: [], owner: [p.programId], filters: list.map(accountFilter) };
    });
  }
  if (watch.addresses.size > 0) accounts[ADDRESS_FILTER] = { account: [...watch.addresses].sort(), owner: [], filters: [] };
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

/** a getProgramAccounts filter (the bootstrap's) as a Geyser account data filter: the same selection */
export function accountFilter(f: GetProgramAccountsFilter): SubscribeRequestFilterAccountsFilter {
  if ('dataSize' in f) return { datasize: String(f.dataSize) };
  if ('memcmp' in f) {
    const m = f.memcmp as { offset: number; bytes: string; encoding?: 'base58' | 'base64' };
    return { memcmp: m.encoding === 'base64' ? { offset: String(m.offset), base64: m.bytes } : { offset: String(m.offset), base58: m.bytes } };
  }
  throw new Error(`no Geyser account filter for ${JSON.stringify(f)}`);
}
