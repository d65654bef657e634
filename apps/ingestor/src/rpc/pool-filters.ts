/**
 * How each of the six programs' pool accounts are found over RPC: the getProgramAccounts /
 * programSubscribe filters of the pool account type (Anchor discriminator memcmp at 0, plus the
 * account size where it is fixed), and the offsets of the two mints in the pool account, for
 * INGEST_MINTS (one memcmp per mint and side). pump.fun curves do not store their mint: with
 * INGEST_MINTS the curve of a mint is its PDA ["bonding-curve", mint], read by address.
 */
import type { GetProgramAccountsFilter } from '@solana/web3.js';
import type { IngestProgram as IngestProgramName } from '@app/config';
import { base58Encode } from '@app/solana';
import { WHIRLPOOL_DISCRIMINATORS, WHIRLPOOL_SIZE } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import { PUMP_AMM_POOL_DISCRIMINATOR } from '@app/solana';
import { PUMP_BONDING_CURVE_DISCRIMINATOR } from '@app/solana';
import { CLMM_POOL_STATE_DISCRIMINATOR, CLMM_POOL_STATE_SIZE } from '@app/solana';
import { CPMM_POOL_STATE_DISCRIMINATOR, CPMM_POOL_STATE_SIZE } from '@app/solana';

/** the program names of INGEST_PROGRAMS (the simulated market's names) */
export { INGEST_PROGRAMS as INGEST_PROGRAM_NAMES } from '@app/config';
export type { IngestProgram as IngestProgramName } from '@app/config';

export interface PoolAccountFilter {
  name: IngestProgramName;
  programId: string;
  /** filters selecting the program's pool accounts */
  filters: GetProgramAccountsFilter[];
  /** offsets of the pool's two mints (null: the account does not store them) */
  mintOffsets: readonly [number, number] | null;
}

/** Raydium AMM v4 AmmInfo has no discriminator: its size, 752 bytes */
const AMM_V4_INFO_SIZE = 752;

const disc = (d: Buffer): GetProgramAccountsFilter => ({ memcmp: { offset: 0, bytes: base58Encode(d) } });

export const POOL_ACCOUNT_FILTERS: Record<IngestProgramName, PoolAccountFilter> = {
  'raydium-cpmm': {
    name: 'raydium-cpmm',
    programId: PROGRAM_IDS.raydiumCpmm,
    filters: [{ dataSize: CPMM_POOL_STATE_SIZE }, disc(CPMM_POOL_STATE_DISCRIMINATOR)],
    mintOffsets: [168, 200],
  },
  'orca-whirlpool': {
    name: 'orca-whirlpool',
    programId: PROGRAM_IDS.orcaWhirlpool,
    filters: [{ dataSize: WHIRLPOOL_SIZE }, disc(WHIRLPOOL_DISCRIMINATORS.Whirlpool)],
    mintOffsets: [101, 181],
  },
  'raydium-clmm': {
    name: 'raydium-clmm',
    programId: PROGRAM_IDS.raydiumClmm,
    filters: [{ dataSize: CLMM_POOL_STATE_SIZE }, disc(CLMM_POOL_STATE_DISCRIMINATOR)],
    mintOffsets: [73, 105],
  },
  'raydium-amm-v4': {
    name: 'raydium-amm-v4',
    programId: PROGRAM_IDS.raydiumAmmV4,
    filters: [{ dataSize: AMM_V4_INFO_SIZE }],
    mintOffsets: [400, 432],
  },
  // PumpSwap pools and pump.fun curves grew over program upgrades: the discriminator only
  'pump-amm': {
    name: 'pump-amm',
    programId: PROGRAM_IDS.pumpSwapAmm,
    filters: [disc(PUMP_AMM_POOL_DISCRIMINATOR)],
    mintOffsets: [43, 75],
  },
  'pump-fun': {
    name: 'pump-fun',
    programId: PROGRAM_IDS.pumpFun,
    filters: [disc(PUMP_BONDING_CURVE_DISCRIMINATOR)],
    mintOffsets: null,
  },
};

/** the filter lists that find the pools of `p` holding one of `mints` (one per mint and side) */
export function mintScopedFilters(p: PoolAccountFilter, mints: readonly string[]): GetProgramAccountsFilter[][] {
  if (p.mintOffsets === null) return [];
  const out: GetProgramAccountsFilter[][] = [];
  for (const mint of mints) for (const offset of p.mintOffsets) out.push([...p.filters, { memcmp: { offset, bytes: mint } }]);
  return out;
}

export function programNameOf(programId: string): IngestProgramName | undefined {
  for (const p of Object.values(POOL_ACCOUNT_FILTERS)) if (p.programId === programId) return p.name;
  return undefined;
}
