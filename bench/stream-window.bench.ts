/**
 * The live stream's debounce windows on a quiet router: the stream benchmark's 10,000
 * subscriptions (bench/stream.bench.ts) held by the router's InterestService, and one slot of the
 * simulated market (40 swaps) appended at a time, the next only once everything the previous one
 * caused is done. No WebSocket, no load process: what a window costs the quote work itself, free
 * of the machine's other work, which makes the figures steady enough to compare versions.
 *
 * Per window: how many tuples it replays, and from the append of its first update to the
 * computation of its last replay and of its last route switch (a check after the window's
 * replays). Windows alternate with the prewarm off (InterestService.prewarmWindows), to show
 * what pricing the window's routes during its debounce buys.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SimMarket } from '@app/sim';
import { DEBOUNCE_MS, InterestService } from '../apps/router/src/interest/interest.service';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { loadConfig } from '@app/config';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { encodeQuoteInterest, tupleKey } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { LEASE_INTERVAL_MS, leaseMessages } from '../apps/stream/src/stream.service';
import { cpuSnapshot, cpuUse, fmtMs, fmtPct, summarize, type BenchSection } from './harness';
import { BENCH_MARKET, benchPairs } from './stream.bench';

const TUPLES = 10_000;
/** windows measured per setting (after WARMUP_WINDOWS) */
const WINDOWS = 30;
const WARMUP_WINDOWS = 4;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface WindowFigures {
  replays: number;
  /** append of the window's first update → its first and last replay computed (ms) */
  firstReplay?: number;
  lastReplay: number;
  /** → its last route switch computed (ms), when a check switched a route */
  lastSwitch?: number;
}

export async function bench(): Promise<BenchSection[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-window-'));
  const log = new EmbeddedLog({ dataDir: dir });
  const writer = new EmbeddedLog({ dataDir: dir });
  const market = new SimMarket(BENCH_MARKET);
  const append = (us: PoolUpdate[]) => writer.append(TOPICS.poolUpdates, us.map((u) => ({ key: u.address, value: encodePoolUpdate(u) })));
  await append(market.genesis());
  const projections = new ProjectionService(log);
  await projections.onModuleInit();
  await projections.whenReady();
  const svc = new InterestService(log, projections, loadConfig({ DATA_DIR: dir }));
  await svc.start();
  const internals = svc as unknown as { watched: Map<string, unknown>; urgent: Set<string>; replays: Set<string>; nextReplays: Set<string>; checks: Set<string>; searches: Set<string> };
  const idle = () => internals.urgent.size + internals.replays.size + internals.nextReplays.size + internals.checks.size + internals.searches.size === 0;
  const waitIdle = async (ms: number) => {
    const until = Date.now() + ms;
    while (!idle() && Date.now() < until) await pause(5);
  };

  const tuples = benchPairs(projections.projection, TUPLES);
  for (let i = 0; i < tuples.length; i += 500) {
    await writer.append(
      TOPICS.quoteInterest,
      tuples.slice(i, i + 500).map((tuple) => ({ key: tupleKey(tuple), value: encodeQuoteInterest({ op: 'add', instance: 'bench', tuple }) })),
    );
  }
  // held as a stream instance holds its clients' tuples: leased again every LEASE_INTERVAL_MS
  const keys = tuples.map(tupleKey);
  const leasing = setInterval(() => void writer.append(TOPICS.quoteInterest, leaseMessages('bench', keys)), LEASE_INTERVAL_MS);
  while (internals.watched.size < TUPLES) await pause(50);
  await waitIdle(120_000);

  // per window (by its first update's append time): its pushes, as they are computed
  let current: WindowFigures | null = null;
  let cause = 0;
  svc.pushObserver = (_q, at, by) => {
    if (current === null) return;
    const took = Date.now() - cause;
    if (by === 'replay' && at >= cause) {
      current.replays++;
      current.firstReplay ??= took;
      current.lastReplay = Math.max(current.lastReplay, took);
    } else if (by === 'check') current.lastSwitch = Math.max(current.lastSwitch ?? 0, took);
  };
  const figures: Record<'on' | 'off', WindowFigures[]> = { on: [], off: [] };
  let prewarmed = 0;
  let cpu0: ReturnType<typeof cpuSnapshot> = null;
  for (let n = 0; n < 2 * (WINDOWS + WARMUP_WINDOWS); n++) {
    if (n === 2 * WARMUP_WINDOWS) cpu0 = cpuSnapshot();
    const setting = n % 2 === 0 ? 'on' : 'off';
    svc.prewarmWindows = setting === 'on';
    const before = svc.stats().prewarmed;
    const [first] = await append(market.step());
    cause = (await log.read(TOPICS.poolUpdates, { '0': first.offset }, 1))[0].timestamp;
    current = { replays: 0, lastReplay: 0 };
    await pause(DEBOUNCE_MS);
    await waitIdle(10_000);
    await pause(20);
    if (n >= 2 * WARMUP_WINDOWS && current.replays > 0) {
      figures[setting].push(current);
      if (setting === 'on') prewarmed += svc.stats().prewarmed - before;
    }
    current = null;
  }
  svc.pushObserver = null;
  const cpu = cpuUse(cpu0, cpuSnapshot());
  clearInterval(leasing);
  await svc.close();
  await projections.onModuleDestroy();
  await writer.close();
  await log.close();
  fs.rmSync(dir, { recursive: true, force: true });

  const row = (setting: 'on' | 'off') => {
    const w = figures[setting];
    const replays = summarize(w.map((x) => x.replays));
    const last = summarize(w.map((x) => x.lastReplay));
    const switched = w.filter((x) => x.lastSwitch !== undefined);
    const sw = summarize(switched.map((x) => x.lastSwitch!));
    // the pace of a window's replays: from its first to its last (windows of more than one)
    const perReplay = summarize(w.filter((x) => x.replays > 1).map((x) => (x.lastReplay - x.firstReplay!) / (x.replays - 1)));
    return {
      metric: setting === 'on' ? 'change → last replay computed, the debounce spent pricing the window (default)' : 'change → last replay computed, prewarm off',
      value: `p50 ${fmtMs(last.p50)} / max ${fmtMs(last.max)}`,
      notes:
        `${w.length} windows, replays per window p50 ${replays.p50.toLocaleString('en-US')} / max ${replays.max.toLocaleString('en-US')}; first to last replay p50 ${(perReplay.p50 * 1000).toFixed(1)} µs per replay; ` +
        `last route switch (the checks in the window and after its replays) p50 ${switched.length > 0 ? fmtMs(sw.p50) : 'none'} / max ${switched.length > 0 ? fmtMs(sw.max) : 'none'} (${switched.length} windows with one)` +
        (setting === 'on' ? `; ${prewarmed.toLocaleString('en-US')} tuples priced during their windows' debounce` : '') +
        (setting === 'on' && cpu !== null
          ? `; over the measured windows the machine's cores were ${fmtPct(cpu.busy)} busy and ${fmtPct(cpu.steal)} stolen by the hypervisor (this bench's pace moves with the machine's speed)`
          : ''),
    };
  };
  return [
    {
      title: 'Live stream: one slot on a quiet router',
      description:
        '`bench/stream-window.bench.ts`: the router\'s quote work alone (InterestService on an embedded log, no WebSocket, no other load) holding the 10,000 subscriptions of the live stream benchmark, ' +
        'on its 1,000-pool market of all six programs; one slot of the market (40 swaps) appended at a time, the next once the previous one\'s replays, checks and searches are done. ' +
        'Per debounce window: from the append of its update to the computation of its last replay (what the stream then pushes) and of its last route switch. ' +
        `Windows alternate between the default and the prewarm off; ${WARMUP_WINDOWS} of each first, not counted. The figures are the cost of a window\'s work itself, without the rest of a loaded machine (see the live stream sections for that).`,
      rows: [row('on'), row('off')],
    },
  ];
}
