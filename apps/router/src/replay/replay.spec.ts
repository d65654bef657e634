import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SimMarket } from '@app/sim';
import { findBestRoute } from '@app/amm';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS } from '@app/solana';
import { Projection } from '@app/pools';
import { parsePosition, replayProjection, ReplayError } from './replay';

describe('replay', () => {
  let dir: string;
  let log: EmbeddedLog;
  const updates: PoolUpdate[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-'));
    log = new EmbeddedLog({ dataDir: dir });
    await log.ensureTopic(TOPICS.poolUpdates);
    const market = new SimMarket({ seed: 5, pools: 60, tokens: 20, swapsPerSlot: 6 });
    updates.push(...market.genesis());
    for (let i = 0; i < 40; i++) updates.push(...market.step());
    await log.append(
      TOPICS.poolUpdates,
      updates.map((u) => ({ key: u.address, value: encodePoolUpdate(u) })),
    );
    // one malformed record in the middle of the history: replays count it and go on
    await log.append(TOPICS.poolUpdates, [{ key: 'x', value: Buffer.from('{"v":9}') }]);
  });

  afterAll(async () => {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** the projection a router had after applying the first n records */
  function direct(n: number): Projection {
    const p = new Projection();
    updates.slice(0, n).forEach((u, i) => p.apply({ partition: 0, offset: String(i), value: encodePoolUpdate(u) }));
    return p;
  }

  const quote = (p: Projection) =>
    findBestRoute(p, { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: 2_000_000_000n, mode: 'ExactIn', maxHops: 3 }).amountOut;

  it('at a log position gives exactly the state (and quotes) a router had there', async () => {
    for (const n of [updates.length - 200, updates.length - 37, updates.length]) {
      const r = await replayProjection(log, { position: { '0': String(n - 1) } });
      expect(r.position).toEqual({ '0': String(n - 1) });
      expect(r.records).toBe(n);
      const d = direct(n);
      expect(r.projection.positions).toEqual(d.positions);
      expect(r.projection.slot).toBe(d.slot);
      expect(JSON.stringify(r.projection.markets())).toBe(JSON.stringify(d.markets()));
      expect(quote(r.projection)).toBe(quote(d));
    }
  });

  it('at a slot applies every record stamped up to it and none after', async () => {
    const slot = updates[updates.length - 100].slot;
    const n = updates.filter((u) => u.slot <= slot).length;
    const r = await replayProjection(log, { slot });
    expect(r.records).toBe(n);
    expect(r.projection.slot).toBe(slot);
    expect(quote(r.projection)).toBe(quote(direct(n)));
  });

  it('to the end counts the malformed record without applying it', async () => {
    const r = await replayProjection(log, 'end');
    expect(r.records).toBe(updates.length + 1);
    expect(r.projection.stats.rejected).toBe(1);
    expect(quote(r.projection)).toBe(quote(direct(updates.length)));
  });

  it('rejects positions the log does not have', async () => {
    await expect(replayProjection(log, { position: { '0': String(updates.length + 5) } })).rejects.toThrow(ReplayError);
    await expect(replayProjection(log, { position: { '3': '1' } })).rejects.toThrow(/no partition 3/);
    expect(() => parsePosition('0:12,x')).toThrow(/invalid log position/);
    expect(parsePosition('0:12, 1:7')).toEqual({ '0': '12', '1': '7' });
  });
});
