/**
 * The chain gateway port: where blockhashes come from and where transactions are simulated.
 * Two adapters, chosen by CHAIN_GATEWAY: `sim` (the simulated market's own chain, executing
 * against the projected accounts) and `rpc` (a Solana JSON-RPC node through @solana/web3.js).
 */
import type { VersionedTransaction } from '@solana/web3.js';
import { slippageErrorsOf, venueWriter, VENUE_WRITERS } from '../swap/venues/venue-writers';

export const CHAIN_GATEWAY = Symbol('CHAIN_GATEWAY');

export interface LatestBlockhash {
  blockhash: string;
  lastValidBlockHeight: number;
}

/** API.md SimulationResult */
export interface SimulationResult {
  success: boolean;
  /** empty when the simulation passed */
  error: string;
  insufficientFunds: boolean;
  slippageExceeded: boolean;
  computeUnitsConsumed: number;
  logs: string[];
}

export interface ChainGateway {
  readonly kind: 'sim' | 'rpc';
  latestBlockhash(): Promise<LatestBlockhash>;
  simulate(transaction: VersionedTransaction): Promise<SimulationResult>;
  /** recent prioritization fees (micro-lamports per unit, one per recent slot) for transactions writing these accounts; absent: the gateway has none (sim) */
  recentPrioritizationFees?(writableAccounts: string[]): Promise<number[]>;
}

/** The gateway could not be reached or answered garbage (the swap answers `simulation failed: <details>`). */
export class ChainGatewayError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainGatewayError';
  }
}

/** (program, custom error code, name) triples that mean "the slippage bound was hit": every venue writer's `slippage` (from the programs' IDLs). */
export const SLIPPAGE_ERROR_CODES: ReadonlyArray<readonly [string, number, string]> = VENUE_WRITERS.flatMap((w) =>
  slippageErrorsOf(w.slippage).map(([code, name]) => [w.programId, code, name] as const),
);

/** SPL Token's InsufficientFunds is custom error 1 of the token programs. */
export const TOKEN_INSUFFICIENT_FUNDS = 1;

/**
 * Whether a program's custom error means the slippage bound was hit: one of SLIPPAGE_ERROR_CODES,
 * or the error a venue raises before its own check when the instruction's data says it may be the
 * bound (Raydium AMM v4's InsufficientFunds on an exact-output swap: such a failure reports both
 * insufficientFunds and slippageExceeded, see its writer).
 */
export function isSlippageError(program: string, code: number, data: Uint8Array): boolean {
  if (SLIPPAGE_ERROR_CODES.some(([p, c]) => p === program && c === code)) return true;
  const ambiguous = venueWriter(program)?.slippage.ambiguous;
  return ambiguous !== undefined && ambiguous.error[0] === code && ambiguous.when(data);
}
