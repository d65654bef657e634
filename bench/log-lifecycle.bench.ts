/**
 * Log life cycle: disk per hour of the simulated market with and without retention, projection
 * snapshot write time and the pause it puts on the thread, restart time against the log's age
 * (router projection: snapshot + tail against the whole log; simulated market: checkpoint against
 * regenerating), and the longest retention step.
 *
 * The default market (1,000 pools, 200 tokens, all six programs, 8 swaps per slot) is written
 * into an embedded log in a temporary directory, as the ingestor writes it: genesis, then
 * AGE_SLOTS slots (LOG_LIFECYCLE_SLOTS, default 3,000: 20 minutes at 400 ms a slot), one append per
 * slot; a second log of a fresh market (genesis and 10 slots) is the ratio's reference. Disk per
 * hour = the topic file's bytes per record × the records the market writes per slot × 9,000 slots
 * an hour; 10,000 pools: the same for a 10,000-pool market over 300 slots.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { monitorEventLoopDelay, performance } from 'perf_hooks';
import { Ingestor } from '../apps/ingestor/src/ingestor';
import { SimMarket } from '@app/sim';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { loadConfig } from '@app/config';
import { encodePoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import type { BenchRow, BenchSection } from './harness';

const AGE_SLOTS = Number(process.env.LOG_LIFECYCLE_SLOTS ?? 3_000);
const SLOTS_PER_HOUR = 3_600_000 / 400;
const SIM = { simSeed: 1, simPools: 1_000, simTokens: 200, simSwapsPerSlot: 8 };
const quiet = { log: () => undefined, warn: (m: string) => console.warn(m), error: (m: string) => console.error(m) };
const MB = 1024 * 1024;

function marketOf(pools: number, tokens: number): SimMarket {
  return new SimMarket({ seed: 1, pools, tokens, swapsPerSlot: 8, programs: 'all', lookupTables: true });
}

/** genesis and `slots` slots into the embedded log of `dir`; records written after genesis and the bytes they added */
async function writeLog(dir: string, market: SimMarket, slots: number): Promise<{ genesis: number; records: number; slotBytes: number }> {
  let log = new EmbeddedLog({ dataDir: dir });
  const put = (us: ReturnType<SimMarket['step']>) => log.append(TOPICS.poolUpdates, us.map((u) => ({ key: u.address, value: encodePoolUpdate(u) })));
  const genesis = market.genesis();
  for (let i = 0; i < genesis.length; i += 500) await put(genesis.slice(i, i + 500));
  await log.close();
  const genesisBytes = fileBytes(dir);
  log = new EmbeddedLog({ dataDir: dir });
  let records = 0;
  for (let s = 0; s < slots; s++) {
    const us = market.step();
    records += us.length;
    await put(us);
  }
  await log.close();
  return { genesis: genesis.length, records, slotBytes: fileBytes(dir) - genesisBytes };
}

function fileBytes(dir: string): number {
  let n = 0;
  for (const f of fs.readdirSync(path.join(dir, 'log'))) if (f.startsWith(`${TOPICS.poolUpdates}.sqlite`)) n += fs.statSync(path.join(dir, 'log', f)).size;
  return n;
}

/** a router's projection started on `dir`: ms to ready, whether it restored a snapshot */
async function startRouter(dir: string, env: Record<string, string>): Promise<{ ms: number; service: ProjectionService; log: EmbeddedLog }> {
  const config = loadConfig({ DATA_DIR: dir, ...env });
  const log = new EmbeddedLog({ dataDir: dir });
  const t0 = performance.now();
  const service = new ProjectionService(log, config);
  await service.onModuleInit();
  await service.whenReady();
  return { ms: performance.now() - t0, service, log };
}

async function stopRouter(r: { service: ProjectionService; log: EmbeddedLog }): Promise<void> {
  await r.service.snapshots?.idle();
  await r.service.onModuleDestroy();
  await r.log.close();
}

/** ms for the ingestor to be ready to write its next slot (start() resolves after prepareSim) */
async function startIngestor(dir: string, withCheckpoints: boolean, maxSlots: number): Promise<number> {
  const log = new EmbeddedLog({ dataDir: dir });
  const ing = new Ingestor({ ingestSource: 'sim', ...SIM, simSlotMs: 400, simMaxSlots: maxSlots, ingestFile: null, ingestFilePace: 'full', ingestRecordFile: null, ...(withCheckpoints ? { dataDir: dir } : {}) }, log, quiet);
  const t0 = performance.now();
  await ing.start();
  const ms = performance.now() - t0;
  await ing.stop();
  await log.close();
  return ms;
}

export async function bench(): Promise<BenchSection[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-lifecycle-'));
  const loadBefore = os.loadavg()[0];
  const rows: BenchRow[] = [];
  try {
    // ---- disk ----
    const oldDir = path.join(root, 'old');
    const market = marketOf(SIM.simPools, SIM.simTokens);
    const w = await writeLog(oldDir, market, AGE_SLOTS);
    const bytesPerRecord = w.slotBytes / w.records;
    const perSlot = w.records / AGE_SLOTS;
    const hourMb = (bytesPerRecord * perSlot * SLOTS_PER_HOUR) / MB;
    const retentionDays = (loadConfig({}).logRetention[TOPICS.poolUpdates] ?? 0) / 86_400_000;
    const big = path.join(root, 'big');
    const w10 = await writeLog(big, marketOf(10_000, 2_000), 300);
    const bpr10 = w10.slotBytes / w10.records;
    const hour10 = (bpr10 * (w10.records / 300) * SLOTS_PER_HOUR) / MB;
    fs.rmSync(big, { recursive: true, force: true });
    rows.push(
      { metric: 'pool-updates on disk per hour, default market (1,000 pools), no retention', value: `${hourMb.toFixed(0)} MB/h (${(hourMb * 24 / 1024).toFixed(1)} GB a day, growing)`, notes: `${perSlot.toFixed(1)} records a slot, ${bytesPerRecord.toFixed(0)} bytes a record on disk (genesis, ${w.genesis.toLocaleString('en-US')} records, once), ${AGE_SLOTS.toLocaleString('en-US')} slots measured; no traffic` },
      { metric: 'the same with the default retention (LOG_RETENTION_POOL_UPDATES)', value: `0 MB/h once ${retentionDays} days old; bounded at ${(hourMb * 24 * retentionDays / 1024).toFixed(1)} GB`, notes: 'freed pages are reused; pool-updates is trimmed only behind the oldest snapshot' },
      { metric: 'pool-updates on disk per hour, 10,000 pools, no retention', value: `${hour10.toFixed(0)} MB/h (${(hour10 * 24 / 1024).toFixed(1)} GB a day)`, notes: `genesis ${w10.genesis.toLocaleString('en-US')} records (once); ${(w10.records / 300).toFixed(1)} records a slot, ${bpr10.toFixed(0)} bytes a record, 300 slots measured` },
      { metric: 'the same with the default retention', value: `0 MB/h once ${retentionDays} days old; bounded at ${(hour10 * 24 * retentionDays / 1024).toFixed(1)} GB` },
    );

    // ---- snapshot write and the pause it causes ----
    const first = await startRouter(oldDir, { SNAPSHOT_EVERY: '0', SNAPSHOT_INTERVAL_MS: '0' });
    const fullMs = first.ms;
    const delay = monitorEventLoopDelay({ resolution: 1 });
    let longestGap = 0;
    let last = performance.now();
    const probe = setInterval(() => {
      const t = performance.now();
      longestGap = Math.max(longestGap, t - last);
      last = t;
    }, 1);
    await new Promise((r) => setTimeout(r, 200));
    const baselineGap = longestGap;
    longestGap = 0;
    delay.enable();
    const s = await first.service.snapshots!.write(first.service.projection);
    delay.disable();
    clearInterval(probe);
    if (!s) throw new Error('snapshot failed');
    rows.push(
      { metric: 'projection snapshot, default market', value: `${(s.bytes / MB).toFixed(1)} MB written in ${s.totalMs.toFixed(0)} ms`, notes: `${first.service.projection.stats.accounts.toLocaleString('en-US')} accounts, ${first.service.projection.stats.pools.toLocaleString('en-US')} pools` },
      { metric: 'longest pause on the thread (the quote path) while it is written', value: `${Math.max(s.captureMs, s.longestSliceMs).toFixed(1)} ms`, notes: `capture ${s.captureMs.toFixed(1)} ms, longest encoding slice ${s.longestSliceMs.toFixed(1)} ms; a 1 ms timer's longest gap ${longestGap.toFixed(1)} ms during the write against ${baselineGap.toFixed(1)} ms idle` },
    );
    await stopRouter(first);

    // ---- restart time against the log's age ----
    const freshDir = path.join(root, 'fresh');
    await writeLog(freshDir, marketOf(SIM.simPools, SIM.simTokens), 10);
    const fresh = await startRouter(freshDir, {});
    await stopRouter(fresh);
    // a snapshot 5 minutes (750 slots) before the end, as SNAPSHOT_INTERVAL_MS leaves at worst
    const tailDir = path.join(root, 'tail');
    fs.cpSync(oldDir, tailDir, { recursive: true });
    fs.rmSync(path.join(tailDir, 'snapshots'), { recursive: true, force: true });
    {
      const cut = new EmbeddedLog({ dataDir: tailDir });
      const end = Number((await cut.endPositions(TOPICS.poolUpdates))['0']);
      const tail = Math.min(Math.round(750 * perSlot), Math.floor(end / 2));
      await cut.close();
      const svc = await startRouter(tailDir, { SNAPSHOT_EVERY: String(end - tail), SNAPSHOT_INTERVAL_MS: '0' });
      await stopRouter(svc);
    }
    const restored = await startRouter(tailDir, { SNAPSHOT_EVERY: '0', SNAPSHOT_INTERVAL_MS: '0' });
    await stopRouter(restored);
    const ageMin = (AGE_SLOTS * 0.4) / 60;
    rows.push(
      { metric: `router projection ready after a restart, log of ${ageMin.toFixed(0)} min (${(w.genesis + w.records).toLocaleString('en-US')} records), from its newest snapshot (5 min of tail)`, value: `${(restored.ms / 1000).toFixed(2)} s`, target: '≤ 5 s (with the market below)', verdict: '' },
      { metric: 'the same from record 0 (no snapshot)', value: `${(fullMs / 1000).toFixed(2)} s`, notes: `${(fullMs / restored.ms).toFixed(1)}× the snapshot start` },
      { metric: 'router projection ready on a fresh log (genesis + 10 slots)', value: `${(fresh.ms / 1000).toFixed(2)} s`, notes: `the ${ageMin.toFixed(0)}-min log from its snapshot: ${(restored.ms / fresh.ms).toFixed(2)}× this` },
    );

    // ---- the simulated market's resume ----
    const regenMs = await startIngestor(oldDir, false, AGE_SLOTS + 1);
    await startIngestor(oldDir, true, AGE_SLOTS + 1); // regenerates once and writes its checkpoint
    const ckptMs = await startIngestor(oldDir, true, AGE_SLOTS + 2);
    rows.push(
      { metric: `simulated market ready to write its next slot, ${ageMin.toFixed(0)}-min log, from its checkpoint`, value: `${(ckptMs / 1000).toFixed(2)} s` },
      { metric: 'the same regenerating the market from genesis (no checkpoint)', value: `${(regenMs / 1000).toFixed(2)} s`, notes: `grows with the log's age (${AGE_SLOTS.toLocaleString('en-US')} slots simulated)` },
    );
    const ready = (restored.ms + ckptMs) / 1000;
    rows[rows.length - 5].value += `; with the market's resume ${ready.toFixed(2)} s`;
    rows[rows.length - 5].verdict = ready <= 5 ? 'met' : 'missed';

    // ---- retention steps ----
    let now = Date.now() + 10 * 86_400_000;
    const trimDir = path.join(root, 'tail');
    const floorLog = new EmbeddedLog({ dataDir: trimDir, clock: () => now, retention: { [TOPICS.poolUpdates]: { ms: 60_000 } } });
    const appendMs: number[] = [];
    let trimming = true;
    const appender = (async () => {
      while (trimming) {
        const t0 = performance.now();
        await floorLog.append('bench-appends', [{ key: 'k', value: Buffer.alloc(600) }]);
        appendMs.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const t0 = performance.now();
    const trim = await floorLog.trim(TOPICS.poolUpdates);
    const trimMs = performance.now() - t0;
    trimming = false;
    await appender;
    now = 0;
    await floorLog.close();
    appendMs.sort((a, b) => a - b);
    rows.push({
      metric: 'retention pass, everything but the last record older than the window',
      value: `${trim.deleted.toLocaleString('en-US')} records in ${trim.steps} steps, ${(trimMs / 1000).toFixed(1)} s; longest step ${trim.longestStepMs.toFixed(1)} ms`,
      notes: `appends to another topic of the same process meanwhile: ${appendMs.length}, longest ${appendMs[appendMs.length - 1]?.toFixed(1)} ms`,
    });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return [
    {
      title: 'Log life cycle',
      description:
        `Default simulated market (1,000 pools, 200 tokens, six programs, 8 swaps a slot) on the embedded log; a log of ${AGE_SLOTS.toLocaleString('en-US')} slots (LOG_LIFECYCLE_SLOTS). ` +
        'Restart figures are in-process (the projection service from its snapshot and the tail; the ingestor from its market checkpoint), without the HTTP server\'s own start. ' +
        `Load average ${loadBefore.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end on ${os.cpus().length} cores: wall-clock pauses include the time the process waited for a core.`,
      rows,
    },
  ];
}
