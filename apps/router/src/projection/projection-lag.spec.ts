import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SimMarket } from '@app/sim';
import { encodePoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { Projection } from '@app/pools';
import { ProjectionLag } from './projection-lag';

describe('ProjectionLag', () => {
  let dir: string;
  let log: EmbeddedLog;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'projection-lag-'));
    log = new EmbeddedLog({ dataDir: dir });
    await log.ensureTopic(TOPICS.poolUpdates);
  });

  afterEach(async () => {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports the records and slots the projection is behind the log, and none once it has applied them', async () => {
    const market = new SimMarket({ seed: 2, pools: 12, tokens: 6, swapsPerSlot: 2 });
    const updates = [...market.genesis(), ...market.step(), ...market.step(), ...market.step()];
    await log.append(TOPICS.poolUpdates, updates.map((u) => ({ key: u.address, value: encodePoolUpdate(u) })));
    const projection = new Projection();
    const lag = new ProjectionLag(log, projection);
    const before = await lag.read(0);
    expect(before).toMatchObject({ records: updates.length, slot: projection.slot, logSlot: market.slot, slots: market.slot - projection.slot });
    expect(before.slots).toBeGreaterThan(0);
    const records = await log.read(TOPICS.poolUpdates, 'beginning', updates.length);
    for (const r of records) projection.apply(r);
    lag.saw(records);
    // a reading is reused for a second; a later one sees the projection caught up
    expect(await lag.read(500)).toBe(await lag.read(0));
    const after = await lag.read(2_000 + records[records.length - 1].timestamp);
    expect(after).toMatchObject({ records: 0, slots: 0, slot: market.slot, logSlot: market.slot });
    expect(after.newestRecordAgeSeconds).toBeCloseTo(2, 1);
  });

  it('an empty log: nothing behind, no record age', async () => {
    const lag = new ProjectionLag(log, new Projection());
    expect(await lag.read()).toEqual({ records: 0, slots: 0, slot: new Projection().slot, logSlot: new Projection().slot, newestRecordAgeSeconds: null });
  });
});
