import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { encodePoolUpdate } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import type { LogMessage, LogPort } from '@app/log';
import { RecordingWriter } from './file/recording';
import { Ingestor, IngestorStartError, type IngestorLogger, type IngestorOptions } from './ingestor';
import { SimMarket } from '@app/sim';

const TOPIC = 'pool-updates';

const SIM: IngestorOptions = {
  ingestSource: 'sim',
  simSeed: 7,
  simPools: 30,
  simTokens: 12,
  simSlotMs: 1,
  simSwapsPerSlot: 6,
  simMaxSlots: 20,
  ingestFile: null,
  ingestFilePace: 'full',
  ingestRecordFile: null,
};

class MemoryLogger implements IngestorLogger {
  lines: string[] = [];
  log(m: string): void {
    this.lines.push(`log ${m}`);
  }
  warn(m: string): void {
    this.lines.push(`warn ${m}`);
  }
  error(m: string): void {
    this.lines.push(`error ${m}`);
  }
}

async function readAll(log: LogPort): Promise<{ key: string; value: string }[]> {
  const out: { key: string; value: string }[] = [];
  let from = 0;
  for (;;) {
    const batch = await log.read(TOPIC, { '0': String(from) }, 5000);
    if (batch.length === 0) return out;
    for (const r of batch) out.push({ key: r.key, value: r.value.toString() });
    from = Number(batch[batch.length - 1].offset) + 1;
  }
}

describe('Ingestor against the embedded log', () => {
  let root: string;
  const logs: EmbeddedLog[] = [];
  const open = (name: string): EmbeddedLog => {
    const log = new EmbeddedLog({ dataDir: path.join(root, name) });
    logs.push(log);
    return log;
  };
  /** run an ingestor until its source ends */
  const run = async (log: LogPort, opts: IngestorOptions, logger = new MemoryLogger()): Promise<Ingestor> => {
    const ing = new Ingestor(opts, log, logger);
    await ing.start();
    await ing.finished;
    return ing;
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'ingestor-'));
  });
  afterEach(async () => {
    for (const l of logs.splice(0)) await l.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('writes genesis then one batch per slot, and two runs with the same seed give the same log', async () => {
    const a = open('a');
    const ing = await run(a, SIM);
    const recs = await readAll(a);
    const market = new SimMarket({ seed: 7, pools: 30, tokens: 12, swapsPerSlot: 6, programs: 'all', lookupTables: true });
    const expected = [...market.genesis()];
    for (let i = 0; i < 20; i++) expected.push(...market.step());
    expect(recs).toEqual(expected.map((u) => ({ key: u.address, value: encodePoolUpdate(u).toString() })));
    const stats = ing.stats();
    expect(stats).toMatchObject({ source: 'sim', running: false, finished: true, slots: 21, recordsAppended: recs.length, lastSlot: market.slot, resumedFromSlot: null });

    const b = open('b');
    await run(b, SIM);
    expect(await readAll(b)).toEqual(recs);
    const c = open('c');
    await run(c, { ...SIM, simSeed: 8 });
    expect(await readAll(c)).not.toEqual(recs);
  });

  it('resumes after a restart on the same log and continues the same sequence', async () => {
    const straight = open('straight');
    await run(straight, SIM);
    const dir = 'restart';
    const first = open(dir);
    await run(first, { ...SIM, simMaxSlots: 8 });
    await first.close();
    const again = open(dir);
    const logger = new MemoryLogger();
    const ing = await run(again, SIM, logger);
    expect(await readAll(again)).toEqual(await readAll(straight));
    expect(ing.stats().resumedFromSlot).toBe(new SimMarket({ seed: 7, pools: 30, tokens: 12, swapsPerSlot: 6, programs: 'all', lookupTables: true }).startSlot + 8);
    expect(ing.stats().slots).toBe(12);
    expect(logger.lines.some((l) => /resumed at slot/.test(l))).toBe(true);
    // a third start with the same SIM_MAX_SLOTS has nothing left to do
    const n = (await readAll(again)).length;
    const done = await run(again, SIM);
    expect(done.stats()).toMatchObject({ finished: true, slots: 0, recordsAppended: 0 });
    expect((await readAll(again)).length).toBe(n);
  });

  it('with a data directory, resumes from the market checkpoint without simulating its history, also when the log went on past it', async () => {
    const straight = open('straight');
    await run(straight, SIM);
    const dataDir = path.join(root, 'ckpt');
    const log = open('ckpt');
    const withCheckpoints = { ...SIM, dataDir };
    await run(log, { ...withCheckpoints, simMaxSlots: 8 });
    // a checkpoint at the last slot
    const second = new MemoryLogger();
    await run(log, { ...withCheckpoints, simMaxSlots: 12 }, second);
    expect(second.lines.some((l) => /from its checkpoint at slot \d+, 0 slots simulated/.test(l))).toBe(true);
    // the log goes on without checkpoints (as after a crash): the next start resumes from the checkpoint of slot 12
    await run(log, { ...SIM, simMaxSlots: 16 });
    const third = new MemoryLogger();
    await run(log, withCheckpoints, third);
    expect(third.lines.some((l) => /from its checkpoint at slot \d+, 4 slots simulated/.test(l))).toBe(true);
    expect(await readAll(log)).toEqual(await readAll(straight));
  });

  it('refuses to start on a log made by another market (seed, size) or another source', async () => {
    const log = open('other');
    await run(log, { ...SIM, simMaxSlots: 3 });
    for (const opts of [{ ...SIM, simSeed: 8 }, { ...SIM, simPools: 31 }, { ...SIM, simSwapsPerSlot: 5 }]) {
      const ing = new Ingestor(opts, log, new MemoryLogger());
      const err = await ing.start().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IngestorStartError);
      expect((err as Error).message).toMatch(/DATA_DIR/);
      expect((err as Error).message).toMatch(/SIM_SEED=/);
    }
    const foreign = open('foreign');
    await foreign.append(TOPIC, [{ key: 'k', value: Buffer.from('{"hello":1}') }]);
    const err = await new Ingestor(SIM, foreign, new MemoryLogger()).start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IngestorStartError);
    expect((err as Error).message).toMatch(/cannot be read/);
  });

  it('completes a slot whose append was interrupted, then continues', async () => {
    const straight = open('straight');
    await run(straight, { ...SIM, simMaxSlots: 5 });
    const expected = await readAll(straight);

    const torn = open('torn');
    const market = new SimMarket({ seed: 7, pools: 30, tokens: 12, swapsPerSlot: 6, programs: 'all', lookupTables: true });
    const msgs = (us: ReturnType<SimMarket['step']>): LogMessage[] => us.map((u) => ({ key: u.address, value: encodePoolUpdate(u) }));
    await torn.append(TOPIC, msgs(market.genesis()));
    await torn.append(TOPIC, msgs(market.step()));
    await torn.append(TOPIC, msgs(market.step()));
    const third = market.step();
    expect(third.length).toBeGreaterThan(3);
    await torn.append(TOPIC, msgs(third.slice(0, 2)));
    const logger = new MemoryLogger();
    await run(torn, { ...SIM, simMaxSlots: 5 }, logger);
    expect(logger.lines.some((l) => /appended only in part/.test(l))).toBe(true);
    const got = await readAll(torn);
    expect(got.length).toBe(expected.length);
    const sortKey = (r: { key: string; value: string }): string => r.key + r.value;
    expect([...got].sort((x, y) => sortKey(x).localeCompare(sortKey(y)))).toEqual([...expected].sort((x, y) => sortKey(x).localeCompare(sortKey(y))));
  });

  it('stops gracefully mid-run (in-flight append finishes) and a restart resumes', async () => {
    const log = open('stop');
    const ing = new Ingestor({ ...SIM, simMaxSlots: 0, simSlotMs: 2 }, log, new MemoryLogger());
    await ing.start();
    while (ing.stats().slots < 6) await new Promise((r) => setTimeout(r, 5));
    await ing.stop();
    await ing.finished;
    const stats = ing.stats();
    expect(stats.running).toBe(false);
    expect(stats.finished).toBe(false);
    const recs = await readAll(log);
    expect(recs.length).toBe(stats.recordsAppended);
    // nothing more is written after stop()
    await new Promise((r) => setTimeout(r, 20));
    expect((await readAll(log)).length).toBe(recs.length);
    const resumed = await run(log, { ...SIM, simMaxSlots: stats.slots + 3 });
    expect(resumed.stats().resumedFromSlot).toBe(stats.lastSlot);
  });

  it('records every ingested record to INGEST_RECORD_FILE; replaying it gives the same log', async () => {
    const recFile = path.join(root, 'sim.jsonl');
    const log = open('rec');
    await run(log, { ...SIM, simMaxSlots: 6, ingestRecordFile: recFile });
    const recs = await readAll(log);
    const lines = fs.readFileSync(recFile, 'utf8').split('\n').filter((l) => l !== '');
    expect(lines).toEqual(recs.map((r) => r.value));

    const replay = open('replay');
    const again = path.join(root, 'again.jsonl');
    const ing = await run(replay, { ...SIM, ingestSource: 'file', ingestFile: recFile, ingestRecordFile: again });
    expect(await readAll(replay)).toEqual(recs);
    expect(ing.stats()).toMatchObject({ source: 'file', finished: true, slots: 7, recordsAppended: recs.length, linesRejected: 0 });
    expect(fs.readFileSync(again, 'utf8')).toBe(fs.readFileSync(recFile, 'utf8'));
  });

  it('replays a file: appends exactly the valid lines, logs and counts the malformed ones', async () => {
    const market = new SimMarket({ seed: 3, pools: 20, tokens: 10, swapsPerSlot: 6, programs: 'all', lookupTables: true });
    const updates = [...market.genesis(), ...market.step(), ...market.step()];
    const good = updates.map((u) => encodePoolUpdate(u).toString());
    const bad = ['{"v":1,"slot":', JSON.stringify({ ...JSON.parse(good[0]), v: 9 }), 'garbage'];
    const file = path.join(root, 'mixed.jsonl');
    const text: string[] = [];
    const badLines: number[] = [];
    good.forEach((g, i) => {
      if (i % 25 === 3) {
        text.push(bad[i % bad.length]);
        badLines.push(text.length);
      }
      text.push(g);
    });
    text.push('');
    fs.writeFileSync(file, text.join('\n'));
    const log = open('file');
    const logger = new MemoryLogger();
    const ing = await run(log, { ...SIM, ingestSource: 'file', ingestFile: file }, logger);
    const recs = await readAll(log);
    expect(recs).toEqual(updates.map((u, i) => ({ key: u.address, value: good[i] })));
    expect(ing.stats().linesRejected).toBe(badLines.length);
    expect(ing.stats().recordsAppended).toBe(good.length);
    expect(ing.stats().slots).toBe(3);
    const warned = logger.lines.filter((l) => l.startsWith('warn') && l.includes('line rejected'));
    expect(warned.map((l) => Number(/mixed\.jsonl:(\d+):/.exec(l)![1]))).toEqual(badLines);
    expect(warned.some((l) => l.includes('unsupported schema version 9'))).toBe(true);
  });

  it('replays at slot pace: one append per slot, SIM_SLOT_MS apart', async () => {
    const market = new SimMarket({ seed: 4, pools: 12, tokens: 8, swapsPerSlot: 4, programs: 'all', lookupTables: true });
    const file = path.join(root, 'paced.jsonl');
    const w = new RecordingWriter(file);
    await w.append(market.genesis());
    for (let i = 0; i < 4; i++) await w.append(market.step());
    await w.close();
    const log = open('paced');
    const slotsPerAppend: number[][] = [];
    const spy: LogPort = Object.create(log) as LogPort;
    spy.append = async (topic: string, messages: LogMessage[]) => {
      slotsPerAppend.push([...new Set(messages.map((m) => JSON.parse(m.value.toString()).slot as number))]);
      return log.append(topic, messages);
    };
    const t0 = Date.now();
    const ing = await run(spy, { ...SIM, simSlotMs: 30, ingestSource: 'file', ingestFile: file, ingestFilePace: 'slot' });
    const elapsed = Date.now() - t0;
    expect(slotsPerAppend.every((s) => s.length === 1)).toBe(true);
    const distinct = [...new Set(slotsPerAppend.map((s) => s[0]))];
    expect(distinct.length).toBe(5);
    expect(elapsed).toBeGreaterThanOrEqual(4 * 30 - 5);
    expect(ing.stats().slots).toBe(5);
  });

  it('fails to start on a missing recording', async () => {
    const log = open('missing');
    const ing = new Ingestor({ ...SIM, ingestSource: 'file', ingestFile: path.join(root, 'nope.jsonl') }, log, new MemoryLogger());
    await expect(ing.start()).rejects.toThrow(/INGEST_FILE .*nope\.jsonl cannot be read/);
    expect(ing.stats().running).toBe(false);
  });
});
