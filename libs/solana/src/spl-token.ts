/**
 * SPL Token and Token-2022 account codecs (Mint and token Account).
 *
 * Layouts (little endian; COption = u32 tag 0|1 followed by the value, always present in size):
 *  Mint (82 bytes):    mintAuthority COption<Pubkey> @0 (36) | supply u64 @36 | decimals u8 @44
 *                      | isInitialized bool @45 | freezeAuthority COption<Pubkey> @46 (36)
 *  Account (165 bytes): mint @0 | owner @32 | amount u64 @64 | delegate COption<Pubkey> @72 (36)
 *                      | state u8 @108 | isNative COption<u64> @109 (12) | delegatedAmount u64 @121
 *                      | closeAuthority COption<Pubkey> @129 (36)
 *  Token-2022 with extensions: the base layout, zero padding up to byte 165, the account type
 *  byte at 165 (1 = Mint, 2 = Account), then TLV entries from 166: type u16, length u16, value.
 */
import { readPubkey, writePubkey } from './base58';
import { AccountDecodeError } from './decode-error';
import { PROGRAM_IDS } from './programs';
import { readU64, view, writeU64 } from './bytes';

export const MINT_SIZE = 82;
export const TOKEN_ACCOUNT_SIZE = 165;
/** offset of the Token-2022 account-type byte (both for mints and token accounts) */
export const ACCOUNT_TYPE_OFFSET = 165;
export const ACCOUNT_TYPE_MINT = 1;
export const ACCOUNT_TYPE_ACCOUNT = 2;

/** Token-2022 extension type numbers used by this project. */
export const EXTENSION_TYPE = {
  uninitialized: 0,
  transferFeeConfig: 1,
  transferFeeAmount: 2,
  mintCloseAuthority: 3,
  defaultAccountState: 6,
  immutableOwner: 7,
  nonTransferable: 9,
  interestBearingConfig: 10,
  permanentDelegate: 12,
  transferHook: 14,
  transferHookAccount: 15,
  metadataPointer: 18,
  tokenMetadata: 19,
} as const;

/** One raw Token-2022 TLV entry. */
export interface TokenExtension {
  type: number;
  data: Uint8Array;
}

export interface MintAccount {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
  /** Token-2022 only: the raw TLV entries after the base layout, in account order */
  extensions?: TokenExtension[];
}

export type TokenAccountState = 'uninitialized' | 'initialized' | 'frozen';

export interface TokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: TokenAccountState;
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
  /** Token-2022 only: the raw TLV entries after the base layout, in account order */
  extensions?: TokenExtension[];
}

const STATES: readonly TokenAccountState[] = ['uninitialized', 'initialized', 'frozen'];

function checkTokenOwner(owner: string, account: string): void {
  if (owner !== PROGRAM_IDS.token && owner !== PROGRAM_IDS.token2022) {
    throw new AccountDecodeError(
      account,
      `wrong owner ${owner}: expected the Token or Token-2022 program`,
    );
  }
}

function readCOptionTag(buf: Buffer, offset: number, account: string, field: string): boolean {
  const tag = buf.readUInt32LE(offset);
  if (tag === 0) return false;
  if (tag === 1) return true;
  throw new AccountDecodeError(account, `invalid COption tag ${tag} for ${field}`);
}

function readOptionalPubkey(buf: Buffer, offset: number, account: string, field: string): string | null {
  return readCOptionTag(buf, offset, account, field) ? readPubkey(buf, offset + 4) : null;
}

function writeOptionalPubkey(buf: Buffer, offset: number, key: string | null): void {
  if (key === null) {
    buf.writeUInt32LE(0, offset);
  } else {
    buf.writeUInt32LE(1, offset);
    writePubkey(buf, offset + 4, key);
  }
}

/** Parse the TLV area of a Token-2022 account (from byte 166). Stops at an Uninitialized entry. */
function readExtensions(buf: Buffer, account: string): TokenExtension[] {
  const out: TokenExtension[] = [];
  let offset = ACCOUNT_TYPE_OFFSET + 1;
  while (offset + 4 <= buf.length) {
    const type = buf.readUInt16LE(offset);
    const length = buf.readUInt16LE(offset + 2);
    if (type === EXTENSION_TYPE.uninitialized) break;
    if (offset + 4 + length > buf.length) {
      throw new AccountDecodeError(
        account,
        `extension type ${type} at byte ${offset} has length ${length} beyond the account end (${buf.length})`,
      );
    }
    out.push({ type, data: new Uint8Array(buf.subarray(offset + 4, offset + 4 + length)) });
    offset += 4 + length;
  }
  return out;
}

function extensionArea(extensions: TokenExtension[]): number {
  return extensions.reduce((n, e) => n + 4 + e.data.length, 0);
}

function writeExtensions(buf: Buffer, accountType: number, extensions: TokenExtension[]): void {
  buf[ACCOUNT_TYPE_OFFSET] = accountType;
  let offset = ACCOUNT_TYPE_OFFSET + 1;
  for (const e of extensions) {
    if (e.data.length > 0xffff) throw new RangeError(`extension ${e.type} too long`);
    buf.writeUInt16LE(e.type, offset);
    buf.writeUInt16LE(e.data.length, offset + 2);
    buf.set(e.data, offset + 4);
    offset += 4 + e.data.length;
  }
}

/** Token-2022 base layout + extensions: bytes between the base and 165 must be zero. */
function checkExtendedLayout(
  buf: Buffer,
  baseSize: number,
  accountType: number,
  account: string,
  what: string,
): void {
  if (buf.length <= ACCOUNT_TYPE_OFFSET) {
    throw new AccountDecodeError(account, `wrong size ${buf.length} for a Token-2022 ${what} with extensions`);
  }
  const type = buf[ACCOUNT_TYPE_OFFSET];
  if (type !== accountType) {
    throw new AccountDecodeError(
      account,
      `account type byte is ${type}, expected ${accountType} (${what})`,
    );
  }
  for (let i = baseSize; i < ACCOUNT_TYPE_OFFSET; i++) {
    if (buf[i] !== 0) throw new AccountDecodeError(account, `non-zero padding at byte ${i} of a ${what}`);
  }
}

/** Decode a Mint of the Token or Token-2022 program. */
export function decodeMint(data: Uint8Array, owner: string, address = '(unknown)'): MintAccount {
  checkTokenOwner(owner, address);
  const buf = view(data);
  let extensions: TokenExtension[] | undefined;
  if (buf.length !== MINT_SIZE) {
    if (owner !== PROGRAM_IDS.token2022) {
      throw new AccountDecodeError(address, `wrong size ${buf.length} for a mint: expected ${MINT_SIZE}`);
    }
    checkExtendedLayout(buf, MINT_SIZE, ACCOUNT_TYPE_MINT, address, 'mint');
    extensions = readExtensions(buf, address);
  }
  const isInitialized = buf[45];
  if (isInitialized > 1) throw new AccountDecodeError(address, `invalid isInitialized byte ${isInitialized}`);
  const mint: MintAccount = {
    mintAuthority: readOptionalPubkey(buf, 0, address, 'mintAuthority'),
    supply: readU64(buf, 36),
    decimals: buf[44],
    isInitialized: isInitialized === 1,
    freezeAuthority: readOptionalPubkey(buf, 46, address, 'freezeAuthority'),
  };
  if (extensions) mint.extensions = extensions;
  return mint;
}

/**
 * Encode a Mint: 82 bytes (Token program layout); with `extensions` present, the Token-2022
 * extended layout (base, zero padding to 165, account type 1, TLV entries).
 */
export function encodeMint(m: MintAccount): Buffer {
  const ext = m.extensions;
  const size = ext ? ACCOUNT_TYPE_OFFSET + 1 + extensionArea(ext) : MINT_SIZE;
  const buf = Buffer.alloc(size);
  writeOptionalPubkey(buf, 0, m.mintAuthority);
  writeU64(buf, 36, m.supply, 'supply');
  buf[44] = m.decimals;
  buf[45] = m.isInitialized ? 1 : 0;
  writeOptionalPubkey(buf, 46, m.freezeAuthority);
  if (ext) writeExtensions(buf, ACCOUNT_TYPE_MINT, ext);
  return buf;
}

/** Decode a token Account of the Token or Token-2022 program. */
export function decodeTokenAccount(data: Uint8Array, owner: string, address = '(unknown)'): TokenAccount {
  checkTokenOwner(owner, address);
  const buf = view(data);
  let extensions: TokenExtension[] | undefined;
  if (buf.length !== TOKEN_ACCOUNT_SIZE) {
    if (owner !== PROGRAM_IDS.token2022) {
      throw new AccountDecodeError(
        address,
        `wrong size ${buf.length} for a token account: expected ${TOKEN_ACCOUNT_SIZE}`,
      );
    }
    checkExtendedLayout(buf, TOKEN_ACCOUNT_SIZE, ACCOUNT_TYPE_ACCOUNT, address, 'token account');
    extensions = readExtensions(buf, address);
  }
  const stateByte = buf[108];
  const state = STATES[stateByte];
  if (state === undefined) throw new AccountDecodeError(address, `invalid account state byte ${stateByte}`);
  const account: TokenAccount = {
    mint: readPubkey(buf, 0),
    owner: readPubkey(buf, 32),
    amount: readU64(buf, 64),
    delegate: readOptionalPubkey(buf, 72, address, 'delegate'),
    state,
    isNative: readCOptionTag(buf, 109, address, 'isNative') ? readU64(buf, 113) : null,
    delegatedAmount: readU64(buf, 121),
    closeAuthority: readOptionalPubkey(buf, 129, address, 'closeAuthority'),
  };
  if (extensions) account.extensions = extensions;
  return account;
}

/**
 * Encode a token Account: 165 bytes; with `extensions` present, the Token-2022 extended layout
 * (base, account type 2, TLV entries).
 */
export function encodeTokenAccount(a: TokenAccount): Buffer {
  const ext = a.extensions;
  const size = ext ? ACCOUNT_TYPE_OFFSET + 1 + extensionArea(ext) : TOKEN_ACCOUNT_SIZE;
  const buf = Buffer.alloc(size);
  writePubkey(buf, 0, a.mint);
  writePubkey(buf, 32, a.owner);
  writeU64(buf, 64, a.amount, 'amount');
  writeOptionalPubkey(buf, 72, a.delegate);
  const state = STATES.indexOf(a.state);
  if (state < 0) throw new RangeError(`invalid token account state ${String(a.state)}`);
  buf[108] = state;
  if (a.isNative === null) {
    buf.writeUInt32LE(0, 109);
  } else {
    buf.writeUInt32LE(1, 109);
    writeU64(buf, 113, a.isNative, 'isNative');
  }
  writeU64(buf, 121, a.delegatedAmount, 'delegatedAmount');
  writeOptionalPubkey(buf, 129, a.closeAuthority);
  if (ext) writeExtensions(buf, ACCOUNT_TYPE_ACCOUNT, ext);
  return buf;
}

/** One epoch's transfer fee of a Token-2022 mint. */
export interface TransferFee {
  epoch: bigint;
  maximumFee: bigint;
  transferFeeBasisPoints: number;
}

/** The Token-2022 TransferFeeConfig mint extension (type 1, 108 bytes). */
export interface TransferFeeConfig {
  transferFeeConfigAuthority: string | null;
  withdrawWithheldAuthority: string | null;
  withheldAmount: bigint;
  olderTransferFee: TransferFee;
  newerTransferFee: TransferFee;
}

const ZERO_KEY = '11111111111111111111111111111111';

/** The transfer-fee extension of a mint, or null when it has none. */
export function mintTransferFeeConfig(mint: MintAccount, address = '(unknown)'): TransferFeeConfig | null {
  const ext = mint.extensions?.find((e) => e.type === EXTENSION_TYPE.transferFeeConfig);
  if (!ext) return null;
  if (ext.data.length !== 108) {
    throw new AccountDecodeError(address, `TransferFeeConfig extension has length ${ext.data.length}, expected 108`);
  }
  const buf = view(ext.data);
  const optKey = (offset: number): string | null => {
    const key = readPubkey(buf, offset);
    return key === ZERO_KEY ? null : key;
  };
  const fee = (offset: number): TransferFee => ({
    epoch: readU64(buf, offset),
    maximumFee: readU64(buf, offset + 8),
    transferFeeBasisPoints: buf.readUInt16LE(offset + 16),
  });
  return {
    transferFeeConfigAuthority: optKey(0),
    withdrawWithheldAuthority: optKey(32),
    withheldAmount: readU64(buf, 64),
    olderTransferFee: fee(72),
    newerTransferFee: fee(90),
  };
}

/** The transfer fee in force at `epoch` (the newer one once its epoch is reached). */
export function transferFeeForEpoch(config: TransferFeeConfig, epoch: bigint): TransferFee {
  return epoch >= config.newerTransferFee.epoch ? config.newerTransferFee : config.olderTransferFee;
}
