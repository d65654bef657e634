/**
 * PumpSwap AMM in the program registry: Pool accounts (Anchor discriminator) are pools. A pool
 * depends on the GlobalConfig, PumpSwap's FeeConfig (pump fees program; the fee tiers), both pool
 * token accounts (the reserves) and both mints (the base mint's supply picks the market-cap fee
 * tier; Token-2022 transfer fees). Any of them missing or undecodable makes it unroutable.
 */
import type { Pool } from '@app/amm';
import { PumpAmmPool } from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import {
  PUMP_AMM_GLOBAL_CONFIG_DISCRIMINATOR,
  PUMP_AMM_POOL_DISCRIMINATOR,
  decodePumpAmmGlobalConfig,
  decodePumpAmmPool,
  isCanonicalPumpPool,
  pumpAmmGlobalConfigAddress,
  type PumpAmmGlobalConfig,
  type PumpAmmPoolState,
} from '@app/solana';
import { decodePumpFeeConfig, pumpFeeConfigAddress, type PumpFeeConfig } from '@app/solana';
import { building, decodeAs, mintWithTransferFee, need, routableOrReason, vaultAccount } from './account-decoders';
import type { AccountView, BuildResult, Venue } from './program-registry';

export const pumpAmmPool = (a: AccountView): PumpAmmPoolState => a.memo('pumpamm:Pool', (x) => decodePumpAmmPool(x.data, x.owner, x.address));
const globalConfig = (a: AccountView): PumpAmmGlobalConfig => a.memo('pumpamm:GlobalConfig', (x) => decodePumpAmmGlobalConfig(x.data, x.owner, x.address));
export const pumpFeeConfig = (a: AccountView): PumpFeeConfig => a.memo('pump:FeeConfig', (x) => decodePumpFeeConfig(x.data, x.owner, x.address));

let globalConfigAddress: string | undefined;
let feeConfigAddress: string | undefined;
/** the two shared accounts (PDAs derived once) */
export function pumpAmmSharedAccounts(): { globalConfig: string; feeConfig: string } {
  globalConfigAddress ??= pumpAmmGlobalConfigAddress();
  feeConfigAddress ??= pumpFeeConfigAddress(PROGRAM_IDS.pumpSwapAmm);
  return { globalConfig: globalConfigAddress, feeConfig: feeConfigAddress };
}

/** isCanonicalPumpPool is a PDA search: cached per (creator, base mint) */
const canonicalCache = new Map<string, boolean>();
function canonical(pool: PumpAmmPoolState): boolean {
  const k = `${pool.creator}:${pool.baseMint}`;
  let v = canonicalCache.get(k);
  if (v === undefined) {
    v = isCanonicalPumpPool(pool);
    if (canonicalCache.size > 100_000) canonicalCache.clear();
    canonicalCache.set(k, v);
  }
  return v;
}

export const pumpAmmVenue: Venue = {
  programId: PROGRAM_IDS.pumpSwapAmm,
  label: 'PumpSwap',
  kind: 'constant-product',
  poolAccountKind: 'Pool',

  accountKind(data: Buffer): string | null {
    if (data.length < 8) return null;
    if (data.compare(PUMP_AMM_POOL_DISCRIMINATOR, 0, 8, 0, 8) === 0) return 'Pool';
    if (data.compare(PUMP_AMM_GLOBAL_CONFIG_DISCRIMINATOR, 0, 8, 0, 8) === 0) return 'GlobalConfig';
    return null;
  },

  poolDependencies(_poolAddress: string, pool: AccountView): string[] {
    const p = pumpAmmPool(pool);
    const shared = pumpAmmSharedAccounts();
    return [shared.globalConfig, shared.feeConfig, p.poolBaseTokenAccount, p.poolQuoteTokenAccount, p.baseMint, p.quoteMint];
  },

  buildPool(poolAddress: string, get: (address: string) => AccountView | undefined, slot: number): BuildResult {
    const mints: { mintA?: string; mintB?: string } = {};
    return building(mints, () => {
      const p = decodeAs(need(get, poolAddress, 'pool'), 'pool account', pumpAmmPool);
      mints.mintA = p.baseMint;
      mints.mintB = p.quoteMint;
      const shared = pumpAmmSharedAccounts();
      const global = decodeAs(need(get, shared.globalConfig, 'GlobalConfig'), 'GlobalConfig', globalConfig);
      const feeConfig = decodeAs(need(get, shared.feeConfig, 'PumpSwap FeeConfig'), 'PumpSwap FeeConfig', pumpFeeConfig);
      const base = vaultAccount(get, p.poolBaseTokenAccount, p.baseMint, 'pool base token account');
      const quote = vaultAccount(get, p.poolQuoteTokenAccount, p.quoteMint, 'pool quote token account');
      const baseMint = mintWithTransferFee(get, p.baseMint, 'base mint', slot);
      const quoteMint = mintWithTransferFee(get, p.quoteMint, 'quote mint', slot);
      if (base.amount === 0n || quote.amount === 0n) return { unroutable: 'empty pool (a reserve is zero)', ...mints };
      const pool = new PumpAmmPool({
        address: poolAddress,
        pool: p,
        globalConfig: global,
        feeConfig,
        baseVaultAmount: base.amount,
        quoteVaultAmount: quote.amount,
        baseMintSupply: baseMint.mint.supply,
        slot,
        canonical: canonical(p),
        transferFeeA: baseMint.transferFee,
        transferFeeB: quoteMint.transferFee,
      });
      const r = routableOrReason(pool);
      return r === pool ? (pool as Pool) : r;
    });
  },
};
