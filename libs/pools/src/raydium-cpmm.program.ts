/**
 * Raydium CPMM in the program registry: PoolState accounts are pools; each depends on its
 * AmmConfig, both vault token accounts and both mints.
 */
import type { Pool } from '@app/amm';
import { CpmmPool, cpmmPoolDependencies } from '@app/amm';
import type { EpochTransferFee } from '@app/amm';
import { AccountDecodeError } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import {
  cpmmAccountType,
  decodeCpmmAmmConfig,
  decodeCpmmPoolState,
  decodeCpmmPoolStateKeysFrom,
  type CpmmAmmConfig,
  type CpmmPoolState,
} from '@app/solana';
import type { TokenAccount } from '@app/solana';
import { mintWithTransferFee, PoolIncomplete, previousDecode, tokenAccount } from './account-decoders';
import type { AccountView, BuildResult, Venue, Unroutable } from './program-registry';

export { mintAccount, tokenAccount } from './account-decoders';

/**
 * PoolState, decoded once per content. Delta path: when the discriminator and the ten public keys
 * (bytes 0..328) are unchanged since the previous write (every swap: only fees owed, status and
 * epoch move), the keys are reused and only the scalar tail is read
 * (decodeCpmmPoolStateKeysFrom); the full decoder runs otherwise. A spec checks both agree.
 */
export const CPMM_KEYS_END = 328;
export function poolState(a: AccountView): CpmmPoolState {
  return a.memo('cpmm:PoolState', decodePoolState);
}

function decodePoolState(x: AccountView): CpmmPoolState {
  const p = previousDecode<CpmmPoolState>(x, 'cpmm:PoolState');
  if (p && x.data.length === p.prev.data.length && x.data.compare(p.prev.data, 0, CPMM_KEYS_END, 0, CPMM_KEYS_END) === 0) {
    return decodeCpmmPoolStateKeysFrom(p.value, p.prev.data, x.data, x.address);
  }
  return decodeCpmmPoolState(x.data, x.owner, x.address);
}

const decodeAmmConfig = (x: AccountView): CpmmAmmConfig => decodeCpmmAmmConfig(x.data, x.owner, x.address);
const ammConfig = (a: AccountView): CpmmAmmConfig => a.memo('cpmm:AmmConfig', decodeAmmConfig);

function reasonOf(e: unknown): string {
  if (e instanceof AccountDecodeError) return e.message;
  throw e;
}

function unroutable(reason: string, state: CpmmPoolState): Unroutable {
  return { unroutable: reason, mintA: state.token0Mint, mintB: state.token1Mint };
}

/** the vault's token account, or why it cannot be used */
function vaultOf(get: (address: string) => AccountView | undefined, vault: string, mint: string, side: string): TokenAccount | string {
  const acc = get(vault);
  if (!acc) return `missing ${side} vault account ${vault}`;
  let t: TokenAccount;
  try {
    t = tokenAccount(acc);
  } catch (e) {
    return `undecodable ${side} vault: ${reasonOf(e)}`;
  }
  if (t.mint !== mint) return `${side} vault ${vault} holds mint ${t.mint}, expected ${mint}`;
  return t;
}

/** the mint's transfer fee in force at `slot` (null: none), or why the mint cannot be used */
function transferFeeOf(get: (address: string) => AccountView | undefined, mint: string, what: string, slot: number): EpochTransferFee | null | string {
  try {
    return mintWithTransferFee(get, mint, what, slot).transferFee;
  } catch (e) {
    if (e instanceof PoolIncomplete) return e.message;
    throw e;
  }
}

export const raydiumCpmmVenue: Venue = {
  programId: PROGRAM_IDS.raydiumCpmm,
  label: 'Raydium CPMM',
  kind: 'constant-product',
  poolAccountKind: 'PoolState',

  accountKind(data: Buffer): string | null {
    return cpmmAccountType(data);
  },

  poolDependencies(_poolAddress: string, pool: AccountView): string[] {
    return cpmmPoolDependencies(poolState(pool));
  },

  buildPool(poolAddress: string, get: (address: string) => AccountView | undefined, slot: number): BuildResult {
    const poolAcc = get(poolAddress);
    if (!poolAcc) return { unroutable: `pool account ${poolAddress} is missing` };
    let state: CpmmPoolState;
    try {
      state = poolState(poolAcc);
    } catch (e) {
      return { unroutable: `undecodable pool account: ${reasonOf(e)}` };
    }
    // checked in this order, the first failure is the reason: AmmConfig present, vaults (present,
    // decodable, holding their mint), mints (present, decodable, transfer fee), AmmConfig decodable
    const cfgAcc = get(state.ammConfig);
    if (!cfgAcc) return unroutable(`missing AmmConfig account ${state.ammConfig}`, state);
    const vault0 = vaultOf(get, state.token0Vault, state.token0Mint, 'token0');
    if (typeof vault0 === 'string') return unroutable(vault0, state);
    const vault1 = vaultOf(get, state.token1Vault, state.token1Mint, 'token1');
    if (typeof vault1 === 'string') return unroutable(vault1, state);
    const fee0 = transferFeeOf(get, state.token0Mint, 'token0 mint', slot);
    if (typeof fee0 === 'string') return unroutable(fee0, state);
    const fee1 = transferFeeOf(get, state.token1Mint, 'token1 mint', slot);
    if (typeof fee1 === 'string') return unroutable(fee1, state);
    let config: CpmmAmmConfig;
    try {
      config = ammConfig(cfgAcc);
    } catch (e) {
      return unroutable(`undecodable AmmConfig: ${reasonOf(e)}`, state);
    }
    const pool = new CpmmPool({ address: poolAddress, state, config, vault0Amount: vault0.amount, vault1Amount: vault1.amount, slot, transferFee0: fee0, transferFee1: fee1 });
    if (pool.notQuotable !== null) return unroutable(`not quotable: ${pool.notQuotable}`, state);
    if (pool.reserve0 === 0n || pool.reserve1 === 0n) return unroutable('empty pool (a reserve is zero)', state);
    return pool as Pool;
  },
};
