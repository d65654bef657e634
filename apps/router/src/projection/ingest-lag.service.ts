/**
 * The ingest lag as a router sees it, for /health: the last `ingest-status` heartbeat a chain
 * source (INGEST_SOURCE=rpc, geyser) wrote to the log says how far the chain is ahead of what
 * reached `pool-updates`. Unhealthy past MAX_INGEST_LAG_SLOTS, or when the heartbeats stopped
 * (none for HEARTBEAT_SILENCE_MS after there were some). A log without heartbeats (the simulated
 * market, a recording) has no ingest lag to check. Works the same in one process and split:
 * the heartbeat travels through the log like everything else.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { APP_CONFIG } from '@app/config';
import { decodeIngestStatus, ingestLag, type IngestStatus } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { LOG_PORT, type LogPort, type Positions } from '@app/log';
import type { ProjectionHealth } from './projection.service';

/** heartbeats come about once a second: this long without one means the source stopped */
export const HEARTBEAT_SILENCE_MS = 30_000;

@Injectable()
export class IngestLagService {
  constructor(
    @Inject(LOG_PORT) private readonly log: LogPort,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** the newest heartbeat on the log (null: none, or the topic does not exist) */
  async latest(): Promise<IngestStatus | null> {
    let end: Positions;
    try {
      end = await this.log.endPositions(TOPICS.ingestStatus);
    } catch {
      return null;
    }
    let best: IngestStatus | null = null;
    for (const [partition, offset] of Object.entries(end)) {
      const o = BigInt(offset);
      if (o === 0n) continue;
      // the other partitions are read from their end: nothing
      const records = await this.log.read(TOPICS.ingestStatus, { ...end, [partition]: String(o - 1n) }, 1).catch(() => []);
      for (const r of records) {
        try {
          const s = decodeIngestStatus(r.value);
          if (best === null || s.at > best.at) best = s;
        } catch {
          // a heartbeat that does not decode says nothing about the lag
        }
      }
    }
    return best;
  }

  async health(now = Date.now()): Promise<ProjectionHealth> {
    const s = await this.latest();
    if (s === null) return { ok: true };
    const lag = ingestLag(s);
    const max = this.config.maxIngestLagSlots;
    if (lag > max) return { ok: false, reason: `ingest lag ${lag} slots (chain ${s.chainSlot}, ingested ${s.ingestedSlot}, source ${s.source}) exceeds MAX_INGEST_LAG_SLOTS=${max}` };
    if (now - s.at > HEARTBEAT_SILENCE_MS) return { ok: false, reason: `no ingest-status heartbeat from the ${s.source} source for ${Math.round((now - s.at) / 1000)} s` };
    return { ok: true };
  }
}
