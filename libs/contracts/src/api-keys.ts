import { ContractError } from './errors';
import { TOPICS } from './topics';

/**
 * `api-keys`: the API keys as events, keyed by the key's id. A record carries the key's SHA-256
 * hash (hex), never the key itself; the newest record of an id is the key's state. `active`
 * keys are served, `disabled` ones refused until enabled again, `revoked` ones refused for good.
 */
export type ApiKeyState = 'active' | 'disabled' | 'revoked';

export interface ApiKeyRecord {
  /** the key's id: what logs and the CLI name it by (also the record key) */
  id: string;
  /** SHA-256 of the key, 64 lowercase hex characters */
  hash: string;
  name: string;
  /** the rate-limit tier (RATE_LIMIT_TIERS names them; `default` always exists) */
  tier: string;
  state: ApiKeyState;
  /** when the event was written, Unix milliseconds (informational) */
  at: number;
}

export const API_KEY_RECORD_VERSION = 1;

const ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
const HASH = /^[0-9a-f]{64}$/;
const TIER = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const STATES: readonly ApiKeyState[] = ['active', 'disabled', 'revoked'];

export function isApiKeyId(x: unknown): x is string {
  return typeof x === 'string' && ID.test(x);
}

export function isTierName(x: unknown): x is string {
  return typeof x === 'string' && TIER.test(x);
}

/** Wire form (JSON): {v, id, hash, name, tier, state, at}. */
export function encodeApiKeyRecord(r: ApiKeyRecord): Buffer {
  return Buffer.from(JSON.stringify({ v: API_KEY_RECORD_VERSION, id: r.id, hash: r.hash, name: r.name, tier: r.tier, state: r.state, at: r.at }));
}

export function decodeApiKeyRecord(buf: Buffer): ApiKeyRecord {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(buf.toString('utf8'));
  } catch {
    throw new ContractError(TOPICS.apiKeys, 'not JSON');
  }
  if (typeof o !== 'object' || o === null) throw new ContractError(TOPICS.apiKeys, 'not an object');
  if (o.v !== API_KEY_RECORD_VERSION) throw new ContractError(TOPICS.apiKeys, `unknown schema version ${JSON.stringify(o.v)}`);
  if (!isApiKeyId(o.id)) throw new ContractError(TOPICS.apiKeys, 'invalid id');
  if (typeof o.hash !== 'string' || !HASH.test(o.hash)) throw new ContractError(TOPICS.apiKeys, 'invalid hash');
  if (typeof o.name !== 'string' || o.name.length === 0 || o.name.length > 200) throw new ContractError(TOPICS.apiKeys, 'invalid name');
  if (!isTierName(o.tier)) throw new ContractError(TOPICS.apiKeys, 'invalid tier');
  if (!STATES.includes(o.state as ApiKeyState)) throw new ContractError(TOPICS.apiKeys, 'invalid state');
  if (typeof o.at !== 'number' || !Number.isSafeInteger(o.at)) throw new ContractError(TOPICS.apiKeys, 'invalid at');
  return { id: o.id, hash: o.hash, name: o.name, tier: o.tier, state: o.state as ApiKeyState, at: o.at };
}
