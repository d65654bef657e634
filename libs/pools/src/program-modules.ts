/**
 * The liquidity programs the router understands, as the modules the projection materialises
 * their pools with.
 */
import type { ProgramModule } from './program-registry';
import { orcaWhirlpoolModule } from './orca-whirlpool.program';
import { pumpAmmModule } from './pump-amm.program';
import { pumpFunModule } from './pump-fun.program';
import { raydiumAmmV4Module } from './raydium-amm-v4.program';
import { raydiumClmmModule } from './raydium-clmm.program';
import { raydiumCpmmModule } from './raydium-cpmm.program';

/** Every liquidity program the router understands. */
export const DEFAULT_PROGRAM_MODULES: readonly ProgramModule[] = [
  raydiumCpmmModule,
  raydiumAmmV4Module,
  raydiumClmmModule,
  orcaWhirlpoolModule,
  pumpAmmModule,
  pumpFunModule,
];
