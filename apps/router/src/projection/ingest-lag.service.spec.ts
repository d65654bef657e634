import { encodeIngestStatus } from '@app/contracts';
import { loadConfig } from '@app/config';
import type { LogPort, LogRecord } from '@app/log';
import { HEARTBEAT_SILENCE_MS, IngestLagService } from './ingest-lag.service';

/** a log holding these ingest-status records in one partition (or no such topic) */
function logWith(values: Buffer[] | null): LogPort {
  return {
    endPositions: async () => {
      if (values === null) throw new Error('unknown topic');
      return { '0': String(values.length) };
    },
    read: async (_t: string, from: Record<string, string>): Promise<LogRecord[]> => {
      const i = Number(from['0']);
      return values!.slice(i, i + 1).map((value, k) => ({ topic: 'ingest-status', partition: 0, offset: String(i + k), key: 'rpc', value, timestamp: 0 }) as unknown as LogRecord);
    },
  } as unknown as LogPort;
}

describe('IngestLagService', () => {
  const config = loadConfig({ MAX_INGEST_LAG_SLOTS: '10' });
  const beat = (chainSlot: number, ingestedSlot: number, at: number): Buffer => encodeIngestStatus({ source: 'rpc', chainSlot, ingestedSlot, at });
  const now = 1_000_000_000;

  it('healthy without heartbeats (sim, file) and within the lag', async () => {
    expect(await new IngestLagService(logWith(null), config).health(now)).toEqual({ ok: true });
    expect(await new IngestLagService(logWith([]), config).health(now)).toEqual({ ok: true });
    expect(await new IngestLagService(logWith([beat(100, 0, now), beat(100, 90, now)]), config).health(now)).toEqual({ ok: true });
  });

  it('unhealthy past MAX_INGEST_LAG_SLOTS, or when the heartbeats stopped', async () => {
    const lagging = await new IngestLagService(logWith([beat(100, 89, now)]), config).health(now);
    expect(lagging).toEqual({ ok: false, reason: 'ingest lag 11 slots (chain 100, ingested 89, source rpc) exceeds MAX_INGEST_LAG_SLOTS=10' });
    const silent = await new IngestLagService(logWith([beat(100, 100, now - HEARTBEAT_SILENCE_MS - 1000)]), config).health(now);
    expect(silent.ok).toBe(false);
    expect(silent.reason).toMatch(/no ingest-status heartbeat from the rpc source for 31 s/);
  });

  it('a heartbeat that does not decode is ignored', async () => {
    expect(await new IngestLagService(logWith([Buffer.from('{nope')]), config).health(now)).toEqual({ ok: true });
  });
});
