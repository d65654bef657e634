/**
 * Live stream under load, in four deployments:
 *   - all-in-one: the router and stream modules on one EmbeddedLog in this process, the quote
 *     work in one worker thread (INTEREST_WORKERS=1);
 *   - all-in-one with the quote work on the main thread (INTEREST_WORKERS=0);
 *   - split: the router in this process (INTEREST_WORKERS by default: auto, by the cores), the
 *     stream app (apps/stream/src/main.ts) in its own process on the same data directory
 *     (quote-interest and quotes-changed cross processes);
 *   - split with the router's background route searches in a worker thread (SEARCH_WORKER=on).
 * In another process (bench/stream-load.ts), 100 real WebSocket connections hold 10,000 distinct
 * subscriptions and the simulated market's pool updates are appended to the same data directory
 * at 1,000 records/s. Latency = client receipt time minus the append time of the pool change the
 * push answers (reported by the router; see InterestService.pushObserver). It includes the 50 ms
 * debounce.
 */
import 'reflect-metadata';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { monitorEventLoopDelay, performance } from 'perf_hooks';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { fork, spawn, type ChildProcess } from 'child_process';
import { SimMarket, type SimMarketOptions } from '@app/sim/market';
import { configureHttpApp } from '../apps/router/src/http-app';
import { DEBOUNCE_MS, SEARCH_STALE_MS, type PushKind } from '../apps/router/src/interest/interest.service';
import { GcTally, type GcKindTally, type GcSummary } from '../apps/router/src/interest/gc-tally';
import { InterestHost } from '../apps/router/src/interest/interest-host';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { RouterModule } from '../apps/router/src/router.module';
import { StreamModule } from '../apps/stream/src/stream.module';
import { useStreamWsAdapter } from '../apps/stream/src/ws-adapter';
import { loadConfig } from '@app/config';
import { APP_CONFIG } from '@app/config';
import { encodePoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS } from '@app/solana';
import { cpuSnapshot, cpuUse, fmtMs, fmtPct, fmtRate, summarize, verdict, type BenchRow, type BenchSection } from './harness';
import type { HeapAnswer } from './heap-probe';
import { MOVING_TAIL_MS, pairKey, type LoadJob, type LoadResult } from './stream-load';

/** 100 connections from one address: the API's rate limit (on by default) is lifted for the load */
const NO_RATE_LIMIT = { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_SECOND: '0' };

@Module({ imports: [RouterModule, StreamModule] })
class AllInOne {}

@Module({ imports: [RouterModule] })
class RouterOnly {}

/** ts-register lets the compiler it loaded go RELEASE_AFTER_MS after the last file it compiled: waited out with a margin */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { RELEASE_AFTER_MS } = require('../test/support/ts-register.js') as { RELEASE_AFTER_MS: number };
const compilerReleased = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, RELEASE_AFTER_MS + 500));

type Deployment = 'all-in-one' | 'all-in-one, main thread' | 'split' | 'split, search worker';

/**
 * per deployment: its section title, INTEREST_WORKERS (the split router runs the default),
 * SEARCH_WORKER, and whether the stream app runs in its own process
 */
const DEPLOYMENTS: Record<Deployment, { title: string; workers: string; searchWorker: 'on' | 'off'; split: boolean }> = {
  'all-in-one': { title: 'Live stream (all-in-one)', workers: '1', searchWorker: 'off', split: false },
  'all-in-one, main thread': { title: 'Live stream (all-in-one, quote work on the main thread)', workers: '0', searchWorker: 'off', split: false },
  split: { title: 'Live stream (router and stream in separate processes)', workers: 'auto', searchWorker: 'off', split: true },
  'split, search worker': { title: 'Live stream (separate processes, background searches in a worker thread)', workers: 'auto', searchWorker: 'on', split: true },
};

const CONNECTIONS = 100;
const PER_CONNECTION = 100;
const UPDATES_PER_SECOND = 1000;
/**
 * the measured part of a run: long enough for the router's old generation to fill and be
 * collected a few times (with the start scripts' floor of 512 MB, a mark-compact comes about
 * every 25 s under this load; a run of 20 s could end before the first and flatter the tail)
 */
const RUN_SECONDS = 60;
/**
 * the market moves this long before the measured RUN_SECONDS: the router's first replays, checks
 * and switches after the subscriptions (code paths the subscription phase did not run, so not
 * optimised yet); pushes answering its changes are reported apart
 */
const WARMUP_SECONDS = 3;
const TICK_MS = 50;
/** a REST user asks a quote this often while the market moves (one at a time) */
const REST_EVERY_MS = 100;
/** a debounce window of more replays than this is counted as large (a change of a pool on that many subscribed routes) */
const BIG_WINDOW = 1000;
/** the late pushes are counted per stretch of this long (when their change was appended), to show whether they come in bursts */
const BURST_MS = 500;

/** a column of numbers kept outside the JS heap while the run goes (grown by doubling) */
class Column {
  private values = new Float64Array(1 << 16);
  length = 0;

  push(v: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = v;
  }

  get(i: number): number {
    return this.values[i];
  }
}

/** one kind of collection: how many, their summed and longest pause */
function fmtKind(t: GcKindTally): string {
  return `${t.count.toLocaleString('en-US')} (${fmtMs(t.ms)}, max ${fmtMs(t.maxMs)})`;
}

function fmtCollections(c: GcSummary): string {
  return `${fmtKind(c.minor)} scavenges, ${fmtKind(c.major)} mark-compacts`;
}

/** the simulated market of the stream benchmarks: 1,000 pools of all six programs */
export const BENCH_MARKET: SimMarketOptions = { seed: 12, pools: 1000, tokens: 200, swapsPerSlot: 40, programs: 'all' };

/**
 * The stream benchmarks' subscriptions: `count` distinct tuples of a token that has pools against
 * SOL, USDC or USDT (in turn), amounts spread over sizes, ExactIn both ways and ExactOut
 */
export function benchPairs(projection: { tokens(): unknown[] }, count: number): Array<{ in: string; out: string; amount: string; exactIn: boolean }> {
  const tokens = (projection.tokens() as Array<{ mint: string; pools: number }>).filter((t) => t.pools > 0).map((t) => t.mint);
  const anchors = [MINTS.SOL, MINTS.USDC, MINTS.USDT];
  return Array.from({ length: count }, (_, i) => {
    const a = anchors[i % anchors.length];
    const b = tokens[(i * 7) % tokens.length] === a ? tokens[(i * 7 + 1) % tokens.length] : tokens[(i * 7) % tokens.length];
    const amount = String(10 ** (3 + (i % 7)) + i);
    return i % 2 === 0 ? { in: a, out: b, amount, exactIn: true } : { in: b, out: a, amount, exactIn: i % 4 === 1 };
  });
}

export async function bench(): Promise<BenchSection[]> {
  const sections: BenchSection[] = [];
  for (const deployment of Object.keys(DEPLOYMENTS) as Deployment[]) sections.push((await run(deployment)).section);
  return sections;
}

/** the headline figures of one run (what the rate sweep, bench/stream-rates.bench.ts, tabulates) */
export interface StreamFigures {
  /** pool change → receipt over the measured run (ms) */
  p50: number;
  p99: number;
  /** share of those pushes over 150 ms */
  late: number;
  replays: { p50: number; p99: number };
  switches: { p50: number; p99: number; perSecond: number };
  pushesPerSecond: number;
  /** event loop utilization of the main thread and of each quote worker */
  mainBusy: number;
  workersBusy: number[];
  /** the machine's cores over the run (null without /proc) */
  machine: { busy: number; steal: number } | null;
  windowsPerSecond: number;
  replaysPerWindow: { p50: number; max: number };
  /** mark-compact collections of the threads doing the quote work over the run (the main thread's when it does it) */
  majorCollections: number;
}

/**
 * The simulated market's genesis as pool-updates records. The market itself (every pool's state,
 * tick arrays included: tens of megabytes) lives only in this call, not in the router's process
 * for the run: the load process moves its own copy.
 */
function genesisRecords(opts: SimMarketOptions): Array<{ key: string; value: Buffer }> {
  return new SimMarket(opts).genesis().map((x) => ({ key: x.address, value: encodePoolUpdate(x) }));
}

/** the heap in use of a process started with the heap probe (see heap-probe.ts), after a full collection */
function childHeap(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: HeapAnswer): void => {
      if (m?.type !== 'heap') return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m.heapUsed);
    };
    const onExit = (): void => reject(new Error('the stream app exited before it told its heap'));
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ type: 'heap' });
  });
}

/** the stream app in its own process on `dir`, listening on a free port: its WebSocket URL */
async function startStreamApp(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const register = path.join(__dirname, '..', 'test', 'support', 'ts-register.js');
  const main = path.join(__dirname, '..', 'apps', 'stream', 'src', 'main.ts');
  const probe = path.join(__dirname, 'heap-probe.ts');
  // the young generation this process runs with (npm run bench: the start scripts'); like
  // `npm run start:stream`, no floor for the old generation (the router's start scripts set one)
  const heapFlags = process.execArgv.filter((a) => a.startsWith('--max-semi-space-size'));
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    // the heap probe answers the benchmark's heap requests over the IPC channel (see heap-probe.ts)
    const child = spawn(process.execPath, [...heapFlags, '--expose-gc', '-r', register, '-r', probe, main], { env: { ...process.env, ...NO_RATE_LIMIT, DATA_DIR: dir, PORT: String(port), LOG_DRIVER: 'embedded' }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let output = '';
    const up = await new Promise<boolean>((resolve) => {
      const onData = (d: Buffer): void => {
        output += String(d);
        if (output.includes('stream listening')) resolve(true);
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (d: Buffer) => (output += String(d)));
      child.once('exit', () => resolve(false));
    });
    if (up) return { url: `ws://127.0.0.1:${port}/api/v1/stream`, child };
    if (attempt >= 3) throw new Error(`the stream app did not start: ${output}`);
  }
}

/** every this many-th tuple is searched afresh at the end of a run (the routeGaps row) */
const GAP_SAMPLE_EVERY = 10;

/** the stream's last quotes against a fresh full search of the same tuples, at the end of the run */
function gapRow(gaps: number[] | undefined, refreshMs: number): BenchRow {
  const metric = 'stream quote against a fresh search, end of the run (gap p50 / p90 / p99)';
  if (gaps === undefined) return { metric, value: 'not measured', notes: 'the quote work runs in a worker thread here: its tuples are not in the measured process' };
  if (gaps.length === 0) return { metric, value: 'none', notes: 'no tuple with a route' };
  const g = summarize(gaps);
  const worse = gaps.filter((x) => x > 5).length;
  return {
    metric,
    value: `${g.p50.toFixed(1)} / ${g.p90.toFixed(1)} / ${g.p99.toFixed(1)} bp`,
    notes: `every ${GAP_SAMPLE_EVERY}th tuple whose last quote has a route (${gaps.length.toLocaleString('en-US')}), that quote against a full search (splits included, the router's hop limit) on the pools as they are after the run: how much more the search pays out (ExactIn) or less it asks (ExactOut), in bp; ${fmtPct(worse / gaps.length)} of them more than 5 bp. The pushes follow each tuple's route (a split keeps its division) and its candidate paths (those of its last search, ${refreshMs === 0 ? 'never searched again: STREAM_REFRESH_MS=0' : `searched again in the background at most every ${refreshMs / 1000} s`}); GET /api/v1/quote searches every time`,
  };
}

export async function run(deployment: Deployment, updatesPerSecond = UPDATES_PER_SECOND): Promise<{ section: BenchSection; figures: StreamFigures }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-stream-'));
  const log = new EmbeddedLog({ dataDir: dir });
  const marketOpts = BENCH_MARKET;
  await log.ensureTopic(TOPICS.poolUpdates);
  await log.append(TOPICS.poolUpdates, genesisRecords(marketOpts));
  const { split, workers, searchWorker } = DEPLOYMENTS[deployment];
  const allInOne = !split;
  // STREAM_REFRESH_MS from the environment, to measure another setting than the default
  const config = { ...loadConfig({ DATA_DIR: dir, PORT: '0', ...NO_RATE_LIMIT, INTEREST_WORKERS: workers, SEARCH_WORKER: searchWorker, STREAM_REFRESH_MS: process.env.STREAM_REFRESH_MS }), port: 0 };
  const moduleRef = await Test.createTestingModule({ imports: [allInOne ? AllInOne : RouterOnly] })
    .overrideProvider(APP_CONFIG)
    .useValue(config)
    .compile();
  const app: INestApplication = moduleRef.createNestApplication({ logger: ['error'] });
  configureHttpApp(app);
  if (allInOne) useStreamWsAdapter(app);
  await app.listen(0, '127.0.0.1');
  let url = `ws://127.0.0.1:${app.getHttpServer().address().port}/api/v1/stream`;
  let streamApp: ChildProcess | null = null;
  if (split) ({ url, child: streamApp } = await startStreamApp(dir));
  await app.get(ProjectionService).whenReady();

  const all = benchPairs(app.get(ProjectionService).projection, CONNECTIONS * PER_CONNECTION);
  const pairs = Array.from({ length: CONNECTIONS }, (_, c) => all.slice(c * PER_CONNECTION, (c + 1) * PER_CONNECTION));
  const total = CONNECTIONS * PER_CONNECTION;

  // the load (market appends + WebSocket clients) in its own process
  const child = fork(path.join(__dirname, 'stream-load.ts'), [], { execArgv: ['-r', path.join(__dirname, '..', 'test', 'support', 'ts-register.js')], stdio: 'inherit' });
  const messages: Array<{ type: string; result?: LoadResult; message?: string }> = [];
  let wake: (() => void) | null = null;
  child.on('message', (m: { type: string }) => {
    messages.push(m);
    wake?.();
  });
  let closed = false;
  // 'close': the process exited AND its IPC channel is drained (every message delivered)
  child.on('close', () => {
    closed = true;
    wake?.();
  });
  const next = async (): Promise<{ type: string; result?: LoadResult; message?: string }> => {
    while (messages.length === 0) {
      if (closed) throw new Error(`the load process exited (${child.exitCode}) without an answer`);
      await new Promise<void>((r) => (wake = r));
    }
    return messages.shift()!;
  };

  const interest = app.get(InterestHost);
  // the sources run through test/support/ts-register.js, which lets the TypeScript compiler go
  // RELEASE_AFTER_MS after the last file it compiled, in each thread and process that loads sources (a quote
  // worker, the stream app): a heap measured sooner holds it (about 20 MB) or not, by chance
  await compilerReleased();
  global.gc?.();
  // the quote work's heap is its worker's (when it runs in one)
  // and the stream app's, when it runs in its own process
  const heap = async (): Promise<number> =>
    process.memoryUsage().heapUsed + (await interest.snapshot(true)).workers.reduce((a, w) => a + w.heapUsed, 0) + (streamApp ? await childHeap(streamApp) : 0);
  const heapBefore = await heap();
  const restBase = `http://127.0.0.1:${app.getHttpServer().address().port}`;
  const restQuote = `${restBase}/api/v1/quote?inputMint=${MINTS.SOL}&outputMint=${MINTS.USDC}&amount=1000000000&swapMode=ExactIn`;
  const job: LoadJob = { url, dataDir: dir, market: marketOpts, pairs, updatesPerSecond, runSeconds: WARMUP_SECONDS + RUN_SECONDS, tickMs: TICK_MS, restQuote, restEveryMs: REST_EVERY_MS };
  child.send(job);
  let m = await next();
  if (m.type !== 'subscribed') throw new Error(`load process: ${m.message ?? m.type}`);
  // a module first required while subscribing loaded the compiler again (see above)
  await compilerReleased();
  global.gc?.();
  const heapPerSub = ((await heap()) - heapBefore) / total;
  const { stats: stats0, workers: workers0 } = await interest.snapshot();
  const main0 = performance.eventLoopUtilization();
  const cpu0 = cpuSnapshot();
  // how long a task that arrives on the main thread (a REST request, a socket frame) may wait
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  // the main thread's garbage collections over the run (each quote worker counts its own while observed)
  const mainCollections = new GcTally();
  mainCollections.start();
  // what each push answers: the append time of the pool change behind it, in publish order, and
  // when the router computed it; kept in flat columns during the run (no key string or object per
  // push in the measured process, numbers outside its heap) and indexed by tuple and slot afterwards
  const KINDS: PushKind[] = ['replay', 'check', 'search', 'refresh'];
  // each push's tuple as its subscription's index (a quote worker's observations arrive as copies:
  // keeping their tuples would grow the measured main thread's heap by ~40 MB over a run)
  const pairIndex = new Map(all.map((p, i) => [pairKey(p), i]));
  const observed = { pair: new Column(), slots: new Column(), at: new Column(), kind: new Column(), window: new Column(), computed: new Column() };
  interest.pushObserver = (q, at, by, window, computed, key) => {
    observed.pair.push(pairIndex.get(key) ?? -1);
    observed.slots.push(q.slot);
    observed.at.push(at);
    observed.kind.push(KINDS.indexOf(by));
    observed.window.push(window ?? NaN);
    observed.computed.push(computed);
  };
  const measuredFrom = Date.now() + WARMUP_SECONDS * 1000;
  child.send({ type: 'go' });
  m = await next();
  if (m.type !== 'drained') throw new Error(`load process: ${m.message ?? m.type}`);
  // the run's figures end with the drain (the load then closes its connections, which drops the subscriptions)
  const { stats: stats1, workers: workers1 } = await interest.snapshot();
  const mainBusy = performance.eventLoopUtilization(main0).utilization;
  const cpu = cpuUse(cpu0, cpuSnapshot());
  loopDelay.disable();
  mainCollections.stop();
  const collections = { main: mainCollections.summary(), workers: workers1.map((w) => w.collections) };
  const workersBusy = workers1.map((w, i) => performance.eventLoopUtilization(w.busy, workers0[i].busy).utilization);
  // after the figures of the run: how the pushed quotes compare with fresh searches (each a few ms)
  const gaps = interest.routeGaps(GAP_SAMPLE_EVERY);
  child.send({ type: 'gaps taken' });
  m = await next();
  if (m.type !== 'result' || !m.result) throw new Error(`load process: ${m.message ?? m.type}`);
  const r = m.result;
  const searches = stats1.searches - stats0.searches;
  const checks = stats1.checks - stats0.checks;
  const switches = stats1.switches - stats0.switches;
  const replays = stats1.replays - stats0.replays;
  const refreshes = stats1.refreshes - stats0.refreshes;
  const prewarmed = stats1.prewarmed - stats0.prewarmed;
  interest.pushObserver = null;
  const causes = new Map<string, Array<{ at: number; by: PushKind; window?: number; computed: number }>>();
  for (let i = 0; i < observed.at.length; i++) {
    const k = `${observed.pair.get(i)}|${observed.slots.get(i)}`;
    const window = observed.window.get(i);
    const c = { at: observed.at.get(i), by: KINDS[observed.kind.get(i)], window: Number.isNaN(window) ? undefined : window, computed: observed.computed.get(i) };
    const l = causes.get(k);
    if (l) l.push(c);
    else causes.set(k, [c]);
  }
  const s = summarize(r.latencies);
  // receipt minus the append of the pool change each push answers (matched per tuple and slot, in order)
  const causal: number[] = [];
  const warmup: number[] = [];
  const byKind: Record<PushKind, number[]> = { replay: [], check: [], search: [], refresh: [] };
  // replays measured from the first update of their debounce window instead (whatever pool it changed)
  const fromWindow: number[] = [];
  // per debounce window (its first update's append time): its replay pushes and the last one's receipt
  const windows = new Map<number, { n: number; last: number }>();
  let unmatched = 0;
  // the pushes over 150 ms, classified below by what they were
  const lateOnes: Array<{ at: number; by: PushKind; window?: number; received: number }> = [];
  // every measured push's latency in two: change → computed by the router, computed → received by the client
  const toComputed: number[] = [];
  const afterComputed: number[] = [];
  const lateToComputed: number[] = [];
  const lateAfterComputed: number[] = [];
  for (let i = 0; i < r.receipts.length; i += 3) {
    const c = all[r.receipts[i]] ? causes.get(`${r.receipts[i]}|${r.receipts[i + 1]}`)?.shift() : undefined;
    if (!c) {
      unmatched++;
      continue;
    }
    // a candidate refresh's switch answers no one change (the market's drift since the tuple's
    // last search): counted apart, not in the latency figures
    if (c.by === 'refresh') {
      if (c.at >= measuredFrom) byKind.refresh.push(r.receipts[i + 2] - c.at);
      continue;
    }
    if (c.at < measuredFrom) {
      warmup.push(r.receipts[i + 2] - c.at);
      continue;
    }
    causal.push(r.receipts[i + 2] - c.at);
    byKind[c.by].push(r.receipts[i + 2] - c.at);
    toComputed.push(c.computed - c.at);
    afterComputed.push(r.receipts[i + 2] - c.computed);
    if (r.receipts[i + 2] - c.at > 150) {
      lateOnes.push({ ...c, received: r.receipts[i + 2] });
      lateToComputed.push(c.computed - c.at);
      lateAfterComputed.push(r.receipts[i + 2] - c.computed);
    }
    if (c.window !== undefined) fromWindow.push(r.receipts[i + 2] - c.window);
    if (c.by === 'replay' && c.window !== undefined) {
      const w = windows.get(c.window);
      if (w) {
        w.n++;
        w.last = Math.max(w.last, r.receipts[i + 2]);
      } else windows.set(c.window, { n: 1, last: r.receipts[i + 2] });
    }
  }
  const perWindow = summarize([...windows.values()].map((w) => w.n));
  // a window of more than BIG_WINDOW replays: a change of a pool on that many subscribed routes
  // (refresh stays 0: a refresh's push is not in the latency figures; it is here for lateIn[c.by])
  const lateIn = { big: 0, replay: 0, check: 0, search: 0, refresh: 0 };
  for (const c of lateOnes) {
    if (c.by === 'replay' && c.window !== undefined && (windows.get(c.window)?.n ?? 0) > BIG_WINDOW) lateIn.big++;
    else lateIn[c.by]++;
  }
  const bigWindows = [...windows.values()].filter((w) => w.n > BIG_WINDOW);
  // the late pushes that a mark-compact's pause of one of the router's threads held up: one came
  // between the change and the receipt (the main thread appends every quote; a quote worker
  // computes its tuples' quotes)
  const majorPauses = [collections.main, ...collections.workers].flatMap((c) => c.majorPauses);
  const heldByMajor = lateOnes.filter((c) => majorPauses.some(([from, to]) => from < c.received && to > c.at)).length;
  const share = (n: number): string => fmtPct(n / Math.max(1, lateOnes.length));
  // when the late pushes' changes were appended, by stretches of BURST_MS of the measured run
  const stretches = new Array<number>(Math.ceil((RUN_SECONDS * 1000) / BURST_MS)).fill(0);
  for (const c of lateOnes) {
    const k = Math.floor((c.at - measuredFrom) / BURST_MS);
    if (k >= 0 && k < stretches.length) stretches[k]++;
  }
  const worst = [...stretches].sort((x, y) => y - x);
  const inWorstTenth = worst.slice(0, Math.ceil(worst.length / 10)).reduce((x, y) => x + y, 0);
  const burstNote =
    `They come in bursts: the worst tenth of the run's ${stretches.length} stretches of ${BURST_MS} ms (by the append of the change answered) holds ` +
    `${share(inWorstTenth)} of them, and ${stretches.filter((n) => n === 0).length} stretches have none. `;
  const windowSpan = summarize([...windows].map(([start, w]) => w.last - start));
  const e2e = summarize(causal);
  // p50 and p99 of a list of latencies, each list summarized once
  const dist = (l: number[]): { p50: number; p99: number } => (l.length === 0 ? { p50: NaN, p99: NaN } : summarize(l));
  const fmtDist = (d: { p50: number; p99: number }): string => (Number.isNaN(d.p50) ? 'none' : `${fmtMs(d.p50)} / ${fmtMs(d.p99)}`);
  const kinds = { replay: dist(byKind.replay), check: dist(byKind.check), search: dist(byKind.search) };
  const late = { toComputed: dist(lateToComputed), afterComputed: dist(lateAfterComputed) };
  if (streamApp) {
    const exited = new Promise((resolve) => streamApp!.once('exit', resolve));
    streamApp.kill('SIGTERM');
    await exited;
  }
  await app.close();
  await log.close();
  fs.rmSync(dir, { recursive: true, force: true });
  const where =
    deployment === 'all-in-one'
      ? 'the all-in-one app (router and stream modules on one embedded log) in one process, the quote work in one worker thread (`INTEREST_WORKERS=1`)'
      : split
        ? `the router in one process (\`INTEREST_WORKERS\` by default, auto: ${interest.workerCount === 0 ? 'the quote work on its main thread' : `${interest.workerCount} quote worker(s)`} with ${os.availableParallelism()} cores${searchWorker === 'on' ? '; its background route searches in a worker thread of their own, `SEARCH_WORKER=on`' : ''}) and the stream app (\`apps/stream/src/main.ts\`) in another, on one embedded data directory`
        : 'the all-in-one app with the quote work on its main thread (`INTEREST_WORKERS=0`)';
  const figures: StreamFigures = {
    p50: e2e.p50,
    p99: e2e.p99,
    late: lateOnes.length / Math.max(1, causal.length),
    replays: kinds.replay,
    switches: { ...kinds.check, perSecond: switches / r.runSeconds },
    pushesPerSecond: r.pushes / r.runSeconds,
    mainBusy,
    workersBusy,
    machine: cpu === null ? null : { busy: cpu.busy, steal: cpu.steal },
    windowsPerSecond: windows.size / RUN_SECONDS,
    replaysPerWindow: { p50: perWindow.p50, max: perWindow.max },
    majorCollections: (workersBusy.length === 0 ? [collections.main] : collections.workers).reduce((a, c) => a + c.major.count, 0),
  };
  const section: BenchSection = {
    title: DEPLOYMENTS[deployment].title,
    description:
      `\`bench/stream.bench.ts\`: ${where}; the load in another ` +
      `(\`bench/stream-load.ts\`: ${CONNECTIONS} real WebSocket connections × ${PER_CONNECTION} distinct subscriptions, and the simulated market's pool updates ` +
      `appended to the same data directory at ${updatesPerSecond.toLocaleString('en-US')}/s in ticks of ${TICK_MS} ms for ${WARMUP_SECONDS + RUN_SECONDS} s on a 1,000-pool market of all six programs). ` +
      `Latency: each push's receipt minus the append time of the pool change it answers. The router reports it per tuple and slot: for a replay, the ` +
      `append time of the first record since the tuple's previous quote that changed a pool of its route; for a check that switched the route to ` +
      `a candidate path, and for a background search, the change that queued it. Receipts are matched to those in order. It includes the 50 ms debounce, the router's queue and the log hops` +
      `${split ? ' between processes' : ''}. The latency figures are of the changes appended after the first ${WARMUP_SECONDS} s (a warm-up, reported on its own row).`,
    rows: [
      {
        metric: 'subscribe: every first answer (quote or no-route error)',
        value: `${r.answered.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} in ${r.subscribeSeconds.toFixed(1)} s`,
        notes: `${r.noRoute} without a route (answered with an error message); one full route search per tuple`,
      },
      { metric: 'pool updates appended', value: fmtRate(r.records / r.runSeconds, 'records'), notes: `ticks of ${TICK_MS} ms; the appender fell behind by at most ${r.lagMaxMs} ms` },
      { metric: 'pushes', value: fmtRate(r.pushes / r.runSeconds, 'quotes'), notes: `${r.latencies.length.toLocaleString('en-US')} pushes measured` },
      {
        metric: 'router work',
        value: `${fmtRate(replays / r.runSeconds, 'route replays')}, ${fmtRate(checks / r.runSeconds, 'checks')}, ${fmtRate(switches / r.runSeconds, 'route switches')}, ${fmtRate(searches / r.runSeconds, 'route searches')}, ${fmtRate(refreshes / r.runSeconds, 'candidate refreshes')}`,
        notes: `replay: a tuple whose route's pools changed, once per debounced burst (${fmtPct(prewarmed / Math.max(1, replays))} of them priced already while their window waited for its deadline, in the time the checks left: the replay then quotes only the hops whose pool changed since); check: after a change of a pool on its route (after the window that replayed it) or on its candidate paths, between windows; switch: a check whose candidate path gained > 5 bp on the route by the float estimate and priced better exactly, or, for a tuple without a route, carried its amount (it becomes the route); refresh: a tuple's candidate paths searched afresh, about every ${config.streamRefreshMs / 1000} s per tuple at most (STREAM_REFRESH_MS), in the background slices before the searches and in the router's idle time (${byKind.refresh.length.toLocaleString('en-US')} of them switched the route: not in the latency figures, they answer no one change); search: in the background after a switch with a price impact over 10 bp, or for a tuple without a route whose gaining candidates could not fill the amount exactly for a reason other than dust (5 ms slices, 40 ms apart while debounce windows are open: at most about 1/9 of the time; newest request first); ${(stats1.shedSearches - stats0.shedSearches).toLocaleString('en-US')} withdrawn unrun after waiting ${SEARCH_STALE_MS / 1000} s (queued again by a later check while the gain lasts); ${stats1.pendingSearches} waiting at the end`,
      },
      {
        metric: 'router threads busy (event loop utilization)',
        value: `main ${fmtPct(mainBusy)}${workersBusy.map((b) => `, quote worker ${fmtPct(b)}`).join('')}`,
        notes: `over the run; a thread busy near 100% is the limit: what arrives meanwhile waits. The main thread's event loop delay (a 10 ms timer's lateness): p99 ${fmtMs(loopDelay.percentile(99) / 1e6)}, max ${fmtMs(loopDelay.max / 1e6)}`,
      },
      {
        metric: 'router process CPU time, per thread',
        value: cpu === null ? 'not measured (no /proc)' : `main ${fmtPct(cpu.main)}; others ${cpu.others.slice(0, 6).map((x) => fmtPct(x)).join(', ')}`,
        notes:
          'over the run, CPU time per OS thread of the router\'s process as a share of the wall time (/proc): ' +
          `${workersBusy.length === 0 ? (searchWorker === 'on' ? 'the busiest other thread is the search worker (at nice 19); the rest ' : 'the others ') : workersBusy.length === 1 ? 'the busiest other thread is the quote worker; the rest ' : `the ${workersBusy.length} busiest other threads are the quote workers; the rest `}are V8's garbage collection and compiler helpers and libuv's pool. ` +
          'A thread whose CPU time is well under its event loop utilization above spent that difference runnable but waiting for a core',
      },
      {
        metric: 'router garbage collection (pauses)',
        value: [`main ${fmtCollections(collections.main)}`, ...collections.workers.map((c) => `quote worker ${fmtCollections(c)}`)].join('; '),
        notes:
          'over the run, per thread of the router (perf_hooks gc entries): scavenges of the young generation; mark-compacts of the whole heap, their final pause (the incremental marking before it runs in steps on the thread and concurrently on the helpers, and slows the thread for a few hundred ms: see docs/live-stream.md)',
      },
      {
        metric: 'machine CPU',
        value: cpu === null ? 'not measured (no /proc)' : `busy ${fmtPct(cpu.busy)}, stolen ${fmtPct(cpu.steal)}, idle ${fmtPct(cpu.idle)}`,
        notes: `over the run, all ${os.availableParallelism()} cores, every process (the router, the load${split ? ', the stream app' : ''}); stolen: time the hypervisor ran something else on this machine's cores (steal in /proc/stat)`,
      },
      { metric: 'pool change → receipt p50 / p90', value: `${fmtMs(e2e.p50)} / ${fmtMs(e2e.p90)}` },
      {
        metric: 'pool change → receipt p99',
        value: fmtMs(e2e.p99),
        target: '≤ 150 ms (100 ms beyond the 50 ms debounce)',
        verdict: verdict(e2e.p99 <= 150),
        notes: `max ${fmtMs(e2e.max)}; ${fmtPct(figures.late, 1)} of the pushes over 150 ms; ${causal.length.toLocaleString('en-US')} pushes matched to the change they answer (${unmatched} not: quotes of the subscription phase or of a change before the run)`,
      },
      {
        metric: `warm-up: pool change → receipt in the first ${WARMUP_SECONDS} s (p50 / p99)`,
        value: fmtDist(dist(warmup)),
        notes: `${warmup.length.toLocaleString('en-US')} pushes, not in the figures above or below: the first moves after the subscriptions, on code paths the subscription phase did not run`,
      },
      { metric: 'pool change → receipt, replays (p50 / p99)', value: fmtDist(kinds.replay), notes: `${byKind.replay.length.toLocaleString('en-US')} pushes: the tuple's route recomputed after its debounce window` },
      {
        metric: 'replays measured from their debounce window\'s first update (p50 / p99)',
        value: fmtDist(dist(fromWindow)),
        notes: 'the same pushes, from the first pool update of the window whatever pool it changed (a stricter clock: a tuple whose pool changed late in the window is charged from the window\'s start)',
      },
      {
        metric: 'debounce windows',
        value: `${(windows.size / RUN_SECONDS).toFixed(1)}/s; replays per window p50 ${perWindow.p50.toLocaleString('en-US')} / p90 ${perWindow.p90.toLocaleString('en-US')} / max ${perWindow.max.toLocaleString('en-US')}`,
        notes: `a window's last replay push arrives p50 ${fmtMs(windowSpan.p50)} / p99 ${fmtMs(windowSpan.p99)} after its first update. A window is due ${DEBOUNCE_MS} ms after its first update, but the next one starts only when the replays of the current one are done: windows far apart and large are the thread doing the quote work at its limit (the replays of a window in which a pool on thousands of routes changed, and the checks after it, take longer than the debounce)`,
      },
      {
        metric: 'the pushes over 150 ms',
        value: `${share(lateIn.big)} replays of windows of more than ${BIG_WINDOW.toLocaleString('en-US')}, ${share(lateIn.replay)} other replays, ${share(lateIn.check)} route switches, ${share(lateIn.search)} background searches`,
        notes:
          `of ${lateOnes.length.toLocaleString('en-US')} pushes over 150 ms. ${burstNote}` +
          `${share(heldByMajor)} of them were waiting when one of the router's ${majorPauses.length} mark-compacts of the run paused its thread${majorPauses.length > 0 ? ` (pauses of ${majorPauses.map(([from, to]) => fmtMs(to - from)).join(', ')})` : ''}. ` +
          `${bigWindows.length} windows had more than ${BIG_WINDOW.toLocaleString('en-US')} replays (${fmtPct(bigWindows.reduce((a, w) => a + w.n, 0) / Math.max(1, causal.length))} of all pushes): a pool on that many subscribed routes changed, and its window's replays run one after the other on the thread doing the quote work`,
      },
      {
        metric: 'pool change → computed by the router, computed → receipt (p50 / p99)',
        value: `${fmtDist(dist(toComputed))}, ${fmtDist(dist(afterComputed))}`,
        notes:
          `the same pushes' latency in two at the time the router priced each quote (before its append to quotes-changed): the first part is the debounce and the router's queue, the second the log, the stream app${split ? ' in its process' : ''} and the client. ` +
          `The pushes over 150 ms: computed p50 ${fmtMs(late.toComputed.p50)} after their change, received p50 ${fmtMs(late.afterComputed.p50)} / p99 ${fmtMs(late.afterComputed.p99)} after their computation`,
      },
      { metric: 'pool change → receipt, route switches (p50 / p99)', value: fmtDist(kinds.check), notes: `${byKind.check.length.toLocaleString('en-US')} pushes: a check made a candidate path that priced better the route` },
      { metric: 'pool change → receipt, background searches (p50 / p99)', value: fmtDist(kinds.search), notes: `${byKind.search.length.toLocaleString('en-US')} pushes: a background search found a better route than the one in place` },
      {
        metric: 'quote slot age at receipt p50 / p99',
        value: `${fmtMs(s.p50)} / ${fmtMs(s.p99)}`,
        notes: `receipt minus the first append of the quote's own slot, pushes until ${MOVING_TAIL_MS} ms after the last append: how old the state a client holds is (a late replay computed on a newer slot looks young here)`,
      },
      {
        metric: 'REST quote while streaming (p50 / p99)',
        value: r.rest.length === 0 ? 'none' : `${fmtMs(summarize(r.rest).p50)} / ${fmtMs(summarize(r.rest).p99)}`,
        notes: `GET /api/v1/quote 1 SOL → USDC (the most connected pair: every SOL/USDC pool and split), one at a time every ${REST_EVERY_MS} ms from the load process while the market moves: ${r.rest.length} answers, max ${r.rest.length === 0 ? '–' : fmtMs(summarize(r.rest).max)}${r.restFailed > 0 ? `, ${r.restFailed} not 200` : ''}; it waits for whatever holds the router's main thread`,
      },
      gapRow(gaps, config.streamRefreshMs),
      { metric: 'memory per subscription', value: `${(heapPerSub / 1024).toFixed(2)} KiB`, notes: allInOne ? 'server heap growth with all subscriptions live (stream hub + router interest state, in its worker when it runs in one)' : `heap growth of both processes with all subscriptions live (router interest state${interest.workerCount > 0 ? ', in its worker' : ''}, and the stream hub in the stream app's process)` },
    ],
  };
  return { section, figures };
}
