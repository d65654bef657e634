/**
 * The route controls a quote, swap or instructions request may carry (query parameters of
 * GET /quote, fields of the POST bodies): validated and documented here, turned into the
 * search's hop limit and pool filter by quote/route-controls.ts.
 */
import { HttpStatus } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Max, Min, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { ApiError } from './api-error';
import { DEXES, parseDexList, type RouteControls } from '../quote/route-controls';

@ValidatorConstraint({ name: 'dexList' })
class DexListConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return parseDexList(value) !== null;
  }
}

/** a JSON boolean, or the query strings `true` / `false`; anything else stays as is (and fails IsBoolean) */
export function toBoolean({ value }: { value: unknown }): unknown {
  return value === 'true' ? true : value === 'false' ? false : value;
}

/** a JSON integer, or a query string of digits; anything else becomes NaN (and fails IsInt) */
export function toInteger({ value }: { value: unknown }): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return value;
  return typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : NaN;
}

const DEX_NAMES = DEXES.map((d) => `"${d.label}"`).join(', ');

/** the largest integrator fee a request may ask (10%, as FEE_BPS) */
export const MAX_PLATFORM_FEE_BPS = 1000;

/** the accounts a route's transaction may reference at most can be asked down to this */
export const MIN_MAX_ACCOUNTS = 1;

export class RouteControlsDto {
  @ApiPropertyOptional({
    description: `only these programs: their poolType labels (${DEX_NAMES}; any case) or program ids, comma-separated (a JSON array of them in a body); GET /api/v1/dexes lists them`,
    example: 'Raydium CPMM,Orca Whirlpool',
  })
  @IsOptional()
  @Validate(DexListConstraint)
  dexes?: string | string[];

  @ApiPropertyOptional({ description: 'never these programs (labels or program ids, as `dexes`)', example: 'pump.fun' })
  @IsOptional()
  @Validate(DexListConstraint)
  excludeDexes?: string | string[];

  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'true: one hop only (parallel pools of the pair may still share the amount)' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  onlyDirectRoutes?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 5, description: 'longest route, in hops: 1 to the configured MAX_HOPS (default MAX_HOPS)' })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(5)
  maxHops?: number;

  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description: 'true: intermediate tokens only from the configured liquid set (INTERMEDIATE_TOKENS; default SOL, USDC, USDT)',
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  restrictIntermediateTokens?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_MAX_ACCOUNTS,
    maximum: 64,
    description: 'the route\'s transaction references at most this many distinct accounts (fee payer, programs, lookup-table entries included); no such route: 404 "no route within maxAccounts"',
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(MIN_MAX_ACCOUNTS)
  @Max(64)
  maxAccounts?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_PLATFORM_FEE_BPS,
    description:
      "an integrator's fee in basis points, on top of the service's own (FEE_BPS): taken from the output (ExactIn) or added to the input (ExactOut), on every route, " +
      'included in feeAmount and reported as platformFee; /swap and /instructions transfer it to feeAccount',
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(MAX_PLATFORM_FEE_BPS)
  platformFeeBps?: number;
}

/** the order the controls' errors are checked in, after a request's own fields */
export const ROUTE_CONTROL_ORDER = ['dexes', 'excludeDexes', 'onlyDirectRoutes', 'maxHops', 'restrictIntermediateTokens', 'maxAccounts', 'platformFeeBps'] as const;

/** the validated controls as RouteControls; maxHops above the configured limit: 400 `invalid maxHops` */
export function routeControlsOf(dto: RouteControlsDto, configMaxHops: number): RouteControls {
  if (dto.maxHops !== undefined && dto.maxHops > configMaxHops) throw new ApiError(HttpStatus.BAD_REQUEST, 'invalid maxHops');
  const c: RouteControls = {};
  if (dto.dexes !== undefined) c.dexes = parseDexList(dto.dexes)!;
  if (dto.excludeDexes !== undefined) c.excludeDexes = parseDexList(dto.excludeDexes)!;
  if (dto.onlyDirectRoutes !== undefined) c.onlyDirectRoutes = dto.onlyDirectRoutes;
  if (dto.maxHops !== undefined) c.maxHops = dto.maxHops;
  if (dto.restrictIntermediateTokens !== undefined) c.restrictIntermediateTokens = dto.restrictIntermediateTokens;
  if (dto.maxAccounts !== undefined) c.maxAccounts = dto.maxAccounts;
  if (dto.platformFeeBps !== undefined && dto.platformFeeBps > 0) c.platformFeeBps = dto.platformFeeBps;
  return c;
}
