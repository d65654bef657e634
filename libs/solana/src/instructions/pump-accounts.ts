/**
 * The derived accounts and fee recipients the two pump programs' swaps take: event authorities
 * and volume accumulators (memoised PDAs), bonding-curve-v2 and pool-v2, and the choice of the
 * buyback and protocol fee recipients from the programs' global configuration.
 */
import { PROGRAM_IDS } from '../programs';
import type { PumpAmmGlobalConfig } from '../pump-amm';
import { programAddress } from '../pda';
import { pk } from './common';

function pumpAmmPda(seeds: Buffer[]): string {
  return programAddress(PROGRAM_IDS.pumpSwapAmm, seeds);
}
function pumpFunPda(seeds: Buffer[]): string {
  return programAddress(PROGRAM_IDS.pumpFun, seeds);
}
const memo = new Map<string, string>();
function cached(k: string, f: () => string): string {
  let v = memo.get(k);
  if (v === undefined) {
    v = f();
    if (memo.size > 100_000) memo.clear();
    memo.set(k, v);
  }
  return v;
}

export const pumpAmmEventAuthority = (): string => cached('amm:ea', () => pumpAmmPda([Buffer.from('__event_authority')]));
export const pumpAmmGlobalVolumeAccumulator = (): string => cached('amm:gva', () => pumpAmmPda([Buffer.from('global_volume_accumulator')]));
export const pumpAmmUserVolumeAccumulator = (user: string): string =>
  cached(`amm:uva:${user}`, () => pumpAmmPda([Buffer.from('user_volume_accumulator'), pk(user).toBuffer()]));
export const pumpFunEventAuthority = (): string => cached('pf:ea', () => pumpFunPda([Buffer.from('__event_authority')]));
export const pumpFunGlobalVolumeAccumulator = (): string => cached('pf:gva', () => pumpFunPda([Buffer.from('global_volume_accumulator')]));
export const pumpFunUserVolumeAccumulator = (user: string): string =>
  cached(`pf:uva:${user}`, () => pumpFunPda([Buffer.from('user_volume_accumulator'), pk(user).toBuffer()]));
/** pump.fun ["bonding-curve-v2", mint]: read-only account every buy and sell takes since the 2026-04-28 upgrade. */
export const pumpFunBondingCurveV2 = (mint: string): string => cached(`pf:bc2:${mint}`, () => pumpFunPda([Buffer.from('bonding-curve-v2'), pk(mint).toBuffer()]));
/** PumpSwap ["pool-v2", baseMint]: read-only account of the buys and sells of pools with a coin creator. */
export const pumpAmmPoolV2 = (baseMint: string): string => cached(`amm:pv2:${baseMint}`, () => pumpAmmPda([Buffer.from('pool-v2'), pk(baseMint).toBuffer()]));

/**
 * The buyback fee recipients both pump programs accept (Global.buybackFeeRecipients /
 * GlobalConfig.buybackFeeRecipients, as the pump public docs list them; the program checks the
 * one given against its global config). Since the 2026-04-28 upgrade every pump.fun buy and sell
 * appends bonding-curve-v2 and one of them (writable), and every PumpSwap buy and sell appends
 * [pool-v2,] one of them (read-only) and its quote-mint ATA (writable).
 */
export const PUMP_BUYBACK_FEE_RECIPIENTS = [
  '5YxQFdt3Tr9zJLvkFccqXVUwhdTWJQc1fFg2YPbxvxeD',
  '9M4giFFMxmFGXtc3feFzRai56WbBqehoSeRE5GK7gf7',
  'GXPFM2caqTtQYC2cJ5yJRi9VDkpsYZXzYdwYpGnLmtDL',
  '3BpXnfJaUTiwXnJNe7Ej1rcbzqTTQUvLShZaWazebsVR',
  '5cjcW9wExnJJiqgLjq7DEG75Pm6JBgE1hNv4B2vHXUW6',
  'EHAAiTxcdDwQ3U4bU6YcMsQGaekdzLS3B5SmYo46kJtL',
  '5eHhjP8JaYkz83CWwvGU2uMUXefd3AazWGx4gpcuEEYD',
  'A7hAgCzFw14fejgCp387JUJRMNyz4j89JKnhtKU8piqW',
] as const;

/** The first non-default address of a recipient list. */
const firstSet = (list: readonly string[]): string | undefined => list.find((x) => x !== PROGRAM_IDS.system);

/**
 * The buyback fee recipient a pump.fun swap pays by default: the first one the Global account
 * lists (Global.buybackFeeRecipients), else PUMP_BUYBACK_FEE_RECIPIENTS[0] (a Global of the
 * layout before the upgrade lists none).
 */
export function pumpFunBuybackFeeRecipient(global: { buybackFeeRecipients?: readonly string[] }): string {
  return firstSet(global.buybackFeeRecipients ?? []) ?? PUMP_BUYBACK_FEE_RECIPIENTS[0];
}

/** The buyback fee recipient a PumpSwap swap pays by default: the first of GlobalConfig.buybackFeeRecipients, else PUMP_BUYBACK_FEE_RECIPIENTS[0]. */
export function pumpAmmBuybackFeeRecipient(gc: Pick<PumpAmmGlobalConfig, 'buybackFeeRecipients'>): string {
  return firstSet(gc.buybackFeeRecipients ?? []) ?? PUMP_BUYBACK_FEE_RECIPIENTS[0];
}

/**
 * The protocol fee recipient a PumpSwap swap pays by default: the first non-default one of
 * GlobalConfig.protocolFeeRecipients, or of [reservedFeeRecipient, ...reservedFeeRecipients] for
 * a mayhem-mode pool (as the program requires); undefined when the config lists none.
 */
export function pumpAmmProtocolFeeRecipient(
  gc: Pick<PumpAmmGlobalConfig, 'protocolFeeRecipients' | 'reservedFeeRecipient' | 'reservedFeeRecipients'>,
  mayhemMode: boolean,
): string | undefined {
  return mayhemMode ? firstSet([gc.reservedFeeRecipient, ...(gc.reservedFeeRecipients ?? [])].filter((x) => x !== undefined)) : firstSet(gc.protocolFeeRecipients);
}
