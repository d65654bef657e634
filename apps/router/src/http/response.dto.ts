/** Response shapes for the OpenAPI document (documentation only; the services return plain objects). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class RouteInfoDto {
  @ApiProperty() poolAddress!: string;
  @ApiProperty({ description: 'liquidity pool type label, e.g. "Raydium CPMM"' }) poolType!: string;
  @ApiProperty({ type: 'integer', example: 100 }) percent!: number;
  @ApiProperty() inputMint!: string;
  @ApiProperty() outputMint!: string;
}

export class PlatformFeeDto {
  @ApiProperty({ description: 'the integrator fee, smallest units of the fee\'s mint (ExactIn: the output mint; ExactOut: the input mint)' }) amount!: string;
  @ApiProperty({ type: 'integer', description: 'the request\'s platformFeeBps' }) feeBps!: number;
}

export class QuoteResponseDto {
  @ApiProperty() inputMint!: string;
  @ApiProperty() outputMint!: string;
  @ApiProperty({ description: 'input amount, smallest units' }) amountIn!: string;
  @ApiProperty({ description: 'output amount, smallest units' }) amountOut!: string;
  @ApiProperty({
    type: 'integer',
    description:
      'price impact in bps: 1 − (amountOut/amountIn) / (Π spot prices × Π (1 − fee)), spot = marginal pre-fee price of each hop; rounded to whole bps',
  })
  priceImpactBps!: number;
  @ApiProperty({ example: '0.12' }) priceImpactPercent!: string;
  @ApiProperty({ enum: ['none', 'low', 'moderate', 'high', 'extreme'], description: 'none <10 bps, low <100, moderate <300, high ≤500, extreme >500' })
  priceImpactSeverity!: string;
  @ApiPropertyOptional({ description: 'empty when the impact is negligible (severity none)' }) priceImpactWarning!: string;
  @ApiProperty({ type: 'integer', description: 'sum of the pool fees over the hops, bps' }) feeBps!: number;
  @ApiProperty({ type: [RouteInfoDto] }) routes!: RouteInfoDto[];
  @ApiProperty({ type: [String] }) routePath!: string[];
  @ApiProperty({ type: 'integer' }) hopCount!: number;
  @ApiProperty({ description: 'ExactIn: floor(amountOut × (10000 − slippageBps) / 10000); ExactOut: ceil(amountIn × (10000 + slippageBps) / 10000)' })
  otherAmountThreshold!: string;
  @ApiPropertyOptional({ type: PlatformFeeDto, description: 'only with platformFeeBps: the integrator fee amountIn / amountOut include' }) platformFee?: PlatformFeeDto;
  @ApiProperty({ type: 'integer', description: 'provenance: highest slot of the state the quote was computed from' }) contextSlot!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'provenance: offset of the last applied pool-updates record per partition',
  })
  logPosition!: Record<string, string>;
}

export class QuoteEnvelopeDto {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ type: QuoteResponseDto }) data!: QuoteResponseDto;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ example: false }) success!: boolean;
  @ApiProperty({ example: 'invalid inputMint' }) error!: string;
}

export class TokenDto {
  @ApiProperty() mint!: string;
  @ApiProperty({ type: 'integer', nullable: true }) decimals!: number | null;
  @ApiProperty({ type: 'integer', description: 'routable pools trading the mint' }) pools!: number;
  @ApiProperty({ type: 'string', nullable: true, description: "the mint's Token-2022 metadata extension or Metaplex Metadata symbol; null when neither is known" }) symbol!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'the name beside that symbol' }) name!: string | null;
}

export class TokensDataDto {
  @ApiProperty({ type: [TokenDto] }) tokens!: TokenDto[];
  @ApiProperty({ type: 'integer', description: 'entries of the filtered list' }) total!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: "the next page's offset; null on the last page" }) nextOffset!: number | null;
}

export class TokensEnvelopeDto {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ type: TokensDataDto }) data!: TokensDataDto;
}

export class MarketDto {
  @ApiProperty() address!: string;
  @ApiProperty() programId!: string;
  @ApiProperty({ enum: ['concentrated-liquidity', 'constant-product', 'bonding-curve'] }) kind!: string;
  @ApiProperty() label!: string;
  @ApiProperty({ nullable: true, type: String }) mintA!: string | null;
  @ApiProperty({ nullable: true, type: String }) mintB!: string | null;
  @ApiProperty({ type: 'integer' }) lastSlot!: number;
  @ApiProperty() routable!: boolean;
  @ApiPropertyOptional({ description: 'why the pool is not routable' }) reason?: string;
}

export class MarketsDataDto {
  @ApiProperty({ type: [MarketDto] }) markets!: MarketDto[];
  @ApiProperty({ type: 'integer', description: 'entries of the filtered list' }) total!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: "the next page's offset; null on the last page" }) nextOffset!: number | null;
}

export class MarketsEnvelopeDto {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ type: MarketsDataDto }) data!: MarketsDataDto;
}

export class HealthDto {
  @ApiProperty({ enum: ['ok', 'unavailable'] }) status!: string;
  @ApiPropertyOptional() reason?: string;
}

export class ProjectionLagDto {
  @ApiProperty({ type: 'integer', description: 'pool-updates records not yet applied' }) lagRecords!: number;
  @ApiProperty({ type: 'integer', description: "the log's newest slot minus the projection's" }) lagSlots!: number;
  @ApiProperty({ type: 'integer', description: 'newest slot of the projected state' }) slot!: number;
  @ApiProperty({ type: 'integer', description: 'newest slot on the log' }) logSlot!: number;
}

export class IngestFreshnessDto {
  @ApiProperty({ type: 'number', nullable: true, description: 'seconds since the newest pool-updates record was appended (null: the log is empty)' })
  newestRecordAgeSeconds!: number | null;
  @ApiProperty({ type: String, nullable: true, description: "the chain source of the last ingest-status heartbeat (rpc, geyser); null for the simulated market or a recording" }) source!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'the chain slot that heartbeat saw' }) chainSlot!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'chain slot minus the newest slot ingested, from that heartbeat' }) lagSlots!: number | null;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ready', 'catching up', 'unavailable'] }) status!: string;
  @ApiPropertyOptional() reason?: string;
  @ApiProperty({ type: ProjectionLagDto, nullable: true }) projection!: ProjectionLagDto | null;
  @ApiProperty({ type: IngestFreshnessDto, nullable: true }) ingest!: IngestFreshnessDto | null;
}

export class DexDto {
  @ApiProperty({ description: 'poolType label of the program (what dexes / excludeDexes take, any case)' }) label!: string;
  @ApiProperty() programId!: string;
  @ApiProperty({ type: 'integer', description: 'routable pools of the program' }) pools!: number;
}

export class DexesDataDto {
  @ApiProperty({ type: [DexDto] }) dexes!: DexDto[];
}

export class DexesEnvelopeDto {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ type: DexesDataDto }) data!: DexesDataDto;
}
