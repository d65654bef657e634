import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min, ValidationArguments, ValidatorConstraint, Validate, type ValidatorConstraintInterface } from 'class-validator';
import { isPublicKey } from '@app/solana';
import { ROUTE_CONTROL_ORDER, RouteControlsDto } from './route-controls.dto';

const U64_MAX = (1n << 64n) - 1n;

@ValidatorConstraint({ name: 'publicKey' })
class PublicKeyConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isPublicKey(value);
  }
  defaultMessage(args: ValidationArguments): string {
    return `invalid ${args.property}`;
  }
}

@ValidatorConstraint({ name: 'u64Amount' })
class PositiveU64Constraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && /^[1-9][0-9]{0,19}$/.test(value) && BigInt(value) <= U64_MAX;
  }
  defaultMessage(args: ValidationArguments): string {
    return `invalid ${args.property}`;
  }
}

/** query parameters of GET /api/v1/quote (the route controls included); the same class validates and documents */
export class QuoteQueryDto extends RouteControlsDto {
  @ApiProperty({ description: 'input token mint (base58 public key)', example: 'So11111111111111111111111111111111111111112' })
  @Validate(PublicKeyConstraint)
  inputMint!: string;

  @ApiProperty({ description: 'output token mint (base58 public key); must differ from inputMint', example: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' })
  @Validate(PublicKeyConstraint)
  outputMint!: string;

  @ApiProperty({
    description: 'amount in smallest units: a positive integer that fits in u64 (ExactIn: the input; ExactOut: the desired output)',
    example: '1000000000',
    pattern: '^[1-9][0-9]*$',
  })
  @Validate(PositiveU64Constraint)
  amount!: string;

  @ApiProperty({ enum: ['ExactIn', 'ExactOut'], description: 'ExactIn: amount is the exact input; ExactOut: amount is the exact output' })
  @IsIn(['ExactIn', 'ExactOut'])
  swapMode!: 'ExactIn' | 'ExactOut';

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 10000, default: 50, description: 'slippage tolerance in basis points (integer 0..10000)' })
  @IsOptional()
  @Transform(({ value }) => (value === undefined || value === '' ? undefined : typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : NaN))
  @IsInt()
  @Min(0)
  @Max(10000)
  slippageBps?: number;
}

/** the order of the API's quote error table: the first invalid parameter in it is reported */
export const QUOTE_PARAM_ORDER = ['inputMint', 'outputMint', 'amount', 'swapMode', 'slippageBps', ...ROUTE_CONTROL_ORDER] as const;
