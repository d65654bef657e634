import fc from 'fast-check';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import type { LogPort, LogRecord, Positions } from '@app/log';
import { positionsSince } from './interest-window';

/** a read-only log over given append times per partition; offsets below `low` are gone (retention) */
function fakeLog(parts: Array<{ low: number; times: number[] }>): { log: LogPort; reads: () => number } {
  let reads = 0;
  const log = {
    async endPositions(): Promise<Positions> {
      const out: Positions = {};
      parts.forEach((p, i) => (out[String(i)] = String(p.times.length)));
      return out;
    },
    async read(topic: string, from: Positions | 'beginning', limit: number): Promise<LogRecord[]> {
      reads++;
      const out: LogRecord[] = [];
      parts.forEach((p, i) => {
        const start = Math.max(p.low, from === 'beginning' || from[String(i)] === undefined ? 0 : Number(from[String(i)]));
        for (let o = start; o < p.times.length && out.length < limit; o++) {
          out.push({ topic, partition: i, offset: String(o), key: 'k', value: Buffer.alloc(0), timestamp: p.times[o] });
        }
      });
      return out;
    },
  } as unknown as LogPort;
  return { log, reads: () => reads };
}

describe('positionsSince', () => {
  it('finds, per partition, the first record at or after the cutoff (sorted times, retention)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ times: fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 300 }), lowFrac: fc.double({ min: 0, max: 1, noNaN: true }) }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.integer({ min: -10, max: 1010 }),
        async (raw, cutoff) => {
          const parts = raw.map((r) => {
            const times = [...r.times].sort((a, b) => a - b);
            return { times, low: Math.floor(r.lowFrac * times.length) };
          });
          const { log, reads } = fakeLog(parts);
          const got = await positionsSince(log, 't', cutoff);
          parts.forEach((p, i) => {
            let want = p.times.length;
            for (let o = p.low; o < p.times.length; o++) {
              if (p.times[o] >= cutoff) {
                want = o;
                break;
              }
            }
            expect(got[String(i)]).toBe(String(want));
          });
          // a binary search, not a scan
          const bound = parts.reduce((a, p) => a + Math.ceil(Math.log2(p.times.length + 1)) + 1, 0);
          expect(reads()).toBeLessThanOrEqual(bound);
        },
      ),
    );
  });

  it('on the embedded log: only the records of the window are read again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interest-window-'));
    const log = new EmbeddedLog({ dataDir: dir });
    try {
      await log.ensureTopic('quote-interest');
      expect(await positionsSince(log, 'quote-interest', Date.now())).toEqual({ '0': '0' });
      await log.append('quote-interest', [{ key: 'a', value: Buffer.from('old') }]);
      await log.append('quote-interest', [{ key: 'a', value: Buffer.from('old') }]);
      await new Promise((r) => setTimeout(r, 30));
      const cutoff = Date.now();
      await log.append('quote-interest', [{ key: 'a', value: Buffer.from('new') }]);
      expect(await positionsSince(log, 'quote-interest', cutoff)).toEqual({ '0': '2' });
      expect(await positionsSince(log, 'quote-interest', 0)).toEqual({ '0': '0' });
      expect(await positionsSince(log, 'quote-interest', Date.now() + 1000)).toEqual({ '0': '3' });
    } finally {
      await log.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
