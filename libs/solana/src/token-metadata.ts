/**
 * A token's name and symbol as the chain holds them, in the two places a mint's metadata lives:
 *
 *  - the Metaplex Token Metadata program's `Metadata` account, at the PDA
 *    ["metadata", program id, mint] of that program: key (1 byte, 4 = MetadataV1), update
 *    authority (32), mint (32), then the borsh strings name (u32 length + bytes, at most 32),
 *    symbol (at most 10) and uri (at most 200); the program pads them with NUL bytes inside the
 *    string, which are stripped here;
 *  - Token-2022's TokenMetadata extension (TLV type 19) in the mint itself: update authority (32,
 *    zero = none), mint (32), then borsh strings name, symbol, uri and the additional key/value
 *    pairs.
 *
 * Decoders throw AccountDecodeError on bytes that are not such an account; the encoders build the
 * same layouts (the simulated market writes its tokens' metadata with them).
 */
import { base58Decode, base58Encode, readPubkey } from './base58';
import { AccountDecodeError } from './decode-error';
import { findProgramAddress } from './pda';
import { EXTENSION_TYPE, type MintAccount } from './spl-token';

/** the Metaplex Token Metadata program (mainnet) */
export const TOKEN_METADATA_PROGRAM_ID = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';

/** `Key::MetadataV1`, the first byte of a Metadata account */
const METADATA_V1 = 4;
const MAX_NAME = 32;
const MAX_SYMBOL = 10;
const MAX_URI = 200;

export interface TokenMetadata {
  mint: string;
  name: string;
  symbol: string;
  uri: string;
}

const PROGRAM_KEY = base58Decode(TOKEN_METADATA_PROGRAM_ID)!;
const METADATA_SEED = Buffer.from('metadata');

/** the Metadata account of a mint (the program's PDA ["metadata", program id, mint]) */
export function metadataAddress(mint: string): string {
  const key = base58Decode(mint);
  if (key === null || key.length !== 32) throw new Error(`not a public key: ${mint}`);
  return base58Encode(findProgramAddress([METADATA_SEED, PROGRAM_KEY, key], PROGRAM_KEY)[0]);
}

/** a borsh string at `offset` (u32 length, then UTF-8), NULs stripped; null when it runs past the data */
function readString(b: Buffer, offset: number, max: number): { value: string; next: number } | null {
  if (offset + 4 > b.length) return null;
  const len = b.readUInt32LE(offset);
  if (len > max || offset + 4 + len > b.length) return null;
  return { value: b.toString('utf8', offset + 4, offset + 4 + len).replace(/\0/gu, ''), next: offset + 4 + len };
}

/** name, symbol and uri from `offset` on (the layout both places share after the two keys) */
function readNameSymbolUri(b: Buffer, offset: number, max: [number, number, number]): { name: string; symbol: string; uri: string } | null {
  const name = readString(b, offset, max[0]);
  const symbol = name && readString(b, name.next, max[1]);
  const uri = symbol && readString(b, symbol.next, max[2]);
  return uri ? { name: name!.value, symbol: symbol!.value, uri: uri.value } : null;
}

/** A Metaplex Metadata account's mint, name, symbol and uri. */
export function decodeMetaplexMetadata(data: Uint8Array, owner: string, address = '(unknown)'): TokenMetadata {
  if (owner !== TOKEN_METADATA_PROGRAM_ID) throw new AccountDecodeError(address, `wrong owner ${owner}: expected the Token Metadata program`);
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.length < 65 + 12 || b[0] !== METADATA_V1) throw new AccountDecodeError(address, `not a Metadata account (key ${b[0]}, ${b.length} bytes)`);
  const strings = readNameSymbolUri(b, 65, [MAX_NAME, MAX_SYMBOL, MAX_URI]);
  if (strings === null) throw new AccountDecodeError(address, 'Metadata strings run past the account or over their maximum');
  return { mint: readPubkey(b, 33), ...strings };
}

/** A Token-2022 mint's TokenMetadata extension; null when the mint has none or it does not parse. */
export function mintTokenMetadata(mint: MintAccount): Omit<TokenMetadata, 'mint'> | null {
  const ext = (mint.extensions ?? []).find((e) => e.type === EXTENSION_TYPE.tokenMetadata);
  if (ext === undefined) return null;
  const b = Buffer.from(ext.data.buffer, ext.data.byteOffset, ext.data.byteLength);
  // no protocol maximum: a mint's own extension is bounded by its account size
  return readNameSymbolUri(b, 64, [b.length, b.length, b.length]);
}

function writeString(value: string, padTo = 0): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const out = Buffer.alloc(4 + Math.max(bytes.length, padTo));
  out.writeUInt32LE(Math.max(bytes.length, padTo), 0);
  bytes.copy(out, 4);
  return out;
}

/**
 * A Metadata account as the program writes it (strings padded to their maximum; seller fee 0, no
 * creators, no collection or uses; primary sale not happened; mutable).
 */
export function encodeMetaplexMetadata(m: TokenMetadata & { updateAuthority: string }): Buffer {
  const head = Buffer.alloc(65);
  head[0] = METADATA_V1;
  Buffer.from(base58Decode(m.updateAuthority)!).copy(head, 1);
  Buffer.from(base58Decode(m.mint)!).copy(head, 33);
  // seller_fee_basis_points u16, creators None, primary_sale_happened, is_mutable, edition_nonce None, token_standard None, collection None, uses None
  const tail = Buffer.from([0, 0, 0, 0, 1, 0, 0, 0, 0]);
  return Buffer.concat([head, writeString(m.name, MAX_NAME), writeString(m.symbol, MAX_SYMBOL), writeString(m.uri, MAX_URI), tail]);
}

/** The data of a Token-2022 TokenMetadata extension (no update authority, no additional metadata). */
export function encodeTokenMetadataExtension(m: TokenMetadata): Buffer {
  const keys = Buffer.alloc(64);
  Buffer.from(base58Decode(m.mint)!).copy(keys, 32);
  return Buffer.concat([keys, writeString(m.name), writeString(m.symbol), writeString(m.uri), Buffer.alloc(4)]);
}
