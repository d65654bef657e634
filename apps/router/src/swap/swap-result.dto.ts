/** OpenAPI shapes of the /swap and /instructions answers (API.md §2; documentation only: swap-result.ts builds them). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class SimulationResultDto {
  @ApiProperty({ description: 'the simulation passed' }) success!: boolean;
  @ApiProperty({ description: 'why it failed; empty when it passed' }) error!: string;
  @ApiProperty({ description: 'a balance of the wallet was too low' }) insufficientFunds!: boolean;
  @ApiProperty({ description: 'a program refused the slippage bound (the price moved beyond the tolerance)' }) slippageExceeded!: boolean;
  @ApiProperty({ type: 'integer' }) computeUnitsConsumed!: number;
  @ApiProperty({ type: [String], description: 'program log lines' }) logs!: string[];
}

export class AccountMetaDto {
  @ApiProperty({ description: 'base58 account address' }) publicKey!: string;
  @ApiProperty() isSigner!: boolean;
  @ApiProperty() isWritable!: boolean;
}

export class RawInstructionDto {
  @ApiProperty({ description: 'base58 program id' }) programId!: string;
  @ApiProperty({ description: 'instruction data, base64' }) data!: string;
  @ApiProperty({ type: [AccountMetaDto] }) accounts!: AccountMetaDto[];
}

/** the fields /swap and /instructions share */
class BuiltRouteDto {
  @ApiProperty({ description: 'input amount, smallest units' }) amountIn!: string;
  @ApiProperty({ description: 'output amount, smallest units' }) amountOut!: string;
  @ApiProperty({ description: 'aggregator fee (FEE_BPS), smallest units of the output mint; "0" without a fee' }) feeAmount!: string;
  @ApiProperty({ type: [String], description: 'token path: [inputMint, ...intermediates, outputMint]' }) route!: string[];
  @ApiProperty({ type: 'integer' }) hopCount!: number;
  @ApiProperty({ type: [String], description: 'pool addresses used' }) pools!: string[];
}

export class SwapResultDto extends BuiltRouteDto {
  @ApiProperty({ description: 'unsigned version-0 transaction, base64; the user wallet is its only signer and fee payer' }) transaction!: string;
  @ApiProperty({ type: 'integer', description: 'block height after which the transaction expires (150 blocks after its blockhash)' }) lastValidBlockHeight!: number;
  @ApiProperty({ description: 'ExactIn: slippage-adjusted minimum output; ExactOut: equals amountOut' }) minAmountOut!: string;
  @ApiProperty({ description: 'ExactOut: slippage-adjusted maximum input; ExactIn: equals amountIn' }) maxAmountIn!: string;
  @ApiPropertyOptional({ type: SimulationResultDto, description: 'present when the simulation ran (skipSimulation false)' }) simulation?: SimulationResultDto;
  @ApiProperty({ type: 'integer', description: 'compute unit limit set: simulated consumption + 10%, or the estimate without a simulation' }) computeUnitsEstimate!: number;
  @ApiProperty() isSplitRoute!: boolean;
  @ApiProperty({ type: 'integer', isArray: true, description: 'one integer percent per entry of pools, in the same order (100 for each pool of a single path)' }) splitPercents!: number[];
}

export class InstructionsResultDto extends BuiltRouteDto {
  @ApiProperty({ description: 'ExactIn: minimum output; ExactOut: maximum input' }) otherAmountThreshold!: string;
  @ApiProperty({ type: [RawInstructionDto], description: 'compute-budget instructions first (unit limit, then unit price when configured)' }) instructions!: RawInstructionDto[];
  @ApiProperty({ type: [String], description: 'address lookup tables that compress these instructions in a version-0 transaction' }) addressLookupTableAddresses!: string[];
  @ApiProperty({ type: [RawInstructionDto], description: 'the compute-budget instructions of `instructions` (unit limit, unit price)' }) computeBudgetInstructions!: RawInstructionDto[];
  @ApiProperty({ type: [RawInstructionDto], description: 'what runs before the first swap: token accounts created idempotently, SOL wrapped' }) setupInstructions!: RawInstructionDto[];
  @ApiProperty({ type: [RawInstructionDto], description: 'the first swap to the last, with what runs between hops' }) swapInstructions!: RawInstructionDto[];
  @ApiProperty({ type: [RawInstructionDto], description: 'after the last swap: the aggregator fee transfer, the wrapped-SOL account closed' }) cleanupInstructions!: RawInstructionDto[];
}

export class SwapEnvelopeDto {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ type: SwapResultDto }) data!: SwapResultDto;
}

export class InstructionsEnvelopeDto {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ type: InstructionsResultDto }) data!: InstructionsResultDto;
}
