import 'reflect-metadata';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Test } from '@nestjs/testing';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { LOG_PORT, type LogPort } from '@app/log';
import { IngestorModule } from './ingestor.module';
import { IngestorService } from './ingestor.service';

describe('IngestorModule', () => {
  const saved = { ...process.env };
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingestor-nest-'));
    Object.assign(process.env, {
      DATA_DIR: dir,
      LOG_DRIVER: 'embedded',
      INGEST_SOURCE: 'sim',
      SIM_SEED: '11',
      SIM_POOLS: '20',
      SIM_TOKENS: '10',
      SIM_SLOT_MS: '1',
      SIM_MAX_SLOTS: '5',
    });
  });
  afterEach(() => {
    process.env = { ...saved };
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts the configured source on bootstrap, exposes counters, stops before the log closes', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [IngestorModule] }).compile();
    moduleRef.useLogger(false);
    await moduleRef.init();
    const service = moduleRef.get(IngestorService);
    const log = moduleRef.get<LogPort>(LOG_PORT);
    expect(log.driver).toBe('embedded');
    await service.finished;
    const stats = service.stats();
    expect(stats).toMatchObject({ source: 'sim', finished: true, slots: 6, linesRejected: 0 });
    expect(stats.recordsAppended).toBeGreaterThan(60);
    await moduleRef.close();
    const reopened = new EmbeddedLog({ dataDir: dir });
    expect((await reopened.endPositions('pool-updates'))['0']).toBe(String(stats.recordsAppended));
    await reopened.close();
  });

  it('fails the bootstrap when the log holds another market', async () => {
    const first = await Test.createTestingModule({ imports: [IngestorModule] }).compile();
    first.useLogger(false);
    await first.init();
    await first.get(IngestorService).finished;
    await first.close();
    process.env.SIM_SEED = '12';
    const second = await Test.createTestingModule({ imports: [IngestorModule] }).compile();
    second.useLogger(false);
    await expect(second.init()).rejects.toThrow(/another DATA_DIR/);
    // close() re-raises the failed initialisation; the log must still be closed
    await second.close().catch(() => undefined);
    await second.get<LogPort>(LOG_PORT).close();
  });
});
