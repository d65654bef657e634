/**
 * The compute-unit model: what each instruction of a swap transaction costs on chain, following
 * the work the program will do. The swap builder sums it into the transaction's unit limit and
 * the sim chain charges the same figures, so a simulated swap's consumption is this estimate.
 * Pure: no Nest, no IO.
 *
 * Calibrated on the real programs (LiteSVM with the binaries of ../shared/programs, consumption
 * per top-level instruction from the program logs), as upper bounds of what was measured:
 * - Orca Whirlpool swap_v2: 59,000 when the swap moves A→B for an exact input or B→A for an exact
 *   output, else 55,500 (measured 47k–58.3k and 42.6k–54.5k over 800 swaps of two markets), plus 9,000 per initialized tick crossed (up to
 *   8k measured) and 3,000 per further tick array the swap enters, both taken from the exact
 *   quote's own walk; 6,000 more per Token-2022 side (its transfer_checked);
 * - Raydium CPMM: 34,000 exact input, 34,500 exact output (measured 32.3k–33.5k);
 * - Raydium AMM v4 swap_base_in_v2 / swap_base_out_v2: 17,500 (measured 16.2k–16.9k);
 * - Associated Token CreateIdempotent: 14,000 plus 1,500 per bump the program's address search
 *   tries before the ATA's (measured 13.4k at bump 255, 38.9k at bump 238), 4,000 more under
 *   Token-2022; charged in full whether or not the account exists;
 * - SyncNative 201 and CloseAccount 118 measured (charged 300), System transfer and Compute
 *   Budget 150.
 * Raydium CLMM, PumpSwap and pump.fun (no binary here) keep flat estimates from their transaction
 * logs on mainnet, with headroom.
 */
import { PublicKey } from '@solana/web3.js';
import type { Pool } from '@app/amm';
import { WhirlpoolPool } from '@app/amm';
import { tickArrayStartIndex } from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';

/** a transaction may ask for this many compute units at most */
export const MAX_COMPUTE_UNITS = 1_400_000;

export const INSTRUCTION_UNITS = {
  computeBudget: 150,
  systemTransfer: 150,
  syncNative: 300,
  closeAccount: 300,
  transferChecked: 6_500,
} as const;

const ATA = { base: 14_000, perBump: 1_500, token2022: 4_000 };

const WHIRLPOOL = { forward: 59_000, reverse: 55_500, perTickCrossed: 9_000, perTickArray: 3_000, perToken2022Side: 6_000 };
const TICKS_PER_ARRAY = 88;

const FLAT_SWAP_UNITS: Readonly<Record<string, { exactIn: number; exactOut: number }>> = {
  [PROGRAM_IDS.raydiumCpmm]: { exactIn: 34_000, exactOut: 34_500 },
  [PROGRAM_IDS.raydiumAmmV4]: { exactIn: 17_500, exactOut: 17_500 },
  [PROGRAM_IDS.raydiumClmm]: { exactIn: 150_000, exactOut: 150_000 },
  [PROGRAM_IDS.pumpSwapAmm]: { exactIn: 100_000, exactOut: 100_000 },
  [PROGRAM_IDS.pumpFun]: { exactIn: 90_000, exactOut: 90_000 },
};
/** Raydium CPMM's transfer_checked under Token-2022, per side */
const CPMM_TOKEN2022_SIDE = 6_000;

/** CreateIdempotent of `owner`'s ATA of `mint`: the program searches the address from bump 255 down */
export function ataCreateUnits(owner: string, mint: string, tokenProgram: string): number {
  const [, bump] = PublicKey.findProgramAddressSync(
    [new PublicKey(owner).toBuffer(), new PublicKey(tokenProgram).toBuffer(), new PublicKey(mint).toBuffer()],
    new PublicKey(PROGRAM_IDS.associatedToken),
  );
  return ATA.base + ATA.perBump * (255 - bump) + (tokenProgram === PROGRAM_IDS.token2022 ? ATA.token2022 : 0);
}

export interface SwapWork {
  pool: Pool;
  inputMint: string;
  mode: 'ExactIn' | 'ExactOut';
  /** the instruction's specified amount (ExactIn: input, ExactOut: output) */
  amount: bigint;
  /** how many of the pool's two mints are Token-2022 mints */
  token2022Sides: number;
}

/** One swap instruction's units. A Whirlpool swap the quote cannot walk is charged the most a transaction may use. */
export function swapUnits(w: SwapWork): number {
  const exactIn = w.mode === 'ExactIn';
  if (w.pool instanceof WhirlpoolPool) {
    const wp = w.pool.whirlpool;
    const aToB = w.inputMint === wp.tokenMintA;
    let walk;
    try {
      walk = w.pool.swap(w.inputMint, w.mode, w.amount, 0n, false);
    } catch {
      return MAX_COMPUTE_UNITS;
    }
    const span = TICKS_PER_ARRAY * wp.tickSpacing;
    const arrays = Math.abs(tickArrayStartIndex(walk.nextTickIndex, wp.tickSpacing) - tickArrayStartIndex(wp.tickCurrentIndex, wp.tickSpacing)) / span;
    return (
      (aToB === exactIn ? WHIRLPOOL.forward : WHIRLPOOL.reverse) +
      WHIRLPOOL.perTickCrossed * walk.crossedTicks.length +
      WHIRLPOOL.perTickArray * arrays +
      WHIRLPOOL.perToken2022Side * w.token2022Sides
    );
  }
  const flat = FLAT_SWAP_UNITS[w.pool.programId] ?? { exactIn: 150_000, exactOut: 150_000 };
  const t22 = w.pool.programId === PROGRAM_IDS.raydiumCpmm ? CPMM_TOKEN2022_SIDE * w.token2022Sides : 0;
  return (exactIn ? flat.exactIn : flat.exactOut) + t22;
}
