/**
 * The liquidity programs the router understands, as the venues the projection materialises
 * their pools with.
 */
import type { Venue } from './program-registry';
import { orcaWhirlpoolVenue } from './orca-whirlpool.program';
import { pumpAmmVenue } from './pump-amm.program';
import { pumpFunVenue } from './pump-fun.program';
import { raydiumAmmV4Venue } from './raydium-amm-v4.program';
import { raydiumClmmVenue } from './raydium-clmm.program';
import { raydiumCpmmVenue } from './raydium-cpmm.program';

/** Every liquidity program the router understands. */
export const VENUES: readonly Venue[] = [
  raydiumCpmmVenue,
  raydiumAmmV4Venue,
  raydiumClmmVenue,
  orcaWhirlpoolVenue,
  pumpAmmVenue,
  pumpFunVenue,
];
