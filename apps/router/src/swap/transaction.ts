/**
 * Version-0 transaction assembly: the user wallet is the fee payer and the only signer; lookup
 * tables from the projection compress the account list; the serialized size (with the one empty
 * signature the wallet fills) must fit the 1232-byte packet limit, and its accounts the 64-account
 * lock limit. Pure.
 */
import { AddressLookupTableAccount, PublicKey, TransactionMessage, VersionedTransaction, type MessageV0, type TransactionInstruction } from '@solana/web3.js';
import { decodeAddressLookupTable, isLookupTableActive } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import { addressOf } from '@app/solana';

export const PACKET_DATA_SIZE = 1232;

/**
 * The runtime's transaction account lock limit: a transaction may lock at most 64 accounts, and
 * every account key of its message counts (static and loaded from lookup tables, read-only ones
 * included); past it the transaction fails with TooManyAccountLocks. (The one-byte account index
 * of a message would allow 256; the feature raising the lock limit to 128 is not active on
 * mainnet.)
 */
export const TRANSACTION_ACCOUNT_LOCK_LIMIT = 64;

/** The route's transaction does not fit in 1232 bytes even with the lookup tables. */
export class TransactionTooLargeError extends Error {
  /**
   * @param size serialized size in bytes (Infinity when no message can be compiled at all)
   * @param excess what exceeds which limit, for the message
   */
  constructor(
    readonly size: number,
    readonly excess = `${size} bytes exceeds the ${PACKET_DATA_SIZE}-byte limit`,
  ) {
    super(`transaction too large: ${excess}`);
    this.name = 'TransactionTooLargeError';
  }
}

/**
 * The route's instructions reference more than 64 distinct accounts (fee payer and program ids
 * included): the runtime refuses to lock them (TooManyAccountLocks), lookup tables or not. A
 * TransactionTooLargeError (the byte budget then tries smaller routes alike).
 */
export class TooManyAccountsError extends TransactionTooLargeError {
  constructor(readonly accounts: number) {
    super(Infinity, `${accounts} accounts exceed the ${TRANSACTION_ACCOUNT_LOCK_LIMIT}-account lock limit`);
    this.name = 'TooManyAccountsError';
  }
}

/**
 * The distinct accounts a message of these instructions references: the payer, every program id
 * and every instruction account (what a v0 message lists, statically or through lookup tables).
 */
export function accountCount(payer: string, instructions: readonly TransactionInstruction[]): number {
  const keys = new Set<string>([payer]);
  for (const ix of instructions) {
    keys.add(addressOf(ix.programId));
    for (const k of ix.keys) keys.add(addressOf(k.pubkey));
  }
  return keys.size;
}

/** the accounts a compiled v0 message makes the runtime lock: its static keys and every key it loads from lookup tables */
export function lockedAccounts(message: Pick<MessageV0, 'staticAccountKeys' | 'addressTableLookups'>): number {
  return message.staticAccountKeys.length + message.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
}

export interface LookupTableSource {
  /** addresses of the lookup table accounts on the log */
  lookupTableAddresses(): readonly string[];
  account(address: string): { owner: string; data: Buffer } | undefined;
}

/**
 * Lookup tables by the addresses they hold, re-decoded only when a table's bytes change.
 * `select` picks, greedily, the active tables that cover the most of a transaction's
 * non-signer, non-program-id accounts (a table that covers fewer than two is not worth its 34
 * bytes of header).
 */
export class LookupTableIndex {
  private readonly decoded = new Map<string, { data: Buffer; table: AddressLookupTableAccount; set: Set<string> }>();
  private readonly setOf = new WeakMap<AddressLookupTableAccount, Set<string>>();

  constructor(private readonly source: LookupTableSource) {}

  tables(): AddressLookupTableAccount[] {
    const out: AddressLookupTableAccount[] = [];
    for (const address of this.source.lookupTableAddresses()) {
      const acc = this.source.account(address);
      if (!acc || acc.owner !== PROGRAM_IDS.addressLookupTable) {
        this.decoded.delete(address);
        continue;
      }
      let hit = this.decoded.get(address);
      if (!hit || hit.data !== acc.data) {
        try {
          const st = decodeAddressLookupTable(acc.data, acc.owner, address);
          if (!isLookupTableActive(st)) continue;
          hit = {
            data: acc.data,
            table: new AddressLookupTableAccount({
              key: new PublicKey(address),
              state: {
                deactivationSlot: st.deactivationSlot,
                lastExtendedSlot: Number(st.lastExtendedSlot),
                lastExtendedSlotStartIndex: st.lastExtendedSlotStartIndex,
                authority: st.authority ? new PublicKey(st.authority) : undefined,
                addresses: st.addresses.map((a) => new PublicKey(a)),
              },
            }),
            set: new Set(st.addresses),
          };
          this.setOf.set(hit.table, hit.set);
          this.decoded.set(address, hit);
        } catch {
          continue;
        }
      }
      out.push(hit.table);
    }
    return out;
  }

  /** the addresses a table returned by `tables` / `select` holds */
  addressSet(table: AddressLookupTableAccount): ReadonlySet<string> {
    return this.setOf.get(table) ?? new Set(table.state.addresses.map((a) => a.toBase58()));
  }

  /** which of `tables` (by position) hold each address; rebuilt only when the list of tables changes */
  private holders: { tables: AddressLookupTableAccount[]; of: Map<string, number[]> } | undefined;

  private holdersOf(tables: AddressLookupTableAccount[]): Map<string, number[]> {
    const h = this.holders;
    if (h !== undefined && h.tables.length === tables.length && h.tables.every((t, i) => t === tables[i])) return h.of;
    const of = new Map<string, number[]>();
    tables.forEach((t, i) => {
      for (const a of this.addressSet(t)) {
        const list = of.get(a);
        if (list === undefined) of.set(a, [i]);
        else list.push(i);
      }
    });
    this.holders = { tables, of };
    return of;
  }

  select(wallet: string, instructions: TransactionInstruction[]): AddressLookupTableAccount[] {
    const tables = this.tables();
    if (tables.length === 0) return [];
    const holders = this.holdersOf(tables);
    const programIds = new Set(instructions.map((i) => addressOf(i.programId)));
    const wanted = new Set<string>();
    for (const ix of instructions) for (const k of ix.keys) if (!k.isSigner) wanted.add(addressOf(k.pubkey));
    wanted.delete(wallet);
    for (const p of programIds) wanted.delete(p);
    // how many wanted addresses each table covers, kept as tables are chosen (the greedy cover:
    // the table covering most, the first of equals; at least two)
    const cover = new Int32Array(tables.length);
    for (const a of wanted) for (const t of holders.get(a) ?? []) cover[t]++;
    const chosen: AddressLookupTableAccount[] = [];
    for (;;) {
      let best = -1;
      let bestCover = 1;
      for (let i = 0; i < tables.length; i++) {
        if (cover[i] > bestCover) {
          best = i;
          bestCover = cover[i];
        }
      }
      if (best < 0) break;
      chosen.push(tables[best]);
      const set = this.addressSet(tables[best]);
      for (const a of [...wanted]) {
        if (!set.has(a)) continue;
        wanted.delete(a);
        for (const t of holders.get(a)!) cover[t]--;
      }
    }
    return chosen;
  }
}

export interface CompiledTransaction {
  transaction: VersionedTransaction;
  bytes: Uint8Array;
  lookupTables: string[];
}

/** the length of a shortvec (compact-u16) encoding of n */
function shortvec(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}

/**
 * Serialized size of a version-0 transaction of this message with its (empty) signatures, from
 * the wire layout: signatures, version prefix, header, static keys, blockhash, instructions,
 * lookup table references. Works for any size (serialize() does not past 1232 bytes).
 */
export function transactionSize(message: MessageV0): number {
  const sigs = message.header.numRequiredSignatures;
  let n = shortvec(sigs) + 64 * sigs + 1 + 3;
  n += shortvec(message.staticAccountKeys.length) + 32 * message.staticAccountKeys.length + 32;
  n += shortvec(message.compiledInstructions.length);
  for (const ix of message.compiledInstructions) {
    n += 1 + shortvec(ix.accountKeyIndexes.length) + ix.accountKeyIndexes.length + shortvec(ix.data.length) + ix.data.length;
  }
  n += shortvec(message.addressTableLookups.length);
  for (const l of message.addressTableLookups) {
    n += 32 + shortvec(l.writableIndexes.length) + l.writableIndexes.length + shortvec(l.readonlyIndexes.length) + l.readonlyIndexes.length;
  }
  return n;
}

/**
 * The serialized size of the version-0 transaction compileTransaction would make of these
 * instructions and lookup tables, without compiling it (web3.js's compile matches every key
 * against every table address): the same key rules as web3.js's compileToV0Message (the payer
 * signs and is writable; a key's flags are the OR over the instructions; a key loads from the
 * first table, in the given order, that holds it unless it signs or is an invoked program id; a
 * table from which no key loads is left out), then the wire layout of transactionSize. Throws
 * TooManyAccountsError past the 64-account lock limit and TransactionTooLargeError past 1232
 * bytes, as compileTransaction does; `transaction.spec.ts` checks it against compileTransaction.
 */
export function measureTransaction(wallet: string, instructions: readonly TransactionInstruction[], tables: readonly ReadonlySet<string>[]): number {
  const SIGNER = 1;
  const WRITABLE = 2;
  const INVOKED = 4;
  const flags = new Map<string, number>([[wallet, SIGNER | WRITABLE]]);
  let ixBytes = shortvec(instructions.length);
  for (const ix of instructions) {
    const program = addressOf(ix.programId);
    flags.set(program, (flags.get(program) ?? 0) | INVOKED);
    for (const k of ix.keys) {
      const a = addressOf(k.pubkey);
      flags.set(a, (flags.get(a) ?? 0) | (k.isSigner ? SIGNER : 0) | (k.isWritable ? WRITABLE : 0));
    }
    ixBytes += 1 + shortvec(ix.keys.length) + ix.keys.length + shortvec(ix.data.length) + ix.data.length;
  }
  if (flags.size > TRANSACTION_ACCOUNT_LOCK_LIMIT) throw new TooManyAccountsError(flags.size);
  let signers = 0;
  const loadable: string[] = [];
  for (const [a, f] of flags) {
    if (f & SIGNER) signers++;
    else if (!(f & INVOKED)) loadable.push(a);
  }
  let statics = flags.size;
  let lookups = 0;
  let lookupBytes = 0;
  let left = loadable;
  for (const table of tables) {
    let writable = 0;
    let readonly = 0;
    const rest: string[] = [];
    for (const a of left) {
      if (!table.has(a)) rest.push(a);
      else if (flags.get(a)! & WRITABLE) writable++;
      else readonly++;
    }
    if (writable + readonly === 0) continue;
    lookups++;
    statics -= writable + readonly;
    lookupBytes += 32 + shortvec(writable) + writable + shortvec(readonly) + readonly;
    left = rest;
  }
  const size = shortvec(signers) + 64 * signers + 1 + 3 + shortvec(statics) + 32 * statics + 32 + ixBytes + shortvec(lookups) + lookupBytes;
  if (size > PACKET_DATA_SIZE) throw new TransactionTooLargeError(size);
  return size;
}

/**
 * Compile a v0 message (payer = wallet) and serialize it unsigned; throws TransactionTooLargeError
 * past 1232 bytes, TooManyAccountsError (one) past the 64-account lock limit.
 */
export function compileTransaction(
  wallet: string,
  instructions: TransactionInstruction[],
  recentBlockhash: string,
  lookupTables: AddressLookupTableAccount[],
): CompiledTransaction {
  // the runtime would refuse to lock them (and past 256 web3.js cannot even compile it): say so first
  const accounts = accountCount(wallet, instructions);
  if (accounts > TRANSACTION_ACCOUNT_LOCK_LIMIT) throw new TooManyAccountsError(accounts);
  const message = new TransactionMessage({ payerKey: new PublicKey(wallet), recentBlockhash, instructions }).compileToV0Message(lookupTables);
  const transaction = new VersionedTransaction(message);
  // web3.js serializes into a packet-sized buffer and throws past it: measure first
  const size = transactionSize(message);
  if (size > PACKET_DATA_SIZE) throw new TransactionTooLargeError(size);
  const bytes = transaction.serialize();
  if (bytes.length !== size) throw new Error(`transaction size ${bytes.length} differs from its measure ${size}`);
  const used = message.addressTableLookups.map((l) => l.accountKey.toBase58());
  return { transaction, bytes, lookupTables: used };
}
