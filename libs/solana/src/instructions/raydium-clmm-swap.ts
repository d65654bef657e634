/**
 * Raydium CLMM swap instruction: swap_v2, with the tick array bitmap extension and the tick
 * arrays as remaining accounts.
 */
import type { TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../programs';
import { clmmBitmapExtensionAddress, type ClmmPoolState } from '../raydium-clmm';
import { ArgWriter, instruction, MEMO_PROGRAM_ID, r, s, w } from './common';
import { NO_EXPLICIT_SQRT_PRICE_LIMIT, SWAP_DISCRIMINATORS, type SwapDirection, type SwapUser } from './swap-basics';

export interface ClmmSwapArgs {
  pool: string;
  state: ClmmPoolState;
  inputMint: string;
  mode: SwapDirection;
  amount: bigint;
  threshold: bigint;
  user: SwapUser;
  /** initialized tick arrays in swap order, starting with the one holding the current tick */
  tickArrays: string[];
  /** pass the bitmap extension (it must be given when the swap may leave the pool's own bitmap) */
  withBitmapExtension: boolean;
}

/**
 * swap_v2. Remaining accounts, in the order the program reads them: the tick array bitmap
 * extension (when given), then the tick arrays.
 */
export function raydiumClmmSwapV2(a: ClmmSwapArgs): TransactionInstruction {
  const st = a.state;
  const zeroForOne = a.inputMint === st.tokenMint0;
  if (!zeroForOne && a.inputMint !== st.tokenMint1) throw new Error(`mint ${a.inputMint} is not in CLMM pool ${a.pool}`);
  if (a.tickArrays.length === 0) throw new Error(`CLMM swap on ${a.pool} needs at least one tick array`);
  const [inVault, outVault, inMint, outMint] = zeroForOne
    ? [st.tokenVault0, st.tokenVault1, st.tokenMint0, st.tokenMint1]
    : [st.tokenVault1, st.tokenVault0, st.tokenMint1, st.tokenMint0];
  const data = new ArgWriter()
    .bytes(SWAP_DISCRIMINATORS.clmmSwapV2)
    .u64(a.amount, 'amount')
    .u64(a.threshold, 'other_amount_threshold')
    .u128(NO_EXPLICIT_SQRT_PRICE_LIMIT, 'sqrt_price_limit_x64')
    .bool(a.mode === 'ExactIn')
    .done();
  const keys = [
    s(a.user.wallet),
    r(st.ammConfig),
    w(a.pool),
    w(a.user.source),
    w(a.user.destination),
    w(inVault),
    w(outVault),
    w(st.observationKey),
    r(PROGRAM_IDS.token),
    r(PROGRAM_IDS.token2022),
    r(MEMO_PROGRAM_ID),
    r(inMint),
    r(outMint),
  ];
  if (a.withBitmapExtension) keys.push(w(clmmBitmapExtensionAddress(a.pool)));
  for (const t of a.tickArrays) keys.push(w(t));
  return instruction(PROGRAM_IDS.raydiumClmm, keys, data);
}
