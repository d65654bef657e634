import { isPublicKey } from '../../solana/src/base58';
import { ContractError } from './errors';
import { TOPICS } from './topics';

/**
 * One slot-stamped account write, as the ingestor puts it on `pool-updates`.
 * Raw account bytes, not decoded structs: replaying with a newer decoder gives the newer
 * answer, and an audit can prove what the chain said.
 */
export interface PoolUpdate {
  slot: number;
  /** account address (also the record key) */
  address: string;
  /** owner program of the account */
  owner: string;
  lamports: bigint;
  /** raw account bytes; null = account closed */
  data: Buffer | null;
  /** where the write came from: 'sim', 'file', 'rpc' */
  source: string;
}

export const POOL_UPDATE_VERSION = 1;

/** Wire form (JSON): {v, slot, address, owner, lamports (decimal string), data (base64 | null), source}. */
export function encodePoolUpdate(u: PoolUpdate): Buffer {
  return Buffer.from(
    JSON.stringify({
      v: POOL_UPDATE_VERSION,
      slot: u.slot,
      address: u.address,
      owner: u.owner,
      lamports: u.lamports.toString(),
      data: u.data === null ? null : u.data.toString('base64'),
      source: u.source,
    }),
  );
}

/** the last quantum of padded base64 */
const BASE64_TAIL = /^[A-Za-z0-9+/]{2}(?:==|[A-Za-z0-9+/]=)$/;
const U64_MAX = (1n << 64n) - 1n;

function fail(reason: string): never {
  throw new ContractError(TOPICS.poolUpdates, reason);
}

/** Validate and decode a record body from the wire (a Buffer or the parsed JSON object). */
export function decodePoolUpdate(value: Buffer | string | unknown): PoolUpdate {
  let obj: unknown = value;
  if (Buffer.isBuffer(value) || typeof value === 'string') {
    try {
      obj = JSON.parse(value.toString());
    } catch {
      fail('malformed record: not JSON');
    }
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) fail('malformed record: not an object');
  const o = obj as Record<string, unknown>;
  if (o.v === undefined) fail('malformed record: missing schema version v');
  if (o.v !== POOL_UPDATE_VERSION) fail(`unsupported schema version ${JSON.stringify(o.v)} (this reader knows ${POOL_UPDATE_VERSION})`);
  const slot = o.slot;
  if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) fail('malformed record: slot must be a non-negative integer');
  if (!isPublicKey(o.address)) fail('malformed record: address is not a base58 public key');
  if (!isPublicKey(o.owner)) fail('malformed record: owner is not a base58 public key');
  if (typeof o.lamports !== 'string' || !/^(0|[1-9][0-9]{0,19})$/.test(o.lamports) || BigInt(o.lamports) > U64_MAX)
    fail('malformed record: lamports must be a u64 decimal string');
  let data: Buffer | null = null;
  if (o.data !== null) {
    if (typeof o.data !== 'string' || o.data.length % 4 !== 0) fail('malformed record: data must be base64 or null');
    data = Buffer.from(o.data, 'base64');
    // Node's decoder skips characters outside the alphabet and stops at a misplaced '=', so a
    // decoded length short of what the text's length promises means the text was not base64
    const text = o.data;
    const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
    // (it also accepts the URL-safe '-' and '_', which are not base64 here)
    if (
      data.length !== (text.length / 4) * 3 - pad ||
      (pad > 0 && !BASE64_TAIL.test(text.slice(-4))) ||
      text.indexOf('-') >= 0 ||
      text.indexOf('_') >= 0
    )
      fail('malformed record: data must be base64 or null');
  }
  if (typeof o.source !== 'string' || o.source.length === 0 || o.source.length > 64) fail('malformed record: source must be a short string');
  return { slot, address: o.address, owner: o.owner, lamports: BigInt(o.lamports), data, source: o.source };
}
