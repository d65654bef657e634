/**
 * What every swap instruction builder shares: the instruction discriminators of the Anchor
 * programs, the swap direction, the user's side of a swap, and the sqrt price limit (with the
 * bounds it stands for) the two concentrated-liquidity builders send.
 */
import { anchorIxDiscriminator } from './common';

export const SWAP_DISCRIMINATORS = {
  cpmmSwapBaseInput: anchorIxDiscriminator('swap_base_input'),
  cpmmSwapBaseOutput: anchorIxDiscriminator('swap_base_output'),
  whirlpoolSwap: anchorIxDiscriminator('swap'),
  whirlpoolSwapV2: anchorIxDiscriminator('swap_v2'),
  whirlpoolTwoHopSwapV2: anchorIxDiscriminator('two_hop_swap_v2'),
  clmmSwapV2: anchorIxDiscriminator('swap_v2'),
  pumpBuy: anchorIxDiscriminator('buy'),
  pumpSell: anchorIxDiscriminator('sell'),
  pumpAmmBuyExactQuoteIn: anchorIxDiscriminator('buy_exact_quote_in'),
  pumpFunBuyExactSolIn: anchorIxDiscriminator('buy_exact_sol_in'),
} as const;

/**
 * The sqrt price limit both concentrated-liquidity builders send: 0, "no explicit limit". The
 * programs read it as the end of the price range in the swap's direction (Whirlpool: MIN / MAX
 * sqrt price, swap_manager.rs; CLMM: MIN + 1 / MAX - 1, swap_v2.rs) and, unlike an explicit
 * limit at those same bounds, then reject a partial fill: the Whirlpool with PartialFillError for
 * an exact-output swap, the CLMM by requiring the whole specified amount in both modes. The
 * official SDKs' swaps send 0 as well.
 */
export const NO_EXPLICIT_SQRT_PRICE_LIMIT = 0n;

/** Orca Whirlpool / Raydium CLMM price bounds (Q64.64): what a limit of 0 stands for. */
export const WHIRLPOOL_MIN_SQRT_PRICE = 4295048016n;
export const WHIRLPOOL_MAX_SQRT_PRICE = 79226673515401279992447579055n;
export const CLMM_MIN_SQRT_PRICE_X64 = 4295048016n;
export const CLMM_MAX_SQRT_PRICE_X64 = 79226673521066979257578248091n;

export type SwapDirection = 'ExactIn' | 'ExactOut';

/** The user's side of a swap: the signing wallet and its token accounts. */
export interface SwapUser {
  wallet: string;
  /** token account paying the input */
  source: string;
  /** token account receiving the output */
  destination: string;
}
