/**
 * The compute-unit model: what each instruction of a swap transaction costs on chain, following
 * the work the program will do. The swap builder sums it into the transaction's unit limit and
 * the sim chain charges the same figures, so a simulated swap's consumption is this estimate.
 * Pure: no Nest, no IO. A swap instruction's units are its venue's (venues/*.writer.ts
 * `swapUnits`, through venues/venue-writers.ts); the instructions around the swaps are here.
 *
 * Calibrated on the real programs (LiteSVM with the binaries of ../shared/programs, consumption
 * per top-level instruction from the program logs), as upper bounds of what was measured:
 * - Associated Token CreateIdempotent: 14,000 plus 1,500 per bump the program's address search
 *   tries before the ATA's (measured 13.4k at bump 255, 38.9k at bump 238), 4,000 more under
 *   Token-2022; charged in full whether or not the account exists;
 * - SyncNative 201 and CloseAccount 118 measured (charged 300), System transfer and Compute
 *   Budget 150.
 */
import { PublicKey } from '@solana/web3.js';
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

/** CreateIdempotent of `owner`'s ATA of `mint`: the program searches the address from bump 255 down */
export function ataCreateUnits(owner: string, mint: string, tokenProgram: string): number {
  const [, bump] = PublicKey.findProgramAddressSync(
    [new PublicKey(owner).toBuffer(), new PublicKey(tokenProgram).toBuffer(), new PublicKey(mint).toBuffer()],
    new PublicKey(PROGRAM_IDS.associatedToken),
  );
  return ATA.base + ATA.perBump * (255 - bump) + (tokenProgram === PROGRAM_IDS.token2022 ? ATA.token2022 : 0);
}
