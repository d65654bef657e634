/**
 * A request's priority fee: the SetComputeUnitPrice of its transaction. Plain functions.
 *
 * - `computeUnitPriceMicroLamports`: that price, micro-lamports per compute unit.
 * - `prioritizationFeeLamports` as a number: about that many lamports in all, the price
 *   floor(lamports × 1,000,000 / unit limit), set again whenever the unit limit is (after the
 *   simulation), so price × limit never exceeds it.
 * - `prioritizationFeeLamports: {priorityLevelWithMaxLamports: {priorityLevel, maxLamports}}`:
 *   the price of the level, capped so that price × limit stays within maxLamports. The level's
 *   price is a percentile (medium 50th, high 75th, veryHigh 95th) of the recent prioritization
 *   fees the RPC node reports for the transaction's writable accounts (getRecentPrioritizationFees,
 *   CHAIN_GATEWAY=rpc); on the sim chain, or when the node reports none, the fixed table LEVEL_PRICES.
 * Without any of them, COMPUTE_UNIT_PRICE applies.
 */
import type { TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '@app/solana';
import { setComputeUnitPrice } from '@app/solana';

export type PriorityLevel = 'medium' | 'high' | 'veryHigh';

export type PriorityFee =
  | { kind: 'price'; microLamports: bigint }
  | { kind: 'lamports'; lamports: bigint }
  | { kind: 'level'; level: PriorityLevel; maxLamports: bigint };

/** micro-lamports per compute unit of each level on the sim chain (and when the RPC node reports no fees) */
export const LEVEL_PRICES: Record<PriorityLevel, bigint> = { medium: 10_000n, high: 100_000n, veryHigh: 1_000_000n };

const LEVEL_PERCENTILE: Record<PriorityLevel, number> = { medium: 50, high: 75, veryHigh: 95 };

/** the largest price and lamport amounts a request may ask for */
export const MAX_PRICE_MICRO_LAMPORTS = 1_000_000_000_000n;
export const MAX_PRIORITY_LAMPORTS = 1_000_000_000n;

const INTEGER = /^(0|[1-9][0-9]{0,15})$/;

function integer(v: unknown): bigint | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && INTEGER.test(v)) return BigInt(v);
  return null;
}

/** computeUnitPriceMicroLamports as a bigint; null when invalid */
export function parseUnitPrice(v: unknown): bigint | null {
  const n = integer(v);
  return n !== null && n <= MAX_PRICE_MICRO_LAMPORTS ? n : null;
}

/** prioritizationFeeLamports (a number, or {priorityLevelWithMaxLamports: {priorityLevel, maxLamports}}); null when invalid */
export function parsePrioritizationFee(v: unknown): PriorityFee | null {
  const n = integer(v);
  if (n !== null) return n <= MAX_PRIORITY_LAMPORTS ? { kind: 'lamports', lamports: n } : null;
  if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.keys(v).length !== 1) return null;
  const inner = (v as Record<string, unknown>).priorityLevelWithMaxLamports;
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return null;
  const { priorityLevel, maxLamports, ...rest } = inner as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return null;
  if (priorityLevel !== 'medium' && priorityLevel !== 'high' && priorityLevel !== 'veryHigh') return null;
  const max = integer(maxLamports);
  if (max === null || max > MAX_PRIORITY_LAMPORTS) return null;
  return { kind: 'level', level: priorityLevel, maxLamports: max };
}

/** the level's price from recent fees (micro-lamports per unit; the table when there are none) */
export function levelPrice(level: PriorityLevel, recentFees: readonly number[] | null): bigint {
  if (recentFees === null || recentFees.length === 0) return LEVEL_PRICES[level];
  const sorted = [...recentFees].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.ceil((LEVEL_PERCENTILE[level] / 100) * sorted.length) - 1);
  return BigInt(Math.max(0, Math.floor(sorted[Math.max(0, i)])));
}

/** the unit price of `fee` for a unit limit (`level`: the level's price, resolved by the caller) */
export function unitPrice(fee: PriorityFee, unitLimit: number, level: bigint = 0n): bigint {
  const limit = BigInt(Math.max(1, unitLimit));
  if (fee.kind === 'price') return fee.microLamports;
  if (fee.kind === 'lamports') return (fee.lamports * 1_000_000n) / limit;
  const cap = (fee.maxLamports * 1_000_000n) / limit;
  return level < cap ? level : cap;
}

/** the writable accounts of the instructions (what getRecentPrioritizationFees is asked about; at most 128) */
export function writableAccounts(instructions: readonly TransactionInstruction[]): string[] {
  const out = new Set<string>();
  for (const ix of instructions) for (const k of ix.keys) if (k.isWritable && !k.isSigner) out.add(k.pubkey.toBase58());
  return [...out].slice(0, 128);
}

/**
 * The instructions with the SetComputeUnitPrice that follows the SetComputeUnitLimit set to
 * `microLamports` (the builder put one there: see SwapService); unchanged when there is none.
 */
export function withUnitPrice(instructions: readonly TransactionInstruction[], microLamports: bigint): TransactionInstruction[] {
  return instructions.map((ix) => (ix.programId.toBase58() === PROGRAM_IDS.computeBudget && ix.data[0] === 3 ? setComputeUnitPrice(microLamports) : ix));
}
