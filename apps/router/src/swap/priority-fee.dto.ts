/** The priority fee of a validated /swap or /instructions body (see priority-fee.ts). */
import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../http/api-error';
import { parsePrioritizationFee, parseUnitPrice, type PriorityFee } from './priority-fee';
import type { InstructionsBodyDto } from './swap-body.dto';

/** both given: 400 (they set the same instruction) */
export const PRIORITY_FEE_CONFLICT = 'computeUnitPriceMicroLamports and prioritizationFeeLamports exclude each other';

export function priorityFeeOf(b: InstructionsBodyDto): { priorityFee?: PriorityFee } {
  if (b.computeUnitPriceMicroLamports !== undefined && b.prioritizationFeeLamports !== undefined) throw new ApiError(HttpStatus.BAD_REQUEST, PRIORITY_FEE_CONFLICT);
  if (b.computeUnitPriceMicroLamports !== undefined) return { priorityFee: { kind: 'price', microLamports: parseUnitPrice(b.computeUnitPriceMicroLamports)! } };
  if (b.prioritizationFeeLamports !== undefined) return { priorityFee: parsePrioritizationFee(b.prioritizationFeeLamports)! };
  return {};
}
