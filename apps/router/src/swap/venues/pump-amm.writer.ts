/**
 * PumpSwap (pump-amm) as the router writes it: buy (exact base output, maximum quote input),
 * buy_exact_quote_in (exact quote input, minimum base output) and sell (exact base input,
 * minimum quote output; a sell of an ExactOut route pays its quoted input and requires the
 * exact output as its minimum), with the accounts the program takes after its IDL's list since
 * the 2026-04-28 upgrade (cashback, pool-v2, buyback fee recipient): the chain rejects a swap
 * without them.
 * Compute units: no program binary here; a flat 100,000 from its transaction logs on mainnet,
 * with headroom.
 * Slippage: 6040 BuySlippageBelowMinBaseAmountOut (buy_exact_quote_in), 6004 ExceededSlippage
 * (buy's maximum input and sell's minimum output).
 */
import { PumpAmmPool } from '@app/amm';
import { associatedTokenAddress, PROGRAM_IDS, pumpAmmPoolV2, pumpAmmSwap, pumpAmmUserVolumeAccumulator, SWAP_DISCRIMINATORS } from '@app/solana';
import { checkRemainingAccounts } from './pump-remaining-accounts';
import { poolAs, sellAwareAmounts, type VenueWriter } from './venue-writer';

const UNITS = 100_000;
/** accounts of the IDL's buy (and buy_exact_quote_in) / sell */
const IDL_ACCOUNTS = { buy: 23, sell: 21 };

export const pumpAmmWriter: VenueWriter = {
  programId: PROGRAM_IDS.pumpSwapAmm,
  nativeSol: false,
  slippage: { minOut: [6040, 'BuySlippageBelowMinBaseAmountOut'], maxIn: [6004, 'ExceededSlippage'], sellMinOut: [6004, 'ExceededSlippage'] },

  hopInstruction(h) {
    const pool = poolAs(h.pool, PumpAmmPool);
    const st = pool.pool;
    const sell = h.inputMint === st.baseMint;
    const [amount, threshold] = sellAwareAmounts(h, sell);
    return pumpAmmSwap({
      pool: pool.address,
      state: st,
      globalConfig: pool.globalConfig,
      inputMint: h.inputMint,
      mode: h.mode,
      amount,
      threshold,
      user: { wallet: h.wallet, source: h.source, destination: h.destination },
      baseTokenProgram: h.tokenProgramOf(st.baseMint),
      quoteTokenProgram: h.tokenProgramOf(st.quoteMint),
      withRemainingAccounts: true,
    });
  },

  swapUnits() {
    return UNITS;
  },

  readSwap(d, _count, acc) {
    const [pool, user] = [acc(0), acc(1)];
    const [base, quote] = [acc(5), acc(6)];
    const disc = d.subarray(0, 8);
    let side: [string, string, boolean];
    if (disc.equals(SWAP_DISCRIMINATORS.pumpSell)) side = [base, quote, true];
    else if (disc.equals(SWAP_DISCRIMINATORS.pumpAmmBuyExactQuoteIn)) side = [quote, base, true];
    else if (disc.equals(SWAP_DISCRIMINATORS.pumpBuy)) side = [quote, base, false];
    else throw new Error('InstructionFallbackNotFound');
    const [source, destination, exactIn] = side;
    const sell = disc.equals(SWAP_DISCRIMINATORS.pumpSell);
    return { form: 'hop', pool, user, source, destination, exactIn, amount: d.readBigUInt64LE(8), bound: d.readBigUInt64LE(16), inputMint: null, sell };
  },

  /** [a cashback coin's user volume accumulator quote account, for a sell also the accumulator], [pool-v2 of a pool with a coin creator], buyback fee recipient, its quote account */
  checkSwapAccounts(p, swap, count, acc) {
    const pool = poolAs(p, PumpAmmPool);
    const st = pool.pool;
    const program = acc(12);
    const uva = pumpAmmUserVolumeAccumulator(acc(1));
    const seeded = [
      ...(st.isCashbackCoin ? [associatedTokenAddress(uva, st.quoteMint, program), ...(swap.sell ? [uva] : [])] : []),
      ...(st.coinCreator !== PROGRAM_IDS.system ? [pumpAmmPoolV2(st.baseMint)] : []),
    ];
    const listed = pool.globalConfig.buybackFeeRecipients ?? [];
    checkRemainingAccounts({ start: IDL_ACCOUNTS[swap.sell ? 'sell' : 'buy'], seeded, listed, quote: { mint: st.quoteMint, program }, errors: [6058, 6053] }, count, acc);
  },
};
