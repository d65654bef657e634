import { Worker } from 'worker_threads';
import { Logger } from '@nestjs/common';
import { loadConfig } from '@app/config';
import type { LogPort } from '@app/log';
import type { ProjectionService } from '../projection/projection.service';
import { AUTO_WORKER_CPUS, InterestHost, WORKER_RESTART_MS, workersFor } from './interest-host';

describe('INTEREST_WORKERS', () => {
  it('auto: one worker from AUTO_WORKER_CPUS cores up, the main thread below', () => {
    expect(AUTO_WORKER_CPUS).toBe(4);
    expect(workersFor('auto', 1)).toBe(0);
    expect(workersFor('auto', 2)).toBe(0);
    expect(workersFor('auto', 3)).toBe(0);
    expect(workersFor('auto', 4)).toBe(1);
    expect(workersFor('auto', 64)).toBe(1);
  });

  it('a count is taken as it is, whatever the cores', () => {
    expect(workersFor(0, 64)).toBe(0);
    expect(workersFor(2, 2)).toBe(2);
  });
});

describe('InterestHost restarts a worker that dies', () => {
  /** workers that post `ready` and die after 50 ms, then fail before ready twice, then stay up */
  class FlakyHost extends InterestHost {
    readonly spawned: number[] = [];
    protected override spawn(): Worker {
      this.spawned.push(Date.now());
      const n = this.spawned.length;
      const script =
        n === 1
          ? "require('worker_threads').parentPort.postMessage({ type: 'ready' }); setTimeout(() => process.exit(1), 50);"
          : n <= 3
            ? 'process.exit(2);'
            : "const { parentPort } = require('worker_threads'); parentPort.postMessage({ type: 'ready' }); parentPort.on('message', (m) => { if (m.type === 'close') parentPort.close(); });";
      return new Worker(script, { eval: true });
    }
  }

  it('after WORKER_RESTART_MS, then twice as long each time while the new one fails before it is ready', async () => {
    const log = { ensureTopic: async () => undefined } as unknown as LogPort;
    const host = new FlakyHost(log, {} as ProjectionService, { ...loadConfig({}), interestWorkers: 1 });
    Logger.overrideLogger(false);
    try {
      await host.onModuleInit();
      for (let i = 0; i < 200 && host.spawned.length < 4; i++) await new Promise((r) => setTimeout(r, 50));
      expect(host.spawned).toHaveLength(4);
      const gaps = host.spawned.slice(1).map((t, i) => t - host.spawned[i]);
      // the first worker lived 50 ms; then 1 s, 2 s, 4 s
      expect(gaps[0]).toBeGreaterThanOrEqual(WORKER_RESTART_MS);
      expect(gaps[1]).toBeGreaterThanOrEqual(2 * WORKER_RESTART_MS);
      expect(gaps[2]).toBeGreaterThanOrEqual(4 * WORKER_RESTART_MS);
      expect(gaps[2]).toBeLessThan(8 * WORKER_RESTART_MS);
      // the fourth stays up: no fifth
      await new Promise((r) => setTimeout(r, 2.5 * WORKER_RESTART_MS));
      expect(host.spawned).toHaveLength(4);
    } finally {
      await host.onModuleDestroy();
      Logger.overrideLogger(['log', 'error', 'warn', 'debug', 'verbose', 'fatal']);
    }
  }, 30_000);
});
