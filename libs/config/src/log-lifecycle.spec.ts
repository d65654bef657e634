import { ConfigError, loadConfig } from './config';
import { parseDuration } from './log-lifecycle';

describe('log life-cycle settings', () => {
  it('durations: ms, s, m, h, d, w; forever is null', () => {
    expect(parseDuration('X', '15m')).toBe(900_000);
    expect(parseDuration('X', '7d')).toBe(604_800_000);
    expect(parseDuration('X', '2w')).toBe(1_209_600_000);
    expect(parseDuration('X', '1500ms')).toBe(1_500);
    expect(parseDuration('X', 'forever')).toBeNull();
  });

  it('defaults: days for pool updates, minutes for interest, weeks for the audit trail', () => {
    const c = loadConfig({});
    expect(c.logRetention).toEqual({ 'pool-updates': 172_800_000, 'quote-interest': 900_000, 'quotes-changed': 3_600_000, 'quotes-served': 1_209_600_000 });
    expect(c).toMatchObject({ snapshotEvery: 50_000, snapshotIntervalMs: 300_000, snapshotKeep: 3, snapshotDir: null, healthMaxLagRecords: 20_000 });
  });

  it.each([
    ['LOG_RETENTION_POOL_UPDATES', '7 days'],
    ['LOG_RETENTION_QUOTE_INTEREST', '15'],
    ['LOG_RETENTION_QUOTES_SERVED', '-1d'],
    ['LOG_RETENTION_QUOTES_CHANGED', '10ms'],
    ['SNAPSHOT_EVERY', 'often'],
    ['SNAPSHOT_KEEP', '0'],
    ['HEALTH_MAX_LAG_RECORDS', '0'],
  ])('%s=%s stops the start with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name} must be`));
  });
});
