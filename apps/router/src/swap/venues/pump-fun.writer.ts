/**
 * pump.fun as the router writes it: a bonding curve trading native SOL lamports (no wrapped SOL):
 * buy (exact token output, maximum SOL cost), buy_exact_sol_in (exact SOL input, minimum token
 * output) and sell (exact token input, minimum SOL output; a sell of an ExactOut route pays its
 * quoted input and requires the exact output as its minimum), with the accounts the program
 * takes after its IDL's list since the 2026-04-28 upgrade (bonding-curve-v2, a buyback fee
 * recipient of the Global account, the program's default set when the Global lists none,
 * cashback accumulator).
 * Compute units: no program binary here; a flat 90,000 from its transaction logs on mainnet,
 * with headroom.
 * Slippage: 6042 BuySlippageBelowMinTokensOut (buy_exact_sol_in), 6002 TooMuchSolRequired (buy),
 * 6003 TooLittleSolReceived (sell).
 */
import { PumpFunCurve } from '@app/amm';
import { associatedTokenAddress, MINTS, PROGRAM_IDS, pumpFunBondingCurveV2, pumpFunBuybackFeeRecipient, pumpFunSwap, pumpFunUserVolumeAccumulator, SWAP_DISCRIMINATORS } from '@app/solana';
import { checkRemainingAccounts } from './pump-remaining-accounts';
import { poolAs, sellAwareAmounts, type VenueWriter } from './venue-writer';

const UNITS = 90_000;
/** accounts of the IDL's buy (and buy_exact_sol_in) / sell */
const IDL_ACCOUNTS = { buy: 16, sell: 14 };

export const pumpFunWriter: VenueWriter = {
  programId: PROGRAM_IDS.pumpFun,
  nativeSol: true,
  slippage: { minOut: [6042, 'BuySlippageBelowMinTokensOut'], maxIn: [6002, 'TooMuchSolRequired'], sellMinOut: [6003, 'TooLittleSolReceived'] },

  hopInstruction(h) {
    const pool = poolAs(h.pool, PumpFunCurve);
    const mint = pool.mintA;
    const sell = h.inputMint === mint;
    const [amount, threshold] = sellAwareAmounts(h, sell);
    const tokenProgram = h.tokenProgramOf(mint);
    return pumpFunSwap({
      mint,
      curve: pool.curve,
      feeRecipient: pool.global.feeRecipient,
      tokenProgram,
      inputMint: h.inputMint,
      mode: h.mode,
      amount,
      threshold,
      wallet: h.wallet,
      userTokenAccount: associatedTokenAddress(h.wallet, mint, tokenProgram),
      withRemainingAccounts: true,
      buybackFeeRecipient: pumpFunBuybackFeeRecipient(pool.global),
    });
  },

  swapUnits() {
    return UNITS;
  },

  readSwap(d, _count, acc) {
    const [pool, user] = [acc(3), acc(6)];
    const coinAccount = acc(5);
    const disc = d.subarray(0, 8);
    let side: [string | null, string | null, boolean, string | null];
    if (disc.equals(SWAP_DISCRIMINATORS.pumpSell)) side = [coinAccount, null, true, null];
    else if (disc.equals(SWAP_DISCRIMINATORS.pumpFunBuyExactSolIn)) side = [null, coinAccount, true, MINTS.SOL];
    else if (disc.equals(SWAP_DISCRIMINATORS.pumpBuy)) side = [null, coinAccount, false, MINTS.SOL];
    else throw new Error('InstructionFallbackNotFound');
    const [source, destination, exactIn, inputMint] = side;
    const sell = disc.equals(SWAP_DISCRIMINATORS.pumpSell);
    return { form: 'hop', pool, user, source, destination, exactIn, amount: d.readBigUInt64LE(8), bound: d.readBigUInt64LE(16), inputMint, sell };
  },

  /** [the user volume accumulator of a cashback coin's sell], bonding-curve-v2, a buyback fee recipient */
  checkSwapAccounts(p, swap, count, acc) {
    const curve = poolAs(p, PumpFunCurve);
    const seeded = [...(swap.sell && curve.curve.isCashbackCoin ? [pumpFunUserVolumeAccumulator(acc(6))] : []), pumpFunBondingCurveV2(acc(2))];
    checkRemainingAccounts({ start: IDL_ACCOUNTS[swap.sell ? 'sell' : 'buy'], seeded, listed: curve.global.buybackFeeRecipients ?? [], quote: null, errors: [6062, 6057] }, count, acc);
  },
};
