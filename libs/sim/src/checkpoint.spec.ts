import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { encodePoolUpdate } from '@app/contracts';
import { SimCheckpoints } from './checkpoint';
import { SimMarket } from './market';

const OPTIONS = { seed: 7, pools: 40, tokens: 12, swapsPerSlot: 6, programs: 'all' as const, lookupTables: true };
const encoded = (m: SimMarket, slots: number): string[] => {
  const out: string[] = [];
  for (let i = 0; i < slots; i++) for (const u of m.step()) out.push(encodePoolUpdate(u).toString('base64'));
  return out;
};

describe('simulated market checkpoints', () => {
  let dir: string;
  const warnings: string[] = [];
  const logger = { log: () => undefined, warn: (m: string) => warnings.push(m) };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-checkpoint-'));
    warnings.length = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a market restored from its checkpoint goes on exactly as the original, byte for byte', async () => {
    const original = new SimMarket(OPTIONS);
    original.genesis();
    original.advance(25);
    encoded(original, 5);
    const store = new SimCheckpoints(dir, 'settings A', logger);
    await store.write(original, 'd1');
    const back = await store.restore(original.slot);
    expect(back?.lastSlotDigest).toBe('d1');
    const restored = back?.market;
    expect(restored).toBeDefined();
    expect(restored!.slot).toBe(original.slot);
    expect(restored!.snapshot().map((u) => encodePoolUpdate(u).toString('base64'))).toEqual(original.snapshot().map((u) => encodePoolUpdate(u).toString('base64')));
    expect(encoded(restored!, 40)).toEqual(encoded(original, 40));
    expect(restored!.stats()).toEqual(original.stats());
  });

  it('takes the newest checkpoint at or before the slot; other settings and damaged files are skipped with a line', async () => {
    const m = new SimMarket(OPTIONS);
    m.genesis();
    const store = new SimCheckpoints(dir, 'settings A', logger);
    m.advance(10);
    await store.write(m, null);
    m.advance(10);
    const newer = await store.write(m, null);
    expect((await store.restore(m.slot - 5))!.market.slot).toBe(m.slot - 10);
    const bytes = fs.readFileSync(newer.file);
    bytes[bytes.length - 40] ^= 1;
    fs.writeFileSync(newer.file, bytes);
    expect((await store.restore(m.slot))!.market.slot).toBe(m.slot - 10);
    expect(warnings.join('\n')).toMatch(/checksum mismatch/);
    expect(await new SimCheckpoints(dir, 'settings B', logger).restore(m.slot)).toBeNull();
    expect(warnings.join('\n')).toMatch(/made with settings A, not settings B/);
  });
});
