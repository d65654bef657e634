/**
 * API keys, plain TypeScript: a key is `<prefix>_<64 hex characters from a CSPRNG>`; only its
 * SHA-256 hash is ever stored. The registry is the projection of the `api-keys` topic: the
 * newest record of each id, and a lookup of a presented key by its hash compared in constant time.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord } from '@app/contracts';

export const KEY_HEX_CHARS = 64;

/** a new key and its id (the id is what logs and the CLI show) */
export function generateApiKey(prefix: string): { id: string; key: string } {
  return { id: `key-${randomUUID()}`, key: `${prefix}_${randomBytes(KEY_HEX_CHARS / 2).toString('hex')}` };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** the shape of a key with this prefix (a presented string of another shape is invalid without a lookup) */
export function isKeyShaped(key: string, prefix: string): boolean {
  return key.length === prefix.length + 1 + KEY_HEX_CHARS && key.startsWith(`${prefix}_`) && /^[0-9a-f]+$/.test(key.slice(prefix.length + 1));
}

/** what a lookup finds: the key's id and tier, or why it is refused */
export type KeyLookup = { ok: true; id: string; tier: string } | { ok: false };

/** how many hex characters of a hash index the candidates (the rest is compared in constant time) */
const BUCKET_CHARS = 8;

export class ApiKeyRegistry {
  private readonly byId = new Map<string, ApiKeyRecord & { digest: Buffer }>();
  /** hash prefix → the ids whose hash starts with it */
  private readonly buckets = new Map<string, Set<string>>();

  /** apply one record (the newest of an id wins; a revoked id stays revoked) */
  apply(r: ApiKeyRecord): void {
    const old = this.byId.get(r.id);
    if (old?.state === 'revoked') return;
    if (old !== undefined && old.hash !== r.hash) this.buckets.get(old.hash.slice(0, BUCKET_CHARS))?.delete(r.id);
    this.byId.set(r.id, { ...r, digest: Buffer.from(r.hash, 'hex') });
    const b = r.hash.slice(0, BUCKET_CHARS);
    let set = this.buckets.get(b);
    if (set === undefined) this.buckets.set(b, (set = new Set()));
    set.add(r.id);
  }

  /** the active key a presented key is, compared by its SHA-256 hash in constant time */
  lookup(presented: string): KeyLookup {
    const digest = createHash('sha256').update(presented, 'utf8').digest();
    const candidates = this.buckets.get(digest.toString('hex', 0, BUCKET_CHARS / 2));
    let found: KeyLookup = { ok: false };
    if (candidates === undefined) return found;
    for (const id of candidates) {
      const r = this.byId.get(id)!;
      if (timingSafeEqual(r.digest, digest) && r.state === 'active') found = { ok: true, id: r.id, tier: r.tier };
    }
    return found;
  }

  get(id: string): ApiKeyRecord | undefined {
    const r = this.byId.get(id);
    if (r === undefined) return undefined;
    const { digest: _digest, ...record } = r;
    return record;
  }

  list(): ApiKeyRecord[] {
    return [...this.byId.keys()].map((id) => this.get(id)!);
  }
}
