/**
 * Raydium CLMM in the program registry: PoolState accounts are pools. A pool depends on its
 * AmmConfig, its TickArrayBitmapExtension (tick spacing < 15: the pool's own bitmap does not cover
 * the whole tick range), the initialized tick arrays around the current tick found through the
 * pool bitmap and the extension (CLMM_DEFAULT_ARRAYS_PER_SIDE each way), and both mints.
 *
 * Completeness: every one of those accounts must be present and decodable, or the pool is
 * unroutable with the reason. The bitmaps say which arrays exist on chain, so a listed array that
 * is absent is an incomplete projection, never "an empty array". A swap that runs past the loaded
 * arrays is refused by ClmmPool ('not-quotable').
 */
import type { Pool } from '@app/amm';
import { ClmmPool, clmmTickArrayStartIndexes } from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import {
  CLMM_POOL_STATE_DISCRIMINATOR,
  clmmAccountType,
  clmmBitmapExtensionAddress,
  clmmTickArrayAddress,
  decodeClmmAmmConfig,
  decodeClmmPoolState,
  decodeClmmTickArrayBitmapExtension,
  decodeClmmTickArrayState,
  type ClmmAmmConfig,
  type ClmmPoolState,
  type ClmmTickArrayBitmapExtension,
  type ClmmTickArrayState,
} from '@app/solana';
import { building, decodeAs, mintWithTransferFee, need, PoolIncomplete, routableOrReason } from './account-decoders';
import type { AccountLookup, AccountView, BuildResult, Venue } from './program-registry';

export const clmmPoolState = (a: AccountView): ClmmPoolState => a.memo('clmm:PoolState', (x) => decodeClmmPoolState(x.data, x.owner, x.address));
const ammConfig = (a: AccountView): ClmmAmmConfig => a.memo('clmm:AmmConfig', (x) => decodeClmmAmmConfig(x.data, x.owner, x.address));
const extensionAccount = (a: AccountView): ClmmTickArrayBitmapExtension =>
  a.memo('clmm:TickArrayBitmapExtension', (x) => decodeClmmTickArrayBitmapExtension(x.data, x.owner, x.address));
export const clmmTickArray = (a: AccountView): ClmmTickArrayState => a.memo('clmm:TickArrayState', (x) => decodeClmmTickArrayState(x.data, x.owner, x.address));

/** below this tick spacing the pool bitmap does not cover the tick range: the extension is needed */
const EXTENSION_BELOW_SPACING = 15;

const extensionAddressCache = new Map<string, string>();
function extensionAddress(pool: string): string {
  let v = extensionAddressCache.get(pool);
  if (v === undefined) {
    v = clmmBitmapExtensionAddress(pool);
    if (extensionAddressCache.size > 100_000) extensionAddressCache.clear();
    extensionAddressCache.set(pool, v);
  }
  return v;
}

/** the decoded extension when it is present and decodes (for listing dependencies only) */
function extensionIfAny(poolAddress: string, get: ((address: string) => AccountView | undefined) | undefined): ClmmTickArrayBitmapExtension | null {
  const acc = get?.(extensionAddress(poolAddress));
  if (!acc) return null;
  try {
    return extensionAccount(acc);
  } catch {
    return null;
  }
}

export const raydiumClmmVenue: Venue = {
  programId: PROGRAM_IDS.raydiumClmm,
  label: 'Raydium CLMM',
  kind: 'concentrated-liquidity',
  poolAccountKind: 'PoolState',

  accountKind(data: Buffer): string | null {
    if (data.length >= 8 && data.compare(CLMM_POOL_STATE_DISCRIMINATOR, 0, 8, 0, 8) === 0) return 'PoolState';
    return clmmAccountType(data);
  },

  poolDependencies(poolAddress: string, pool: AccountView, lookup?: AccountLookup): string[] {
    const state = clmmPoolState(pool);
    // as clmmDependencies, with the extension PDA cached (it is derived on every re-materialisation)
    const out = [state.ammConfig];
    let ext: ClmmTickArrayBitmapExtension | null = null;
    if (state.tickSpacing < EXTENSION_BELOW_SPACING) {
      out.push(extensionAddress(poolAddress));
      ext = extensionIfAny(poolAddress, lookup?.get);
    }
    for (const start of clmmTickArrayStartIndexes(state, ext)) out.push(clmmTickArrayAddress(poolAddress, start));
    out.push(state.tokenMint0, state.tokenMint1);
    return out;
  },

  buildPool(poolAddress: string, get: (address: string) => AccountView | undefined, slot: number): BuildResult {
    const mints: { mintA?: string; mintB?: string } = {};
    return building(mints, () => {
      const state = decodeAs(need(get, poolAddress, 'pool'), 'pool account', clmmPoolState);
      mints.mintA = state.tokenMint0;
      mints.mintB = state.tokenMint1;
      const config = decodeAs(need(get, state.ammConfig, 'AmmConfig'), 'AmmConfig', ammConfig);
      let extension: ClmmTickArrayBitmapExtension | null = null;
      if (state.tickSpacing < EXTENSION_BELOW_SPACING) {
        extension = decodeAs(need(get, extensionAddress(poolAddress), 'TickArrayBitmapExtension'), 'TickArrayBitmapExtension', extensionAccount);
        if (extension.poolId !== poolAddress) throw new PoolIncomplete(`TickArrayBitmapExtension belongs to pool ${extension.poolId}`);
      }
      const t0 = mintWithTransferFee(get, state.tokenMint0, 'token0 mint', slot);
      const t1 = mintWithTransferFee(get, state.tokenMint1, 'token1 mint', slot);
      const tickArrays: ClmmTickArrayState[] = [];
      for (const start of clmmTickArrayStartIndexes(state, extension)) {
        const address = clmmTickArrayAddress(poolAddress, start);
        const what = `tick array ${address} (start ${start})`;
        const ta = decodeAs(need(get, address, `initialized tick array (start ${start})`), what, clmmTickArray);
        if (ta.poolId !== poolAddress) throw new PoolIncomplete(`${what} belongs to pool ${ta.poolId}`);
        if (ta.startTickIndex !== start) throw new PoolIncomplete(`${what} starts at ${ta.startTickIndex}`);
        tickArrays.push(ta);
      }
      if (tickArrays.length === 0 && state.liquidity === 0n) return { unroutable: 'no liquidity: no initialized tick array', ...mints };
      const pool = new ClmmPool({
        address: poolAddress,
        state,
        config,
        extension,
        tickArrays,
        slot,
        transferFeeA: t0.transferFee,
        transferFeeB: t1.transferFee,
      });
      const r = routableOrReason(pool);
      return r === pool ? (pool as Pool) : r;
    });
  },
};
