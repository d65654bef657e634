/**
 * Kill -9 in the middle of appending: nothing acknowledged is lost, nothing half-written is
 * visible. A child process (test/support/crash-writer.ts) appends to an EmbeddedLog and prints
 * each acknowledged offset range; we SIGKILL it while it is still appending, reopen the dir with
 * a fresh EmbeddedLog and verify every record. Three kills on the same dir (recovery after
 * recovery), each at a different moment.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { verifyRecord } from './support/crash-writer';

const ROOT = path.join(__dirname, '..');
const REGISTER = path.join(__dirname, 'support', 'ts-register.js');
const WRITER = path.join(__dirname, 'support', 'crash-writer.ts');
const TOPIC = 'crash';
const BATCH = 2000;

interface KillOutcome {
  acked: number; // highest acknowledged offset + 1
  startedAt: number;
  signal: string | null;
  /** the last line was `begin`: the kill landed inside append (before its ack) */
  midAppend: boolean;
}

/** Runs the writer until it has printed `acksBeforeKill` acks, then SIGKILLs it. */
function runAndKill(dataDir: string, acksBeforeKill: number, extraDelayMs: number): Promise<KillOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER, WRITER, dataDir, TOPIC, String(BATCH)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let acks = 0;
    let acked = 0;
    let startedAt = -1;
    let killScheduled = false;
    let lastKind = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`writer made no progress in time; stdout:\n${out.slice(-2000)}\nstderr:\n${err}`));
    }, 45_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        const [kind, a, b] = line.split(' ');
        lastKind = kind;
        if (kind === 'start') startedAt = Number(a);
        if (kind === 'ack') {
          acks++;
          acked = Math.max(acked, Number(b) + 1);
          if (acks >= acksBeforeKill && !killScheduled) {
            killScheduled = true;
            // still appending: kill after a further random-ish delay, mid-transaction or not
            setTimeout(() => child.kill('SIGKILL'), extraDelayMs);
          }
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') {
        reject(new Error(`writer exited by itself (code ${code}, signal ${signal}); stderr:\n${err}`));
        return;
      }
      resolve({ acked, startedAt, signal, midAppend: lastKind === 'begin' });
    });
  });
}

describe('EmbeddedLog survives kill -9 mid-append', () => {
  let dir: string;
  let midAppendKills = 0;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-crash-'));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    // informational: how many kills landed between `begin` and the ack of an append
    console.log(`${midAppendKills} of ${plan.length} kills landed inside append`);
  });

  // seeded "random" moments: (acks seen before the kill, extra delay in ms)
  const plan: Array<[number, number]> = [
    [3, 0],
    [11, 7],
    [6, 23],
    [4, 41],
  ];

  test.each(plan)('kill after %i acks (+%i ms): every ack is readable and verifies, no gap, nothing garbled', async (acksBeforeKill, delay) => {
    const before = await countRecords(dir);
    const outcome = await runAndKill(dir, acksBeforeKill, delay);
    expect(outcome.signal).toBe('SIGKILL');
    expect(outcome.startedAt).toBe(before); // the writer resumed at the end of the log

    const log = new EmbeddedLog({ dataDir: dir });
    try {
      expect(await log.ping()).toBe(true);
      const end = Number((await log.endPositions(TOPIC))['0']);
      expect(end).toBeGreaterThanOrEqual(outcome.acked); // nothing acknowledged lost
      let next = 0;
      const problems: string[] = [];
      while (next < end) {
        const page = await log.read(TOPIC, { '0': String(next) }, 5000);
        expect(page.length).toBeGreaterThan(0);
        for (const r of page) {
          if (Number(r.offset) !== next) problems.push(`gap: expected offset ${next}, got ${r.offset}`);
          const bad = verifyRecord(Number(r.offset), r.key, r.value);
          if (bad) problems.push(bad);
          next = Number(r.offset) + 1;
        }
        if (problems.length > 10) break;
      }
      expect(problems).toEqual([]);
      expect(next).toBe(end);
      // the unacknowledged tail, if any, is whole batches only (one transaction per batch)
      expect(end % BATCH).toBe(0);
      midAppendKills += outcome.midAppend ? 1 : 0;
      console.log(
        `kill after ${acksBeforeKill} acks: acked ${outcome.acked}, visible ${end} (all verified); ` +
          `killed inside append: ${outcome.midAppend}`,
      );
    } finally {
      await log.close();
    }
  }, 60_000);
});

async function countRecords(dir: string): Promise<number> {
  const log = new EmbeddedLog({ dataDir: dir });
  try {
    return Number((await log.endPositions(TOPIC))['0']);
  } finally {
    await log.close();
  }
}
