/**
 * Raydium CPMM as the router writes it: swap_base_input / swap_base_output.
 * Compute units (calibrated on the program binary of ../shared/programs under LiteSVM, upper
 * bounds of what was measured): 34,000 exact input, 34,500 exact output (measured 32.3k–33.5k),
 * 6,000 more per Token-2022 side (its transfer_checked).
 * Slippage: one error for both bounds, 6005 ExceededSlippage.
 */
import { CpmmPool } from '@app/amm';
import { PROGRAM_IDS, raydiumCpmmSwap, SWAP_DISCRIMINATORS } from '@app/solana';
import { poolAs, type VenueWriter } from './venue-writer';

const UNITS = { exactIn: 34_000, exactOut: 34_500, perToken2022Side: 6_000 };

export const raydiumCpmmWriter: VenueWriter = {
  programId: PROGRAM_IDS.raydiumCpmm,
  nativeSol: false,
  slippage: { minOut: [6005, 'ExceededSlippage'], maxIn: [6005, 'ExceededSlippage'] },

  hopInstruction(h) {
    const pool = poolAs(h.pool, CpmmPool);
    const user = { wallet: h.wallet, source: h.source, destination: h.destination };
    return raydiumCpmmSwap({ pool: pool.address, state: pool.state, inputMint: h.inputMint, mode: h.mode, amount: h.amount, threshold: h.bound, user });
  },

  swapUnits(w) {
    return (w.mode === 'ExactIn' ? UNITS.exactIn : UNITS.exactOut) + UNITS.perToken2022Side * w.token2022Sides;
  },

  readSwap(d, _count, acc) {
    const exactIn = d.subarray(0, 8).equals(SWAP_DISCRIMINATORS.cpmmSwapBaseInput);
    if (!exactIn && !d.subarray(0, 8).equals(SWAP_DISCRIMINATORS.cpmmSwapBaseOutput)) throw new Error('InstructionFallbackNotFound');
    const [pool, user, source, destination] = [acc(3), acc(0), acc(4), acc(5)];
    const [amount, bound] = exactIn ? [d.readBigUInt64LE(8), d.readBigUInt64LE(16)] : [d.readBigUInt64LE(16), d.readBigUInt64LE(8)];
    return { form: 'hop', pool, user, source, destination, exactIn, amount, bound, inputMint: null, sell: false };
  },
};
