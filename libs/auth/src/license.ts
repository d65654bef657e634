/**
 * The self-hosted distribution's license: a token `<payload>.<signature>`, both base64url, the
 * payload JSON `{v, licensee, expiresAt (ISO 8601), limits}` signed with the vendor's Ed25519
 * key. Verified offline with node's crypto against LICENSE_PUBLIC_KEY. Plain TypeScript.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export interface LicensePayload {
  v: 1;
  licensee: string;
  /** ISO 8601 time after which the license no longer serves */
  expiresAt: string;
  /** what the license allows (free form numbers, e.g. {"rps": 50}); informational to the service */
  limits: Record<string, number>;
}

export class LicenseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LicenseError';
  }
}

/** a key from PEM text, or base64 of its DER (SPKI for a public key, PKCS#8 for a private one) */
function keyOf(text: string, kind: 'public' | 'private'): KeyObject {
  const pem = text.includes('-----BEGIN') ? text.replace(/\\n/g, '\n') : null;
  try {
    const k =
      kind === 'public'
        ? createPublicKey(pem ?? { key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' })
        : createPrivateKey(pem ?? { key: Buffer.from(text, 'base64'), format: 'der', type: 'pkcs8' });
    if (k.asymmetricKeyType !== 'ed25519') throw new LicenseError(`the ${kind} key is ${k.asymmetricKeyType}, not Ed25519`);
    return k;
  } catch (e) {
    if (e instanceof LicenseError) throw e;
    throw new LicenseError(`the ${kind} key is not an Ed25519 key in PEM or base64 DER`);
  }
}

export function issueLicense(privateKey: string, p: Omit<LicensePayload, 'v'>): string {
  if (p.licensee.trim() === '') throw new LicenseError('the licensee is empty');
  if (Number.isNaN(Date.parse(p.expiresAt))) throw new LicenseError(`the expiry ${JSON.stringify(p.expiresAt)} is not an ISO 8601 time`);
  const payload = Buffer.from(JSON.stringify({ v: 1, licensee: p.licensee, expiresAt: new Date(p.expiresAt).toISOString(), limits: p.limits }));
  return `${payload.toString('base64url')}.${sign(null, payload, keyOf(privateKey, 'private')).toString('base64url')}`;
}

/** the payload of a token signed by `publicKey` and not expired at `now`; a LicenseError naming what is wrong otherwise */
export function verifyLicense(token: string, publicKey: string, now: number = Date.now()): LicensePayload {
  const parts = token.trim().split('.');
  if (parts.length !== 2 || parts.some((x) => !/^[A-Za-z0-9_-]+$/.test(x))) throw new LicenseError('LICENSE_KEY is not a license token (<payload>.<signature>, base64url)');
  const payload = Buffer.from(parts[0], 'base64url');
  if (!verify(null, payload, keyOf(publicKey, 'public'), Buffer.from(parts[1], 'base64url'))) throw new LicenseError('LICENSE_KEY signature does not verify against LICENSE_PUBLIC_KEY');
  let p: LicensePayload;
  try {
    p = JSON.parse(payload.toString('utf8'));
  } catch {
    throw new LicenseError('LICENSE_KEY payload is not JSON');
  }
  if (p?.v !== 1 || typeof p.licensee !== 'string' || typeof p.expiresAt !== 'string' || Number.isNaN(Date.parse(p.expiresAt))) throw new LicenseError('LICENSE_KEY payload is malformed');
  if (Date.parse(p.expiresAt) <= now) throw new LicenseError(`LICENSE_KEY expired at ${p.expiresAt} (licensee ${p.licensee})`);
  return p;
}
