/**
 * Query parameters of GET /api/v1/markets and GET /api/v1/tokens (filters and pages), and the
 * listing itself: plain functions over the projection's lists. The same classes validate and
 * document; an invalid parameter is 400 `invalid <name>`, an unknown one `unknown parameter <name>`.
 */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { dexProgramId } from '../quote/route-controls';
import { PublicKeyConstraint } from '../swap/swap-body.dto';
import type { MarketInfo, TokenInfo } from '@app/pools';

export const MAX_PAGE = 1000;

@ValidatorConstraint({ name: 'program' })
class ProgramConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && dexProgramId(value) !== undefined;
  }
}

/** a non-negative integer query value as a number (NaN for anything else, which the validators refuse) */
const integer = ({ value }: { value: unknown }): unknown => (value === undefined ? undefined : typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : NaN);

class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: MAX_PAGE, description: 'entries per page' })
  @IsOptional()
  @Transform(integer)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: 'entries of the filtered list to skip (the previous answer\'s nextOffset)' })
  @IsOptional()
  @Transform(integer)
  @IsInt()
  @Min(0)
  offset?: number;
}

export class MarketsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'only pools trading this mint (either side)' })
  @IsOptional()
  @Validate(PublicKeyConstraint)
  mint?: string;

  @ApiPropertyOptional({ description: 'only pools of this program: its poolType label (any case, see /api/v1/dexes) or program id' })
  @IsOptional()
  @Validate(ProgramConstraint)
  program?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'only routable pools (true) or only unroutable ones (false)' })
  @IsOptional()
  @IsIn(['true', 'false'])
  routable?: 'true' | 'false';
}

export class TokensQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'only this mint' })
  @IsOptional()
  @Validate(PublicKeyConstraint)
  mint?: string;

  @ApiPropertyOptional({ description: 'only tokens with this symbol (case-insensitive, exact), as their on-chain metadata names it', example: 'USDC' })
  @IsOptional()
  @Matches(/^[^\u0000-\u001f]{1,32}$/u)
  symbol?: string;
}

/** the filter of a tokens query: the mint, and the symbol without regard to case */
export function tokenFilter(q: TokensQueryDto): (t: TokenInfo) => boolean {
  const symbol = q.symbol?.toLowerCase();
  return (t) => (q.mint === undefined || t.mint === q.mint) && (symbol === undefined || t.symbol?.toLowerCase() === symbol);
}

export const MARKETS_PARAM_ORDER = ['mint', 'program', 'routable', 'limit', 'offset'] as const;
export const TOKENS_PARAM_ORDER = ['mint', 'symbol', 'limit', 'offset'] as const;

export interface Page<T> {
  items: T[];
  /** entries of the filtered list */
  total: number;
  /** the offset of the next page; null on the last */
  nextOffset: number | null;
}

/** one page of a filtered list */
export function pageOf<T>(all: readonly T[], keep: (t: T) => boolean, q: { limit?: number; offset?: number }): Page<T> {
  const filtered = all.filter(keep);
  const offset = q.offset ?? 0;
  const limit = q.limit ?? MAX_PAGE;
  const items = filtered.slice(offset, offset + limit);
  return { items, total: filtered.length, nextOffset: offset + limit < filtered.length ? offset + limit : null };
}

/** the markets filter of a query */
export function marketFilter(q: MarketsQueryDto): (m: MarketInfo) => boolean {
  const program = q.program === undefined ? undefined : dexProgramId(q.program);
  const routable = q.routable === undefined ? undefined : q.routable === 'true';
  return (m) => (q.mint === undefined || m.mintA === q.mint || m.mintB === q.mint) && (program === undefined || m.programId === program) && (routable === undefined || m.routable === routable);
}
