/**
 * Raydium CPMM swap instructions: swap_base_input (exact in, minimum out) and swap_base_output
 * (maximum in, exact out), with the accounts in the program's order.
 */
import type { TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../programs';
import { cpmmAuthority, type CpmmPoolState } from '../raydium-cpmm';
import { ArgWriter, instruction, r, s, w } from './common';
import { SWAP_DISCRIMINATORS, type SwapDirection, type SwapUser } from './swap-basics';

export interface CpmmSwapArgs {
  pool: string;
  state: CpmmPoolState;
  inputMint: string;
  mode: SwapDirection;
  /** ExactIn: the exact input; ExactOut: the exact output */
  amount: bigint;
  /** ExactIn: minimum output; ExactOut: maximum input */
  threshold: bigint;
  user: SwapUser;
}

export function raydiumCpmmSwap(a: CpmmSwapArgs): TransactionInstruction {
  const st = a.state;
  const zeroForOne = a.inputMint === st.token0Mint;
  if (!zeroForOne && a.inputMint !== st.token1Mint) throw new Error(`mint ${a.inputMint} is not in CPMM pool ${a.pool}`);
  const [inVault, outVault, inProg, outProg, inMint, outMint] = zeroForOne
    ? [st.token0Vault, st.token1Vault, st.token0Program, st.token1Program, st.token0Mint, st.token1Mint]
    : [st.token1Vault, st.token0Vault, st.token1Program, st.token0Program, st.token1Mint, st.token0Mint];
  const data =
    a.mode === 'ExactIn'
      ? new ArgWriter().bytes(SWAP_DISCRIMINATORS.cpmmSwapBaseInput).u64(a.amount, 'amount_in').u64(a.threshold, 'minimum_amount_out').done()
      : new ArgWriter().bytes(SWAP_DISCRIMINATORS.cpmmSwapBaseOutput).u64(a.threshold, 'max_amount_in').u64(a.amount, 'amount_out').done();
  return instruction(
    PROGRAM_IDS.raydiumCpmm,
    [
      s(a.user.wallet),
      r(cpmmAuthority()),
      r(st.ammConfig),
      w(a.pool),
      w(a.user.source),
      w(a.user.destination),
      w(inVault),
      w(outVault),
      r(inProg),
      r(outProg),
      r(inMint),
      r(outMint),
      w(st.observationKey),
    ],
    data,
  );
}
