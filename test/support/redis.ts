/**
 * A real redis-server for a suite (Debian's redis-server, see scripts/install-system-deps.sh):
 * on a free loopback port, in a temporary directory, nothing persisted; `stop` kills it and
 * removes the directory.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from './processes';

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('error', (e) => reject(new Error(`redis-server could not start (install it: bash scripts/install-system-deps.sh): ${e.message}`)));
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${out}`)));
    const look = setInterval(() => {
      if (out.includes('Ready to accept connections')) {
        clearInterval(look);
        resolve();
      }
    }, 20);
    child.once('exit', () => clearInterval(look));
  });
  await spawned;
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGKILL');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
