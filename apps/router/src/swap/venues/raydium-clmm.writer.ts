/**
 * Raydium CLMM as the router writes it: swap_v2 over the first three initialized tick arrays
 * the swap may walk (found through the pool's bitmaps), with the bitmap extension when it exists.
 * Compute units: no program binary here; a flat 150,000 from its transaction logs on mainnet,
 * with headroom.
 * Slippage: swap_v2's other_amount_threshold raises 6022 TooLittleOutputReceived / 6023
 * TooMuchInputPaid; 6021 PriceSlippageCheck (the price limit) is read as slippage too.
 */
import { ClmmPool, initializedTickArraysFrom, prepareBitmaps } from '@app/amm';
import { clmmBitmapExtensionAddress, clmmTickArrayAddress, PROGRAM_IDS, raydiumClmmSwapV2, SWAP_DISCRIMINATORS } from '@app/solana';
import { MissingPoolDataError } from '../build-errors';
import { poolAs, type VenueWriter } from './venue-writer';

const UNITS = 150_000;

export const raydiumClmmWriter: VenueWriter = {
  programId: PROGRAM_IDS.raydiumClmm,
  nativeSol: false,
  slippage: { minOut: [6022, 'TooLittleOutputReceived'], maxIn: [6023, 'TooMuchInputPaid'], related: [[6021, 'PriceSlippageCheck']] },

  hopInstruction(h) {
    const pool = poolAs(h.pool, ClmmPool);
    const st = pool.state;
    const zeroForOne = h.inputMint === st.tokenMint0;
    const bitmaps = prepareBitmaps(st.tickSpacing, st.tickArrayBitmap, pool.extension);
    const starts = initializedTickArraysFrom(bitmaps, st.tickCurrent, zeroForOne, 3);
    if (starts.length === 0) throw new MissingPoolDataError(`no initialized tick array found for CLMM pool ${pool.address}`);
    return raydiumClmmSwapV2({
      pool: pool.address,
      state: st,
      inputMint: h.inputMint,
      mode: h.mode,
      amount: h.amount,
      threshold: h.bound,
      user: { wallet: h.wallet, source: h.source, destination: h.destination },
      tickArrays: starts.map((x) => clmmTickArrayAddress(pool.address, x)),
      withBitmapExtension: h.account(clmmBitmapExtensionAddress(pool.address)) !== undefined,
    });
  },

  swapUnits() {
    return UNITS;
  },

  readSwap(d, _count, acc) {
    // swap_v2 has Orca's discriminator (Anchor's sighash of the same name)
    if (!d.subarray(0, 8).equals(SWAP_DISCRIMINATORS.whirlpoolSwapV2)) throw new Error('InstructionFallbackNotFound');
    const amount = d.readBigUInt64LE(8);
    const bound = d.readBigUInt64LE(16);
    const exactIn = d[40] === 1;
    const [pool, user, source, destination] = [acc(2), acc(0), acc(3), acc(4)];
    return { form: 'hop', pool, user, source, destination, exactIn, amount, bound, inputMint: null, sell: false };
  },
};
