import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ProjectionService } from '../projection/projection.service';
import { DEXES } from '../quote/route-controls';
import { ApiErrorTexts } from './api-errors';
import { DexesEnvelopeDto } from './response.dto';

export interface DexInfo {
  /** the label a route's poolType shows; `dexes` / `excludeDexes` take it (any case) or the program id */
  label: string;
  programId: string;
  /** routable pools of the program in the projection now */
  pools: number;
}

/** GET /api/v1/dexes: the programs the route controls `dexes` / `excludeDexes` name */
@ApiTags('markets')
@Controller('api/v1')
export class DexesController {
  constructor(private readonly projections: ProjectionService) {}

  @Get('dexes')
  @ApiOperation({ summary: 'The programs routes go through, by poolType label and program id (what dexes / excludeDexes take), with their routable pools' })
  @ApiOkResponse({ type: DexesEnvelopeDto })
  @ApiErrorTexts({})
  dexes(): { success: true; data: { dexes: DexInfo[] } } {
    const counts = new Map<string, number>();
    for (const m of this.projections.projection.markets()) if (m.routable) counts.set(m.programId, (counts.get(m.programId) ?? 0) + 1);
    return { success: true, data: { dexes: DEXES.map((d) => ({ label: d.label, programId: d.programId, pools: counts.get(d.programId) ?? 0 })) } };
  }
}
