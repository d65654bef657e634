/**
 * Quote latency over HTTP: the router app (apps/router/src/main.ts) in its own process on a fresh
 * embedded data directory holding the simulated market's genesis, served on a local port; this
 * process is its HTTP client (keep-alive, one GET /api/v1/quote at a time) and its ingest: it
 * appends the market's swaps to the same data directory at a steady rate in ticks of 50 ms while
 * the quotes run. Start to serving: from the spawn to /ready answering 200 (the projection caught
 * up with the genesis) and to the first quote. Memory per pool: the router's heap after a full
 * collection (bench/heap-probe.ts), divided by the pools.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { spawn, type ChildProcess } from 'child_process';
import { SimMarket } from '@app/sim/market';
import { TOPICS, encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { summarize } from './harness';
import type { HeapAnswer } from './heap-probe';
import { SteadyPace, benchQueries, quoteMarketOptions, type BenchQuery } from './quote-market';

const TICK_MS = 50;
const WARM = 200;

export interface HttpMeasured {
  pools: number;
  latency: ReturnType<typeof summarize>;
  quotes: number;
  failed: number;
  listeningSeconds: number;
  readySeconds: number;
  firstQuoteSeconds: number;
  heapBytes: number;
  appended: number;
  seconds: number;
}

/** GET url on the agent: the status and the time to the end of the body, ms */
export function timedGet(url: string, agent: http.Agent): Promise<{ status: number; ms: number }> {
  const t = performance.now();
  return new Promise((resolve) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t }));
      })
      .on('error', () => resolve({ status: 0, ms: performance.now() - t }));
  });
}

/** an app's main module in its own process on `dataDir`, with the heap probe and an IPC channel; resolves once its log says `listening` */
export async function spawnApp(main: string, env: Record<string, string>, listening: string): Promise<{ child: ChildProcess; port: number }> {
  const root = path.join(__dirname, '..');
  const heapFlags = process.execArgv.filter((a) => a.startsWith('--max-semi-space-size') || a.startsWith('--initial-old-space-size'));
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    const args = [...heapFlags, '--expose-gc', '-r', path.join(root, 'test/support/ts-register.js'), '-r', path.join(__dirname, 'heap-probe.ts'), path.join(root, main)];
    const child = spawn(process.execPath, args, { env: { ...process.env, RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_SECOND: '0', LOG_DRIVER: 'embedded', ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let output = '';
    const up = await new Promise<boolean>((resolve) => {
      child.stdout!.on('data', (d: Buffer) => {
        output = (output + String(d)).slice(-20_000);
        if (output.includes(listening)) resolve(true);
      });
      child.stderr!.on('data', (d: Buffer) => (output = (output + String(d)).slice(-20_000)));
      child.once('exit', () => resolve(false));
    });
    if (up) return { child, port };
    if (attempt >= 3) throw new Error(`${main} did not start: ${output}`);
  }
}

/** the heap in use of a process started with the heap probe, after a full collection */
export function heapOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: HeapAnswer): void => {
      if (m?.type !== 'heap') return;
      child.off('message', on);
      resolve(m.heapUsed);
    };
    child.on('message', on);
    child.send({ type: 'heap' });
  });
}

export async function stopApp(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export function quoteUrl(base: string, q: BenchQuery): string {
  return `${base}/api/v1/quote?inputMint=${q.inputMint}&outputMint=${q.outputMint}&amount=${q.amount}&swapMode=${q.swapMode}&slippageBps=50`;
}

export async function measureHttp(pools: number, queries: number, updatesPerSecond: number): Promise<HttpMeasured> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-quote-http-'));
  const log = new EmbeddedLog({ dataDir: dir });
  const market = new SimMarket(quoteMarketOptions(pools));
  await log.ensureTopic(TOPICS.poolUpdates);
  const genesis = market.genesis();
  for (let i = 0; i < genesis.length; i += 2000) await log.append(TOPICS.poolUpdates, genesis.slice(i, i + 2000).map((u) => ({ key: u.address, value: encodePoolUpdate(u) })));
  genesis.length = 0;
  const asked = benchQueries(market, queries + WARM, pools);
  const t0 = performance.now();
  const { child, port } = await spawnApp('apps/router/src/main.ts', { DATA_DIR: dir }, 'router listening');
  const listeningSeconds = (performance.now() - t0) / 1000;
  const base = `http://127.0.0.1:${port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  while ((await timedGet(`${base}/ready`, agent)).status !== 200) await new Promise((r) => setTimeout(r, 50));
  const readySeconds = (performance.now() - t0) / 1000;
  await timedGet(quoteUrl(base, asked[0]), agent);
  const firstQuoteSeconds = (performance.now() - t0) / 1000;

  // the ingest meanwhile: the market's swaps appended as they fall due, every tick
  let appended = 0;
  let pending: PoolUpdate[] = [];
  let running = true;
  const pace = new SteadyPace(updatesPerSecond);
  const ingest = (async () => {
    while (running) {
      const batch: PoolUpdate[] = [];
      while (appended + batch.length < pace.dueBy()) {
        if (pending.length === 0) pending = market.step();
        batch.push(pending.shift()!);
      }
      if (batch.length > 0) await log.append(TOPICS.poolUpdates, batch.map((u) => ({ key: u.address, value: encodePoolUpdate(u) })));
      appended += batch.length;
      await new Promise((r) => setTimeout(r, TICK_MS));
    }
  })();
  const times: number[] = [];
  let failed = 0;
  const r0 = performance.now();
  for (let i = 1; i < asked.length; i++) {
    const { status, ms } = await timedGet(quoteUrl(base, asked[i]), agent);
    if (i < WARM) continue;
    times.push(ms);
    if (status !== 200) failed++;
  }
  const seconds = (performance.now() - r0) / 1000;
  running = false;
  await ingest;
  agent.destroy();
  const heapBytes = await heapOf(child);
  await stopApp(child);
  await log.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { pools, latency: summarize(times), quotes: times.length, failed, listeningSeconds, readySeconds, firstQuoteSeconds, heapBytes, appended, seconds };
}
