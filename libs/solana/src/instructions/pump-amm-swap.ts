/**
 * PumpSwap AMM swap instructions: buy, buy_exact_quote_in and sell, with the remaining accounts
 * the program takes after the IDL's (cashback accounts, pool-v2, buyback fee recipient).
 */
import type { TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../programs';
import type { PumpAmmGlobalConfig, PumpAmmPoolState } from '../pump-amm';
import { pumpAmmCoinCreatorVaultAuthority, pumpAmmGlobalConfigAddress } from '../pump-amm';
import { PUMP_FEES_PROGRAM_ID, pumpFeeConfigAddress } from '../pump-fun';
import { ArgWriter, associatedTokenAddress, instruction, r, sw, w } from './common';
import {
  pumpAmmBuybackFeeRecipient,
  pumpAmmEventAuthority,
  pumpAmmGlobalVolumeAccumulator,
  pumpAmmPoolV2,
  pumpAmmProtocolFeeRecipient,
  pumpAmmUserVolumeAccumulator,
} from './pump-accounts';
import { SWAP_DISCRIMINATORS, type SwapDirection, type SwapUser } from './swap-basics';

export interface PumpAmmSwapArgs {
  pool: string;
  state: PumpAmmPoolState;
  globalConfig: PumpAmmGlobalConfig;
  /** base in (sell) or quote in (buy) */
  inputMint: string;
  mode: SwapDirection;
  amount: bigint;
  threshold: bigint;
  /** user.source / destination: the user's token accounts of the input / output mint */
  user: SwapUser;
  baseTokenProgram: string;
  quoteTokenProgram: string;
  /**
   * which protocol fee recipient to pay (default the first non-default one of
   * GlobalConfig.protocolFeeRecipients, or of [reservedFeeRecipient, ...reservedFeeRecipients]
   * for a mayhem-mode pool, as the program requires)
   */
  protocolFeeRecipient?: string;
  /**
   * Append the remaining accounts the program takes after the IDL's accounts (see
   * PUMP_BUYBACK_FEE_RECIPIENTS): required on mainnet since the 2026-04-28 upgrade; the router's
   * swap builder always sets it. Off, the instruction is exactly the IDL's account list.
   */
  withRemainingAccounts?: boolean;
  /** which buyback fee recipient to pay (default the first non-default of GlobalConfig.buybackFeeRecipients, else of PUMP_BUYBACK_FEE_RECIPIENTS) */
  buybackFeeRecipient?: string;
}

/**
 * PumpSwap: quote in → base out is a buy (ExactOut: buy(base_amount_out, max_quote_amount_in);
 * ExactIn: buy_exact_quote_in(spendable_quote_in, min_base_amount_out)); base in → quote out is a
 * sell(base_amount_in, min_quote_amount_out) (for ExactOut the caller passes the base amount the
 * quote needs as `amount` with mode ExactIn semantics: sell has no exact-output form).
 * `withRemainingAccounts` appends what the program takes after the IDL's accounts (cashback
 * accounts, pool-v2, buyback fee recipient and its quote ATA; see PUMP_BUYBACK_FEE_RECIPIENTS).
 */
export function pumpAmmSwap(a: PumpAmmSwapArgs): TransactionInstruction {
  const st = a.state;
  const buy = a.inputMint === st.quoteMint;
  if (!buy && a.inputMint !== st.baseMint) throw new Error(`mint ${a.inputMint} is not in PumpSwap pool ${a.pool}`);
  const gc = a.globalConfig;
  const recipient = a.protocolFeeRecipient ?? pumpAmmProtocolFeeRecipient(gc, st.isMayhemMode);
  if (recipient === undefined) throw new Error(`PumpSwap GlobalConfig has no ${st.isMayhemMode ? 'reserved (mayhem) ' : ''}protocol fee recipient`);
  const buyback = a.buybackFeeRecipient ?? pumpAmmBuybackFeeRecipient(gc);
  const [userBase, userQuote] = buy ? [a.user.destination, a.user.source] : [a.user.source, a.user.destination];
  const creatorAuthority = pumpAmmCoinCreatorVaultAuthority(st.coinCreator);
  const head = [
    w(a.pool),
    sw(a.user.wallet),
    r(pumpAmmGlobalConfigAddress()),
    r(st.baseMint),
    r(st.quoteMint),
    w(userBase),
    w(userQuote),
    w(st.poolBaseTokenAccount),
    w(st.poolQuoteTokenAccount),
    r(recipient),
    w(associatedTokenAddress(recipient, st.quoteMint, a.quoteTokenProgram)),
    r(a.baseTokenProgram),
    r(a.quoteTokenProgram),
    r(PROGRAM_IDS.system),
    r(PROGRAM_IDS.associatedToken),
    r(pumpAmmEventAuthority()),
    r(PROGRAM_IDS.pumpSwapAmm),
    w(associatedTokenAddress(creatorAuthority, st.quoteMint, a.quoteTokenProgram)),
    r(creatorAuthority),
  ];
  const fees = [r(pumpFeeConfigAddress(PROGRAM_IDS.pumpSwapAmm)), r(PUMP_FEES_PROGRAM_ID)];
  // remaining accounts, in the program's order: the cashback accounts of a cashback coin (its
  // user volume accumulator's quote ATA; for a sell also the accumulator), pool-v2 when the pool
  // has a coin creator, the buyback fee recipient and its quote ATA
  const uva = pumpAmmUserVolumeAccumulator(a.user.wallet);
  const cashback = st.isCashbackCoin ? [w(associatedTokenAddress(uva, st.quoteMint, a.quoteTokenProgram)), ...(buy ? [] : [w(uva)])] : [];
  const tail = a.withRemainingAccounts
    ? [
        ...cashback,
        ...(st.coinCreator !== PROGRAM_IDS.system ? [r(pumpAmmPoolV2(st.baseMint))] : []),
        r(buyback),
        w(associatedTokenAddress(buyback, st.quoteMint, a.quoteTokenProgram)),
      ]
    : [];
  if (!buy) {
    const data = new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpSell).u64(a.amount, 'base_amount_in').u64(a.threshold, 'min_quote_amount_out').done();
    return instruction(PROGRAM_IDS.pumpSwapAmm, [...head, ...fees, ...tail], data);
  }
  const data =
    a.mode === 'ExactIn'
      ? new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpAmmBuyExactQuoteIn).u64(a.amount, 'spendable_quote_in').u64(a.threshold, 'min_base_amount_out').bool(false).done()
      : new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpBuy).u64(a.amount, 'base_amount_out').u64(a.threshold, 'max_quote_amount_in').bool(false).done();
  return instruction(
    PROGRAM_IDS.pumpSwapAmm,
    [...head, r(pumpAmmGlobalVolumeAccumulator()), w(uva), ...fees, ...tail],
    data,
  );
}
