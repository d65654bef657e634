/**
 * The contract between SimMarket and one simulated program: build pools from plans, write their
 * accounts, apply one seeded swap with the program's own math, and write back exactly the
 * accounts a pool's swaps changed.
 */
import type { PoolUpdate } from '@app/contracts';
import type { SimContext, SwapDraw } from '../context';

export const SIM_PROGRAMS = ['raydium-cpmm', 'orca-whirlpool', 'raydium-clmm', 'raydium-amm-v4', 'pump-amm', 'pump-fun'] as const;
export type SimProgramName = (typeof SIM_PROGRAMS)[number];

/** A pool the planner asks a program to create. */
export interface PlannedPool {
  /** token indices (any order; the program orders them as it requires) */
  a: number;
  b: number;
  /** program-specific fee tier index */
  tier: number;
  depthUsd: number;
  /** deliberately tiny liquidity */
  tiny: boolean;
  /** program-specific variant flag (CPMM: creator fee on; Whirlpool: adaptive fee; ...) */
  variant: boolean;
}

/** One swap the simulator applied (for audits and tests). */
export interface SimSwap {
  program: SimProgramName;
  /** index of the pool within its program */
  pool: number;
  address: string;
  /** true: token A (mintA) in, token B out */
  aToB: boolean;
  mode: 'ExactIn' | 'ExactOut';
  /** the specified amount (input for ExactIn, output for ExactOut), pool side */
  amount: bigint;
  /** concentrated liquidity: the sqrt price limit passed (0n = none) */
  sqrtPriceLimit?: bigint;
  /** the program math's result */
  result: unknown;
}

/** What every program's pool exposes to the market. */
export interface SimPoolInfo {
  program: SimProgramName;
  address: string;
  /** token indices */
  tokenA: number;
  tokenB: number;
  /** false for pools that deliberately cannot be routed (e.g. complete pump.fun curves) */
  routable: boolean;
  tiny: boolean;
}

export interface SimProgram {
  readonly name: SimProgramName;
  /** number of fee tiers the planner picks from, with their weights */
  readonly tierWeights: readonly number[];
  /** pick a tier for a pair (stable pair: both sides stables) */
  pickTier(rng: { weighted<T>(items: readonly T[], weights: readonly number[]): T; next(): number }, stablePair: boolean): number;
  /** can this program hold a pool of these two tokens? */
  accepts(ctx: SimContext, a: number, b: number): boolean;
  /** create the pools (genesis) */
  build(ctx: SimContext, rng: import('../prng').Prng, plans: PlannedPool[]): void;
  readonly pools: readonly SimPoolInfo[];
  /** shared program accounts (configs, globals) */
  sharedAccounts(ctx: SimContext, out: PoolUpdate[]): void;
  /** every account of pool i (no mints) */
  poolAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void;
  /** apply one swap on pool i; null when the program refuses it (nothing changed) */
  swap(ctx: SimContext, i: number, draw: SwapDraw): SimSwap | null;
  /** the accounts of pool i its swaps changed since the last call (or forget) */
  changedAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void;
  /** drop what pool i's swaps changed without writing it (a replayed slot) */
  forget(i: number): void;
  /**
   * addresses every swap through the program lists besides the accounts written (authorities,
   * event and fee accounts, programs passed as accounts): the shared part of the lookup tables
   */
  lookupShared?(ctx: SimContext): string[];
  /** addresses a swap through pool i lists besides its accounts (for the lookup tables) */
  lookupExtras?(i: number, ctx: SimContext): string[];
  /** add what the pools hold of each token (for mint supplies) */
  holdings(held: bigint[]): void;
}

/** true for the errors a program's math throws when it refuses a swap */
export function isRefusal(e: unknown, ...classes: (new (...args: never[]) => Error)[]): boolean {
  return classes.some((c) => e instanceof c);
}
