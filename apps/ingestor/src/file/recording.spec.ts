import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { SimMarket } from '@app/sim';
import { readRecording, RecordingWriter, type RecordingLine } from './recording';

async function collect(file: string): Promise<RecordingLine[]> {
  const out: RecordingLine[] = [];
  for await (const l of readRecording(file)) out.push(l);
  return out;
}

describe('recordings', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingestor-rec-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const market = new SimMarket({ seed: 2, pools: 20, tokens: 10, swapsPerSlot: 6 });
  const updates: PoolUpdate[] = [...market.genesis(), ...market.step(), ...market.step()];
  updates.push({ ...updates[0], slot: market.slot + 1, data: null, lamports: 0n, source: 'rpc' }); // an account closed

  it('round-trips writes: each line is exactly the wire record', async () => {
    const file = path.join(dir, 'rec.jsonl');
    const w = new RecordingWriter(file, 4096); // small high-water mark: several flushes on the way
    await w.append(updates.slice(0, 10));
    await w.append(updates[10]);
    await w.append(updates.slice(11));
    await w.close();
    expect(w.linesWritten).toBe(updates.length);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.split('\n')).toEqual([...updates.map((u) => encodePoolUpdate(u).toString()), '']);
    const read = await collect(file);
    expect(read.map((l) => l.error)).toEqual(updates.map(() => undefined));
    expect(read.map((l) => l.update)).toEqual(updates);
    expect(read.map((l) => l.line)).toEqual(updates.map((_, i) => i + 1));
  });

  it('appends to an existing recording', async () => {
    const file = path.join(dir, 'rec.jsonl');
    const a = new RecordingWriter(file);
    await a.append(updates.slice(0, 3));
    await a.close();
    const b = new RecordingWriter(file);
    await b.append(updates.slice(3, 5));
    await b.flush();
    await b.close();
    expect((await collect(file)).map((l) => l.update)).toEqual(updates.slice(0, 5));
    await expect(b.append(updates[0])).rejects.toThrow(/closed/);
  });

  it('reports malformed lines with their line numbers and reasons, skips blank lines, keeps going', async () => {
    const file = path.join(dir, 'bad.jsonl');
    const good = (i: number): string => encodePoolUpdate(updates[i]).toString();
    const wrongVersion = JSON.stringify({ ...JSON.parse(good(1)), v: 2 });
    const badLamports = JSON.stringify({ ...JSON.parse(good(2)), lamports: 12 });
    const badAddress = JSON.stringify({ ...JSON.parse(good(2)), address: 'not-a-key' });
    fs.writeFileSync(
      file,
      [good(0), 'not json at all', '', wrongVersion, good(1), '[1,2]', badLamports, '   ', badAddress, good(2)].join('\r\n') + '\n{"v":1,"slot":',
    );
    const read = await collect(file);
    expect(read.map((l) => [l.line, l.update ? 'ok' : l.error])).toEqual([
      [1, 'ok'],
      [2, 'malformed record: not JSON'],
      [4, 'unsupported schema version 2 (this reader knows 1)'],
      [5, 'ok'],
      [6, 'malformed record: not an object'],
      [7, 'malformed record: lamports must be a u64 decimal string'],
      [9, 'malformed record: address is not a base58 public key'],
      [10, 'ok'],
      [11, 'malformed record: not JSON'],
    ]);
    expect(read.filter((l) => l.update).map((l) => l.update)).toEqual([updates[0], updates[1], updates[2]]);
  });

  it('rejects a recording that cannot be opened', async () => {
    await expect(collect(path.join(dir, 'missing.jsonl'))).rejects.toThrow(/ENOENT/);
  });
});
