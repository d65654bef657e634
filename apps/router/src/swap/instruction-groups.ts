/**
 * The instructions of a build grouped the way composers use them, besides the flat list:
 * `computeBudgetInstructions` (unit limit and price), `setupInstructions` (everything before the
 * first swap: token accounts created idempotently, SOL wrapped), `swapInstructions` (the first
 * swap to the last, with what runs between hops, such as SOL moved between a native and a
 * wrapped hop) and `cleanupInstructions` (after the last swap: the aggregator fee transfer, the
 * wrapped-SOL account closed). Concatenated in this order they are the flat list. Plain.
 */
import type { TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '@app/solana';
import { rawInstruction, type RawInstruction } from './swap-result';
import { venueWriter } from './venues/venue-writers';

export interface InstructionGroups {
  computeBudgetInstructions: RawInstruction[];
  setupInstructions: RawInstruction[];
  swapInstructions: RawInstruction[];
  cleanupInstructions: RawInstruction[];
}

/** an instruction of a venue's program is a swap */
const isSwap = (program: string): boolean => venueWriter(program) !== undefined;

export function groupInstructions(instructions: readonly TransactionInstruction[]): InstructionGroups {
  const programs = instructions.map((ix) => ix.programId.toBase58());
  const budget = programs.findIndex((p) => p !== PROGRAM_IDS.computeBudget);
  const lead = budget < 0 ? programs.length : budget;
  const first = programs.findIndex(isSwap);
  let last = -1;
  programs.forEach((p, i) => {
    if (isSwap(p)) last = i;
  });
  const start = first < 0 ? instructions.length : first;
  const end = last < 0 ? instructions.length : last + 1;
  const raw = (from: number, to: number): RawInstruction[] => instructions.slice(from, to).map(rawInstruction);
  return { computeBudgetInstructions: raw(0, lead), setupInstructions: raw(lead, start), swapInstructions: raw(start, end), cleanupInstructions: raw(end, instructions.length) };
}
