/**
 * Hand-built Raydium CPMM accounts for end-to-end suites: a pool between two fresh mints that
 * nothing else trades (an "island"), with its mints and vaults, as pool-updates records.
 */
import type { PoolUpdate } from '@app/contracts';
import { PROGRAM_IDS } from '@app/solana';
import { cpmmAuthority, encodeCpmmPoolState, type CpmmPoolState } from '@app/solana';
import { encodeMint, encodeTokenAccount } from '@app/solana';

/** a 6-decimal SPL mint */
export function testMint(slot: number, address: string): PoolUpdate {
  return {
    slot,
    address,
    owner: PROGRAM_IDS.token,
    lamports: 1_461_600n,
    data: encodeMint({ mintAuthority: null, supply: 10n ** 15n, decimals: 6, isInitialized: true, freezeAuthority: null }),
    source: 'test',
  };
}

/** a CPMM vault of `mint` holding 10^12 units */
export function testVault(slot: number, address: string, mint: string): PoolUpdate {
  return {
    slot,
    address,
    owner: PROGRAM_IDS.token,
    lamports: 2_039_280n,
    data: encodeTokenAccount({
      mint,
      owner: cpmmAuthority(),
      amount: 1_000_000_000_000n,
      delegate: null,
      state: 'initialized',
      isNative: null,
      delegatedAmount: 0n,
      closeAuthority: null,
    }),
    source: 'test',
  };
}

/** a CPMM PoolState copied from `template`, trading mintX / mintY (6 decimals) through v0 / v1, no fees owed */
export function testCpmmPool(slot: number, address: string, template: CpmmPoolState, mintX: string, mintY: string, v0: string, v1: string): PoolUpdate {
  return {
    slot,
    address,
    owner: PROGRAM_IDS.raydiumCpmm,
    lamports: 5_324_400n,
    data: encodeCpmmPoolState({
      ...template,
      protocolFeesToken0: 0n,
      protocolFeesToken1: 0n,
      fundFeesToken0: 0n,
      fundFeesToken1: 0n,
      creatorFeesToken0: 0n,
      creatorFeesToken1: 0n,
      status: 0,
      token0Mint: mintX,
      token1Mint: mintY,
      token0Vault: v0,
      token1Vault: v1,
      mint0Decimals: 6,
      mint1Decimals: 6,
    }),
    source: 'test',
  };
}
