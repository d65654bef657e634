import Database from 'better-sqlite3';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EmbeddedLog } from './embedded-log';
import { CHECKPOINT_BYTES, walCheckpointer } from './wal-checkpointer';
import { waitFor } from '../../../../test/support/wait-for';

/** `n` records of 1 KiB, keyed and filled by their index from `from` */
const batch = (from: number, n: number): Array<{ key: string; value: Buffer }> =>
  Array.from({ length: n }, (_, i) => ({ key: `k${from + i}`, value: Buffer.alloc(1024, (from + i) % 251) }));

describe('background WAL checkpoints of the embedded log', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'wal-checkpoints-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('copies a topic file back from its WAL in the worker, well before SQLite would inside an append, and loses nothing', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'log', 't.sqlite');
    const log = new EmbeddedLog({ dataDir: dir });
    // 1 MiB: four times the request threshold, a quarter of the 1,000 pages at which SQLite
    // checkpoints inside a commit (so any copying done is the worker's)
    const total = 1024;
    for (let i = 0; i < total; i += 64) {
      await log.append('t', batch(i, 64));
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(total * 1024).toBeGreaterThan(3 * CHECKPOINT_BYTES);
    await waitFor(() => walCheckpointer.status(file)?.running === false, 10_000, 'the last checkpoint');
    const s = walCheckpointer.status(file)!;
    expect(s.failed).toBe(0);
    expect(s.runs).toBeGreaterThanOrEqual(1);
    // frames the worker found copied into the database file (SQLite had not reached its own threshold)
    expect(s.copiedFrames).toBeGreaterThan(0);
    // every record, read back through a fresh instance
    await log.close();
    const again = new EmbeddedLog({ dataDir: dir });
    const records = await again.read('t', 'beginning', total + 10);
    expect(records.map((r) => r.key)).toEqual(Array.from({ length: total }, (_, i) => `k${i}`));
    expect(records.every((r, i) => r.offset === String(i) && r.value.equals(Buffer.alloc(1024, i % 251)))).toBe(true);
    await again.close();
  });

  it('the worker starts with the first append and stops when the last log that appended closes; a log only read from starts none', async () => {
    const dir = tempDir();
    const writer = new EmbeddedLog({ dataDir: dir });
    await writer.ensureTopic('t');
    expect(walCheckpointer.active).toBe(false);
    await writer.append('t', batch(0, 1));
    expect(walCheckpointer.active).toBe(true);
    await writer.close();
    expect(walCheckpointer.active).toBe(false);
    const reader = new EmbeddedLog({ dataDir: dir });
    expect(await reader.read('t', 'beginning', 10)).toHaveLength(1);
    expect(walCheckpointer.active).toBe(false);
    await reader.close();
  });

  it('a log closed while other logs keep the worker running leaves its file as SQLite does: the WAL folded in and removed', async () => {
    // another log of the process holds the worker
    const other = new EmbeddedLog({ dataDir: tempDir() });
    await other.append('keep', batch(0, 300));
    const dir = tempDir();
    const file = path.join(dir, 'log', 't.sqlite');
    const log = new EmbeddedLog({ dataDir: dir });
    for (let i = 0; i < 1024; i += 64) await log.append('t', batch(i, 64));
    await waitFor(() => walCheckpointer.status(file)?.running === false, 10_000, 'the checkpoint');
    expect(walCheckpointer.status(file)!.runs).toBeGreaterThanOrEqual(1);
    await log.close();
    // the worker's connection was the file's last one: closing it folded the WAL into the file
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    expect(walCheckpointer.active).toBe(true);
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM records').pluck().get()).toBe(1024);
    db.close();
    await other.close();
    expect(walCheckpointer.active).toBe(false);
  });

  it('the worker never keeps a process alive: one that appended and left its log open still exits', () => {
    const dir = tempDir();
    const register = path.join(__dirname, '..', '..', '..', '..', 'test', 'support', 'ts-register.js');
    const script =
      `const { EmbeddedLog } = require(${JSON.stringify(path.join(__dirname, 'embedded-log.ts'))});` +
      `const log = new EmbeddedLog({ dataDir: ${JSON.stringify(dir)} });` +
      `(async () => { for (let i = 0; i < 8; i++) await log.append('t', Array.from({ length: 64 }, (_, j) => ({ key: 'k' + j, value: Buffer.alloc(1024) }))); console.log('appended'); })();`;
    const r = spawnSync(process.execPath, ['-r', register, '-e', script], { timeout: 20_000, encoding: 'utf8' });
    expect(r.stdout).toContain('appended');
    // exited on its own (a timeout kills it with a signal)
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
  });

  it('a checkpoint that fails is reported once, and the appends go on with nothing lost', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'log', 't.sqlite');
    const errors: Array<{ message: string; topic: string }> = [];
    const log = new EmbeddedLog({ dataDir: dir, onError: (e, ctx) => errors.push({ message: e.message, topic: ctx.topic }) });
    await log.append('t', batch(0, 64));
    // the worker opens the file by its name: gone from the directory (this connection still holds it), it cannot
    fs.renameSync(file, `${file}.moved`);
    for (let i = 64; i < 1024; i += 64) {
      await log.append('t', batch(i, 64));
      await waitFor(() => walCheckpointer.status(file)?.running === false, 10_000, 'the checkpoint');
    }
    expect(walCheckpointer.status(file)!.failed).toBeGreaterThanOrEqual(2);
    expect(errors).toHaveLength(1);
    expect(errors[0].topic).toBe('t');
    expect(errors[0].message).toMatch(/background checkpoint of .*t\.sqlite failed/);
    expect((await log.read('t', 'beginning', 2000)).map((r) => r.key)).toEqual(Array.from({ length: 1024 }, (_, i) => `k${i}`));
    await log.close();
  });

  it('a failed checkpoint of a file several logs of the process append to is reported to each log that still holds it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'log', 't.sqlite');
    const heard: Record<'a' | 'b' | 'c', string[]> = { a: [], b: [], c: [] };
    const open = (who: 'a' | 'b' | 'c'): EmbeddedLog => new EmbeddedLog({ dataDir: dir, onError: (e, ctx) => heard[who].push(`${ctx.topic}: ${e.message}`) });
    const [a, b, c] = [open('a'), open('b'), open('c')];
    await a.append('t', batch(0, 16));
    await b.append('t', batch(16, 16));
    await c.append('t', batch(32, 16));
    // c lets go before anything fails; a and b still hold the file
    await c.close();
    fs.renameSync(file, `${file}.moved`);
    for (let i = 48; i < 560; i += 64) {
      await (i % 128 === 48 ? a : b).append('t', batch(i, 64));
      await waitFor(() => walCheckpointer.status(file)?.running === false, 10_000, 'the checkpoint');
    }
    expect(walCheckpointer.status(file)!.failed).toBeGreaterThanOrEqual(2);
    expect(heard.a).toHaveLength(1);
    expect(heard.a[0]).toMatch(/^t: background checkpoint of .*t\.sqlite failed/);
    expect(heard.b).toEqual(heard.a);
    expect(heard.c).toEqual([]);
    await a.close();
    await b.close();
  });

  it('what a background checkpoint copied is what a plain SQLite reader of the file sees', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'log', 't.sqlite');
    const log = new EmbeddedLog({ dataDir: dir });
    for (let i = 0; i < 512; i += 64) await log.append('t', batch(i, 64));
    await waitFor(() => walCheckpointer.status(file)?.running === false, 10_000, 'the checkpoint');
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM records').pluck().get()).toBe(512);
    db.close();
    await log.close();
  });
});
