/**
 * Raydium AMM v4 in the program registry. The program is not Anchor: an AmmInfo is recognised by
 * its exact size (752 bytes) under the program; the decoder checks status and state values. A pool
 * depends on its coin and pc vaults (reserves = balances minus the pnl owed) and both mints.
 * Any of them missing or undecodable, or a vault holding another mint, makes it unroutable.
 */
import type { Pool } from '@app/amm';
import { AmmV4Pool, ammV4Dependencies } from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import { AMM_V4_INFO_SIZE, decodeAmmV4Info, type AmmV4Info } from '@app/solana';
import { building, decodeAs, mintWithTransferFee, need, PoolIncomplete, routableOrReason, vaultAccount } from './account-decoders';
import type { AccountView, BuildResult, Venue } from './program-registry';

export const ammV4Info = (a: AccountView): AmmV4Info => a.memo('ammv4:AmmInfo', (x) => decodeAmmV4Info(x.data, x.owner, x.address));

export const raydiumAmmV4Venue: Venue = {
  programId: PROGRAM_IDS.raydiumAmmV4,
  label: 'Raydium AMM v4',
  kind: 'constant-product',
  poolAccountKind: 'AmmInfo',

  accountKind(data: Buffer): string | null {
    return data.length === AMM_V4_INFO_SIZE ? 'AmmInfo' : null;
  },

  poolDependencies(_poolAddress: string, pool: AccountView): string[] {
    return ammV4Dependencies(ammV4Info(pool));
  },

  buildPool(poolAddress: string, get: (address: string) => AccountView | undefined, slot: number): BuildResult {
    const mints: { mintA?: string; mintB?: string } = {};
    return building(mints, () => {
      const info = decodeAs(need(get, poolAddress, 'pool'), 'pool account', ammV4Info);
      mints.mintA = info.coinVaultMint;
      mints.mintB = info.pcVaultMint;
      const coin = vaultAccount(get, info.coinVault, info.coinVaultMint, 'coin vault');
      const pc = vaultAccount(get, info.pcVault, info.pcVaultMint, 'pc vault');
      for (const [mint, what] of [
        [info.coinVaultMint, 'coin mint'],
        [info.pcVaultMint, 'pc mint'],
      ] as const) {
        // AMM v4 moves tokens with the original Token program: a transfer fee cannot apply
        if (mintWithTransferFee(get, mint, what, slot).transferFee !== null) {
          throw new PoolIncomplete(`${what} ${mint} has a Token-2022 transfer fee, which AMM v4 does not support`);
        }
      }
      const pool = new AmmV4Pool({ address: poolAddress, info, coinVaultAmount: coin.amount, pcVaultAmount: pc.amount, slot });
      const r = routableOrReason(pool);
      if (r !== pool) return r;
      if (pool.coinReserve === 0n || pool.pcReserve === 0n) return { unroutable: 'empty pool (a reserve is zero)', ...mints };
      return pool as Pool;
    });
  },
};
