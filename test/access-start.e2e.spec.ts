/**
 * The access settings as a user meets them, in real processes started from the apps' main.ts
 * (through the TypeScript require hook instead of a build): each refusal of a self-hosted
 * instance to start (exit status non-zero, a message naming what is wrong), a licensed start, the
 * keys and license CLIs' output, and no API key in any line a running service logs.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { bearer, rawRequest, upgrade } from './support/access';
import { freePort, REGISTER, ROOT, startTs, stopProc } from './support/processes';
import { waitFor } from './support/wait-for';
import { appendUpdates } from './support/app';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { TOPICS } from '@app/contracts';
import { SimMarket } from '@app/sim';

jest.setTimeout(180_000);

const SMALL_MARKET = { SIM_POOLS: '30', SIM_TOKENS: '10', SIM_SLOT_MS: '200', SIM_SWAPS_PER_SLOT: '2' };

/** run `apps/<app>/src/main.ts` (or a CLI file) to its end: exit status and everything it printed */
function runToEnd(file: string, args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER, path.join(ROOT, file), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const start = startTs;
const stop = stopProc;

/** a stand-in JSON-RPC node that takes only `Authorization: Bearer good-key` (401 without a key, 403 with another) */
async function rpcStandIn(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const auth = req.headers.authorization;
      res.statusCode = auth === undefined ? 401 : auth === 'Bearer good-key' ? 200 : 403;
      res.setHeader('content-type', 'application/json');
      res.end(res.statusCode === 200 ? JSON.stringify({ jsonrpc: '2.0', id: 1, result: { 'solana-core': '2.2.0' } }) : '{"error":"unauthorized"}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((ok) => server.close(() => ok())) };
}

describe('access: starts, refusals and CLIs (separate processes)', () => {
  let dir: string;
  let rpc: { url: string; close(): Promise<void> };
  let vendorKeyFile: string;
  let publicKey: string;
  let license: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'access-start-e2e-'));
    rpc = await rpcStandIn();
    vendorKeyFile = path.join(dir, 'vendor.pem');
    const keygen = await runToEnd('apps/cli/src/license.ts', ['keygen', '--private-key', vendorKeyFile], {});
    expect(keygen).toMatchObject({ status: 0, stderr: '' });
    ({ publicKey } = JSON.parse(keygen.stdout));
    const issued = await runToEnd('apps/cli/src/license.ts', ['issue', '--private-key', vendorKeyFile, '--licensee', 'Acme', '--expires', '2099-01-01T00:00:00Z', '--limits', '{"rps":50}'], {});
    expect(issued.status).toBe(0);
    const lines = issued.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const parsed = JSON.parse(lines[0]);
    expect(parsed).toMatchObject({ licensee: 'Acme', expiresAt: '2099-01-01T00:00:00.000Z', limits: { rps: 50 } });
    license = parsed.license;
  });

  afterAll(async () => {
    await rpc?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const selfHosted = (over: Record<string, string>): Record<string, string> => ({
    DATA_DIR: path.join(dir, 'data-refused'),
    PORT: '0',
    DEPLOYMENT: 'self-hosted',
    LICENSE_KEY: license,
    LICENSE_PUBLIC_KEY: publicKey,
    RPC_URL: rpc.url,
    RPC_KEY: 'good-key',
    ...over,
  });

  it('refuses to start, exit status 2 and a message naming what is wrong', async () => {
    const other = path.join(dir, 'other.pem');
    const otherPublic = JSON.parse((await runToEnd('apps/cli/src/license.ts', ['keygen', '--private-key', other], {})).stdout).publicKey;
    const expired = JSON.parse((await runToEnd('apps/cli/src/license.ts', ['issue', '--private-key', vendorKeyFile, '--licensee', 'Acme', '--expires', '2020-01-01T00:00:00Z'], {})).stdout).license;
    const deadPort = await freePort();
    const cases: [Record<string, string>, RegExp][] = [
      [{ LICENSE_KEY: '', RPC_KEY: '' }, /DEPLOYMENT=self-hosted needs LICENSE_KEY, RPC_KEY/],
      [{ LICENSE_PUBLIC_KEY: otherPublic }, /refusing to start: LICENSE_KEY signature does not verify against LICENSE_PUBLIC_KEY/],
      [{ LICENSE_KEY: expired }, /refusing to start: LICENSE_KEY expired at 2020-01-01T00:00:00.000Z/],
      [{ LICENSE_KEY: 'not-a-license' }, /refusing to start: LICENSE_KEY is not a license token/],
      [{ LICENSE_PUBLIC_KEY: 'AAAA' }, /refusing to start: the public key is not an Ed25519 key/],
      [{ RPC_KEY: 'wrong-key' }, /refusing to start: RPC_KEY was refused by RPC_URL \(HTTP 403\)/],
      [{ RPC_URL: `http://127.0.0.1:${deadPort}` }, /refusing to start: RPC_URL could not be reached to check RPC_KEY/],
      [{ DEPLOYMENT: 'hosted', AUTH_MODE: 'on' }, /configuration error: AUTH_MODE must be one of keys, off/],
    ];
    // four at a time: each loads the router's modules before its check (a few CPU seconds)
    const runs: Awaited<ReturnType<typeof runToEnd>>[] = [];
    for (let i = 0; i < cases.length; i += 4) runs.push(...(await Promise.all(cases.slice(i, i + 4).map(([env]) => runToEnd('apps/router/src/main.ts', [], selfHosted(env))))));
    cases.forEach(([env, message], i) => {
      expect([env, runs[i].status]).toEqual([env, 2]);
      expect(runs[i].stderr).toMatch(message);
    });
  }, 600_000);

  it('a licensed self-hosted router starts, says so, and serves', async () => {
    const port = await freePort();
    // a log with pools in it (a router on an empty log answers /health 503: nothing to route)
    const dataDir = path.join(dir, 'data-licensed');
    const log = new EmbeddedLog({ dataDir });
    await log.ensureTopic(TOPICS.poolUpdates);
    await appendUpdates(log, new SimMarket({ seed: 3, pools: 12, tokens: 6, swapsPerSlot: 1 }).genesis());
    await log.close();
    const p = start('apps/router/src/main.ts', selfHosted({ DATA_DIR: dataDir, PORT: String(port) }));
    try {
      await waitFor(() => p.output().includes('router listening') || p.child.exitCode !== null, 120_000, 'the start-up line', 100);
      expect(p.output()).toContain('self-hosted: licensed to Acme until 2099-01-01T00:00:00.000Z; RPC key accepted by RPC_URL');
      expect(p.output()).toMatch(/auth: off \(AUTH_MODE=off: no API key needed\), rate limits: in memory, self-hosted/);
      expect((await rawRequest(port, 'GET', '/health')).status).toBe(200);
    } finally {
      await stop(p);
    }
  });

  it('keys on: the CLI prints the key once as JSON beside the running service; no key in any line the service logs', async () => {
    const data = path.join(dir, 'data-keys');
    const env = { DATA_DIR: data };
    const port = await freePort();
    const created = await runToEnd('apps/cli/src/keys.ts', ['create', '--name', 'alice'], env);
    expect(created).toMatchObject({ status: 0, stderr: '' });
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    const { id, key } = JSON.parse(created.stdout);
    expect(key).toMatch(/^swap_[0-9a-f]{64}$/);
    const p = start('apps/all-in-one/src/main.ts', { ...SMALL_MARKET, ...env, PORT: String(port), AUTH_MODE: 'keys' });
    const used = [key];
    try {
      await waitFor(async () => p.child.exitCode !== null || (await rawRequest(port, 'GET', '/health').catch(() => null))?.status === 200, 120_000, 'health', 200);
      expect(p.output()).toMatch(/auth: API keys/);
      expect((await rawRequest(port, 'GET', '/api/v1/tokens', bearer(key))).status).toBe(200);
      expect((await rawRequest(port, 'GET', `/api/v1/tokens?key=${key}`)).status).toBe(401);
      const ws = await upgrade(port, `?key=${key}`);
      expect(ws.open).toBe(true);
      if (ws.open) ws.ws.close();
      // a key created beside the running service, used, then revoked
      const second = JSON.parse((await runToEnd('apps/cli/src/keys.ts', ['create', '--name', 'bob'], env)).stdout);
      used.push(second.key);
      await waitFor(async () => (await rawRequest(port, 'GET', '/api/v1/tokens', bearer(second.key))).status === 200, 10_000, 'the second key');
      expect(JSON.parse((await runToEnd('apps/cli/src/keys.ts', ['revoke', second.id], env)).stdout)).toEqual({ id: second.id, state: 'revoked' });
      await waitFor(async () => (await rawRequest(port, 'GET', '/api/v1/tokens', bearer(second.key))).status === 403, 10_000, 'the revoked key');
      const listed = (await runToEnd('apps/cli/src/keys.ts', ['list'], env)).stdout.trim().split('\n').map((l: string) => JSON.parse(l));
      expect(listed).toEqual([
        { id, name: 'alice', tier: 'default', state: 'active' },
        { id: second.id, name: 'bob', tier: 'default', state: 'revoked' },
      ]);
      await waitFor(() => p.output().includes(`api key ${second.id} (tier default) is revoked`), 10_000, 'the revocation logged by id');
    } finally {
      await stop(p);
    }
    const logged = p.output();
    expect(used).toHaveLength(2);
    // nor on the log: the api-keys topic holds hashes
    const topicFiles = fs.readdirSync(path.join(data, 'log')).filter((f) => f.startsWith('api-keys'));
    expect(topicFiles.length).toBeGreaterThan(0);
    for (const k of used) {
      expect(logged).not.toContain(k);
      expect(logged).not.toContain(k.slice('swap_'.length));
      for (const f of topicFiles) expect(fs.readFileSync(path.join(data, 'log', f)).includes(Buffer.from(k.slice('swap_'.length)))).toBe(false);
    }
  });

  it('npm start (AUTH_MODE off by default) says so in its start-up line', async () => {
    const port = await freePort();
    const p = start('apps/all-in-one/src/main.ts', { ...SMALL_MARKET, DATA_DIR: path.join(dir, 'data-off'), PORT: String(port) });
    try {
      await waitFor(() => p.output().includes('swap aggregator listening') || p.child.exitCode !== null, 120_000, 'the start-up line', 100);
      expect(p.output()).toMatch(/auth: off \(AUTH_MODE=off: no API key needed\), rate limits: in memory/);
    } finally {
      await stop(p);
    }
  });
});
