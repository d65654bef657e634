/**
 * The gate every /api/v1 request and stream upgrade passes (API.md §5, §8): with AUTH_MODE=keys
 * a key (REST: `Authorization: Bearer`; the stream: `?key=` or that header) that the api-keys
 * projection holds as active, then the rate limit of its tier, counted per key; with keys off the
 * default tier's limit, counted per client address. /health and the API docs pass untouched.
 * Once checked, the key is taken off the request (header and query), so that nothing after the
 * gate, a log line included, can see it; the key's id is left on the request instead. No Nest.
 */
import type { IncomingMessage } from 'http';
import { clientAddress } from '@app/http';
import { RATE_LIMITED_BODY, rateHeaders } from '@app/http';
import { isOpenPath } from '@app/http';
import { DEFAULT_TIER, type TierRateLimiter } from '@app/http';
import type { ApiKeyRegistry } from './api-key';
import type { LicenseWatch } from './self-hosted';

export const MISSING_KEY_BODY = JSON.stringify({ success: false, error: 'missing api key' });
export const INVALID_KEY_BODY = JSON.stringify({ success: false, error: 'invalid api key' });

/** the request after the gate: who it counts as (`key:<id>` or `ip:<address>`) and the key's id */
export interface Admitted {
  ok: true;
  owner: string;
  keyId: string | null;
  headers: Record<string, string>;
}

export interface Refused {
  ok: false;
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type Admission = Admitted | Refused;

export interface GateOptions {
  authMode: 'keys' | 'off';
  /** the api-keys projection (required with keys on) */
  registry: ApiKeyRegistry | null;
  limiter: TierRateLimiter;
  trustedProxies: ReadonlySet<string>;
  /** the self-hosted license (null: hosted) */
  license: LicenseWatch | null;
}

/** what the gate leaves on a request it admitted */
export interface GatedRequest extends IncomingMessage {
  apiKeyId?: string | null;
  accessOwner?: string;
}

const refuse = (status: number, body: string, headers: Record<string, string> = {}): Refused => ({ ok: false, status, body, headers });

export class AccessGate {
  constructor(private readonly o: GateOptions) {
    if (o.authMode === 'keys' && o.registry === null) throw new Error('AUTH_MODE=keys needs the api-keys projection');
  }

  /** true for the requests the gate lets through untouched (/health, the API docs) */
  isOpen(req: IncomingMessage): boolean {
    return isOpenPath(req.url);
  }

  async admit(req: GatedRequest, via: 'rest' | 'stream'): Promise<Admission> {
    const presented = takeKey(req, via);
    const licenseProblem = this.o.license?.refusal() ?? null;
    if (licenseProblem !== null) return refuse(503, JSON.stringify({ success: false, error: licenseProblem }));
    let owner: string;
    let tier = DEFAULT_TIER;
    let keyId: string | null = null;
    if (this.o.authMode === 'keys') {
      if (presented === null) return refuse(401, MISSING_KEY_BODY);
      const found = this.o.registry!.lookup(presented);
      if (!found.ok) return refuse(403, INVALID_KEY_BODY);
      keyId = found.id;
      tier = found.tier;
      owner = `key:${found.id}`;
    } else owner = `ip:${clientAddress(req, this.o.trustedProxies)}`;
    req.apiKeyId = keyId;
    req.accessOwner = owner;
    let v;
    try {
      v = await this.o.limiter.take(owner, tier);
    } catch {
      return refuse(503, JSON.stringify({ success: false, error: 'rate limit store unavailable' }));
    }
    if (v === null) return { ok: true, owner, keyId, headers: {} };
    if (!v.allowed) return refuse(429, RATE_LIMITED_BODY, rateHeaders(v));
    return { ok: true, owner, keyId, headers: rateHeaders(v) };
  }
}

/**
 * The key a request presents (null: none), taken off it: the Authorization header, and for the
 * stream the `key` query parameter (which wins when both are given).
 */
function takeKey(req: IncomingMessage, via: 'rest' | 'stream'): string | null {
  let key: string | null = null;
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(auth);
    if (m !== null) key = m[1];
    delete req.headers.authorization;
    // the raw header list too (rawHeaders keeps what the client sent)
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'authorization') req.rawHeaders[i + 1] = '[removed]';
  }
  if (via === 'stream' && req.url !== undefined) {
    const q = req.url.indexOf('?');
    if (q !== -1) {
      const params = new URLSearchParams(req.url.slice(q + 1));
      const fromQuery = params.get('key');
      if (fromQuery !== null) {
        if (fromQuery !== '') key = fromQuery;
        params.delete('key');
        const rest = params.toString();
        req.url = req.url.slice(0, q) + (rest === '' ? '' : `?${rest}`);
      }
    }
  }
  return key;
}
