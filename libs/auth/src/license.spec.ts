import { generateKeyPairSync } from 'node:crypto';
import { issueLicense, verifyLicense } from './license';
import { LicenseWatch } from './self-hosted';

function keyPair(): { privatePem: string; publicB64: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicB64: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

describe('licenses', () => {
  const vendor = keyPair();
  const future = new Date(Date.now() + 86_400_000).toISOString();

  it('a license issued with the vendor key verifies against its public key (base64 DER or PEM)', () => {
    const token = issueLicense(vendor.privatePem, { licensee: 'Acme', expiresAt: future, limits: { rps: 50 } });
    expect(verifyLicense(token, vendor.publicB64)).toEqual({ v: 1, licensee: 'Acme', expiresAt: future, limits: { rps: 50 } });
    expect(verifyLicense(token, vendor.publicPem).licensee).toBe('Acme');
  });

  it('names what is wrong: another key, a tampered payload, garbage, an expiry passed, a key that is not Ed25519', () => {
    const token = issueLicense(vendor.privatePem, { licensee: 'Acme', expiresAt: future, limits: {} });
    expect(() => verifyLicense(token, keyPair().publicB64)).toThrow(/signature does not verify/);
    const [p, sig] = token.split('.');
    const forged = Buffer.from(Buffer.from(p, 'base64url').toString().replace('Acme', 'Evil')).toString('base64url');
    expect(() => verifyLicense(`${forged}.${sig}`, vendor.publicB64)).toThrow(/signature does not verify/);
    expect(() => verifyLicense('not a token', vendor.publicB64)).toThrow(/not a license token/);
    expect(() => verifyLicense(token, vendor.publicB64, Date.parse(future))).toThrow(/expired at/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    expect(() => verifyLicense(token, rsa)).toThrow(/not Ed25519/);
    expect(() => verifyLicense(token, 'AAAA')).toThrow(/not an Ed25519 key/);
  });

  it('the watch refuses requests once the license expires, the process going on', () => {
    let now = Date.now();
    const watch = new LicenseWatch(issueLicense(vendor.privatePem, { licensee: 'Acme', expiresAt: future, limits: {} }), vendor.publicB64, () => now);
    expect(watch.refusal()).toBeNull();
    now = Date.parse(future) + 1;
    expect(watch.refusal()).toBe('license expired');
  });
});
