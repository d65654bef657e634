/**
 * The self-hosted distribution's checks: at start, the license verified and the RPC key accepted
 * by an authenticated call to RPC_URL (a refusal names what is wrong, and the process exits
 * non-zero); while running, the license verified again daily, and new requests refused once it
 * has expired (the process stays up).
 */
import { rpcEndpoints } from '@app/solana';
import type { AppConfig } from '@app/config';
import { LicenseError, verifyLicense, type LicensePayload } from './license';

export const LICENSE_RECHECK_MS = 24 * 60 * 60 * 1000;
const RPC_CHECK_TIMEOUT_MS = 10_000;

type SelfHostedConfig = Pick<AppConfig, 'deployment' | 'licenseKey' | 'licensePublicKey' | 'rpcUrl' | 'rpcKey'>;

/**
 * an authenticated JSON-RPC call (getVersion) with RPC_KEY, where the RPC source puts it (the
 * URL's empty query parameter, else a bearer token): a LicenseError when refused or unreachable
 */
export async function checkRpcKey(rpcUrl: string, rpcKey: string): Promise<void> {
  const [endpoint] = rpcEndpoints([rpcUrl], [], rpcKey);
  let res: Response;
  try {
    res = await fetch(endpoint.httpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...endpoint.headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getVersion' }),
      signal: AbortSignal.timeout(RPC_CHECK_TIMEOUT_MS),
    });
    await res.arrayBuffer();
  } catch (e) {
    throw new LicenseError(`RPC_URL could not be reached to check RPC_KEY: ${(e as Error).message}`);
  }
  if (res.status === 401 || res.status === 403) throw new LicenseError(`RPC_KEY was refused by RPC_URL (HTTP ${res.status})`);
  if (!res.ok) throw new LicenseError(`RPC_URL answered the RPC_KEY check with HTTP ${res.status}`);
}

/** the checks a self-hosted instance passes before it starts (nothing for a hosted one) */
export async function checkSelfHostedStart(config: SelfHostedConfig): Promise<LicensePayload | null> {
  if (config.deployment !== 'self-hosted') return null;
  const license = verifyLicense(config.licenseKey!, config.licensePublicKey!);
  await checkRpcKey(config.rpcUrl!, config.rpcKey!);
  return license;
}

/** the license while the instance runs: verified again every day; `refusal` says why requests are refused, null while valid */
export class LicenseWatch {
  private problem: string | null = null;
  private expiresAt = Infinity;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly token: string,
    private readonly publicKey: string,
    private readonly now: () => number = Date.now,
  ) {
    this.check();
  }

  check(): void {
    try {
      this.expiresAt = Date.parse(verifyLicense(this.token, this.publicKey, this.now()).expiresAt);
      this.problem = null;
    } catch (e) {
      this.problem = (e as Error).message;
    }
  }

  refusal(): string | null {
    if (this.problem === null && this.now() >= this.expiresAt) this.check();
    return this.problem === null ? null : this.problem.startsWith('LICENSE_KEY expired') ? 'license expired' : 'license invalid';
  }

  start(): void {
    this.timer ??= setInterval(() => this.check(), LICENSE_RECHECK_MS).unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** a main's start: the self-hosted checks, or a message naming what is wrong and exit status 2 */
export async function startChecksOrExit(config: SelfHostedConfig): Promise<void> {
  try {
    const license = await checkSelfHostedStart(config);
    if (license !== null) console.log(`self-hosted: licensed to ${license.licensee} until ${license.expiresAt}; RPC key accepted by RPC_URL`);
  } catch (e) {
    console.error(`refusing to start: ${(e as Error).message}`);
    process.exit(2);
  }
}

/** the access part of a start-up line */
export function accessSummary(config: Pick<AppConfig, 'authMode' | 'redisUrl' | 'deployment'>): string {
  return `auth: ${config.authMode === 'keys' ? 'API keys' : 'off (AUTH_MODE=off: no API key needed)'}, rate limits: ${config.redisUrl === null ? 'in memory' : 'Redis'}${config.deployment === 'self-hosted' ? ', self-hosted' : ''}`;
}
