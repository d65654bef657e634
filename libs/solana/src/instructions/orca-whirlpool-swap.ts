/**
 * Orca Whirlpool swap instructions: swap_v2 (one pool) and two_hop_swap_v2 (two pools in one
 * instruction), with the accounts as the IDL lists them.
 */
import type { TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../programs';
import type { Whirlpool } from '../orca-whirlpool';
import { ArgWriter, instruction, MEMO_PROGRAM_ID, r, s, w } from './common';
import { NO_EXPLICIT_SQRT_PRICE_LIMIT, SWAP_DISCRIMINATORS, type SwapDirection, type SwapUser } from './swap-basics';

export interface WhirlpoolSwapArgs {
  pool: string;
  whirlpool: Whirlpool;
  inputMint: string;
  mode: SwapDirection;
  amount: bigint;
  threshold: bigint;
  user: SwapUser;
  tokenProgramA: string;
  tokenProgramB: string;
  /** three tick array addresses in swap direction (repeat the last when fewer exist) */
  tickArrays: [string, string, string];
  /** the pool's Oracle PDA ["oracle", whirlpool] */
  oracle: string;
}

/**
 * swap_v2 (Token and Token-2022 mints alike). The user's token accounts are given as A / B by
 * the pool's mint order; `remaining_accounts_info` is None (no transfer hooks, no supplemental
 * tick arrays).
 */
export function orcaWhirlpoolSwapV2(a: WhirlpoolSwapArgs): TransactionInstruction {
  const wp = a.whirlpool;
  const aToB = a.inputMint === wp.tokenMintA;
  if (!aToB && a.inputMint !== wp.tokenMintB) throw new Error(`mint ${a.inputMint} is not in whirlpool ${a.pool}`);
  const ownerA = aToB ? a.user.source : a.user.destination;
  const ownerB = aToB ? a.user.destination : a.user.source;
  const data = new ArgWriter()
    .bytes(SWAP_DISCRIMINATORS.whirlpoolSwapV2)
    .u64(a.amount, 'amount')
    .u64(a.threshold, 'other_amount_threshold')
    .u128(NO_EXPLICIT_SQRT_PRICE_LIMIT, 'sqrt_price_limit')
    .bool(a.mode === 'ExactIn')
    .bool(aToB)
    .u8(0) // Option<RemainingAccountsInfo>::None
    .done();
  return instruction(
    PROGRAM_IDS.orcaWhirlpool,
    [
      r(a.tokenProgramA),
      r(a.tokenProgramB),
      r(MEMO_PROGRAM_ID),
      s(a.user.wallet),
      w(a.pool),
      r(wp.tokenMintA),
      r(wp.tokenMintB),
      w(ownerA),
      w(wp.tokenVaultA),
      w(ownerB),
      w(wp.tokenVaultB),
      w(a.tickArrays[0]),
      w(a.tickArrays[1]),
      w(a.tickArrays[2]),
      w(a.oracle),
    ],
    data,
  );
}

export interface WhirlpoolTwoHopSwapArgs {
  one: { pool: string; whirlpool: Whirlpool; tickArrays: [string, string, string]; oracle: string };
  two: { pool: string; whirlpool: Whirlpool; tickArrays: [string, string, string]; oracle: string };
  inputMint: string;
  intermediateMint: string;
  outputMint: string;
  tokenPrograms: { input: string; intermediate: string; output: string };
  mode: SwapDirection;
  /** ExactIn: the input of hop one; ExactOut: the output of hop two */
  amount: bigint;
  /** ExactIn: the minimum final output; ExactOut: the maximum input */
  threshold: bigint;
  wallet: string;
  /** the user's input and output token accounts */
  source: string;
  destination: string;
}

/**
 * two_hop_swap_v2: two Whirlpool swaps in one instruction, the first one's output paid into the
 * second inside the program (vault to vault), only the final amount bounded; the intermediate
 * mint never reaches a user account. Accounts as the IDL lists them; no remaining accounts.
 */
export function orcaWhirlpoolTwoHopSwapV2(a: WhirlpoolTwoHopSwapArgs): TransactionInstruction {
  const aToBOne = a.inputMint === a.one.whirlpool.tokenMintA;
  const aToBTwo = a.intermediateMint === a.two.whirlpool.tokenMintA;
  const vault = (wp: Whirlpool, mint: string): string => (mint === wp.tokenMintA ? wp.tokenVaultA : wp.tokenVaultB);
  const data = new ArgWriter()
    .bytes(SWAP_DISCRIMINATORS.whirlpoolTwoHopSwapV2)
    .u64(a.amount, 'amount')
    .u64(a.threshold, 'other_amount_threshold')
    .bool(a.mode === 'ExactIn')
    .bool(aToBOne)
    .bool(aToBTwo)
    .u128(NO_EXPLICIT_SQRT_PRICE_LIMIT, 'sqrt_price_limit_one')
    .u128(NO_EXPLICIT_SQRT_PRICE_LIMIT, 'sqrt_price_limit_two')
    .u8(0) // Option<RemainingAccountsInfo>::None
    .done();
  return instruction(
    PROGRAM_IDS.orcaWhirlpool,
    [
      w(a.one.pool),
      w(a.two.pool),
      r(a.inputMint),
      r(a.intermediateMint),
      r(a.outputMint),
      r(a.tokenPrograms.input),
      r(a.tokenPrograms.intermediate),
      r(a.tokenPrograms.output),
      w(a.source),
      w(vault(a.one.whirlpool, a.inputMint)),
      w(vault(a.one.whirlpool, a.intermediateMint)),
      w(vault(a.two.whirlpool, a.intermediateMint)),
      w(vault(a.two.whirlpool, a.outputMint)),
      w(a.destination),
      s(a.wallet),
      ...a.one.tickArrays.map(w),
      ...a.two.tickArrays.map(w),
      w(a.one.oracle),
      w(a.two.oracle),
      r(MEMO_PROGRAM_ID),
    ],
    data,
  );
}
