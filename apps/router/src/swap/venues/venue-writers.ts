/**
 * The venue writers: the one table of what the router writes per liquidity program, keyed by
 * the registry's venue ids (the program ids of libs/pools `VENUES`). The swap builder, the
 * compute-unit model, the sim chain and the slippage reading of the chain gateways look a program
 * up here; test/venues.contract.spec.ts holds the table and the registry to the same venues.
 */
import type { SlippageErrors, SwapWork, VenueWriter, ProgramError } from './venue-writer';
import { orcaWhirlpoolWriter } from './orca-whirlpool.writer';
import { pumpAmmWriter } from './pump-amm.writer';
import { pumpFunWriter } from './pump-fun.writer';
import { raydiumAmmV4Writer } from './raydium-amm-v4.writer';
import { raydiumClmmWriter } from './raydium-clmm.writer';
import { raydiumCpmmWriter } from './raydium-cpmm.writer';

export const VENUE_WRITERS: readonly VenueWriter[] = [raydiumCpmmWriter, raydiumAmmV4Writer, raydiumClmmWriter, orcaWhirlpoolWriter, pumpAmmWriter, pumpFunWriter];

const BY_PROGRAM = new Map(VENUE_WRITERS.map((w) => [w.programId, w]));

/** the writer of a venue (by its program id); undefined for a program the router does not write */
export function venueWriter(programId: string): VenueWriter | undefined {
  return BY_PROGRAM.get(programId);
}

/** units charged for a swap of a program without a writer (none is built or executed) */
const UNKNOWN_SWAP_UNITS = 150_000;

/** One swap instruction's compute units: its venue's model. */
export function swapUnits(w: SwapWork): number {
  return venueWriter(w.pool.programId)?.swapUnits(w) ?? UNKNOWN_SWAP_UNITS;
}

/** every error a venue's bound checks raise (each pair once) */
export function slippageErrorsOf(s: SlippageErrors): ProgramError[] {
  const all = [s.minOut, s.maxIn, ...(s.sellMinOut ? [s.sellMinOut] : []), ...(s.related ?? [])];
  return all.filter((e, i) => all.findIndex((x) => x[0] === e[0]) === i);
}
