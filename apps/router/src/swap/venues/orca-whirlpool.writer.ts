/**
 * Orca Whirlpool as the router writes it: swap_v2 for one hop (two_hop_swap_v2 for a path of two
 * Whirlpool hops is whirlpool-two-hop.ts; the sim chain reads both here).
 * Compute units (calibrated on the program binary of ../shared/programs under LiteSVM, upper
 * bounds of what was measured): 59,000 when the swap moves A→B for an exact input or B→A for an
 * exact output, else 55,500 (measured 47k–58.3k and 42.6k–54.5k over 800 swaps of two markets),
 * plus 9,000 per initialized tick crossed (up to 8k measured) and 3,000 per further tick array the
 * swap enters, both taken from the exact quote's own walk; 6,000 more per Token-2022 side (its
 * transfer_checked). A swap the quote cannot walk is charged the most a transaction may use.
 * Slippage: 6036 AmountOutBelowMinimum, 6037 AmountInAboveMaximum.
 */
import { tickArrayStartIndex, WhirlpoolPool } from '@app/amm';
import { orcaWhirlpoolSwapV2, PROGRAM_IDS, SWAP_DISCRIMINATORS, whirlpoolOracleAddress } from '@app/solana';
import { MAX_COMPUTE_UNITS } from '../compute-units';
import { whirlpoolSwapTickArrays } from '../whirlpool-two-hop';
import { poolAs, type VenueWriter } from './venue-writer';

const UNITS = { forward: 59_000, reverse: 55_500, perTickCrossed: 9_000, perTickArray: 3_000, perToken2022Side: 6_000 };
const TICKS_PER_ARRAY = 88;

export const orcaWhirlpoolWriter: VenueWriter = {
  programId: PROGRAM_IDS.orcaWhirlpool,
  nativeSol: false,
  slippage: { minOut: [6036, 'AmountOutBelowMinimum'], maxIn: [6037, 'AmountInAboveMaximum'] },

  hopInstruction(h) {
    const pool = poolAs(h.pool, WhirlpoolPool);
    const wp = pool.whirlpool;
    const aToB = h.inputMint === wp.tokenMintA;
    return orcaWhirlpoolSwapV2({
      pool: pool.address,
      whirlpool: wp,
      inputMint: h.inputMint,
      mode: h.mode,
      amount: h.amount,
      threshold: h.bound,
      user: { wallet: h.wallet, source: h.source, destination: h.destination },
      tokenProgramA: h.tokenProgramOf(wp.tokenMintA),
      tokenProgramB: h.tokenProgramOf(wp.tokenMintB),
      tickArrays: whirlpoolSwapTickArrays(pool, aToB),
      oracle: whirlpoolOracleAddress(pool.address),
    });
  },

  swapUnits(w) {
    const pool = poolAs(w.pool, WhirlpoolPool);
    const wp = pool.whirlpool;
    const aToB = w.inputMint === wp.tokenMintA;
    let walk;
    try {
      walk = pool.swap(w.inputMint, w.mode, w.amount, 0n, false);
    } catch {
      return MAX_COMPUTE_UNITS;
    }
    const span = TICKS_PER_ARRAY * wp.tickSpacing;
    const arrays = Math.abs(tickArrayStartIndex(walk.nextTickIndex, wp.tickSpacing) - tickArrayStartIndex(wp.tickCurrentIndex, wp.tickSpacing)) / span;
    return (
      (aToB === (w.mode === 'ExactIn') ? UNITS.forward : UNITS.reverse) +
      UNITS.perTickCrossed * walk.crossedTicks.length +
      UNITS.perTickArray * arrays +
      UNITS.perToken2022Side * w.token2022Sides
    );
  },

  readSwap(d, _count, acc) {
    const disc = d.subarray(0, 8);
    if (disc.equals(SWAP_DISCRIMINATORS.whirlpoolTwoHopSwapV2)) {
      const [one, two, inputMint, midMint, outputMint, source, destination, user] = [0, 1, 2, 3, 4, 8, 13, 14].map(acc);
      return { form: 'two-hop', pools: [one, two], inputMint, midMint, outputMint, source, destination, user, amount: d.readBigUInt64LE(8), bound: d.readBigUInt64LE(16), exactIn: d[24] === 1 };
    }
    if (!disc.equals(SWAP_DISCRIMINATORS.whirlpoolSwapV2)) throw new Error('InstructionFallbackNotFound');
    const amount = d.readBigUInt64LE(8);
    const bound = d.readBigUInt64LE(16);
    const exactIn = d[40] === 1;
    const aToB = d[41] === 1;
    const [pool, user] = [acc(4), acc(3)];
    const [source, destination] = aToB ? [acc(7), acc(9)] : [acc(9), acc(7)];
    return { form: 'hop', pool, user, source, destination, exactIn, amount, bound, inputMint: aToB ? acc(5) : acc(6), sell: false };
  },
};
