import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ProjectionService } from '../projection/projection.service';
import { HealthDto } from './response.dto';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(private readonly projections: ProjectionService) {}

  @Get('health')
  @ApiOperation({ summary: '200 {status:"ok"} while the log is reachable and the projection is caught up and progressing; 503 otherwise' })
  @ApiOkResponse({ type: HealthDto })
  @ApiServiceUnavailableResponse({ type: HealthDto })
  async health(@Res() res: Response): Promise<void> {
    const h = await this.projections.health();
    if (h.ok) res.status(200).json({ status: 'ok' });
    else res.status(503).json({ status: 'unavailable', reason: h.reason });
  }
}
