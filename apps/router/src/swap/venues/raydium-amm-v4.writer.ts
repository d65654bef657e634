/**
 * Raydium AMM v4 as the router writes it: swap_base_in_v2 / swap_base_out_v2 (no OpenBook market
 * account to read or pass); the sim chain also reads the OpenBook forms swap_base_in / out.
 * Compute units (calibrated on the program binary of ../shared/programs under LiteSVM): 17,500
 * either way (measured 16.2k–16.9k).
 * Slippage: one error for both bounds, 30 ExceededSlippage; and InsufficientFunds (40) on an
 * exact-output swap, which the program raises before its slippage check when the input the pool
 * asks for exceeds what the user's account holds: a wallet holding exactly the maximum input (as
 * /swap's wrapped SOL does) meets a pool that moved against it there. The two cannot be told apart
 * from the error, so such a failure reports both insufficientFunds and slippageExceeded.
 */
import { AmmV4Pool } from '@app/amm';
import { AMM_V4_TAG, PROGRAM_IDS, raydiumAmmV4SwapV2 } from '@app/solana';
import { poolAs, type VenueWriter } from './venue-writer';

/** AMM v4's InsufficientFunds (error.rs): the user's source account holds less than the swap takes */
export const AMM_V4_INSUFFICIENT_FUNDS = 40;
const EXACT_OUT_TAGS: readonly number[] = [AMM_V4_TAG.swapBaseOut, AMM_V4_TAG.swapBaseOutV2];
const UNITS = 17_500;

export const raydiumAmmV4Writer: VenueWriter = {
  programId: PROGRAM_IDS.raydiumAmmV4,
  nativeSol: false,
  slippage: {
    minOut: [30, 'ExceededSlippage'],
    maxIn: [30, 'ExceededSlippage'],
    ambiguous: { error: [AMM_V4_INSUFFICIENT_FUNDS, 'InsufficientFunds'], when: (data) => EXACT_OUT_TAGS.includes(data[0]) },
  },

  hopInstruction(h) {
    const pool = poolAs(h.pool, AmmV4Pool);
    const user = { wallet: h.wallet, source: h.source, destination: h.destination };
    return raydiumAmmV4SwapV2({ pool: pool.address, info: pool.info, inputMint: h.inputMint, mode: h.mode, amount: h.amount, threshold: h.bound, user });
  },

  swapUnits() {
    return UNITS;
  },

  readSwap(d, n, acc) {
    // tag 9 / 11 (17 or 18 accounts) and their OpenBook-free forms 16 / 17 (8 accounts): the user's three accounts come last in both
    const exactIn = d[0] === AMM_V4_TAG.swapBaseIn || d[0] === AMM_V4_TAG.swapBaseInV2;
    if (!exactIn && d[0] !== AMM_V4_TAG.swapBaseOut && d[0] !== AMM_V4_TAG.swapBaseOutV2) throw new Error('InvalidInstruction');
    const [pool, source, destination, user] = [acc(1), acc(n - 3), acc(n - 2), acc(n - 1)];
    const [amount, bound] = exactIn ? [d.readBigUInt64LE(1), d.readBigUInt64LE(9)] : [d.readBigUInt64LE(9), d.readBigUInt64LE(1)];
    return { form: 'hop', pool, user, source, destination, exactIn, amount, bound, inputMint: null, sell: false };
  },
};
