/**
 * Request validation and OpenAPI shapes of the price endpoints (API.md §4.4, §4.5, PriceRecord).
 * The same classes validate (class-validator, through `createPriceValidationPipe`) and document.
 */
import { HttpStatus, ValidationPipe, type ValidationError } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Validate, ValidatorConstraint, type ValidationArguments, type ValidatorConstraintInterface } from 'class-validator';
import { isPublicKey } from '@app/solana';
import { ApiError } from '../http/api-error';

/** the most mints one GET /api/v1/price?mints= may list (API.md §8) */
export const MAX_PRICE_BATCH = 100;

/** The error texts of the price endpoints (400, envelope {success:false, error}). */
export const PRICE_ERRORS = {
  /** `mints` absent or empty */
  missingMints: `invalid mints: expected 1 to ${MAX_PRICE_BATCH} comma-separated mints`,
  /** `mints` given more than once (?mints=a&mints=b) or not as a plain string */
  repeatedMints: 'invalid mints: expected one comma-separated list (give the mints parameter once)',
  /** more than MAX_PRICE_BATCH entries (duplicates included) */
  tooMany: (n: number): string => `invalid mints: ${n} mints given, at most ${MAX_PRICE_BATCH}`,
  /** an entry (or the path parameter) that is not a base58 public key; names it, JSON-quoted */
  invalidMint: (value: string): string => `invalid mint: ${JSON.stringify(value.length > 64 ? value.slice(0, 64) + '…' : value)}`,
} as const;

/**
 * Parse the `mints` query value: split on commas (no trimming: an entry with spaces is invalid),
 * check the count (at most MAX_PRICE_BATCH entries as sent) and each entry in order, then drop
 * repeated mints (first occurrence kept).
 */
export function parseMintList(raw: unknown): { mints: string[] } | { error: string } {
  if (raw === undefined || raw === null || raw === '') return { error: PRICE_ERRORS.missingMints };
  if (typeof raw !== 'string') return { error: PRICE_ERRORS.repeatedMints };
  const entries = raw.split(',');
  if (entries.length > MAX_PRICE_BATCH) return { error: PRICE_ERRORS.tooMany(entries.length) };
  const seen = new Set<string>();
  const mints: string[] = [];
  for (const e of entries) {
    if (!isPublicKey(e)) return { error: PRICE_ERRORS.invalidMint(e) };
    if (!seen.has(e)) {
      seen.add(e);
      mints.push(e);
    }
  }
  return { mints };
}

@ValidatorConstraint({ name: 'mintList' })
class MintListConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return 'mints' in parseMintList(value);
  }
  defaultMessage(args: ValidationArguments): string {
    const r = parseMintList(args.value);
    return 'error' in r ? r.error : PRICE_ERRORS.missingMints;
  }
}

@ValidatorConstraint({ name: 'mint' })
class MintConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isPublicKey(value);
  }
  defaultMessage(args: ValidationArguments): string {
    return PRICE_ERRORS.invalidMint(typeof args.value === 'string' ? args.value : String(args.value));
  }
}

/** path parameters of GET /api/v1/price/{mint} */
export class PriceMintParamDto {
  @ApiProperty({ description: 'token mint (base58 public key)', example: 'So11111111111111111111111111111111111111112' })
  @Validate(MintConstraint)
  mint!: string;
}

/** query parameters of GET /api/v1/price?mints= */
export class PriceBatchQueryDto {
  @ApiProperty({
    description:
      `comma-separated token mints (base58 public keys), 1 to ${MAX_PRICE_BATCH} entries as sent (duplicates included); ` +
      'no spaces; a mint listed twice is answered once, in the order of first appearance',
    example: 'So11111111111111111111111111111111111111112,EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  })
  @Validate(MintListConstraint)
  mints!: string;
}

/** Validation pipe of the price endpoints: the first failed constraint's text, 400, in the envelope. */
export function createPriceValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: false,
    forbidUnknownValues: false,
    stopAtFirstError: true,
    exceptionFactory: (errors: ValidationError[]) => {
      const first = errors[0];
      const text = first?.constraints ? Object.values(first.constraints)[0] : undefined;
      return new ApiError(HttpStatus.BAD_REQUEST, text ?? `invalid ${first?.property ?? 'parameters'}`);
    },
  });
}

// ---- response shapes (documentation) ----

export class PriceRecordDto {
  @ApiProperty({ description: 'token mint', example: 'So11111111111111111111111111111111111111112' }) mint!: string;
  @ApiProperty({
    type: 'number',
    example: 151.23,
    description:
      'spot USD price per whole token, from pool state alone: 1 for a configured stablecoin (PRICE_STABLECOINS); SOL from its ' +
      'deepest SOL/stablecoin pool; any other token from its deepest pool paired with a stablecoin or SOL (deepest = twice ' +
      'the USD value of the pool\'s stablecoin or SOL side). 0 when no price is known yet: no such pool, or decimals pending.',
  })
  price!: number;
  @ApiProperty({
    type: 'integer',
    example: 350000123,
    description:
      'chain slot of the pool update the price came from (for a price through a SOL pool, the newer of that pool\'s update and ' +
      'the one SOL\'s price came from); 0 for a stablecoin\'s constant price or an unknown token',
  })
  slot!: number;
  @ApiProperty({
    type: 'integer',
    example: 1767225600,
    description:
      'Unix seconds at which the pool update the price came from was appended to the log (part of the log: a router ' +
      'replaying it, or restarted, gives the same value); use it to detect a stale price. 0 for constants and unknown tokens',
  })
  updatedAt!: number;
}

export class PriceEnvelopeDto {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ type: PriceRecordDto }) data!: PriceRecordDto;
}

export class PriceListDto {
  @ApiProperty({ type: [PriceRecordDto], description: 'one record per distinct requested mint, in the order of first appearance' })
  prices!: PriceRecordDto[];
}

export class PriceListEnvelopeDto {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ type: PriceListDto }) data!: PriceListDto;
}
