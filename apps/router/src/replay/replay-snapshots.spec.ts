import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SimMarket } from '@app/sim';
import { findBestRoute } from '@app/amm';
import { encodePoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS } from '@app/solana';
import { Projection } from '@app/pools';
import { ProjectionSnapshots } from '../projection/projection-snapshots';
import { replayProjection, ReplayError } from './replay';

/** replays that start from the nearest snapshot before their point, and points retention removed */
describe('replay from snapshots, within and before retention', () => {
  let dir: string;
  let log: EmbeddedLog;
  let snapshots: ProjectionSnapshots;
  let total = 0;
  let now = Date.now();
  const lines: string[] = [];
  const logger = { log: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
  const quote = (p: Projection) =>
    findBestRoute(p, { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: 2_000_000_000n, mode: 'ExactIn', maxHops: 3 }).amountOut;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-snapshots-'));
    snapshots = new ProjectionSnapshots({ dir: path.join(dir, 'snapshots'), every: 0, intervalMs: 0, keep: 5 }, TOPICS.poolUpdates, logger);
    log = new EmbeddedLog({ dataDir: dir, clock: () => now, retention: { [TOPICS.poolUpdates]: { ms: 60_000, floor: () => Number(snapshots.files.oldestPositions()?.['0'] ?? NaN) || null } } });
    const market = new SimMarket({ seed: 5, pools: 60, tokens: 20, swapsPerSlot: 6 });
    const updates = [...market.genesis()];
    for (let i = 0; i < 40; i++) updates.push(...market.step());
    await log.append(TOPICS.poolUpdates, updates.map((u) => ({ key: u.address, value: encodePoolUpdate(u) })));
    total = updates.length;
    // snapshots at two points, as a router writes them (one batch each, settled)
    for (const at of [Math.floor(total / 3), Math.floor((2 * total) / 3)]) {
      const p = new Projection();
      p.applyBatch((await log.read(TOPICS.poolUpdates, 'beginning', at)).map((r) => r));
      p.drainChanged();
      await snapshots.write(p);
    }
  });

  afterAll(async () => {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts from the nearest snapshot at or before the point and gives the state a replay from record 0 gives', async () => {
    const at = Math.floor(total / 2);
    const plain = await replayProjection(log, { position: { '0': String(at) } });
    const progress: string[] = [];
    const r = await replayProjection(log, { position: { '0': String(at) } }, 50, undefined, { snapshots, progress: (m) => progress.push(m) });
    expect(r.fromSnapshot).toEqual({ '0': String(Math.floor(total / 3)) });
    expect(r.records).toBe(at + 1 - Math.floor(total / 3));
    expect(r.position).toEqual(plain.position);
    expect(JSON.stringify(r.projection.markets())).toBe(JSON.stringify(plain.projection.markets()));
    expect(quote(r.projection)).toBe(quote(plain.projection));
    // a point before every snapshot replays from record 0
    const early = await replayProjection(log, { position: { '0': '10' } }, 5000, undefined, { snapshots });
    expect(early.fromSnapshot).toBeUndefined();
    expect(early.records).toBe(11);
  });

  it('once retention removed the records before the oldest snapshot, a point before it is refused plainly; later points still replay', async () => {
    now += 120_000;
    const trimmed = await log.trim(TOPICS.poolUpdates);
    expect(trimmed.firstKept).toBe(Math.floor(total / 3));
    await expect(replayProjection(log, { position: { '0': '10' } }, 5000, undefined, { snapshots })).rejects.toThrow(ReplayError);
    await expect(replayProjection(log, { position: { '0': '10' } }, 5000, undefined, { snapshots })).rejects.toThrow(/lies before retention: pool-updates partition 0 now starts at offset \d+/);
    await expect(replayProjection(log, 'end')).rejects.toThrow(/lies before retention/);
    const end = await replayProjection(log, 'end', 5000, undefined, { snapshots });
    expect(end.fromSnapshot).toEqual({ '0': String(Math.floor((2 * total) / 3)) });
    expect(end.position).toEqual({ '0': String(total - 1) });
  });
});
