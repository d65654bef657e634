/**
 * pump.fun bonding-curve swap instructions: buy, buy_exact_sol_in and sell (native SOL), with
 * the remaining accounts the program takes after the IDL's (bonding-curve-v2, buyback fee
 * recipient, a cashback coin's user volume accumulator).
 */
import type { TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../programs';
import {
  PUMP_FEES_PROGRAM_ID,
  pumpBondingCurveAddress,
  pumpCreatorVaultAddress,
  pumpFeeConfigAddress,
  pumpGlobalAddress,
  type PumpBondingCurve,
} from '../pump-fun';
import { ArgWriter, associatedTokenAddress, instruction, r, sw, w } from './common';
import {
  PUMP_BUYBACK_FEE_RECIPIENTS,
  pumpFunBondingCurveV2,
  pumpFunEventAuthority,
  pumpFunGlobalVolumeAccumulator,
  pumpFunUserVolumeAccumulator,
} from './pump-accounts';
import { SWAP_DISCRIMINATORS, type SwapDirection } from './swap-basics';

export interface PumpFunSwapArgs {
  mint: string;
  curve: PumpBondingCurve;
  /** Global.feeRecipient (or one of Global.feeRecipients) */
  feeRecipient: string;
  /** the token side's program (Token, or Token-2022 for create_v2 coins) */
  tokenProgram: string;
  /** SOL in (buy) or the token in (sell) */
  inputMint: string;
  mode: SwapDirection;
  amount: bigint;
  threshold: bigint;
  wallet: string;
  /** the user's token account of the coin (associated_user) */
  userTokenAccount: string;
  /**
   * Append the remaining accounts the program takes after the IDL's accounts (see
   * PUMP_BUYBACK_FEE_RECIPIENTS): required on mainnet since the 2026-04-28 upgrade; the router's
   * swap builder always sets it. Off, the instruction is exactly the IDL's account list.
   */
  withRemainingAccounts?: boolean;
  /** which buyback fee recipient to pay (one of Global.buybackFeeRecipients, see pumpFunBuybackFeeRecipient; default PUMP_BUYBACK_FEE_RECIPIENTS[0]) */
  buybackFeeRecipient?: string;
}

/**
 * pump.fun trades native SOL (lamports of the wallet), not wrapped SOL. SOL → token: ExactIn is
 * buy_exact_sol_in(spendable_sol_in, min_tokens_out), ExactOut is buy(amount, max_sol_cost);
 * token → SOL is sell(amount, min_sol_output) (the caller passes the token amount as `amount`).
 * `withRemainingAccounts` appends what the program takes after the IDL's accounts (a cashback
 * coin's user volume accumulator on a sell, bonding-curve-v2, a buyback fee recipient).
 */
export function pumpFunSwap(a: PumpFunSwapArgs): TransactionInstruction {
  const curveAddress = pumpBondingCurveAddress(a.mint);
  const buy = a.inputMint !== a.mint;
  const common = [
    r(pumpGlobalAddress()),
    w(a.feeRecipient),
    r(a.mint),
    w(curveAddress),
    w(associatedTokenAddress(curveAddress, a.mint, a.tokenProgram)),
    w(a.userTokenAccount),
    sw(a.wallet),
    r(PROGRAM_IDS.system),
  ];
  const creatorVault = w(pumpCreatorVaultAddress(a.curve.creator));
  const event = [r(pumpFunEventAuthority()), r(PROGRAM_IDS.pumpFun)];
  const fees = [r(pumpFeeConfigAddress(PROGRAM_IDS.pumpFun)), r(PUMP_FEES_PROGRAM_ID)];
  // remaining accounts: bonding-curve-v2 and the buyback fee recipient (a sell of a cashback coin
  // first takes the user volume accumulator, which receives the cashback)
  const tail = a.withRemainingAccounts ? [r(pumpFunBondingCurveV2(a.mint)), w(a.buybackFeeRecipient ?? PUMP_BUYBACK_FEE_RECIPIENTS[0])] : [];
  if (!buy) {
    const data = new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpSell).u64(a.amount, 'amount').u64(a.threshold, 'min_sol_output').done();
    const cashback = a.withRemainingAccounts && a.curve.isCashbackCoin ? [w(pumpFunUserVolumeAccumulator(a.wallet))] : [];
    return instruction(PROGRAM_IDS.pumpFun, [...common, creatorVault, r(a.tokenProgram), ...event, ...fees, ...cashback, ...tail], data);
  }
  const data =
    a.mode === 'ExactIn'
      ? new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpFunBuyExactSolIn).u64(a.amount, 'spendable_sol_in').u64(a.threshold, 'min_tokens_out').bool(false).done()
      : new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpBuy).u64(a.amount, 'amount').u64(a.threshold, 'max_sol_cost').bool(false).done();
  return instruction(
    PROGRAM_IDS.pumpFun,
    [...common, r(a.tokenProgram), creatorVault, ...event, r(pumpFunGlobalVolumeAccumulator()), w(pumpFunUserVolumeAccumulator(a.wallet)), ...fees, ...tail],
    data,
  );
}
