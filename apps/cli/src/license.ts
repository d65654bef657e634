/**
 * npm run -s license -- <command>   (the vendor's tool for the self-hosted distribution's licenses)
 *
 *   keygen --private-key FILE          a new Ed25519 key pair: the private key written to FILE (PEM,
 *                                      mode 600, never overwritten); prints {"publicKey"}: the value of
 *                                      LICENSE_PUBLIC_KEY (base64 of its SPKI DER)
 *   issue --private-key FILE --licensee NAME --expires ISO-8601 [--limits JSON]
 *                                      prints {"license", "licensee", "expiresAt", "limits"}: the
 *                                      license is LICENSE_KEY
 *   verify --license TOKEN --public-key KEY
 *                                      prints the payload, or fails naming what is wrong
 */
import * as fs from 'node:fs';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { issueLicense, verifyLicense } from '@app/auth';
import { CliError, option, parseCliArgs, runCli } from './args';

export function licenseCommand(argv: readonly string[], out: (o: object) => void): void {
  const args = parseCliArgs(argv);
  if (args.command === 'keygen') {
    const file = option(args, 'private-key');
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    fs.writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
    out({ publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64') });
    return;
  }
  if (args.command === 'issue') {
    let limits: Record<string, number> = {};
    if (args.options.limits !== undefined) {
      try {
        limits = JSON.parse(args.options.limits);
      } catch {
        throw new CliError('--limits must be a JSON object of numbers');
      }
      if (typeof limits !== 'object' || limits === null || Array.isArray(limits) || Object.values(limits).some((v) => typeof v !== 'number')) {
        throw new CliError('--limits must be a JSON object of numbers');
      }
    }
    const privateKey = fs.readFileSync(option(args, 'private-key'), 'utf8');
    const license = issueLicense(privateKey, { licensee: option(args, 'licensee'), expiresAt: option(args, 'expires'), limits });
    out({ license, ...verifyLicense(license, publicKeyOf(privateKey), 0) });
    return;
  }
  if (args.command === 'verify') {
    out(verifyLicense(option(args, 'license'), option(args, 'public-key')));
    return;
  }
  throw new CliError('usage: license keygen --private-key FILE | issue --private-key FILE --licensee NAME --expires ISO-8601 [--limits JSON] | verify --license TOKEN --public-key KEY');
}

function publicKeyOf(privatePem: string): string {
  return createPublicKey(privatePem).export({ type: 'spki', format: 'der' }).toString('base64');
}

if (require.main === module) runCli(async (out) => licenseCommand(process.argv.slice(2), out));
