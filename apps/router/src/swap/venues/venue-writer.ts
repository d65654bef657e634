/**
 * A venue writer: what the router needs to trade through one liquidity program, beside what the
 * projection needs to read it (the `Venue` of libs/pools, same id: the program id). One record per
 * program carries the parts every swap path uses:
 * - `hopInstruction`: the program's swap instruction for one hop of a route (the swap builder);
 * - `swapUnits`: the compute units that instruction costs (the unit model the swap builder sums
 *   into the transaction's limit and the sim chain charges);
 * - `slippage`: the custom errors the program raises when a swap's bound fails (the sim chain
 *   raises them, the rpc gateway reads them as slippage);
 * - `nativeSol`: whether the program trades native SOL lamports instead of wrapped SOL;
 * - `readSwap` (and `checkSwapAccounts`): the same instruction read back from its data and
 *   accounts, which the sim chain executes against the pool's exact quote.
 * The records live in one table (venue-writers.ts) keyed by the registry's venue ids; nothing
 * else in the router tells programs apart for writing. They sit in the router, not on the
 * library's `Venue`, because they are made of the router's own parts (its compute-unit model,
 * its build errors, the sim chain's reading of a transaction) and a library does not depend on
 * an app; test/venues.contract.spec.ts keeps the two records of a venue together.
 */
import type { TransactionInstruction } from '@solana/web3.js';
import type { Pool, SwapMode } from '@app/amm';
import { BuildError } from '../build-errors';

/** a program's custom error: its code and its name in the program's IDL */
export type ProgramError = readonly [code: number, name: string];

/**
 * The errors a program raises when a swap's bound fails, from its IDL: `minOut` when the output
 * is below the minimum of an exact-input swap, `maxIn` when the input is above the maximum of an
 * exact-output swap, `sellMinOut` when a sell (an instruction that always pays an exact amount)
 * checks its minimum output with another error than a buy's.
 */
export interface SlippageErrors {
  minOut: ProgramError;
  maxIn: ProgramError;
  sellMinOut?: ProgramError;
  /** further checks of the bound (read as slippage, never raised by the sim chain) */
  related?: readonly ProgramError[];
  /** an error that means the bound failed only for the instructions `when` accepts (their data) */
  ambiguous?: { error: ProgramError; when(instructionData: Uint8Array): boolean };
}

/** One hop's instruction as the swap builder asks for it. */
export interface HopBuild {
  pool: Pool;
  inputMint: string;
  outputMint: string;
  mode: SwapMode;
  /** ExactIn: exact input; ExactOut: exact output */
  amount: bigint;
  /** ExactIn: minimum output; ExactOut: maximum input */
  bound: bigint;
  /** the hop's quoted input (what a sell without an exact-output form pays) */
  quotedIn: bigint;
  wallet: string;
  /** the token accounts the hop pays from and delivers to */
  source: string;
  destination: string;
  tokenProgramOf(mint: string): string;
  account(address: string): { owner: string; data: Buffer } | undefined;
}

/** One swap instruction's work, as the compute-unit model charges it. */
export interface SwapWork {
  pool: Pool;
  inputMint: string;
  mode: SwapMode;
  /** the instruction's specified amount (ExactIn: input, ExactOut: output) */
  amount: bigint;
  /** how many of the pool's two mints are Token-2022 mints */
  token2022Sides: number;
}

/** A swap instruction read back: one hop through one pool. */
export interface SimHop {
  form: 'hop';
  pool: string;
  user: string;
  /** the user's token account paid from / credited; null: the user's native SOL */
  source: string | null;
  destination: string | null;
  exactIn: boolean;
  amount: bigint;
  bound: bigint;
  /** the input mint when the instruction names it (otherwise the source account's mint) */
  inputMint: string | null;
  /** a sell whose minimum output the program checks with `sellMinOut` */
  sell: boolean;
}

/** A swap instruction read back: two pools in one instruction, only the final amount bounded. */
export interface SimTwoHop {
  form: 'two-hop';
  pools: readonly [string, string];
  inputMint: string;
  midMint: string;
  outputMint: string;
  source: string;
  destination: string;
  user: string;
  exactIn: boolean;
  amount: bigint;
  bound: bigint;
}

export type SimSwap = SimHop | SimTwoHop;

export interface VenueWriter {
  /** the venue id: the program id, as the registry keys the venue */
  readonly programId: string;
  /** true: the program trades native SOL lamports, not wrapped SOL */
  readonly nativeSol: boolean;
  readonly slippage: SlippageErrors;
  hopInstruction(hop: HopBuild): TransactionInstruction;
  swapUnits(work: SwapWork): number;
  /** the program's swap instruction read from its data and accounts; throws the program's error for another instruction */
  readSwap(data: Buffer, accountCount: number, account: (i: number) => string): SimSwap;
  /** accounts the program checks beyond those `readSwap` names; throws the program's error */
  checkSwapAccounts?(pool: Pool, swap: SimHop, accountCount: number, account: (i: number) => string): void;
}

/** `pool` as the class its venue builds; a pool of another class has no instruction builder here */
export function poolAs<T extends Pool>(pool: Pool, cls: abstract new (...args: never[]) => T): T {
  if (!(pool instanceof cls)) throw new BuildError(`no instruction builder for pool ${pool.address} (${pool.label})`);
  return pool;
}

/**
 * The amount and threshold of a hop through a program whose sells have no exact-output form: a
 * sell of an ExactOut route pays its quoted input and requires the exact output as its minimum;
 * every other hop passes the mode's amount and bound.
 */
export function sellAwareAmounts(h: HopBuild, sell: boolean): [amount: bigint, threshold: bigint] {
  return sell && h.mode === 'ExactOut' ? [h.quotedIn, h.amount] : [h.amount, h.bound];
}
