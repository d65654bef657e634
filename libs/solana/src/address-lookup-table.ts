/**
 * Address Lookup Table accounts (program AddressLookupTab1e1111111111111111111111111): codec,
 * table PDA, and a builder that packs a set of addresses into table accounts (the simulated
 * market calls it to publish tables covering its pools on the log, like any other account).
 *
 * Layout (the program's ProgramState::LookupTable, 56-byte meta then the addresses):
 *   u32 type (1 = LookupTable) | u64 deactivation_slot (u64::MAX while active) |
 *   u64 last_extended_slot | u8 last_extended_slot_start_index |
 *   Option<Pubkey> authority (u8 tag + 32 bytes, always 33 bytes) | u16 padding | [Pubkey; n]
 */
import { PublicKey } from '@solana/web3.js';
import { AccountDecodeError } from './decode-error';
import { readPubkey, writePubkey } from './base58';
import { PROGRAM_IDS } from './programs';

export const LOOKUP_TABLE_META_SIZE = 56;
export const LOOKUP_TABLE_MAX_ADDRESSES = 256;
export const LOOKUP_TABLE_ACTIVE = (1n << 64n) - 1n;

export interface AddressLookupTableState {
  deactivationSlot: bigint;
  lastExtendedSlot: bigint;
  lastExtendedSlotStartIndex: number;
  /** null once frozen */
  authority: string | null;
  addresses: string[];
}

export function decodeAddressLookupTable(data: Uint8Array, owner?: string, address = '(unknown)'): AddressLookupTableState {
  const fail = (why: string): never => {
    throw new AccountDecodeError(address, `address lookup table: ${why}`);
  };
  if (owner !== undefined && owner !== PROGRAM_IDS.addressLookupTable) fail(`owner ${owner} is not the address lookup table program`);
  if (data.length < LOOKUP_TABLE_META_SIZE) fail(`${data.length} bytes, expected at least ${LOOKUP_TABLE_META_SIZE}`);
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const type = b.readUInt32LE(0);
  if (type !== 1) fail(`type ${type}, expected 1 (LookupTable)`);
  if ((b.length - LOOKUP_TABLE_META_SIZE) % 32 !== 0) fail(`address area of ${b.length - LOOKUP_TABLE_META_SIZE} bytes is not a multiple of 32`);
  const tag = b[21];
  if (tag > 1) fail(`authority option tag ${tag}`);
  const addresses: string[] = [];
  for (let o = LOOKUP_TABLE_META_SIZE; o < b.length; o += 32) addresses.push(readPubkey(b, o));
  return {
    deactivationSlot: b.readBigUInt64LE(4),
    lastExtendedSlot: b.readBigUInt64LE(12),
    lastExtendedSlotStartIndex: b[20],
    authority: tag === 1 ? readPubkey(b, 22) : null,
    addresses,
  };
}

export function encodeAddressLookupTable(t: AddressLookupTableState): Buffer {
  if (t.addresses.length > LOOKUP_TABLE_MAX_ADDRESSES) throw new RangeError(`a lookup table holds at most ${LOOKUP_TABLE_MAX_ADDRESSES} addresses`);
  const b = Buffer.alloc(LOOKUP_TABLE_META_SIZE + 32 * t.addresses.length);
  b.writeUInt32LE(1, 0);
  b.writeBigUInt64LE(t.deactivationSlot, 4);
  b.writeBigUInt64LE(t.lastExtendedSlot, 12);
  b[20] = t.lastExtendedSlotStartIndex;
  if (t.authority !== null) {
    b[21] = 1;
    writePubkey(b, 22, t.authority);
  }
  t.addresses.forEach((a, i) => writePubkey(b, LOOKUP_TABLE_META_SIZE + 32 * i, a));
  return b;
}

/** True while the table can be used in a transaction (not deactivated). */
export function isLookupTableActive(t: Pick<AddressLookupTableState, 'deactivationSlot'>): boolean {
  return t.deactivationSlot === LOOKUP_TABLE_ACTIVE;
}

/** The table address the program derives: PDA [authority, recent_slot u64 LE]. */
export function lookupTableAddress(authority: string, recentSlot: bigint): string {
  const le = Buffer.alloc(8);
  le.writeBigUInt64LE(recentSlot, 0);
  return PublicKey.findProgramAddressSync([new PublicKey(authority).toBuffer(), le], new PublicKey(PROGRAM_IDS.addressLookupTable))[0].toBase58();
}

export interface LookupTableAccount {
  address: string;
  owner: string;
  data: Buffer;
  state: AddressLookupTableState;
}

/**
 * Pack `addresses` (deduplicated, order kept) into active lookup tables of at most 256
 * addresses, owned by `authority`, created at consecutive slots from `slot` (so their PDAs are
 * distinct). Put the addresses that are used together next to each other (e.g. one pool's
 * accounts) so that a route needs few tables. Deterministic: same input, same accounts.
 */
export function buildLookupTables(authority: string, slot: bigint, addresses: readonly string[], perTable = LOOKUP_TABLE_MAX_ADDRESSES): LookupTableAccount[] {
  if (perTable < 1 || perTable > LOOKUP_TABLE_MAX_ADDRESSES) throw new RangeError(`perTable must be 1..${LOOKUP_TABLE_MAX_ADDRESSES}`);
  const unique = [...new Set(addresses)];
  const out: LookupTableAccount[] = [];
  for (let i = 0; i < unique.length; i += perTable) {
    const tableSlot = slot + BigInt(out.length);
    const state: AddressLookupTableState = {
      deactivationSlot: LOOKUP_TABLE_ACTIVE,
      lastExtendedSlot: tableSlot,
      lastExtendedSlotStartIndex: 0,
      authority,
      addresses: unique.slice(i, i + perTable),
    };
    out.push({ address: lookupTableAddress(authority, tableSlot), owner: PROGRAM_IDS.addressLookupTable, data: encodeAddressLookupTable(state), state });
  }
  return out;
}
