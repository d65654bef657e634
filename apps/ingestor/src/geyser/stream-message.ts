/**
 * One Yellowstone `SubscribeUpdate` read into what the geyser source does with it: an account
 * write for `pool-updates` (source `geyser`, the message's slot), a slot, a ping / pong, or a
 * rejection with its reason (a malformed message, an account of an unknown layout or of another
 * owner than expected, an account that is not followed). Pure: no IO, no clock.
 */
import type { SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import type { PoolUpdate } from '@app/contracts';
import { base58Encode } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import type { WatchSet } from './watch-set';

export const GEYSER_SOURCE = 'geyser';

/** what the parser asks of the program decoders */
export interface LayoutCheck {
  /** null when the account is a pool account of `owner` (a followed program); otherwise why not */
  poolProblem(address: string, owner: string, data: Buffer): string | null;
  /** the program's name for the account's kind; null: a layout the router does not know (or not a program's) */
  accountKind(owner: string, data: Buffer): string | null;
  /** whether `owner` is one of the programs the router quotes */
  isProgram(owner: string): boolean;
}

export type StreamMessage =
  | { kind: 'account'; update: PoolUpdate; writeVersion: bigint }
  | { kind: 'slot'; slot: number }
  | { kind: 'ping' }
  | { kind: 'pong'; id: number }
  | { kind: 'reject'; reason: string }
  /** a message of a kind this source never subscribes to (transactions, blocks, ...) */
  | { kind: 'ignored' };

const U64_MAX = (1n << 64n) - 1n;
const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;

function u64(text: unknown): bigint | null {
  if (typeof text !== 'string' || !DECIMAL.test(text)) return null;
  const v = BigInt(text);
  return v <= U64_MAX ? v : null;
}

function slotOf(text: unknown): number | null {
  const v = u64(text);
  return v !== null && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : null;
}

function pubkey(bytes: unknown): string | null {
  return bytes instanceof Uint8Array && bytes.length === 32 ? base58Encode(bytes) : null;
}

const reject = (reason: string): StreamMessage => ({ kind: 'reject', reason });

export function readStreamMessage(m: SubscribeUpdate, watch: WatchSet, layouts: LayoutCheck): StreamMessage {
  if (m.account !== undefined) return readAccount(m.account, watch, layouts);
  if (m.slot !== undefined) {
    const slot = slotOf(m.slot.slot);
    return slot === null ? reject(`slot message with an invalid slot ${JSON.stringify(m.slot.slot)}`) : { kind: 'slot', slot };
  }
  if (m.ping !== undefined) return { kind: 'ping' };
  if (m.pong !== undefined) return { kind: 'pong', id: m.pong.id };
  if (m.transaction || m.transactionStatus || m.block || m.blockMeta || m.entry) return { kind: 'ignored' };
  return reject('message without a known update (empty oneof)');
}

function readAccount(a: NonNullable<SubscribeUpdate['account']>, watch: WatchSet, layouts: LayoutCheck): StreamMessage {
  const info = a.account;
  if (info === undefined) return reject('account message without account info');
  const slot = slotOf(a.slot);
  if (slot === null) return reject(`account message with an invalid slot ${JSON.stringify(a.slot)}`);
  const address = pubkey(info.pubkey);
  if (address === null) return reject(`account message with a pubkey of ${info.pubkey?.length ?? 0} bytes (32 expected)`);
  const owner = pubkey(info.owner);
  if (owner === null) return reject(`account ${address}: owner of ${info.owner?.length ?? 0} bytes (32 expected)`);
  const lamports = u64(info.lamports);
  if (lamports === null) return reject(`account ${address}: lamports ${JSON.stringify(info.lamports)} is not a u64`);
  const writeVersion = u64(info.writeVersion) ?? 0n;
  if (!(info.data instanceof Uint8Array)) return reject(`account ${address}: no data`);
  const closed = lamports === 0n;
  const byAddress = watch.addresses.has(address);
  if (closed) {
    // a closed account (no lamports left; the runtime hands it to the system program): data null
    if (byAddress || watch.owners.has(owner)) return account(slot, address, PROGRAM_IDS.system, 0n, null, writeVersion);
    return reject(`account ${address} of ${owner}: neither its owner nor its address is followed`);
  }
  const data = Buffer.from(info.data);
  if (byAddress) {
    const expected = watch.ownerOf(address);
    if (expected !== undefined && expected !== owner) return reject(`account ${address}: owner ${owner}, expected ${expected}`);
    if (layouts.isProgram(owner) && layouts.accountKind(owner, data) === null) return reject(`account ${address} of ${owner}: unknown layout (${data.length} bytes)`);
    return account(slot, address, owner, lamports, data, writeVersion);
  }
  if (watch.owners.has(owner)) {
    const problem = layouts.poolProblem(address, owner, data);
    if (problem !== null) return reject(`account ${address} of ${owner}: ${problem}`);
    return account(slot, address, owner, lamports, data, writeVersion);
  }
  return reject(`account ${address} of ${owner}: neither its owner nor its address is followed`);
}

function account(slot: number, address: string, owner: string, lamports: bigint, data: Buffer | null, writeVersion: bigint): StreamMessage {
  return { kind: 'account', writeVersion, update: { slot, address, owner, lamports, data, source: GEYSER_SOURCE } };
}
