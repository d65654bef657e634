import { AUTO_WORKER_CPUS, workersFor } from './interest-host';

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
