/**
 * Log adapters: append and read throughput (records/s) through the LogPort.
 *
 * embedded: a fresh data directory in the OS temp dir, batches of 1,000 records of ~600 bytes
 *           (the size of a pool-updates record of a CPMM pool), synchronous=NORMAL (the default);
 *           and the latency of paced appends (as a router publishing quotes: a batch every few
 *           milliseconds), with the WAL checkpoints in the background worker (the default) and
 *           inline in the append that reaches SQLite's threshold, runs alternated.
 * kafka:    the kafka adapter against librdkafka's in-memory mock cluster (the same harness as the
 *           contract suite). The mock is not a broker on disk: its figures measure the adapter and
 *           the protocol round trips, not Kafka's storage. Skipped (and said so) when the mock
 *           cannot be started.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { KafkaLog } from '@app/log/kafka/kafka-log';
import type { LogMessage, LogPort, Positions } from '@app/log';
import { startKafkaMock, kafkaMockUnavailableReason } from '../test/support/kafka-mock';
import { fmtMs, fmtRate, summarize, verdict, type BenchRow, type BenchSection } from './harness';

const RECORD_BYTES = 600;
const BATCH = 1000;

function messages(n: number, offset: number): LogMessage[] {
  const out: LogMessage[] = [];
  for (let i = 0; i < n; i++) {
    const value = Buffer.alloc(RECORD_BYTES, (offset + i) % 251);
    out.push({ key: `account-${(offset + i) % 5000}`, value });
  }
  return out;
}

async function measure(log: LogPort, topic: string, total: number): Promise<{ append: number; read: number; singles: number }> {
  await log.ensureTopic(topic);
  const batches: LogMessage[][] = [];
  for (let i = 0; i < total; i += BATCH) batches.push(messages(Math.min(BATCH, total - i), i));
  let t0 = process.hrtime.bigint();
  for (const b of batches) await log.append(topic, b);
  const appendS = Number(process.hrtime.bigint() - t0) / 1e9;

  // read back everything, in pages, as a projection replaying the topic would
  t0 = process.hrtime.bigint();
  let read = 0;
  let from: Positions | 'beginning' = 'beginning';
  for (;;) {
    const page = await log.read(topic, from, 5000);
    if (page.length === 0) break;
    read += page.length;
    const next: Positions = { ...(from === 'beginning' ? {} : from) };
    for (const r of page) next[String(r.partition)] = (BigInt(r.offset) + 1n).toString();
    from = next;
    if (read >= total) break;
  }
  const readS = Number(process.hrtime.bigint() - t0) / 1e9;

  // single-record appends (one acknowledged write each): the latency-bound case
  const singles = 500;
  t0 = process.hrtime.bigint();
  for (let i = 0; i < singles; i++) await log.append(topic, messages(1, total + i));
  const singleS = Number(process.hrtime.bigint() - t0) / 1e9;
  return { append: total / appendS, read: read / readS, singles: singles / singleS };
}

/** paced appends: PACED_BATCHES batches of PACED_RECORDS records of PACED_BYTES, one every PACED_GAP_MS */
const PACED_BATCHES = 1_500;
const PACED_RECORDS = 200;
const PACED_BYTES = 300;
const PACED_GAP_MS = 4;
const PACED_RUNS = 2;

/** each paced append's time until acknowledged (ms), on a fresh data directory */
async function pacedAppends(backgroundCheckpoints: boolean): Promise<number[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-log-paced-'));
  const log = new EmbeddedLog({ dataDir: dir, backgroundCheckpoints });
  const batch = Array.from({ length: PACED_RECORDS }, (_, i) => ({ key: `tuple-${i}`, value: Buffer.alloc(PACED_BYTES, i % 251) }));
  const took: number[] = [];
  try {
    await log.ensureTopic('paced');
    for (let i = 0; i < PACED_BATCHES; i++) {
      const t = performance.now();
      await log.append('paced', batch);
      took.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, PACED_GAP_MS));
    }
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return took;
}

export async function bench(): Promise<BenchSection[]> {
  const rows: BenchRow[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-log-'));
  const embedded = new EmbeddedLog({ dataDir: dir });
  try {
    await measure(embedded, 'warmup', 20_000);
    const r = await measure(embedded, 'bench', 200_000);
    rows.push({
      metric: 'embedded append, batches of 1,000',
      value: fmtRate(r.append, 'records'),
      target: '≥ 100,000 records/s',
      verdict: verdict(r.append >= 100_000),
      notes: `200,000 records of ${RECORD_BYTES} B, durable (WAL, synchronous=NORMAL)`,
    });
    rows.push({ metric: 'embedded read (pages of 5,000)', value: fmtRate(r.read, 'records') });
    rows.push({ metric: 'embedded append, one record per call', value: fmtRate(r.singles, 'appends'), notes: 'each call acknowledged on its own' });
  } finally {
    await embedded.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const paced = { background: [] as number[], inline: [] as number[] };
  for (let run = 0; run < PACED_RUNS; run++) {
    paced.background.push(...(await pacedAppends(true)));
    paced.inline.push(...(await pacedAppends(false)));
  }
  for (const [setting, label] of [['background', 'checkpoints in the background worker (default)'], ['inline', 'checkpoints inline (SQLite default)']] as const) {
    const t = summarize(paced[setting]);
    const over = paced[setting].filter((x) => x > 5);
    rows.push({
      metric: `embedded append latency, paced batches, ${label}`,
      value: `p50 ${fmtMs(t.p50)}, p99 ${fmtMs(t.p99)}, max ${fmtMs(t.max)}`,
      notes:
        `${t.n.toLocaleString('en-US')} appends of ${PACED_RECORDS} records of ${PACED_BYTES} B, each ${PACED_GAP_MS} ms after the last was acknowledged (SQLite's threshold of 1,000 pages is reached about every 60 appends), ${PACED_RUNS} runs alternated; ` +
        `${over.length} took over 5 ms, ${fmtMs(over.reduce((a, b) => a + b, 0))} in all: time an appending thread's event loop is held`,
    });
  }

  const unavailable = kafkaMockUnavailableReason();
  if (unavailable) {
    rows.push({ metric: 'kafka adapter', value: 'not measured', notes: unavailable });
  } else {
    const mock = await startKafkaMock();
    const kafka = new KafkaLog({ brokers: mock.brokers, clientId: 'bench', logger: () => undefined });
    try {
      await measure(kafka, 'warmup', 5_000);
      const r = await measure(kafka, 'bench', 50_000);
      rows.push({ metric: 'kafka append, batches of 1,000 (mock cluster)', value: fmtRate(r.append, 'records'), notes: "librdkafka's in-memory mock, 50,000 records" });
      rows.push({ metric: 'kafka read (mock cluster)', value: fmtRate(r.read, 'records') });
      rows.push({ metric: 'kafka append, one record per call (mock cluster)', value: fmtRate(r.singles, 'appends') });
    } finally {
      await kafka.close();
      await mock.stop();
    }
  }
  return [
    {
      title: 'Log adapters',
      description:
        'Append and read throughput through the LogPort (`bench/log.bench.ts`). The embedded adapter writes to a fresh data directory on local disk; the kafka adapter runs against librdkafka\'s in-memory mock cluster, which measures the adapter and protocol, not broker storage.',
      rows,
    },
  ];
}
