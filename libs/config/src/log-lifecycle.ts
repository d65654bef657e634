/**
 * The settings of the log's life cycle: projection snapshots (SNAPSHOT_*), retention per topic
 * (LOG_RETENTION_*) and the router's health bound on projection lag (HEALTH_MAX_LAG_RECORDS).
 * Read by loadConfig (config.ts); the README's configuration table lists them.
 */
import type { TopicName } from '@app/contracts';

type Env = Record<string, string | undefined>;

/** a duration setting is invalid: the message names the variable */
export class DurationError extends Error {}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `7d`, `15m`, `36h`, `500ms`, `2w` → milliseconds; `forever` → null (never deleted) */
export function parseDuration(name: string, raw: string): number | null {
  const text = raw.trim();
  if (text === 'forever') return null;
  const m = /^(\d+)(ms|s|m|h|d|w)$/.exec(text);
  const ms = m ? Number(m[1]) * UNIT_MS[m[2]] : NaN;
  if (!(ms >= 1_000 && Number.isSafeInteger(ms))) {
    throw new DurationError(`${name} must be a duration of at least 1s such as 15m, 36h, 7d or 2w (units ms, s, m, h, d, w), or forever; got ${JSON.stringify(raw)}`);
  }
  return ms;
}

/** retention per topic, ms (null: kept forever) */
export type LogRetention = Record<TopicName, number | null>;

/** the variable and the default of each topic's retention (see the README for why) */
export const RETENTION_SETTINGS: ReadonlyArray<{ topic: TopicName; variable: string; def: string }> = [
  { topic: 'pool-updates', variable: 'LOG_RETENTION_POOL_UPDATES', def: '2d' },
  { topic: 'quote-interest', variable: 'LOG_RETENTION_QUOTE_INTEREST', def: '15m' },
  { topic: 'quotes-changed', variable: 'LOG_RETENTION_QUOTES_CHANGED', def: '1h' },
  { topic: 'quotes-served', variable: 'LOG_RETENTION_QUOTES_SERVED', def: '14d' },
];

export interface LogLifecycleSettings {
  /** SNAPSHOT_DIR: where the router's projection snapshots live; null: <DATA_DIR>/snapshots */
  snapshotDir: string | null;
  /** SNAPSHOT_EVERY: records applied between two snapshots (0: no count trigger) */
  snapshotEvery: number;
  /** SNAPSHOT_INTERVAL_MS: ms between two snapshots (0: no time trigger; both 0: no snapshots) */
  snapshotIntervalMs: number;
  /** SNAPSHOT_KEEP: snapshots kept, newest first */
  snapshotKeep: number;
  logRetention: LogRetention;
  /** HEALTH_MAX_LAG_RECORDS: a router whose projection is more records behind the log's end is not healthy */
  healthMaxLagRecords: number;
}

function count(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return def;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) throw new DurationError(`${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(env[name])}`);
  return n;
}

export function logLifecycleSettings(env: Env): LogLifecycleSettings {
  const logRetention = {} as LogRetention;
  for (const { topic, variable, def } of RETENTION_SETTINGS) {
    const raw = env[variable];
    logRetention[topic] = parseDuration(variable, raw === undefined || raw.trim() === '' ? def : raw);
  }
  const dir = env.SNAPSHOT_DIR?.trim();
  return {
    snapshotDir: dir ? dir : null,
    snapshotEvery: count(env, 'SNAPSHOT_EVERY', 50_000, 0, 1_000_000_000),
    snapshotIntervalMs: count(env, 'SNAPSHOT_INTERVAL_MS', 300_000, 0, 86_400_000),
    snapshotKeep: count(env, 'SNAPSHOT_KEEP', 3, 1, 100),
    logRetention,
    healthMaxLagRecords: count(env, 'HEALTH_MAX_LAG_RECORDS', 20_000, 1, 1_000_000_000),
  };
}
