/**
 * The LogPort contract: one suite, run against every adapter (embedded on a temp dir, kafka on
 * librdkafka's in-memory mock cluster). Tests are partition-agnostic: the embedded log has one
 * partition, the mock auto-creates topics with four.
 *
 * Kafka policy: when the mock cannot be started the suite prints a loud banner; with CI=true
 * that is a failure, otherwise the kafka cases are skipped.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { KafkaLog } from '@app/log/kafka/kafka-log';
import type { AppendResult, LogMessage, LogPort, LogRecord, Positions } from '@app/log';
import { kafkaMockUnavailableReason, loudMockBanner, startKafkaMock, type KafkaMock } from './support/kafka-mock';
import { waitFor } from './support/wait-for';

interface Harness {
  /** create the backing store (temp dir, mock cluster) */
  setup(): Promise<void>;
  /** a new adapter instance on the same backing store (a second instance = a restart) */
  open(): LogPort;
  teardown(): Promise<void>;
}

const IS_CI = process.env.CI === 'true';

function embeddedHarness(): Harness {
  let dir = '';
  return {
    async setup() {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-contract-'));
    },
    open: () => new EmbeddedLog({ dataDir: dir }),
    async teardown() {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function kafkaHarness(): Harness {
  let mock: KafkaMock | undefined;
  let n = 0;
  return {
    async setup() {
      mock = await startKafkaMock();
    },
    open: () => {
      if (!mock) throw new Error('kafka mock not started');
      return new KafkaLog({
        brokers: mock.brokers,
        clientId: `contract-${++n}`,
        // the mock makes a new member wait a session timeout after the old one left
        sessionTimeoutMs: 4000,
        // the mock has no CreateTopics: ensureTopic's expected warning is not repeated here
        logger: (level, msg) => {
          if (level === 'error' || (level === 'warn' && !msg.startsWith('could not create topic'))) {
            console.warn(`[kafka ${level}] ${msg}`);
          }
        },
      });
    },
    async teardown() {
      await mock?.stop();
    },
  };
}

const kafkaUnavailable = kafkaMockUnavailableReason();
if (kafkaUnavailable) console.error(loudMockBanner(kafkaUnavailable));

const adapters: Array<[string, () => Harness, string | null]> = [
  ['embedded', embeddedHarness, null],
  // Under CI the kafka cases run even without the mock, so that its absence fails loudly.
  ['kafka', kafkaHarness, kafkaUnavailable && !IS_CI ? kafkaUnavailable : null],
];

let topicSeq = 0;
function uniqueTopic(label: string): string {
  return `t-${label}-${process.pid}-${Date.now().toString(36)}-${++topicSeq}`;
}

function msg(key: string, value: string | Buffer): LogMessage {
  return { key, value: Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8') };
}

/** Records grouped by partition, each list in the order seen. */
function byPartition(records: LogRecord[]): Map<number, LogRecord[]> {
  const m = new Map<number, LogRecord[]>();
  for (const r of records) {
    if (!m.has(r.partition)) m.set(r.partition, []);
    m.get(r.partition)!.push(r);
  }
  return m;
}

function expectOffsetOrder(records: LogRecord[]): void {
  for (const [, list] of byPartition(records)) {
    for (let i = 1; i < list.length; i++) {
      expect(BigInt(list[i].offset)).toBeGreaterThan(BigInt(list[i - 1].offset));
    }
  }
}

const posKey = (p: { partition: number; offset: string }): string => `${p.partition}:${p.offset}`;

async function readAll(log: LogPort, topic: string, expected: number): Promise<LogRecord[]> {
  const out = await log.read(topic, 'beginning', expected + 100);
  return out;
}

function contractSuite(name: string, makeHarness: () => Harness, skipReason: string | null): void {
  describe(`LogPort contract: ${name}`, () => {
    const test = skipReason ? it.skip : it;
    const harness = makeHarness();
    const opened: LogPort[] = [];
    const open = (): LogPort => {
      const l = harness.open();
      opened.push(l);
      return l;
    };

    beforeAll(async () => {
      if (skipReason) return;
      try {
        await harness.setup();
      } catch (err) {
        console.error(loudMockBanner(`${name} backing store could not be started: ${(err as Error).message}`));
        throw err;
      }
    }, 30_000);

    afterAll(async () => {
      await Promise.allSettled(opened.map((l) => l.close()));
      await harness.teardown();
    });

    test('append returns positions in input order; read gives the same records back', async () => {
      const log = open();
      const topic = uniqueTopic('rt');
      await log.ensureTopic(topic);
      const messages = Array.from({ length: 50 }, (_, i) => msg(`k${i % 7}`, `value-${i}`));
      const results = await log.append(topic, messages);
      expect(results).toHaveLength(messages.length);
      // positions are unique and, per partition, increasing in input order
      expect(new Set(results.map(posKey)).size).toBe(messages.length);
      const lastByPartition = new Map<number, bigint>();
      for (const r of results) {
        const prev = lastByPartition.get(r.partition);
        if (prev !== undefined) expect(BigInt(r.offset)).toBeGreaterThan(prev);
        lastByPartition.set(r.partition, BigInt(r.offset));
      }
      // the same key always lands in the same partition
      const keyPartition = new Map<string, number>();
      messages.forEach((m, i) => {
        const p = keyPartition.get(m.key);
        if (p !== undefined) expect(results[i].partition).toBe(p);
        keyPartition.set(m.key, results[i].partition);
      });

      const records = await readAll(log, topic, messages.length);
      expect(records).toHaveLength(messages.length);
      expectOffsetOrder(records);
      const byPos = new Map(records.map((r) => [posKey(r), r]));
      messages.forEach((m, i) => {
        const r = byPos.get(posKey(results[i]));
        expect(r).toBeDefined();
        expect(r!.topic).toBe(topic);
        expect(r!.key).toBe(m.key);
        expect(r!.value.equals(m.value)).toBe(true);
        expect(typeof r!.timestamp).toBe('number');
      });
    });

    test('read from a middle position', async () => {
      const log = open();
      const topic = uniqueTopic('mid');
      await log.ensureTopic(topic);
      const results = await log.append(topic, Array.from({ length: 40 }, (_, i) => msg('same-key', `v${i}`)));
      // one key: all in one partition, consecutive offsets
      const p = results[0].partition;
      expect(results.every((r) => r.partition === p)).toBe(true);
      const from: Positions = await log.endPositions(topic); // other partitions: at their end
      from[String(p)] = results[15].offset;
      const got = await log.read(topic, from, 1000);
      expect(got.map((r) => r.value.toString())).toEqual(Array.from({ length: 25 }, (_, i) => `v${i + 15}`));
      expect(got.map((r) => r.offset)).toEqual(results.slice(15).map((r) => r.offset));
    });

    test('read honours limit and returns per-partition prefixes', async () => {
      const log = open();
      const topic = uniqueTopic('lim');
      await log.ensureTopic(topic);
      const results = await log.append(topic, Array.from({ length: 30 }, (_, i) => msg(`k${i % 5}`, `v${i}`)));
      const got = await log.read(topic, 'beginning', 7);
      expect(got).toHaveLength(7);
      expectOffsetOrder(got);
      // each partition's part is a prefix of what was appended to it
      for (const [partition, list] of byPartition(got)) {
        const appended = results.filter((r) => r.partition === partition).map((r) => r.offset);
        expect(list.map((r) => r.offset)).toEqual(appended.slice(0, list.length));
      }
      expect(await log.read(topic, 'beginning', 0)).toEqual([]);
      // same-key records, from a position, limited
      const one = await log.append(topic, Array.from({ length: 10 }, (_, i) => msg('solo', `s${i}`)));
      const from = await log.endPositions(topic);
      from[String(one[0].partition)] = one[2].offset;
      const some = await log.read(topic, from, 3);
      expect(some.map((r) => r.value.toString())).toEqual(['s2', 's3', 's4']);
    });

    test('endPositions are the next offsets to be written', async () => {
      const log = open();
      const topic = uniqueTopic('end');
      await log.ensureTopic(topic);
      const empty = await log.endPositions(topic);
      expect(Object.keys(empty).length).toBeGreaterThanOrEqual(1);
      expect(Object.values(empty).every((o) => o === '0')).toBe(true);
      const results = await log.append(topic, Array.from({ length: 25 }, (_, i) => msg(`k${i % 6}`, `v${i}`)));
      const end = await log.endPositions(topic);
      const expected: Positions = { ...empty };
      for (const r of results) {
        const next = (BigInt(r.offset) + 1n).toString();
        if (BigInt(next) > BigInt(expected[String(r.partition)] ?? '0')) expected[String(r.partition)] = next;
      }
      expect(end).toEqual(expected);
      // reading from the end positions gives nothing
      expect(await log.read(topic, end, 100)).toEqual([]);
    });

    test('tail: existing records first, then records appended after subscribe', async () => {
      const log = open();
      const topic = uniqueTopic('tail');
      await log.ensureTopic(topic);
      const first = await log.append(topic, Array.from({ length: 5 }, (_, i) => msg(`k${i % 3}`, `a${i}`)));
      const seen: LogRecord[] = [];
      let concurrent = 0;
      let maxConcurrent = 0;
      const sub = await log.subscribe(topic, { from: 'beginning', maxBatch: 2 }, async (batch) => {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        expect(batch.length).toBeGreaterThan(0);
        expect(batch.length).toBeLessThanOrEqual(2);
        await new Promise((r) => setTimeout(r, 1));
        seen.push(...batch);
        concurrent--;
      });
      try {
        await waitFor(() => seen.length >= 5, 20_000, 'the existing records', 5);
        const second = await log.append(topic, Array.from({ length: 7 }, (_, i) => msg(`k${i % 3}`, `b${i}`)));
        await waitFor(() => seen.length >= 12, 20_000, 'the new records', 5);
        await new Promise((r) => setTimeout(r, 50));
        expect(seen).toHaveLength(12);
        expect(maxConcurrent).toBe(1);
        expectOffsetOrder(seen);
        const want = [...first, ...second].map(posKey).sort();
        expect(seen.map(posKey).sort()).toEqual(want);
        // the first five were delivered before any of the new ones
        const firstSet = new Set(first.map(posKey));
        expect(seen.slice(0, 5).every((r) => firstSet.has(posKey(r)))).toBe(true);
      } finally {
        await sub.close();
      }
    });

    test("subscribe from 'end' sees only records appended afterwards", async () => {
      const log = open();
      const topic = uniqueTopic('fromend');
      await log.ensureTopic(topic);
      await log.append(topic, [msg('a', 'old1'), msg('b', 'old2')]);
      const seen: string[] = [];
      const sub = await log.subscribe(topic, { from: 'end' }, (batch) => {
        seen.push(...batch.map((r) => r.value.toString()));
      });
      try {
        // a Kafka consumer resolves 'end' once it has joined: keep appending until seen
        const deadline = Date.now() + 20_000;
        let i = 0;
        while (seen.length === 0 && Date.now() < deadline) {
          await log.append(topic, [msg('a', `new${i++}`)]);
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(seen.length).toBeGreaterThan(0);
        expect(seen.every((v) => v.startsWith('new'))).toBe(true);
      } finally {
        await sub.close();
      }
    });

    test('per-key order across many interleaved keys', async () => {
      const log = open();
      const topic = uniqueTopic('keys');
      await log.ensureTopic(topic);
      const keys = Array.from({ length: 23 }, (_, i) => `key-${i}`);
      const total = 1200;
      let seq = 0;
      const counters = new Map<string, number>();
      for (let b = 0; b < 6; b++) {
        const batch: LogMessage[] = [];
        for (let i = 0; i < total / 6; i++) {
          const key = keys[(seq * 7 + i * 13 + b) % keys.length];
          const n = counters.get(key) ?? 0;
          counters.set(key, n + 1);
          batch.push(msg(key, `${key}#${n}`));
          seq++;
        }
        await log.append(topic, batch);
      }
      const check = (records: LogRecord[]): void => {
        expect(records).toHaveLength(total);
        const next = new Map<string, number>();
        for (const r of records) {
          const n = next.get(r.key) ?? 0;
          expect(r.value.toString()).toBe(`${r.key}#${n}`);
          next.set(r.key, n + 1);
        }
        expect(next).toEqual(counters);
      };
      check(await log.read(topic, 'beginning', total + 10));
      // and through a subscription
      const seen: LogRecord[] = [];
      const sub = await log.subscribe(topic, { maxBatch: 100 }, (batch) => {
        seen.push(...batch);
      });
      try {
        await waitFor(() => seen.length >= total, 30_000, 'all records through subscribe', 5);
      } finally {
        await sub.close();
      }
      check(seen);
    });

    test('consumer group: process some, close, restart on a new instance, resume exactly after the commit', async () => {
      const topic = uniqueTopic('group');
      const groupId = `g-${topic}`;
      const writer = open();
      await writer.ensureTopic(topic);
      const appended = await writer.append(topic, Array.from({ length: 60 }, (_, i) => msg(`k${i % 4}`, `v${i}`)));
      expect(await writer.committed(groupId, topic)).toEqual({});

      const first = open();
      const run1: LogRecord[] = [];
      let batches = 0;
      let closing: Promise<void> | undefined;
      const sub1 = await first.subscribe(topic, { groupId, maxBatch: 5 }, async (batch) => {
        run1.push(...batch);
        batches++;
        if (batches === 3) closing = sub1.close(); // close while a handler is in flight
        await new Promise((r) => setTimeout(r, 5));
      });
      await waitFor(() => batches >= 3, 20_000, 'three batches', 5);
      await (closing ?? sub1.close());
      const handledWhenClosed = run1.length;
      await new Promise((r) => setTimeout(r, 100));
      expect(run1.length).toBe(handledWhenClosed); // nothing after close resolved
      await first.close();

      const committed = await writer.committed(groupId, topic);
      // committed = next offset after what run 1 handled, per partition
      for (const [partition, list] of byPartition(run1)) {
        const last = list[list.length - 1];
        expect(committed[String(partition)]).toBe((BigInt(last.offset) + 1n).toString());
      }

      const second = open(); // a restart: a new instance on the same store
      const run2: LogRecord[] = [];
      const sub2 = await second.subscribe(topic, { groupId, maxBatch: 7 }, (batch) => {
        run2.push(...batch);
      });
      try {
        await waitFor(() => run1.length + run2.length >= appended.length, 30_000, 'the rest after the restart', 5);
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        await sub2.close();
      }
      // no gap, no redelivery: run1 + run2 = everything, exactly once
      const all = [...run1, ...run2].map(posKey).sort();
      expect(all).toEqual(appended.map(posKey).sort());
      for (const [partition, list] of byPartition(run2)) {
        expect(list[0].offset).toBe(committed[String(partition)] ?? '0');
      }
      const end = await writer.endPositions(topic);
      const finalCommitted = await second.committed(groupId, topic);
      for (const [partition, offset] of Object.entries(end)) {
        if (offset !== '0') expect(finalCommitted[partition]).toBe(offset);
      }
    });

    test('commit() / committed() round trip, and a group starts at its committed positions', async () => {
      const log = open();
      const topic = uniqueTopic('commit');
      const groupId = `g-${topic}`;
      await log.ensureTopic(topic);
      const results = await log.append(topic, Array.from({ length: 12 }, (_, i) => msg('one', `v${i}`)));
      const p = String(results[0].partition);
      expect(await log.committed(groupId, topic)).toEqual({});
      await log.commit(groupId, topic, { [p]: results[4].offset });
      expect(await log.committed(groupId, topic)).toEqual({ [p]: results[4].offset });
      await log.commit(groupId, topic, { [p]: results[8].offset });
      expect(await log.committed(groupId, topic)).toEqual({ [p]: results[8].offset });
      // another instance sees it
      const other = open();
      expect(await other.committed(groupId, topic)).toEqual({ [p]: results[8].offset });
      const seen: string[] = [];
      const sub = await other.subscribe(topic, { groupId }, (batch) => {
        seen.push(...batch.map((r) => r.value.toString()));
      });
      try {
        await waitFor(() => seen.length >= 4, 20_000, 'records after the committed position', 5);
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        await sub.close();
      }
      expect(seen).toEqual(['v8', 'v9', 'v10', 'v11']);
    });

    test('a subscription without a group commits nothing and honours `from` positions', async () => {
      const log = open();
      const topic = uniqueTopic('nogroup');
      await log.ensureTopic(topic);
      const results = await log.append(topic, Array.from({ length: 10 }, (_, i) => msg('k', `v${i}`)));
      const from = await log.endPositions(topic);
      from[String(results[0].partition)] = results[6].offset;
      const seen: string[] = [];
      const sub = await log.subscribe(topic, { from }, (batch) => {
        seen.push(...batch.map((r) => r.value.toString()));
      });
      try {
        await waitFor(() => seen.length >= 4, 20_000, 'records from the position', 5);
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        await sub.close();
      }
      expect(seen).toEqual(['v6', 'v7', 'v8', 'v9']);
    });

    test('a group without commits starts at `from` positions, then resumes at its commits', async () => {
      const log = open();
      const topic = uniqueTopic('groupfrom');
      const groupId = `g-${topic}`;
      await log.ensureTopic(topic);
      const results = await log.append(topic, Array.from({ length: 10 }, (_, i) => msg('k', `v${i}`)));
      const from = await log.endPositions(topic);
      from[String(results[0].partition)] = results[7].offset;
      const seen: string[] = [];
      const sub = await log.subscribe(topic, { groupId, from }, (batch) => {
        seen.push(...batch.map((r) => r.value.toString()));
      });
      try {
        await waitFor(() => seen.length >= 3, 20_000, 'records from the position', 5);
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        await sub.close();
      }
      expect(seen).toEqual(['v7', 'v8', 'v9']);
      expect((await log.committed(groupId, topic))[String(results[0].partition)]).toBe(
        (BigInt(results[9].offset) + 1n).toString(),
      );
    });

    test('a handler error stops the subscription, is reported, and its batch is not committed', async () => {
      const log = open();
      const topic = uniqueTopic('err');
      const groupId = `g-${topic}`;
      await log.ensureTopic(topic);
      await log.append(topic, Array.from({ length: 6 }, (_, i) => msg('k', `v${i}`)));
      const errors: Error[] = [];
      let calls = 0;
      const sub = await log.subscribe(
        topic,
        { groupId, maxBatch: 2, onError: (e) => errors.push(e) },
        (batch) => {
          calls++;
          if (batch.some((r) => r.value.toString() === 'v2')) throw new Error('boom at v2');
        },
      );
      await waitFor(() => errors.length > 0, 20_000, 'the error report', 5);
      await sub.close();
      expect(errors).toHaveLength(1);
      expect(errors[0].message).toContain('boom at v2');
      const callsAtStop = calls;
      await log.append(topic, [msg('k', 'later')]);
      await new Promise((r) => setTimeout(r, 200));
      expect(calls).toBe(callsAtStop);
      const committed = Object.values(await log.committed(groupId, topic));
      expect(committed).toEqual(['2']);
    });

    test('ensureTopic is idempotent', async () => {
      const log = open();
      const topic = uniqueTopic('ens');
      await log.ensureTopic(topic);
      await log.ensureTopic(topic);
      await open().ensureTopic(topic);
      const r = await log.append(topic, [msg('k', 'x')]);
      await log.ensureTopic(topic);
      const got = await log.read(topic, 'beginning', 10);
      expect(got.map(posKey)).toEqual(r.map(posKey));
    });

    test('values are byte-exact (binary, zero bytes, empty, large)', async () => {
      const log = open();
      const topic = uniqueTopic('bin');
      await log.ensureTopic(topic);
      const all256 = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const values = [
        Buffer.alloc(0),
        Buffer.from([0]),
        Buffer.from([0, 0, 0, 1, 0, 255, 0]),
        all256,
        crypto.randomBytes(64 * 1024),
        Buffer.from('héllo wörld ✓', 'utf8'),
      ];
      const results: AppendResult[] = await log.append(
        topic,
        values.map((v, i) => ({ key: i % 2 ? 'ключ' : 'k\u0000ey', value: v })),
      );
      const got = await log.read(topic, 'beginning', 100);
      const byPos = new Map(got.map((r) => [posKey(r), r]));
      values.forEach((v, i) => {
        const r = byPos.get(posKey(results[i]))!;
        expect(r).toBeDefined();
        expect(Buffer.isBuffer(r.value)).toBe(true);
        expect(r.value.length).toBe(v.length);
        expect(r.value.equals(v)).toBe(true);
        expect(r.key).toBe(i % 2 ? 'ключ' : 'k\u0000ey');
      });
    });

    test('beginPositions: the first offset still held, per partition of endPositions (0 before retention removed anything)', async () => {
      const log = open();
      const topic = uniqueTopic('begin');
      await log.ensureTopic(topic);
      await log.append(topic, [msg('a', '1'), msg('b', '2'), msg('c', '3')]);
      const begin = await log.beginPositions(topic);
      const end = await log.endPositions(topic);
      expect(Object.keys(begin).sort()).toEqual(Object.keys(end).sort());
      for (const [p, first] of Object.entries(begin)) {
        // an empty partition begins where it ends
        expect(BigInt(first)).toBe(BigInt(end[p]) > 0n ? 0n : BigInt(end[p]));
      }
    });

    test('ping is true while open; close is idempotent', async () => {
      const log = open();
      expect(await log.ping()).toBe(true);
      await log.close();
      await log.close();
      expect(await log.ping()).toBe(false);
    });
  });
}

describe.each(adapters)('%s adapter', (name, makeHarness, skipReason) => {
  contractSuite(name, makeHarness, skipReason);
});

/**
 * Retention, embedded adapter (on Kafka the broker applies the topic's retention.ms or compaction,
 * set when ensureTopic creates it: see topic-configs.spec.ts; the mock cluster cannot create topics).
 */
describe('retention: embedded adapter', () => {
  let dir = '';
  let now = 0;
  const logs: EmbeddedLog[] = [];
  const openWith = (retention: ConstructorParameters<typeof EmbeddedLog>[0]['retention']): EmbeddedLog => {
    const l = new EmbeddedLog({ dataDir: dir, retention, retentionEveryMs: 3_600_000, clock: () => now });
    logs.push(l);
    return l;
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-retention-'));
    now = Date.now();
  });
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((l) => l.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const batch = (n: number, tag: string): LogMessage[] => Array.from({ length: n }, (_, i) => msg(`k${i % 7}`, `${tag}-${i}`));

  it('deletes what is older than the window, never the last record; offsets go on after it and readers start at the first kept', async () => {
    const log = openWith({ t: { ms: 60_000 } });
    await log.append('t', batch(1_200, 'old'));
    now += 120_000;
    expect(await log.trim('t')).toMatchObject({ deleted: 1_199, firstKept: 1_199 });
    expect(await log.beginPositions('t')).toEqual({ '0': '1199' });
    expect((await log.read('t', 'beginning', 10)).map((r) => r.offset)).toEqual(['1199']);
    const [next] = await log.append('t', batch(1, 'new'));
    expect(next.offset).toBe('1200');
    // a restart sees the same
    const again = openWith({});
    expect(await again.beginPositions('t')).toEqual({ '0': '1199' });
    expect(await again.endPositions('t')).toEqual({ '0': '1201' });
  });

  it('keeps what lies inside the window and everything at or after the floor, whatever its age; a null floor keeps all', async () => {
    let floor: number | null = null;
    const log = openWith({ t: { ms: 60_000, floor: () => floor } });
    await log.append('t', batch(300, 'old'));
    now += 120_000;
    expect((await log.trim('t')).deleted).toBe(0);
    floor = 200;
    expect((await log.trim('t')).deleted).toBe(200);
    expect(await log.beginPositions('t')).toEqual({ '0': '200' });
    // new records inside the window stay even past the floor
    floor = 10_000;
    await log.append('t', batch(50, 'fresh'));
    now += 30_000;
    const r = await log.trim('t');
    expect(r.firstKept).toBe(300);
    expect(await log.beginPositions('t')).toEqual({ '0': '300' });
  });

  it('deletes in steps of a few hundred records with the event loop free between them, so appends go on meanwhile', async () => {
    const log = openWith({ t: { ms: 60_000 } });
    for (let i = 0; i < 4; i++) await log.append('t', batch(1_000, `old${i}`));
    now += 120_000;
    let appended: AppendResult[] = [];
    const pass = log.trim('t');
    const during = log.append('t', batch(3, 'during')).then((r) => (appended = r));
    const r = await pass;
    await during;
    expect(r.steps).toBeGreaterThanOrEqual(8);
    expect(appended.map((a) => a.offset)).toEqual(['4000', '4001', '4002']);
    expect(await log.beginPositions('t')).toEqual({ '0': String(r.firstKept) });
    expect(r.firstKept).toBeGreaterThanOrEqual(3_999);
    expect((await log.read('t', 'beginning', 10)).map((x) => x.offset).slice(-3)).toEqual(['4000', '4001', '4002']);
  });

  it('a topic without a policy, or with forever, keeps everything', async () => {
    const log = openWith({ forever: { ms: null } });
    await log.append('forever', batch(10, 'x'));
    await log.append('other', batch(10, 'x'));
    now += 10 * 365 * 86_400_000;
    expect((await log.trim('forever')).deleted).toBe(0);
    expect((await log.trim('other')).deleted).toBe(0);
    expect(await log.beginPositions('other')).toEqual({ '0': '0' });
  });
});
