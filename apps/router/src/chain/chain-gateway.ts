/**
 * The chain gateway port: where blockhashes come from and where transactions are simulated.
 * Two adapters, chosen by CHAIN_GATEWAY: `sim` (the simulated market's own chain, executing
 * against the projected accounts) and `rpc` (a Solana JSON-RPC node through @solana/web3.js).
 */
import type { VersionedTransaction } from '@solana/web3.js';
import { PROGRAM_IDS } from '@app/solana';

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

/** (program, custom error code) pairs that mean "the slippage bound was hit" (from the programs' IDLs). */
export const SLIPPAGE_ERROR_CODES: ReadonlyArray<readonly [string, number, string]> = [
  [PROGRAM_IDS.raydiumCpmm, 6005, 'ExceededSlippage'],
  [PROGRAM_IDS.raydiumClmm, 6021, 'PriceSlippageCheck'],
  [PROGRAM_IDS.raydiumClmm, 6022, 'TooLittleOutputReceived'],
  [PROGRAM_IDS.raydiumClmm, 6023, 'TooMuchInputPaid'],
  [PROGRAM_IDS.orcaWhirlpool, 6036, 'AmountOutBelowMinimum'],
  [PROGRAM_IDS.orcaWhirlpool, 6037, 'AmountInAboveMaximum'],
  [PROGRAM_IDS.raydiumAmmV4, 30, 'ExceededSlippage'],
  [PROGRAM_IDS.pumpFun, 6002, 'TooMuchSolRequired'],
  [PROGRAM_IDS.pumpFun, 6003, 'TooLittleSolReceived'],
  [PROGRAM_IDS.pumpFun, 6042, 'BuySlippageBelowMinTokensOut'],
  [PROGRAM_IDS.pumpSwapAmm, 6004, 'ExceededSlippage'],
  [PROGRAM_IDS.pumpSwapAmm, 6040, 'BuySlippageBelowMinBaseAmountOut'],
];

/** SPL Token's InsufficientFunds is custom error 1 of the token programs. */
export const TOKEN_INSUFFICIENT_FUNDS = 1;

/** Raydium AMM v4's InsufficientFunds (error.rs): the user's source account holds less than the swap takes */
export const AMM_V4_INSUFFICIENT_FUNDS = 40;
/** AMM v4's exact-output tags: swap_base_out and swap_base_out_v2 */
const AMM_V4_EXACT_OUT_TAGS = [11, 17];

/**
 * Whether a program's custom error means the slippage bound was hit: the pairs of
 * SLIPPAGE_ERROR_CODES, and Raydium AMM v4's InsufficientFunds on an exact-output swap, which the
 * program raises before its slippage check when the input the pool asks for exceeds what the
 * user's account holds: a wallet holding exactly the maximum input (as /swap's wrapped SOL does)
 * meets a pool that moved against it there. The two cannot be told apart from the error, so such
 * a failure reports both insufficientFunds (the token program's wording elsewhere) and
 * slippageExceeded.
 */
export function isSlippageError(program: string, code: number, data: Uint8Array): boolean {
  if (SLIPPAGE_ERROR_CODES.some(([p, c]) => p === program && c === code)) return true;
  return program === PROGRAM_IDS.raydiumAmmV4 && code === AMM_V4_INSUFFICIENT_FUNDS && AMM_V4_EXACT_OUT_TAGS.includes(data[0]);
}
