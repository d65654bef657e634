import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { IngestLagService } from '../projection/ingest-lag.service';
import { ProjectionService } from '../projection/projection.service';
import { HealthDto, ReadinessDto } from './response.dto';

/**
 * /health (API.md §4.6: liveness as the specification says) and /ready (readiness for an
 * orchestrator or a load balancer: the projection's lag behind the log and the ingest's
 * freshness, 503 while catching up).
 */
@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly projections: ProjectionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ingestLag: IngestLagService,
  ) {}

  @Get('health')
  @ApiOperation({ summary: '200 {status:"ok"} while the log is reachable and the projection is caught up and progressing, and the ingest lag of a chain source is within MAX_INGEST_LAG_SLOTS; 503 otherwise' })
  @ApiOkResponse({ type: HealthDto })
  @ApiServiceUnavailableResponse({ type: HealthDto })
  async health(@Res() res: Response): Promise<void> {
    let h = await this.projections.health();
    if (h.ok) h = await this.ingestLag.health();
    if (h.ok) res.status(200).json({ status: 'ok' });
    else res.status(503).json({ status: 'unavailable', reason: h.reason });
  }

  @Get('ready')
  @ApiOperation({
    summary:
      'Readiness: 200 {status:"ready"} once the projection has caught up with the log and stays within READY_MAX_LAG_SLOTS slots of its end; ' +
      '503 {status:"catching up"} while behind, {status:"unavailable"} when unhealthy (as /health, the ingest lag of a chain source included). ' +
      "Reports the projection's lag in records and slots, the age of the newest ingested record and a chain source's ingest lag in slots.",
  })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ type: ReadinessDto })
  async ready(@Res() res: Response): Promise<void> {
    let h = await this.projections.health();
    if (h.ok) h = await this.ingestLag.health();
    const lag = await this.projections.lag.read().catch(() => null);
    const beat = await this.ingestLag.latest().catch(() => null);
    const projection = lag === null ? null : { lagRecords: lag.records, lagSlots: lag.slots, slot: lag.slot, logSlot: lag.logSlot };
    const ingest =
      lag === null
        ? null
        : {
            newestRecordAgeSeconds: lag.newestRecordAgeSeconds === null ? null : Math.round(lag.newestRecordAgeSeconds * 10) / 10,
            // a chain source's last heartbeat (none for the simulated market or a recording)
            source: beat?.source ?? null,
            chainSlot: beat?.chainSlot ?? null,
            lagSlots: beat === null ? null : Math.max(0, beat.chainSlot - beat.ingestedSlot),
          };
    if (!h.ok && this.projections.isReady) res.status(503).json({ status: 'unavailable', reason: h.reason, projection, ingest });
    else if (!this.projections.isReady || lag === null || lag.slots > this.config.readyMaxLagSlots) {
      res.status(503).json({ status: 'catching up', reason: h.reason ?? `projection ${lag?.slots ?? '?'} slots behind the log (at most ${this.config.readyMaxLagSlots})`, projection, ingest });
    } else res.status(200).json({ status: 'ready', projection, ingest });
  }
}
