/**
 * PumpSwap AMM (pAMMBay6…) account codecs and PDAs. Anchor accounts; like pump.fun, accounts grow
 * by `extend_account` and appended fields read as zero while absent (see pump-fun.ts). The fee
 * tiers live in the pump fees program's FeeConfig: decodePumpFeeConfig in pump-fun.ts.
 *
 * Pool (245 bytes of fields): disc | poolBump u8 @8 | index u16 @9 | creator @11 | baseMint @43
 *  | quoteMint @75 | lpMint @107 | poolBaseTokenAccount @139 | poolQuoteTokenAccount @171
 *  | lpSupply u64 @203 | coinCreator @211 | isMayhemMode bool @243 | isCashbackCoin bool @244.
 *
 * GlobalConfig: disc | admin @8 | lpFeeBasisPoints u64 @40 | protocolFeeBasisPoints u64 @48
 *  | disableFlags u8 @56 | protocolFeeRecipients [pubkey;8] @57 | coinCreatorFeeBasisPoints u64 @313
 *  | adminSetCoinCreatorAuthority @321 | whitelistPda @353 | reservedFeeRecipient @385
 *  | mayhemModeEnabled bool @417 | reservedFeeRecipients [pubkey;7] @418 | isCashbackEnabled bool @642
 *  | buybackFeeRecipients [pubkey;8] @643 | buybackBasisPoints u64 @899 — 907 bytes.
 */
import { PROGRAM_IDS } from './programs';
import {
  anchorAccountDiscriminator,
  decodeFields,
  encodeFields,
  layoutEnd,
  pumpPoolAuthorityAddress,
  type FieldSpec,
  pumpPda,
  seedKey,
} from './pump-fun';

export const PUMP_AMM_POOL_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('Pool');
export const PUMP_AMM_GLOBAL_CONFIG_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('GlobalConfig');

/** GlobalConfig.disableFlags bits (the order of the `disable` instruction's arguments). */
export const PUMP_AMM_DISABLE_BIT = { createPool: 1, deposit: 2, withdraw: 4, buy: 8, sell: 16 } as const;

export interface PumpAmmPoolState {
  poolBump: number;
  index: number;
  /** pump.fun's pool authority for canonical (migrated) pools */
  creator: string;
  baseMint: string;
  quoteMint: string;
  lpMint: string;
  poolBaseTokenAccount: string;
  poolQuoteTokenAccount: string;
  lpSupply: bigint;
  /** receives the coin creator fee; the default pubkey means none */
  coinCreator: string;
  isMayhemMode: boolean;
  isCashbackCoin: boolean;
}

export interface PumpAmmGlobalConfig {
  admin: string;
  /** LP fee (bps) when there is no FeeConfig */
  lpFeeBasisPoints: bigint;
  /** protocol fee (bps) when there is no FeeConfig */
  protocolFeeBasisPoints: bigint;
  disableFlags: number;
  protocolFeeRecipients: string[];
  /** coin creator fee (bps) when there is no FeeConfig */
  coinCreatorFeeBasisPoints: bigint;
  adminSetCoinCreatorAuthority: string;
  whitelistPda: string;
  reservedFeeRecipient: string;
  mayhemModeEnabled: boolean;
  reservedFeeRecipients: string[];
  isCashbackEnabled: boolean;
  buybackFeeRecipients: string[];
  buybackBasisPoints: bigint;
}

const POOL_FIELDS: readonly FieldSpec[] = [
  ['poolBump', 'u8'],
  ['index', 'u16'],
  ['creator', 'pubkey'],
  ['baseMint', 'pubkey'],
  ['quoteMint', 'pubkey'],
  ['lpMint', 'pubkey'],
  ['poolBaseTokenAccount', 'pubkey'],
  ['poolQuoteTokenAccount', 'pubkey'],
  ['lpSupply', 'u64'],
  ['coinCreator', 'pubkey'],
  ['isMayhemMode', 'bool'],
  ['isCashbackCoin', 'bool'],
];
/** the original layout (through lpSupply) */
export const PUMP_AMM_POOL_MIN_SIZE = 211;
export const PUMP_AMM_POOL_SIZE = layoutEnd(POOL_FIELDS);

const GLOBAL_CONFIG_FIELDS: readonly FieldSpec[] = [
  ['admin', 'pubkey'],
  ['lpFeeBasisPoints', 'u64'],
  ['protocolFeeBasisPoints', 'u64'],
  ['disableFlags', 'u8'],
  ['protocolFeeRecipients', { pubkeys: 8 }],
  ['coinCreatorFeeBasisPoints', 'u64'],
  ['adminSetCoinCreatorAuthority', 'pubkey'],
  ['whitelistPda', 'pubkey'],
  ['reservedFeeRecipient', 'pubkey'],
  ['mayhemModeEnabled', 'bool'],
  ['reservedFeeRecipients', { pubkeys: 7 }],
  ['isCashbackEnabled', 'bool'],
  ['buybackFeeRecipients', { pubkeys: 8 }],
  ['buybackBasisPoints', 'u64'],
];
/** the original layout (through protocolFeeRecipients) */
export const PUMP_AMM_GLOBAL_CONFIG_MIN_SIZE = 313;
export const PUMP_AMM_GLOBAL_CONFIG_SIZE = layoutEnd(GLOBAL_CONFIG_FIELDS);

export function decodePumpAmmPool(data: Uint8Array, owner?: string, address = '(unknown)'): PumpAmmPoolState {
  return decodeFields(
    data,
    {
      owner,
      expectedOwner: PROGRAM_IDS.pumpSwapAmm,
      address,
      discriminator: PUMP_AMM_POOL_DISCRIMINATOR,
      what: 'PumpSwap Pool',
      minEnd: PUMP_AMM_POOL_MIN_SIZE,
    },
    POOL_FIELDS,
  ) as unknown as PumpAmmPoolState;
}

export function encodePumpAmmPool(p: PumpAmmPoolState, size = PUMP_AMM_POOL_SIZE): Buffer {
  return encodeFields(p, PUMP_AMM_POOL_DISCRIMINATOR, POOL_FIELDS, size, PUMP_AMM_POOL_MIN_SIZE);
}

export function decodePumpAmmGlobalConfig(data: Uint8Array, owner?: string, address = '(unknown)'): PumpAmmGlobalConfig {
  return decodeFields(
    data,
    {
      owner,
      expectedOwner: PROGRAM_IDS.pumpSwapAmm,
      address,
      discriminator: PUMP_AMM_GLOBAL_CONFIG_DISCRIMINATOR,
      what: 'PumpSwap GlobalConfig',
      minEnd: PUMP_AMM_GLOBAL_CONFIG_MIN_SIZE,
    },
    GLOBAL_CONFIG_FIELDS,
  ) as unknown as PumpAmmGlobalConfig;
}

export function encodePumpAmmGlobalConfig(g: PumpAmmGlobalConfig, size = PUMP_AMM_GLOBAL_CONFIG_SIZE): Buffer {
  return encodeFields(g, PUMP_AMM_GLOBAL_CONFIG_DISCRIMINATOR, GLOBAL_CONFIG_FIELDS, size, PUMP_AMM_GLOBAL_CONFIG_MIN_SIZE);
}

// ---- PDAs ----

const ammPda = (seeds: (string | Buffer)[]): string => pumpPda(PROGRAM_IDS.pumpSwapAmm, seeds);

/** The sole GlobalConfig: ["global_config"] (ADyA8hdefvWN2dbGGWFotbzWxrAvLW83WG6QCVXvJKqw). */
export function pumpAmmGlobalConfigAddress(): string {
  return ammPda(['global_config']);
}

/** A pool: ["pool", index u16 LE, creator, baseMint, quoteMint]. */
export function pumpAmmPoolAddress(index: number, creator: string, baseMint: string, quoteMint: string): string {
  if (!Number.isInteger(index) || index < 0 || index > 0xffff) throw new RangeError(`index out of u16 range: ${index}`);
  const le = Buffer.alloc(2);
  le.writeUInt16LE(index, 0);
  return ammPda(['pool', le, seedKey(creator), seedKey(baseMint), seedKey(quoteMint)]);
}

/** The canonical pool pump.fun's migrate creates for `baseMint` (index 0, creator = pump pool authority). */
export function pumpAmmCanonicalPoolAddress(baseMint: string, quoteMint: string): string {
  return pumpAmmPoolAddress(0, pumpPoolAuthorityAddress(baseMint), baseMint, quoteMint);
}

/** True when the pool was created by pump.fun's migrate (its creator is the pump pool authority of the base mint). */
export function isCanonicalPumpPool(pool: Pick<PumpAmmPoolState, 'creator' | 'baseMint'>): boolean {
  return pumpPoolAuthorityAddress(pool.baseMint) === pool.creator;
}

/** The coin creator vault authority: ["creator_vault", coinCreator]. */
export function pumpAmmCoinCreatorVaultAuthority(coinCreator: string): string {
  return ammPda(['creator_vault', seedKey(coinCreator)]);
}
