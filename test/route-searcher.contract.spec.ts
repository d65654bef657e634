/**
 * The RouteSearcher contract (the port through which the live stream hands out its background
 * searches): one suite, run against every adapter: InlineSearcher (this thread) and WorkerSearcher
 * (a worker thread with its own projection of the log). Pools come from a simulated market of
 * real pool layouts written to an embedded log, as an ingestor writes them; every answer is
 * compared with the same search run here on a projection of the same log.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { Logger } from '@nestjs/common';
import { SimMarket } from '@app/sim';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { aggregatorFeeOf } from '../apps/router/src/quote/aggregator-fee';
import { InlineSearcher, searchOn, type RouteSearcher } from '../apps/router/src/interest/route-searcher';
import { SEARCHER_RESTART_MS, WorkerSearcher } from '../apps/router/src/interest/worker-searcher';
import type { RouteRequest } from '@app/amm';
import { loadConfig, type AppConfig } from '@app/config';
import type { PoolUpdate } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { appendUpdates, poolLog } from './support/app';
import { waitFor } from './support/wait-for';

jest.setTimeout(60_000);

const MAX = 12;
/** the nice value of a thread of this process (Linux: field 19 of its stat, 17th after the command's name) */
const niceOf = (tid: string | number): number => Number(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[16]);
/** a fee on multi-hop routes: the searcher must apply the configured fee as the service does */
const ENV = { FEE_BPS: '20', FEE_WALLET: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', FEE_ROUTES: 'multi-hop' };

describe.each(['inline', 'worker'] as const)('RouteSearcher contract: %s', (adapter) => {
  let dir: string;
  let writer: EmbeddedLog;
  let reader: EmbeddedLog;
  let reference: ProjectionService;
  let market: SimMarket;
  let config: AppConfig;
  let searcher: RouteSearcher;
  let requests: RouteRequest[];

  const append = (us: PoolUpdate[]) => appendUpdates(writer, us);
  /** the answer the searcher must give, computed here on the reference projection */
  const expected = (req: RouteRequest, max = MAX) => searchOn(reference.projection, reference.projection.slot, req, max, aggregatorFeeOf(config));

  beforeAll(async () => {
    ({ dir, log: writer } = await poolLog('route-searcher-'));
    market = new SimMarket({ seed: 7, pools: 60, tokens: 12, swapsPerSlot: 12 });
    await append(market.genesis());
    reader = new EmbeddedLog({ dataDir: dir });
    reference = new ProjectionService(reader);
    await reference.onModuleInit();
    await reference.whenReady();
    config = loadConfig({ DATA_DIR: dir, ...ENV });
    if (adapter === 'inline') searcher = new InlineSearcher(() => ({ graph: reference.projection, slot: reference.projection.slot }), aggregatorFeeOf(config));
    else {
      const w = new WorkerSearcher(config);
      w.run();
      searcher = w;
    }
    await waitFor(() => searcher.ready, 30_000, 'the searcher to be ready', 20);
    const mints = (reference.projection.tokens() as Array<{ mint: string; pools: number }>).filter((t) => t.pools > 0).map((t) => t.mint);
    requests = [];
    for (let i = 1; i < mints.length && requests.length < 10; i++) {
      requests.push({ inputMint: mints[0], outputMint: mints[i], amount: 10n ** BigInt(4 + (i % 5)), mode: i % 3 === 0 ? 'ExactOut' : 'ExactIn', maxHops: 5 });
    }
  });

  afterAll(async () => {
    await searcher.close();
    await reference.onModuleDestroy();
    await reader.close();
    await writer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a search answers with the best route net of the fee and the candidate paths, by pool address, as the search on the same pools gives them', async () => {
    let routed = 0;
    for (const req of requests) {
      const found = await searcher.search(req, MAX);
      expect(found).toEqual(expected(req));
      expect(found.cands.length).toBeLessThanOrEqual(MAX);
      if (found.route) {
        routed++;
        expect(found.route.hops.every((h) => typeof h.pool === 'string' && reference.projection.pool(h.pool) !== undefined)).toBe(true);
        expect(found.slot).toBe(reference.projection.slot);
      }
    }
    expect(routed).toBeGreaterThan(3);
  });

  it('answers with at most the number of candidate paths asked, the best estimates first', async () => {
    for (const req of requests) {
      const found = await searcher.search(req, 3);
      expect(found.cands).toEqual(expected(req).cands.slice(0, 3));
      expect(found.route).toEqual(expected(req).route);
    }
  });

  it('a worker runs its searches on a thread at nice 19 (Linux), the others as they were', () => {
    if (adapter !== 'worker' || process.platform !== 'linux') return;
    const nices = fs.readdirSync('/proc/self/task').map(niceOf);
    expect(nices.filter((n) => n === 19)).toHaveLength(1);
    expect(niceOf(process.pid)).not.toBe(19);
  });

  it('a pair without a route resolves with the route error, not a rejection', async () => {
    const req = { ...requests[0], outputMint: '11111111111111111111111111111111' };
    const found = await searcher.search(req, MAX);
    expect(found.route).toBeUndefined();
    expect(found.error).toBe('no pool found');
    expect(found.cands).toEqual([]);
  });

  it('answers on the pools as the log moves: after pool updates, what a search on them gives', async () => {
    const before = new Map(requests.map((r) => [r, expected(r)]));
    let slot = 0;
    for (let i = 0; i < 5; i++) {
      const updates = market.step();
      for (const u of updates) slot = Math.max(slot, u.slot);
      await append(updates);
    }
    await waitFor(() => reference.projection.slot === slot, 10_000, 'the reference projection to apply the updates', 10);
    // the worker reads the log on its own: it answers on the new pools once it has applied them
    await waitFor(async () => (await searcher.search(requests[0], 1)).slot === slot, 10_000, 'the searcher to apply the updates', 10);
    let moved = 0;
    for (const req of requests) {
      const found = await searcher.search(req, MAX);
      expect(found).toEqual(expected(req));
      if (found.route && found.route.amountOut !== before.get(req)?.route?.amountOut) moved++;
    }
    // the updates moved some of the quotes (the answers are not the genesis ones)
    expect(moved).toBeGreaterThan(0);
  });
});

describe('WorkerSearcher', () => {
  it('its thread runs at nice 19 (Linux), the process\'s other threads as they were (lowerThisThreadsPriority)', async () => {
    if (process.platform !== 'linux') return;
    const script = `const { parentPort } = require('worker_threads'); require(${JSON.stringify(path.join(__dirname, 'support', 'ts-register.js'))});
      const { lowerThisThreadsPriority } = require(${JSON.stringify(path.join(__dirname, '..', 'apps', 'router', 'src', 'interest', 'worker-thread.ts'))});
      parentPort.postMessage({ lowered: lowerThisThreadsPriority(), tid: Number(require('fs').readlinkSync('/proc/thread-self').split('/').pop()) });
      setTimeout(() => {}, 1000);`;
    const worker = new Worker(script, { eval: true });
    try {
      const m = await new Promise<{ lowered: boolean; tid: number }>((resolve) => worker.once('message', resolve));
      expect(m.lowered).toBe(true);
      expect(niceOf(m.tid)).toBe(19);
      expect(niceOf(process.pid)).toBe(os.getPriority(process.pid));
      expect(niceOf(process.pid)).not.toBe(19);
    } finally {
      await worker.terminate();
    }
  });

  it('a worker that dies fails the requests it held and is started again after SEARCHER_RESTART_MS; not ready meanwhile', async () => {
    /** workers that answer nothing and post ready: the first dies 300 ms after ready */
    class Flaky extends WorkerSearcher {
      protected override spawn(): Worker {
        const first = this.started === 1;
        return new Worker(
          `const { parentPort } = require('worker_threads'); parentPort.postMessage({ type: 'ready' });
           parentPort.on('message', (m) => { if (m.type === 'close') parentPort.close(); });
           ${first ? 'setTimeout(() => process.exit(3), 300);' : ''}`,
          { eval: true },
        );
      }
    }
    const s = new Flaky(loadConfig({}));
    Logger.overrideLogger(false);
    try {
      s.run();
      await waitFor(() => s.ready, 5_000, 'the first worker', 5);
      const held = s.search({ inputMint: 'a', outputMint: 'b', amount: 1n, mode: 'ExactIn', maxHops: 1 }, MAX);
      await expect(held).rejects.toThrow('search worker exited (3)');
      const diedAt = Date.now();
      expect(s.ready).toBe(false);
      await expect(s.search({ inputMint: 'a', outputMint: 'b', amount: 1n, mode: 'ExactIn', maxHops: 1 }, MAX)).rejects.toThrow('not running');
      await waitFor(() => s.ready, 5_000, 'the second worker', 5);
      expect(Date.now() - diedAt).toBeGreaterThanOrEqual(SEARCHER_RESTART_MS - 20);
      expect(s.started).toBe(2);
    } finally {
      await s.close();
      Logger.overrideLogger(['log', 'error', 'warn', 'debug', 'verbose', 'fatal']);
    }
  });
});
