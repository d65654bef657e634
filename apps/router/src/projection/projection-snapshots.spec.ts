import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SimMarket } from '@app/sim';
import { PriceOracle } from '@app/amm';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { SnapshotFiles } from '@app/log';
import { MINTS } from '@app/solana';
import { quoteOn } from '../replay/quote-on';
import { Projection, type ProjectionRecord } from '@app/pools/projection';
import { captureImage, restoreImage } from './projection-image';
import { ProjectionSnapshots } from './projection-snapshots';
import { decodeImage, encodeAll, SNAPSHOT_FORMAT } from './snapshot-codec';

/**
 * A log of a small market of every program: genesis, slots of swaps, and between them accounts
 * closed and written again (pools leaving and re-entering the graph, vaults and mints gone and
 * back) and records that do not decode, so the order pools enter the graph and the dependents of
 * shared accounts are exercised, not only reserve changes.
 */
function marketLog(): ProjectionRecord[] {
  const market = new SimMarket({ seed: 11, pools: 48, tokens: 12, swapsPerSlot: 6, programs: 'all', lookupTables: true });
  const updates: Array<PoolUpdate | 'garbage'> = [...market.genesis()];
  const genesis = updates.slice() as PoolUpdate[];
  for (let s = 0; s < 40; s++) {
    updates.push(...market.step());
    if (s % 7 === 3) {
      // close a few accounts (pools, vaults, mints) and write them again some slots later
      const victims = genesis.filter((_, i) => (i + s) % 23 === 0);
      for (const v of victims) updates.push({ ...v, slot: market.slot, data: null });
      if (s % 2 === 1) updates.push('garbage');
      updates.push(...market.step());
      for (const v of victims.slice(0, Math.ceil(victims.length / 2))) updates.push({ ...v, slot: market.slot });
    }
  }
  return updates.map((u, offset) => ({ partition: 0, offset: String(offset), value: u === 'garbage' ? Buffer.from('{"v":1,"slot":"x"}') : encodePoolUpdate(u), timestamp: 1_700_000_000_000 + offset * 7 }));
}

function applyAll(p: Projection, records: readonly ProjectionRecord[], batch: number): void {
  for (let i = 0; i < records.length; i += batch) {
    p.applyBatch(records.slice(i, i + batch));
    p.drainChanged();
  }
}

/** everything a quote, a price or a listing can depend on, in a comparable form */
function fingerprint(p: Projection): unknown {
  const mints = p.tokens().map((t) => t.mint);
  const graph = mints.map((m) => [m, p.poolsOf(m).map((pool) => pool.address)]);
  const markets = p.markets();
  const changes = markets.map((m) => [m.address, p.lastChangeAt(m.address), p.dependenciesOf(m.address)]);
  const quotes: unknown[] = [];
  const probe = [MINTS.SOL, MINTS.USDC, ...mints.slice(0, 8)];
  for (const a of probe) {
    for (const b of probe) {
      if (a === b) continue;
      for (const swapMode of ['ExactIn', 'ExactOut']) {
        const r = quoteOn(p, { inputMint: a, outputMint: b, amount: '1000000', swapMode });
        quotes.push('quote' in r ? JSON.stringify(r.quote, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) : r.error);
      }
    }
  }
  const oracle = new PriceOracle([MINTS.USDC, MINTS.USDT], MINTS.SOL);
  oracle.batch(() => {
    for (const m of markets) {
      const pool = m.routable ? p.pool(m.address) : undefined;
      if (!pool) continue;
      oracle.setDecimals(pool.mintA, p.decimals(pool.mintA));
      oracle.setDecimals(pool.mintB, p.decimals(pool.mintB));
      oracle.poolChanged({ pool, updatedAt: Math.floor(p.lastChangeAt(m.address) / 1000) });
    }
  });
  return {
    stats: p.stats,
    positions: p.positions,
    processed: p.processed,
    slot: p.slot,
    markets,
    graph,
    changes,
    lookupTables: p.lookupTableAddresses(),
    quotes,
    prices: oracle.getMany(mints),
  };
}

describe('projection snapshots', () => {
  const records = marketLog();
  const BATCH = 97;
  const full = new Projection();
  applyAll(full, records, BATCH);
  const expected = fingerprint(full);

  it('the log exercises what a snapshot must keep: pools leaving and re-entering the graph, rejected records', () => {
    const s = full.stats;
    expect(s.rejected).toBeGreaterThan(0);
    expect(s.routablePools).toBeGreaterThan(10);
    expect(s.pools).toBeGreaterThan(s.routablePools);
  });

  // (a snapshot is taken between two batches; the reference settles at the same points: where
  // pools leave and re-enter the graph, the projection's order depends on where it settles)
  it.each([1, 3, 10, Math.floor((records.length - 40) / BATCH)])('a snapshot after %i batches, restored and followed by the tail, gives the same state and quotes bit for bit', (batches) => {
    const at = batches * BATCH;
    const head = new Projection();
    applyAll(head, records.slice(0, at), BATCH);
    const payload = Buffer.concat(encodeAll(captureImage(head)));
    const restored = new Projection();
    restoreImage(restored, decodeImage(payload));
    applyAll(restored, records.slice(at), BATCH);
    expect(fingerprint(restored)).toEqual(expected);
  });

  it('an image whose pools its accounts do not build is rejected', () => {
    const head = new Projection();
    applyAll(head, records.slice(0, 600), 100);
    const image = captureImage(head);
    const routable = image.adjacency[0][1][0];
    image.adjacency[0][1].push(routable);
    expect(() => restoreImage(new Projection(), image)).toThrow(/listed under mint|not routable/);
  });

  describe('on disk', () => {
    let dir: string;
    const warnings: string[] = [];
    const logger = { log: () => undefined, warn: (m: string) => warnings.push(m) };
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'snapshots-'));
      warnings.length = 0;
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    async function writeAt(s: ProjectionSnapshots, at: number): Promise<string> {
      const p = new Projection();
      applyAll(p, records.slice(0, at), BATCH);
      const stats = await s.write(p);
      expect(stats).not.toBeNull();
      expect(stats!.positions).toEqual({ '0': String(at) });
      return stats!.file;
    }

    it('starts from the newest valid snapshot; corrupt, truncated, unknown-version and foreign files are skipped with a line saying why', async () => {
      const s = new ProjectionSnapshots({ dir, every: 0, intervalMs: 0, keep: 10 }, 'pool-updates', logger);
      const oldest = await writeAt(s, 3 * BATCH);
      const truncated = await writeAt(s, 6 * BATCH);
      const corrupt = await writeAt(s, 9 * BATCH);
      fs.truncateSync(truncated, fs.statSync(truncated).size - 100);
      const bytes = fs.readFileSync(corrupt);
      bytes[bytes.length >> 1] ^= 0xff;
      fs.writeFileSync(corrupt, bytes);
      await new SnapshotFiles(dir, 'pool-updates').write({ format: SNAPSHOT_FORMAT, version: 99, positions: { '0': '1000' }, meta: {} }, 3, [Buffer.from('new')]);
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a snapshot');

      const p = new Projection();
      const header = await s.restoreNewest(p);
      expect(header?.positions).toEqual({ '0': String(3 * BATCH) });
      expect(path.basename(s.files.list().at(-1)!.file)).toBe(path.basename(oldest));
      expect(warnings.join('\n')).toMatch(/schema version 99 is newer than this reader's \(1\)/);
      expect(warnings.join('\n')).toMatch(/checksum mismatch/);
      expect(warnings.join('\n')).toMatch(/truncated/);
      expect(warnings.join('\n')).toMatch(/ignoring notes\.txt/);
      applyAll(p, records.slice(3 * BATCH), BATCH);
      expect(fingerprint(p)).toEqual(expected);
    });

    it('with no usable snapshot the projection stays empty (the caller replays the log from its start)', async () => {
      const s = new ProjectionSnapshots({ dir, every: 0, intervalMs: 0, keep: 10 }, 'pool-updates', logger);
      const file = await writeAt(s, 300);
      fs.writeFileSync(file, fs.readFileSync(file).subarray(0, 40));
      const p = new Projection();
      expect(await s.restoreNewest(p)).toBeNull();
      expect(p.stats.accounts).toBe(0);
      expect(warnings.join('\n')).toMatch(/truncated/);
    });

    it('falls due every N records or after the interval, one write at a time, and keeps the newest K', async () => {
      let now = 0;
      const s = new ProjectionSnapshots({ dir, every: 400, intervalMs: 60_000, keep: 2 }, 'pool-updates', logger, () => now);
      const p = new Projection();
      const feed = async (from: number, to: number): Promise<void> => {
        p.applyBatch(records.slice(from, to));
        p.drainChanged();
        s.afterBatch(p, to - from);
        await s.idle();
      };
      await feed(0, 300);
      expect(s.files.list()).toHaveLength(0);
      await feed(300, 600); // 600 records since the start: due by count
      expect(s.files.list()).toHaveLength(1);
      await feed(600, 700);
      expect(s.files.list()).toHaveLength(1);
      now = 60_000; // due by time
      await feed(700, 710);
      await feed(710, 1_150);
      expect(s.files.list().map((e) => e.total)).toEqual([1150n, 710n]);
      expect(s.lastWrite!.captureMs).toBeGreaterThan(0);
    });
  });
});
