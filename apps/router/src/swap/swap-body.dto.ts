import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Max, Min, Validate, ValidateIf, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import type { ValidationPipe } from '@nestjs/common';
import { isPublicKey } from '@app/solana';
import { createApiValidationPipe } from '../http/api-error';
import { ROUTE_CONTROL_ORDER, RouteControlsDto } from '../http/route-controls.dto';
import { parsePrioritizationFee, parseUnitPrice } from './priority-fee';

const U64_MAX = (1n << 64n) - 1n;

@ValidatorConstraint({ name: 'publicKey' })
export class PublicKeyConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isPublicKey(value);
  }
}

@ValidatorConstraint({ name: 'u64Amount' })
class PositiveU64Constraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && /^[1-9][0-9]{0,19}$/.test(value) && BigInt(value) <= U64_MAX;
  }
}

@ValidatorConstraint({ name: 'unitPrice' })
class UnitPriceConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return parseUnitPrice(value) !== null;
  }
}

@ValidatorConstraint({ name: 'prioritizationFee' })
class PrioritizationFeeConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return parsePrioritizationFee(value) !== null;
  }
}

/** JSON body of POST /api/v1/instructions (and the base of /swap); the same class validates and documents */
export class InstructionsBodyDto extends RouteControlsDto {
  @ApiProperty({ description: 'wallet that signs, pays the fees and owns the token accounts (base58 public key)', example: 'r21Gamwd9DtyjHeGywsneoQYR39C1VDwrw7tWxHAwh6' })
  @Validate(PublicKeyConstraint)
  userWallet!: string;

  @ApiProperty({ description: 'input token mint (base58); may be left out with quoteId', example: 'So11111111111111111111111111111111111111112' })
  @ValidateIf(requiredUnlessQuoteId('inputMint'))
  @Validate(PublicKeyConstraint)
  inputMint!: string;

  @ApiProperty({ description: 'output token mint (base58); must differ from inputMint; may be left out with quoteId', example: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' })
  @ValidateIf(requiredUnlessQuoteId('outputMint'))
  @Validate(PublicKeyConstraint)
  outputMint!: string;

  @ApiProperty({ description: 'smallest units, a string holding a positive integer that fits in u64; may be left out with quoteId', example: '1000000000', pattern: '^[1-9][0-9]*$' })
  @ValidateIf(requiredUnlessQuoteId('amount'))
  @Validate(PositiveU64Constraint)
  amount!: string;

  @ApiProperty({ enum: ['ExactIn', 'ExactOut'], description: 'may be left out with quoteId' })
  @ValidateIf(requiredUnlessQuoteId('swapMode'))
  @IsIn(['ExactIn', 'ExactOut'])
  swapMode!: 'ExactIn' | 'ExactOut';

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 10000, default: 50, description: 'slippage tolerance in basis points' })
  @IsOptional()
  @Transform(({ value }) => (value === undefined || value === null ? undefined : typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : NaN))
  @IsInt()
  @Min(0)
  @Max(10000)
  slippageBps?: number;

  @ApiPropertyOptional({
    description:
      'the X-Quote-Id of a quote served by GET /quote: build exactly its route and amounts (its parameters and route controls; the quote fields and slippageBps, ' +
      'when given, must equal its own, and route controls may not be given). 404 "quote not found" (never served here or no longer kept, see QUOTES_KEPT); ' +
      '409 "quote state moved on" (a pool of its route changed since) unless allowRequote',
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,128}$/)
  quoteId?: string;

  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'with quoteId: when the quote\'s state has moved on, quote again with its parameters and build that instead of answering 409' })
  @IsOptional()
  @IsBoolean()
  allowRequote?: boolean;

  @ApiPropertyOptional({ description: 'priority fee: SetComputeUnitPrice in micro-lamports per compute unit (integer, as a number or a string); in place of COMPUTE_UNIT_PRICE', example: 5000 })
  @IsOptional()
  @Validate(UnitPriceConstraint)
  computeUnitPriceMicroLamports?: number | string;

  @ApiPropertyOptional({
    description:
      'priority fee in lamports: a number (about that many lamports in all: the price is floor(lamports × 10^6 / unit limit)), or ' +
      '{"priorityLevelWithMaxLamports": {"priorityLevel": "medium" | "high" | "veryHigh", "maxLamports": n}}: the level\'s price (50th / 75th / 95th percentile of ' +
      'getRecentPrioritizationFees on the writable accounts with CHAIN_GATEWAY=rpc; 10,000 / 100,000 / 1,000,000 micro-lamports per unit on the sim chain), capped at maxLamports in all. ' +
      'Not with computeUnitPriceMicroLamports',
    example: 100000,
  })
  @IsOptional()
  @Validate(PrioritizationFeeConstraint)
  prioritizationFeeLamports?: number | string | { priorityLevelWithMaxLamports: { priorityLevel: string; maxLamports: number } };

  @ApiPropertyOptional({ description: 'fee payer other than userWallet (base58): the transaction\'s first signer; it pays the fees and the rent of the token accounts created; userWallet still signs' })
  @IsOptional()
  @Validate(PublicKeyConstraint)
  payer?: string;
  @ApiPropertyOptional({
    description:
      'the token account (base58) the integrator fee of platformFeeBps is transferred to: of the fee\'s mint (ExactIn: the output mint; ExactOut: the input mint), existing before the swap; required with platformFeeBps',
  })
  @IsOptional()
  @Validate(PublicKeyConstraint)
  feeAccount?: string;

  @ApiPropertyOptional({
    type: 'boolean',
    default: true,
    description: 'false: spend the user\'s wrapped-SOL account as it is (no wrap of an input of SOL) and keep wrapped SOL received in it (no unwrap); pump.fun hops still trade native SOL',
  })
  @IsOptional()
  @IsBoolean()
  wrapAndUnwrapSol?: boolean;

  @ApiPropertyOptional({
    description:
      'token account (base58) of the output mint that receives the output instead of the user\'s associated token account. With a fee taken from the output (ExactIn with a fee) or a pump.fun sell into native SOL, ' +
      'the user receives the output and otherAmountThreshold (the guaranteed minimum) moves to it in the same transaction',
  })
  @IsOptional()
  @Validate(PublicKeyConstraint)
  destinationTokenAccount?: string;
}

/** the quote fields are required unless the body names a quoteId (then they are checked against the quote when given) */
function requiredUnlessQuoteId(field: 'inputMint' | 'outputMint' | 'amount' | 'swapMode'): (o: Record<string, unknown>) => boolean {
  return (o) => o.quoteId === undefined || o[field] !== undefined;
}

/** JSON body of POST /api/v1/swap */
export class SwapBodyDto extends InstructionsBodyDto {
  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'true: no pre-flight simulation (faster, no validation); the response has no `simulation`' })
  @IsOptional()
  @IsBoolean()
  skipSimulation?: boolean;
}

/** the order the errors are checked in: the first invalid field in it is reported */
export const SWAP_BODY_ORDER = ['userWallet', 'inputMint', 'outputMint', 'amount', 'swapMode', 'slippageBps', 'quoteId', 'allowRequote', 'computeUnitPriceMicroLamports', 'prioritizationFeeLamports', 'payer', 'feeAccount', 'wrapAndUnwrapSol', 'destinationTokenAccount', 'skipSimulation', ...ROUTE_CONTROL_ORDER] as const;

/** API error texts per field (API.md §7: the wallet's is `invalid user wallet`) */
const FIELD_ERROR: Record<string, string> = { userWallet: 'invalid user wallet' };

/**
 * Validation of the swap / instructions bodies: a field the API does not know → 400 `unknown
 * parameter <name>`; else the first invalid field (in SWAP_BODY_ORDER) → 400 `invalid <field>`.
 */
export function createSwapBodyPipe(): ValidationPipe {
  return createApiValidationPipe(SWAP_BODY_ORDER, { forbidUnknown: true, fieldErrors: FIELD_ERROR });
}

export class FaucetBodyDto {
  @ApiProperty({ description: 'wallet to fund (base58)' })
  @Validate(PublicKeyConstraint)
  wallet!: string;

  @ApiPropertyOptional({ description: 'token mint to fund; omitted or the wrapped-SOL mint: native SOL (lamports)' })
  @IsOptional()
  @Validate(PublicKeyConstraint)
  mint?: string;

  @ApiProperty({ description: 'smallest units (lamports for SOL)', example: '10000000000' })
  @Validate(PositiveU64Constraint)
  amount!: string;
}

export class SendBodyDto {
  @ApiProperty({ description: 'a transaction from /swap, base64 (signatures are not verified by the sim chain)' })
  transaction!: string;
}
