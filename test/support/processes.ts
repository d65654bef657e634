/**
 * The apps (or any .ts file of the repository) as child processes, started as `npm run` would
 * start them but through the TypeScript require hook instead of a build, their output collected;
 * stopped with SIGTERM (SIGKILL after 10 s). And a free loopback port for a process to listen on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const REGISTER = path.join(ROOT, 'test', 'support', 'ts-register.js');

export interface Proc {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved */
  output: () => string;
}

/** `file` (relative to the repository) run with `env` over this process's environment */
export function startTs(file: string, env: Record<string, string>): Proc {
  let out = '';
  const child = spawn(process.execPath, ['-r', REGISTER, path.join(ROOT, file)], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

export async function stopProc(p: Proc | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => p.child.once('exit', () => resolve()));
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
