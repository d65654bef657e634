/**
 * pump.fun in the program registry: BondingCurve accounts are pools (token / SOL). A curve depends
 * on the Global account, pump.fun's FeeConfig (pump fees program; fees tiered by market cap), and
 * its token mint.
 *
 * The curve account does not store its mint. The mint is found through the curve's own token
 * account (a token account whose owner is the curve; the venue tracks them) and proven by the
 * PDA: the curve must be ["bonding-curve", mint]. No such token account yet, a missing Global /
 * FeeConfig / mint, or an undecodable one: unroutable with the reason. A `complete` curve does not
 * trade (its token moved to PumpSwap): unroutable.
 */
import type { Pool } from '@app/amm';
import { PumpFunCurve } from '@app/amm';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import {
  PUMP_BONDING_CURVE_DISCRIMINATOR,
  decodePumpBondingCurve,
  decodePumpGlobal,
  pumpBondingCurveAddress,
  pumpFeeConfigAddress,
  pumpFunAccountType,
  pumpGlobalAddress,
  type PumpBondingCurve,
  type PumpGlobal,
} from '@app/solana';
import { building, decodeAs, mintWithTransferFee, need, PoolIncomplete, routableOrReason, tokenAccount } from './account-decoders';
import { pumpFeeConfig } from './pump-amm.program';
import type { AccountLookup, AccountView, BuildResult, Venue } from './program-registry';

export const pumpBondingCurve = (a: AccountView): PumpBondingCurve => a.memo('pumpfun:BondingCurve', (x) => decodePumpBondingCurve(x.data, x.owner, x.address));
const globalAccount = (a: AccountView): PumpGlobal => a.memo('pumpfun:Global', (x) => decodePumpGlobal(x.data, x.owner, x.address));

let shared: { global: string; feeConfig: string } | undefined;
export function pumpFunSharedAccounts(): { global: string; feeConfig: string } {
  return (shared ??= { global: pumpGlobalAddress(), feeConfig: pumpFeeConfigAddress(PROGRAM_IDS.pumpFun) });
}

/** mint → its bonding curve PDA (a PDA search, cached) */
const curveOfMint = new Map<string, string>();
function curveAddressOf(mint: string): string {
  let v = curveOfMint.get(mint);
  if (v === undefined) {
    v = pumpBondingCurveAddress(mint);
    if (curveOfMint.size > 100_000) curveOfMint.clear();
    curveOfMint.set(mint, v);
  }
  return v;
}

/** The curve's mint and the token account that revealed it, or null when none is known yet. */
export function pumpCurveMint(curve: string, lookup: AccountLookup | undefined): { mint: string; tokenAccount: string } | null {
  if (!lookup) return null;
  for (const address of lookup.tokenAccountsOwnedBy(curve)) {
    const acc = lookup.get(address);
    if (!acc) continue;
    let mint: string;
    try {
      mint = tokenAccount(acc).mint;
    } catch {
      continue;
    }
    if (curveAddressOf(mint) === curve) return { mint, tokenAccount: address };
  }
  return null;
}

export const pumpFunVenue: Venue = {
  programId: PROGRAM_IDS.pumpFun,
  label: 'pump.fun',
  kind: 'bonding-curve',
  poolAccountKind: 'BondingCurve',
  tracksOwnedTokenAccounts: true,

  accountKind(data: Buffer): string | null {
    if (data.length >= 8 && data.compare(PUMP_BONDING_CURVE_DISCRIMINATOR, 0, 8, 0, 8) === 0) return 'BondingCurve';
    return pumpFunAccountType(data);
  },

  poolDependencies(poolAddress: string, pool: AccountView, lookup?: AccountLookup): string[] {
    pumpBondingCurve(pool); // throws when undecodable
    const s = pumpFunSharedAccounts();
    const m = pumpCurveMint(poolAddress, lookup);
    return m ? [s.global, s.feeConfig, m.tokenAccount, m.mint] : [s.global, s.feeConfig];
  },

  buildPool(poolAddress: string, get: (address: string) => AccountView | undefined, slot: number, lookup?: AccountLookup): BuildResult {
    const mints: { mintA?: string; mintB?: string } = {};
    return building(mints, () => {
      const curve = decodeAs(need(get, poolAddress, 'pool'), 'bonding curve account', pumpBondingCurve);
      const found = pumpCurveMint(poolAddress, lookup);
      if (!found) throw new PoolIncomplete(`the curve's mint is unknown: no token account owned by the curve whose mint derives it`);
      mints.mintA = found.mint;
      mints.mintB = MINTS.SOL;
      const s = pumpFunSharedAccounts();
      const global = decodeAs(need(get, s.global, 'Global'), 'Global', globalAccount);
      const feeConfig = decodeAs(need(get, s.feeConfig, 'pump.fun FeeConfig'), 'pump.fun FeeConfig', pumpFeeConfig);
      const mint = mintWithTransferFee(get, found.mint, 'token mint', slot);
      if (mint.transferFee !== null) throw new PoolIncomplete(`token mint ${found.mint} has a Token-2022 transfer fee, which pump.fun curves do not carry`);
      const pool = new PumpFunCurve({ address: poolAddress, mint: found.mint, curve, global, feeConfig, slot });
      const r = routableOrReason(pool);
      if (r !== pool) return r;
      if (curve.realTokenReserves === 0n) return { unroutable: 'no tokens left on the curve', ...mints };
      return pool as Pool;
    });
  },
};
