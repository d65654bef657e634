/**
 * Raydium CPMM in the program registry: PoolState accounts are pools; each depends on its
 * AmmConfig, both vault token accounts and both mints.
 */
import type { Pool } from '../../../../libs/amm/src/pool';
import { CpmmPool, cpmmPoolDependencies } from '../../../../libs/amm/src/programs/raydium-cpmm/pool';
import { AccountDecodeError } from '../../../../libs/solana/src/decode-error';
import { PROGRAM_IDS } from '../../../../libs/solana/src/programs';
import {
  cpmmAccountType,
  decodeCpmmAmmConfig,
  decodeCpmmPoolState,
  type CpmmAmmConfig,
  type CpmmPoolState,
} from '../../../../libs/solana/src/raydium-cpmm';
import type { TokenAccount } from '../../../../libs/solana/src/spl-token';
import { mintWithTransferFee, PoolIncomplete, previousDecode, tokenAccount } from './account-decoders';
import type { AccountView, BuildResult, ProgramModule } from './program-registry';

export { mintAccount, tokenAccount } from './account-decoders';

/**
 * PoolState, decoded once per content. Delta path: when the discriminator and the ten public keys
 * (bytes 0..328) are unchanged since the previous write (every swap: only fees owed, status and
 * epoch move), the keys are reused and only the scalar tail is read (offsets as documented in
 * libs/solana/src/raydium-cpmm.ts); the full decoder runs otherwise. A spec checks both agree.
 */
export const CPMM_KEYS_END = 328;
export function poolState(a: AccountView): CpmmPoolState {
  return a.memo('cpmm:PoolState', (x) => {
    const p = previousDecode<CpmmPoolState>(x, 'cpmm:PoolState');
    if (p && x.data.length === p.prev.data.length && x.data.compare(p.prev.data, 0, CPMM_KEYS_END, 0, CPMM_KEYS_END) === 0) {
      const d = x.data;
      if (d[390] > 1) return decodeCpmmPoolState(d, x.owner, x.address); // let the decoder report it
      return {
        ...p.value,
        authBump: d[328],
        status: d[329],
        lpMintDecimals: d[330],
        mint0Decimals: d[331],
        mint1Decimals: d[332],
        lpSupply: d.readBigUInt64LE(333),
        protocolFeesToken0: d.readBigUInt64LE(341),
        protocolFeesToken1: d.readBigUInt64LE(349),
        fundFeesToken0: d.readBigUInt64LE(357),
        fundFeesToken1: d.readBigUInt64LE(365),
        openTime: d.readBigUInt64LE(373),
        recentEpoch: d.readBigUInt64LE(381),
        creatorFeeOn: d[389],
        enableCreatorFee: d[390] === 1,
        creatorFeesToken0: d.readBigUInt64LE(397),
        creatorFeesToken1: d.readBigUInt64LE(405),
      };
    }
    return decodeCpmmPoolState(x.data, x.owner, x.address);
  });
}

const ammConfig = (a: AccountView): CpmmAmmConfig => a.memo('cpmm:AmmConfig', (x) => decodeCpmmAmmConfig(x.data, x.owner, x.address));

function reasonOf(e: unknown): string {
  if (e instanceof AccountDecodeError) return e.message;
  throw e;
}

export const raydiumCpmmModule: ProgramModule = {
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
    const mints = { mintA: state.token0Mint, mintB: state.token1Mint };
    const need = (address: string, what: string): AccountView | string => get(address) ?? `missing ${what} account ${address}`;

    const cfgAcc = need(state.ammConfig, 'AmmConfig');
    if (typeof cfgAcc === 'string') return { unroutable: cfgAcc, ...mints };
    const vaults: TokenAccount[] = [];
    for (const [vault, mint, side] of [
      [state.token0Vault, state.token0Mint, 'token0'],
      [state.token1Vault, state.token1Mint, 'token1'],
    ] as const) {
      const acc = need(vault, `${side} vault`);
      if (typeof acc === 'string') return { unroutable: acc, ...mints };
      let t: TokenAccount;
      try {
        t = tokenAccount(acc);
      } catch (e) {
        return { unroutable: `undecodable ${side} vault: ${reasonOf(e)}`, ...mints };
      }
      if (t.mint !== mint) return { unroutable: `${side} vault ${vault} holds mint ${t.mint}, expected ${mint}`, ...mints };
      vaults.push(t);
    }
    const transferFees: ReturnType<typeof mintWithTransferFee>['transferFee'][] = [];
    for (const [mint, side] of [
      [state.token0Mint, 'token0'],
      [state.token1Mint, 'token1'],
    ] as const) {
      try {
        transferFees.push(mintWithTransferFee(get, mint, `${side} mint`, slot).transferFee);
      } catch (e) {
        if (e instanceof PoolIncomplete) return { unroutable: e.message, ...mints };
        throw e;
      }
    }
    let config: CpmmAmmConfig;
    try {
      config = ammConfig(cfgAcc);
    } catch (e) {
      return { unroutable: `undecodable AmmConfig: ${reasonOf(e)}`, ...mints };
    }
    const pool = new CpmmPool({ address: poolAddress, state, config, vault0Amount: vaults[0].amount, vault1Amount: vaults[1].amount, slot, transferFee0: transferFees[0], transferFee1: transferFees[1] });
    if (pool.notQuotable !== null) return { unroutable: `not quotable: ${pool.notQuotable}`, ...mints };
    if (pool.reserve0 === 0n || pool.reserve1 === 0n) return { unroutable: 'empty pool (a reserve is zero)', ...mints };
    return pool as Pool;
  },
};
