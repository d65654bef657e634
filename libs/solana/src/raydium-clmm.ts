/**
 * Raydium CLMM (program CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK) account codecs and PDAs.
 *
 * Layouts as in the program's states/*.rs at the current head (zero-copy accounts are
 * `repr(C, packed)`: no alignment padding; every offset below includes the 8-byte Anchor
 * discriminator).
 *
 * PoolState (1544 bytes): bump u8 @8 | ammConfig @9 | owner @41 | tokenMint0 @73 | tokenMint1 @105
 * | tokenVault0 @137 | tokenVault1 @169 | observationKey @201 | mintDecimals0 u8 @233
 * | mintDecimals1 u8 @234 | tickSpacing u16 @235 | liquidity u128 @237 | sqrtPriceX64 u128 @253
 * | tickCurrent i32 @269 | padding3 u16 @273 | padding4 u16 @275 | feeGrowthGlobal0X64 u128 @277
 * | feeGrowthGlobal1X64 u128 @293 | protocolFeesToken0 u64 @309 | protocolFeesToken1 u64 @317
 * | padding5 [u128;4] @325 (older pools: swap in/out running totals) | status u8 @389
 * | feeOn u8 @390 | padding [u8;6] @391 | rewardInfos [RewardInfo(169);3] @397
 * | tickArrayBitmap [u64;16] @904 | padding6 [u64;4] @1032 (older pools: total fees / claimed)
 * | fundFeesToken0 u64 @1064 | fundFeesToken1 u64 @1072 | openTime u64 @1080 | recentEpoch u64 @1088
 * | dynamicFeeInfo (80) @1096 | padding1 [u64;14] @1176 | padding2 [u64;32] @1288.
 *
 * DynamicFeeInfo (80, carved from the old padding1): filterPeriod u16 @0 | decayPeriod u16 @2
 * | reductionFactor u16 @4 | dynamicFeeControl u32 @6 | maxVolatilityAccumulator u32 @10
 * | tickSpacingIndexReference i32 @14 | volatilityReference u32 @18 | volatilityAccumulator u32 @22
 * | lastUpdateTimestamp u64 @26 | padding [u8;46] @34.
 *
 * AmmConfig (117, Anchor borsh): bump u8 @8 | index u16 @9 | owner @11 | protocolFeeRate u32 @43
 * | tradeFeeRate u32 @47 | tickSpacing u16 @51 | fundFeeRate u32 @53 | paddingU32 u32 @57
 * | fundOwner @61 | padding [u64;3] @93.
 *
 * TickArrayState (10240): poolId @8 | startTickIndex i32 @40 | ticks [TickState(168);60] @44
 * | initializedTickCount u8 @10124 | recentEpoch u64 @10125 | padding [u8;107] @10133.
 * TickState (168): tick i32 @0 | liquidityNet i128 @4 | liquidityGross u128 @20
 * | feeGrowthOutside0X64 @36 | feeGrowthOutside1X64 @52 | rewardGrowthsOutsideX64 [u128;3] @68
 * | orderPhase u64 @116 | ordersAmount u64 @124 | partFilledOrdersRemaining u64 @132
 * | unfilledRatioX64 u128 @140 | padding [u32;3] @156  (limit-order fields carved from padding).
 *
 * TickArrayBitmapExtension (1832): poolId @8 | positiveTickArrayBitmap [[u64;8];14] @40
 * | negativeTickArrayBitmap [[u64;8];14] @936.
 *
 * ObservationState (4483): initialized bool @8 | recentEpoch u64 @9 | observationIndex u16 @17
 * | poolId @19 | observations [Observation(44);100] @51 | padding [u64;4] @4451.
 * Observation: blockTimestamp u32 @0 | tickCumulative i64 @4 | padding [u64;4] @12.
 *
 * ProtocolPositionState (225, Anchor borsh; deprecated by the program but still on chain).
 */
import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { readPubkey, writePubkey } from './base58';
import { AccountDecodeError } from './decode-error';
import { PROGRAM_IDS } from './programs';
import { isZeroRange, readBool, readI128, readU128, view, writeI128, writeI32, writeI64, writeU128, writeU64, checkAnchorAccount } from './bytes';
import { programAddress } from './pda';

export const CLMM_POOL_STATE_SIZE = 1544;
export const CLMM_AMM_CONFIG_SIZE = 117;
export const CLMM_TICK_ARRAY_SIZE = 10240;
export const CLMM_TICK_ARRAY_BITMAP_EXTENSION_SIZE = 1832;
export const CLMM_OBSERVATION_STATE_SIZE = 4483;
export const CLMM_PROTOCOL_POSITION_SIZE = 225;
/** ticks per tick array */
export const CLMM_TICKS_PER_ARRAY = 60;
export const CLMM_TICK_STATE_SIZE = 168;
export const CLMM_REWARD_NUM = 3;
export const CLMM_OBSERVATION_NUM = 100;
/** bitmaps of 512 tick arrays on each side in the extension account */
export const CLMM_EXTENSION_BITMAP_COUNT = 14;

function anchorAccountDiscriminator(name: string): Buffer {
  return createHash('sha256').update(`account:${name}`).digest().subarray(0, 8);
}

export const CLMM_POOL_STATE_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('PoolState');
export const CLMM_AMM_CONFIG_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('AmmConfig');
export const CLMM_TICK_ARRAY_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('TickArrayState');
export const CLMM_TICK_ARRAY_BITMAP_EXTENSION_DISCRIMINATOR: Buffer =
  anchorAccountDiscriminator('TickArrayBitmapExtension');
export const CLMM_OBSERVATION_STATE_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('ObservationState');
export const CLMM_PROTOCOL_POSITION_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('ProtocolPositionState');

/** PoolState.status bits: a set bit disables the operation. */
export const CLMM_STATUS_BIT = {
  openPositionOrIncreaseLiquidity: 1,
  decreaseLiquidity: 2,
  collectFee: 4,
  collectReward: 8,
  swap: 16,
  limitOrder: 32,
} as const;

/** PoolState.feeOn: which token the trade fee is taken in. */
export const CLMM_FEE_ON = { fromInput: 0, token0Only: 1, token1Only: 2 } as const;

export interface ClmmRewardInfo {
  rewardState: number;
  openTime: bigint;
  endTime: bigint;
  lastUpdateTime: bigint;
  emissionsPerSecondX64: bigint;
  rewardTotalEmitted: bigint;
  rewardClaimed: bigint;
  tokenMint: string;
  tokenVault: string;
  authority: string;
  rewardGrowthGlobalX64: bigint;
}

export interface ClmmDynamicFeeInfo {
  /** seconds: swaps closer together than this do not move the volatility reference */
  filterPeriod: number;
  /** seconds: after this the volatility reference resets to 0 */
  decayPeriod: number;
  /** over REDUCTION_FACTOR_DENOMINATOR (10_000) */
  reductionFactor: number;
  /** over DYNAMIC_FEE_CONTROL_DENOMINATOR (100_000) */
  dynamicFeeControl: number;
  maxVolatilityAccumulator: number;
  tickSpacingIndexReference: number;
  volatilityReference: number;
  volatilityAccumulator: number;
  /** unix seconds of the last reference update */
  lastUpdateTimestamp: bigint;
}

export interface ClmmPoolState {
  bump: number;
  ammConfig: string;
  owner: string;
  tokenMint0: string;
  tokenMint1: string;
  tokenVault0: string;
  tokenVault1: string;
  observationKey: string;
  mintDecimals0: number;
  mintDecimals1: number;
  tickSpacing: number;
  liquidity: bigint;
  sqrtPriceX64: bigint;
  tickCurrent: number;
  padding3: number;
  padding4: number;
  feeGrowthGlobal0X64: bigint;
  feeGrowthGlobal1X64: bigint;
  protocolFeesToken0: bigint;
  protocolFeesToken1: bigint;
  /** reserved; older pools hold swap in/out running totals here (4 × u128) */
  padding5: bigint[];
  /** bit0 open position/increase, bit1 decrease, bit2 collect fee, bit3 collect reward, bit4 swap, bit5 limit order (1 = disabled) */
  status: number;
  /** 0 = fee from the input token, 1 = token0 only, 2 = token1 only */
  feeOn: number;
  rewardInfos: ClmmRewardInfo[];
  /** 16 × u64, little-endian words of the 1024-bit default tick array bitmap */
  tickArrayBitmap: bigint[];
  /** reserved; older pools hold total fees / fees claimed here (4 × u64) */
  padding6: bigint[];
  fundFeesToken0: bigint;
  fundFeesToken1: bigint;
  openTime: bigint;
  recentEpoch: bigint;
  dynamicFeeInfo: ClmmDynamicFeeInfo;
}

export interface ClmmAmmConfig {
  bump: number;
  index: number;
  owner: string;
  /** share of the trade fee to the protocol, millionths */
  protocolFeeRate: number;
  /** trade fee, millionths (FEE_RATE_DENOMINATOR 1_000_000) */
  tradeFeeRate: number;
  tickSpacing: number;
  /** share of the trade fee to the fund, millionths */
  fundFeeRate: number;
  paddingU32: number;
  fundOwner: string;
}

export interface ClmmTickState {
  tick: number;
  liquidityNet: bigint;
  liquidityGross: bigint;
  feeGrowthOutside0X64: bigint;
  feeGrowthOutside1X64: bigint;
  rewardGrowthsOutsideX64: bigint[];
  orderPhase: bigint;
  /** limit orders never matched (output-token units of the order, i.e. the token the swap receives) */
  ordersAmount: bigint;
  partFilledOrdersRemaining: bigint;
  unfilledRatioX64: bigint;
}

export interface ClmmTickArrayState {
  poolId: string;
  startTickIndex: number;
  ticks: ClmmTickState[];
  initializedTickCount: number;
  recentEpoch: bigint;
}

export interface ClmmTickArrayBitmapExtension {
  poolId: string;
  /** 14 bitmaps × 8 little-endian u64 words */
  positiveTickArrayBitmap: bigint[][];
  negativeTickArrayBitmap: bigint[][];
}

export interface ClmmObservation {
  blockTimestamp: number;
  tickCumulative: bigint;
}

export interface ClmmObservationState {
  initialized: boolean;
  recentEpoch: bigint;
  observationIndex: number;
  poolId: string;
  observations: ClmmObservation[];
}

export interface ClmmProtocolPositionState {
  bump: number;
  poolId: string;
  tickLowerIndex: number;
  tickUpperIndex: number;
  liquidity: bigint;
  feeGrowthInside0LastX64: bigint;
  feeGrowthInside1LastX64: bigint;
  tokenFeesOwed0: bigint;
  tokenFeesOwed1: bigint;
  rewardGrowthInside: bigint[];
  recentEpoch: bigint;
}

export type ClmmAccountType =
  | 'PoolState'
  | 'AmmConfig'
  | 'TickArrayState'
  | 'TickArrayBitmapExtension'
  | 'ObservationState'
  | 'ProtocolPositionState';

// ---- byte helpers ----




function writeUInt(buf: Buffer, o: number, v: number, bytes: 1 | 2 | 4, field: string): void {
  const max = bytes === 1 ? 0xff : bytes === 2 ? 0xffff : 0xffffffff;
  if (!Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`${field} out of u${bytes * 8} range: ${v}`);
  buf.writeUIntLE(v, o, bytes);
}

function checkAccount(data: Uint8Array, owner: string | undefined, address: string, size: number, discriminator: Buffer, what: string): Buffer {
  return checkAnchorAccount(data, owner, address, { programId: PROGRAM_IDS.raydiumClmm, what: `a Raydium CLMM ${what}`, size, discriminator });
}

/**
 * Which CLMM account the bytes hold, by Anchor discriminator and size (null when none matches).
 * PoolState and AmmConfig share their discriminators with Raydium CPMM accounts: check the owner.
 */
export function clmmAccountType(data: Uint8Array): ClmmAccountType | null {
  if (data.length < 8) return null;
  const d = view(data).subarray(0, 8);
  const table: [Buffer, number, ClmmAccountType][] = [
    [CLMM_POOL_STATE_DISCRIMINATOR, CLMM_POOL_STATE_SIZE, 'PoolState'],
    [CLMM_AMM_CONFIG_DISCRIMINATOR, CLMM_AMM_CONFIG_SIZE, 'AmmConfig'],
    [CLMM_TICK_ARRAY_DISCRIMINATOR, CLMM_TICK_ARRAY_SIZE, 'TickArrayState'],
    [CLMM_TICK_ARRAY_BITMAP_EXTENSION_DISCRIMINATOR, CLMM_TICK_ARRAY_BITMAP_EXTENSION_SIZE, 'TickArrayBitmapExtension'],
    [CLMM_OBSERVATION_STATE_DISCRIMINATOR, CLMM_OBSERVATION_STATE_SIZE, 'ObservationState'],
    [CLMM_PROTOCOL_POSITION_DISCRIMINATOR, CLMM_PROTOCOL_POSITION_SIZE, 'ProtocolPositionState'],
  ];
  for (const [disc, size, name] of table) if (d.equals(disc) && data.length === size) return name;
  return null;
}

// ---- PoolState ----

const POOL_KEYS = [
  'ammConfig',
  'owner',
  'tokenMint0',
  'tokenMint1',
  'tokenVault0',
  'tokenVault1',
  'observationKey',
] as const;

const REWARD_INFO_SIZE = 169;
const DYNAMIC_FEE_OFFSET = 1096;

function decodeRewardInfo(buf: Buffer, o: number): ClmmRewardInfo {
  return {
    rewardState: buf[o],
    openTime: buf.readBigUInt64LE(o + 1),
    endTime: buf.readBigUInt64LE(o + 9),
    lastUpdateTime: buf.readBigUInt64LE(o + 17),
    emissionsPerSecondX64: readU128(buf, o + 25),
    rewardTotalEmitted: buf.readBigUInt64LE(o + 41),
    rewardClaimed: buf.readBigUInt64LE(o + 49),
    tokenMint: readPubkey(buf, o + 57),
    tokenVault: readPubkey(buf, o + 89),
    authority: readPubkey(buf, o + 121),
    rewardGrowthGlobalX64: readU128(buf, o + 153),
  };
}

function encodeRewardInfo(buf: Buffer, o: number, r: ClmmRewardInfo, i: number): void {
  writeUInt(buf, o, r.rewardState, 1, `rewardInfos[${i}].rewardState`);
  writeU64(buf, o + 1, r.openTime, `rewardInfos[${i}].openTime`);
  writeU64(buf, o + 9, r.endTime, `rewardInfos[${i}].endTime`);
  writeU64(buf, o + 17, r.lastUpdateTime, `rewardInfos[${i}].lastUpdateTime`);
  writeU128(buf, o + 25, r.emissionsPerSecondX64, `rewardInfos[${i}].emissionsPerSecondX64`);
  writeU64(buf, o + 41, r.rewardTotalEmitted, `rewardInfos[${i}].rewardTotalEmitted`);
  writeU64(buf, o + 49, r.rewardClaimed, `rewardInfos[${i}].rewardClaimed`);
  writePubkey(buf, o + 57, r.tokenMint);
  writePubkey(buf, o + 89, r.tokenVault);
  writePubkey(buf, o + 121, r.authority);
  writeU128(buf, o + 153, r.rewardGrowthGlobalX64, `rewardInfos[${i}].rewardGrowthGlobalX64`);
}

function decodeDynamicFeeInfo(buf: Buffer, o: number): ClmmDynamicFeeInfo {
  return {
    filterPeriod: buf.readUInt16LE(o),
    decayPeriod: buf.readUInt16LE(o + 2),
    reductionFactor: buf.readUInt16LE(o + 4),
    dynamicFeeControl: buf.readUInt32LE(o + 6),
    maxVolatilityAccumulator: buf.readUInt32LE(o + 10),
    tickSpacingIndexReference: buf.readInt32LE(o + 14),
    volatilityReference: buf.readUInt32LE(o + 18),
    volatilityAccumulator: buf.readUInt32LE(o + 22),
    lastUpdateTimestamp: buf.readBigUInt64LE(o + 26),
  };
}

/** An all-zero DynamicFeeInfo: the program's "dynamic fee disabled". */
export function clmmEmptyDynamicFeeInfo(): ClmmDynamicFeeInfo {
  return {
    filterPeriod: 0,
    decayPeriod: 0,
    reductionFactor: 0,
    dynamicFeeControl: 0,
    maxVolatilityAccumulator: 0,
    tickSpacingIndexReference: 0,
    volatilityReference: 0,
    volatilityAccumulator: 0,
    lastUpdateTimestamp: 0n,
  };
}

/**
 * The program enables the dynamic fee when the pool's DynamicFeeInfo differs from the all-zero
 * default (its reserved padding is always written as zero, so the fields decide).
 */
export function clmmDynamicFeeEnabled(info: ClmmDynamicFeeInfo): boolean {
  return (
    info.filterPeriod !== 0 ||
    info.decayPeriod !== 0 ||
    info.reductionFactor !== 0 ||
    info.dynamicFeeControl !== 0 ||
    info.maxVolatilityAccumulator !== 0 ||
    info.tickSpacingIndexReference !== 0 ||
    info.volatilityReference !== 0 ||
    info.volatilityAccumulator !== 0 ||
    info.lastUpdateTimestamp !== 0n
  );
}

/** Decode a PoolState. `owner`, when given, must be the CLMM program. */
export function decodeClmmPoolState(data: Uint8Array, owner?: string, address = '(unknown)'): ClmmPoolState {
  const buf = checkAccount(data, owner, address, CLMM_POOL_STATE_SIZE, CLMM_POOL_STATE_DISCRIMINATOR, 'PoolState');
  const keys = {} as Record<(typeof POOL_KEYS)[number], string>;
  POOL_KEYS.forEach((k, i) => (keys[k] = readPubkey(buf, 9 + 32 * i)));
  const feeOn = buf[390];
  if (feeOn > 2) throw new AccountDecodeError(address, `invalid feeOn ${feeOn} (expected 0, 1 or 2)`);
  const rewardInfos: ClmmRewardInfo[] = [];
  for (let i = 0; i < CLMM_REWARD_NUM; i++) rewardInfos.push(decodeRewardInfo(buf, 397 + REWARD_INFO_SIZE * i));
  const tickArrayBitmap: bigint[] = [];
  for (let i = 0; i < 16; i++) tickArrayBitmap.push(buf.readBigUInt64LE(904 + 8 * i));
  return {
    bump: buf[8],
    ...keys,
    mintDecimals0: buf[233],
    mintDecimals1: buf[234],
    tickSpacing: buf.readUInt16LE(235),
    liquidity: readU128(buf, 237),
    sqrtPriceX64: readU128(buf, 253),
    tickCurrent: buf.readInt32LE(269),
    padding3: buf.readUInt16LE(273),
    padding4: buf.readUInt16LE(275),
    feeGrowthGlobal0X64: readU128(buf, 277),
    feeGrowthGlobal1X64: readU128(buf, 293),
    protocolFeesToken0: buf.readBigUInt64LE(309),
    protocolFeesToken1: buf.readBigUInt64LE(317),
    padding5: [0, 1, 2, 3].map((i) => readU128(buf, 325 + 16 * i)),
    status: buf[389],
    feeOn,
    rewardInfos,
    tickArrayBitmap,
    padding6: [0, 1, 2, 3].map((i) => buf.readBigUInt64LE(1032 + 8 * i)),
    fundFeesToken0: buf.readBigUInt64LE(1064),
    fundFeesToken1: buf.readBigUInt64LE(1072),
    openTime: buf.readBigUInt64LE(1080),
    recentEpoch: buf.readBigUInt64LE(1088),
    dynamicFeeInfo: decodeDynamicFeeInfo(buf, DYNAMIC_FEE_OFFSET),
  };
}

/** Encode a PoolState (1544 bytes; reserved bytes other than padding3..6 written as zero). */
export function encodeClmmPoolState(s: ClmmPoolState): Buffer {
  const buf = Buffer.alloc(CLMM_POOL_STATE_SIZE);
  CLMM_POOL_STATE_DISCRIMINATOR.copy(buf, 0);
  writeUInt(buf, 8, s.bump, 1, 'bump');
  POOL_KEYS.forEach((k, i) => writePubkey(buf, 9 + 32 * i, s[k]));
  writeUInt(buf, 233, s.mintDecimals0, 1, 'mintDecimals0');
  writeUInt(buf, 234, s.mintDecimals1, 1, 'mintDecimals1');
  writeUInt(buf, 235, s.tickSpacing, 2, 'tickSpacing');
  writeU128(buf, 237, s.liquidity, 'liquidity');
  writeU128(buf, 253, s.sqrtPriceX64, 'sqrtPriceX64');
  writeI32(buf, 269, s.tickCurrent, 'tickCurrent');
  writeUInt(buf, 273, s.padding3, 2, 'padding3');
  writeUInt(buf, 275, s.padding4, 2, 'padding4');
  writeU128(buf, 277, s.feeGrowthGlobal0X64, 'feeGrowthGlobal0X64');
  writeU128(buf, 293, s.feeGrowthGlobal1X64, 'feeGrowthGlobal1X64');
  writeU64(buf, 309, s.protocolFeesToken0, 'protocolFeesToken0');
  writeU64(buf, 317, s.protocolFeesToken1, 'protocolFeesToken1');
  if (s.padding5.length !== 4) throw new RangeError('padding5 must hold 4 values');
  s.padding5.forEach((v, i) => writeU128(buf, 325 + 16 * i, v, `padding5[${i}]`));
  writeUInt(buf, 389, s.status, 1, 'status');
  if (s.feeOn > 2) throw new RangeError(`feeOn must be 0, 1 or 2: ${s.feeOn}`);
  writeUInt(buf, 390, s.feeOn, 1, 'feeOn');
  if (s.rewardInfos.length !== CLMM_REWARD_NUM) throw new RangeError(`rewardInfos must hold ${CLMM_REWARD_NUM} entries`);
  s.rewardInfos.forEach((r, i) => encodeRewardInfo(buf, 397 + REWARD_INFO_SIZE * i, r, i));
  if (s.tickArrayBitmap.length !== 16) throw new RangeError('tickArrayBitmap must hold 16 words');
  s.tickArrayBitmap.forEach((w, i) => writeU64(buf, 904 + 8 * i, w, `tickArrayBitmap[${i}]`));
  if (s.padding6.length !== 4) throw new RangeError('padding6 must hold 4 values');
  s.padding6.forEach((v, i) => writeU64(buf, 1032 + 8 * i, v, `padding6[${i}]`));
  writeU64(buf, 1064, s.fundFeesToken0, 'fundFeesToken0');
  writeU64(buf, 1072, s.fundFeesToken1, 'fundFeesToken1');
  writeU64(buf, 1080, s.openTime, 'openTime');
  writeU64(buf, 1088, s.recentEpoch, 'recentEpoch');
  const d = s.dynamicFeeInfo;
  const o = DYNAMIC_FEE_OFFSET;
  writeUInt(buf, o, d.filterPeriod, 2, 'dynamicFeeInfo.filterPeriod');
  writeUInt(buf, o + 2, d.decayPeriod, 2, 'dynamicFeeInfo.decayPeriod');
  writeUInt(buf, o + 4, d.reductionFactor, 2, 'dynamicFeeInfo.reductionFactor');
  writeUInt(buf, o + 6, d.dynamicFeeControl, 4, 'dynamicFeeInfo.dynamicFeeControl');
  writeUInt(buf, o + 10, d.maxVolatilityAccumulator, 4, 'dynamicFeeInfo.maxVolatilityAccumulator');
  writeI32(buf, o + 14, d.tickSpacingIndexReference, 'dynamicFeeInfo.tickSpacingIndexReference');
  writeUInt(buf, o + 18, d.volatilityReference, 4, 'dynamicFeeInfo.volatilityReference');
  writeUInt(buf, o + 22, d.volatilityAccumulator, 4, 'dynamicFeeInfo.volatilityAccumulator');
  writeU64(buf, o + 26, d.lastUpdateTimestamp, 'dynamicFeeInfo.lastUpdateTimestamp');
  return buf;
}

// ---- AmmConfig ----

/** Decode an AmmConfig. `owner`, when given, must be the CLMM program. */
export function decodeClmmAmmConfig(data: Uint8Array, owner?: string, address = '(unknown)'): ClmmAmmConfig {
  const buf = checkAccount(data, owner, address, CLMM_AMM_CONFIG_SIZE, CLMM_AMM_CONFIG_DISCRIMINATOR, 'AmmConfig');
  return {
    bump: buf[8],
    index: buf.readUInt16LE(9),
    owner: readPubkey(buf, 11),
    protocolFeeRate: buf.readUInt32LE(43),
    tradeFeeRate: buf.readUInt32LE(47),
    tickSpacing: buf.readUInt16LE(51),
    fundFeeRate: buf.readUInt32LE(53),
    paddingU32: buf.readUInt32LE(57),
    fundOwner: readPubkey(buf, 61),
  };
}

/** Encode an AmmConfig (117 bytes, padding zero). */
export function encodeClmmAmmConfig(c: ClmmAmmConfig): Buffer {
  const buf = Buffer.alloc(CLMM_AMM_CONFIG_SIZE);
  CLMM_AMM_CONFIG_DISCRIMINATOR.copy(buf, 0);
  writeUInt(buf, 8, c.bump, 1, 'bump');
  writeUInt(buf, 9, c.index, 2, 'index');
  writePubkey(buf, 11, c.owner);
  writeUInt(buf, 43, c.protocolFeeRate, 4, 'protocolFeeRate');
  writeUInt(buf, 47, c.tradeFeeRate, 4, 'tradeFeeRate');
  writeUInt(buf, 51, c.tickSpacing, 2, 'tickSpacing');
  writeUInt(buf, 53, c.fundFeeRate, 4, 'fundFeeRate');
  writeUInt(buf, 57, c.paddingU32, 4, 'paddingU32');
  writePubkey(buf, 61, c.fundOwner);
  return buf;
}

// ---- TickArrayState ----

function decodeTick(buf: Buffer, o: number): ClmmTickState {
  return {
    tick: buf.readInt32LE(o),
    liquidityNet: readI128(buf, o + 4),
    liquidityGross: readU128(buf, o + 20),
    feeGrowthOutside0X64: readU128(buf, o + 36),
    feeGrowthOutside1X64: readU128(buf, o + 52),
    rewardGrowthsOutsideX64: [readU128(buf, o + 68), readU128(buf, o + 84), readU128(buf, o + 100)],
    orderPhase: buf.readBigUInt64LE(o + 116),
    ordersAmount: buf.readBigUInt64LE(o + 124),
    partFilledOrdersRemaining: buf.readBigUInt64LE(o + 132),
    unfilledRatioX64: readU128(buf, o + 140),
  };
}

/**
 * The uninitialized tick of a decoded array: every all-zero tick of every array decoded shares
 * this frozen object (most of an array's 60 ticks on chain, instead of an object with ten bigints
 * and a reward array each)
 */
const ZERO_TICK: ClmmTickState = frozen(clmmEmptyTick());

/** the tick and its reward array, frozen */
function frozen(t: ClmmTickState): ClmmTickState {
  Object.freeze(t.rewardGrowthsOutsideX64);
  return Object.freeze(t);
}

/** An uninitialized tick (all zero), a new object the caller may change. */
export function clmmEmptyTick(): ClmmTickState {
  return {
    tick: 0,
    liquidityNet: 0n,
    liquidityGross: 0n,
    feeGrowthOutside0X64: 0n,
    feeGrowthOutside1X64: 0n,
    rewardGrowthsOutsideX64: [0n, 0n, 0n],
    orderPhase: 0n,
    ordersAmount: 0n,
    partFilledOrdersRemaining: 0n,
    unfilledRatioX64: 0n,
  };
}

/** Decode a TickArrayState. `owner`, when given, must be the CLMM program. */
export function decodeClmmTickArrayState(data: Uint8Array, owner?: string, address = '(unknown)'): ClmmTickArrayState {
  const buf = checkAccount(data, owner, address, CLMM_TICK_ARRAY_SIZE, CLMM_TICK_ARRAY_DISCRIMINATOR, 'TickArrayState');
  const ticks: ClmmTickState[] = new Array(CLMM_TICKS_PER_ARRAY);
  for (let i = 0; i < CLMM_TICKS_PER_ARRAY; i++) {
    const o = 44 + CLMM_TICK_STATE_SIZE * i;
    ticks[i] = isZeroRange(buf, o, o + CLMM_TICK_STATE_SIZE) ? ZERO_TICK : decodeTick(buf, o);
  }
  return {
    poolId: readPubkey(buf, 8),
    startTickIndex: buf.readInt32LE(40),
    ticks,
    initializedTickCount: buf[10124],
    recentEpoch: buf.readBigUInt64LE(10125),
  };
}

/** Encode a TickArrayState (10240 bytes). `ticks` must hold 60 entries. */
export function encodeClmmTickArrayState(t: ClmmTickArrayState): Buffer {
  const buf = Buffer.alloc(CLMM_TICK_ARRAY_SIZE);
  CLMM_TICK_ARRAY_DISCRIMINATOR.copy(buf, 0);
  writePubkey(buf, 8, t.poolId);
  writeI32(buf, 40, t.startTickIndex, 'startTickIndex');
  if (t.ticks.length !== CLMM_TICKS_PER_ARRAY) throw new RangeError(`ticks must hold ${CLMM_TICKS_PER_ARRAY} entries`);
  t.ticks.forEach((k, i) => {
    const o = 44 + CLMM_TICK_STATE_SIZE * i;
    const f = `ticks[${i}]`;
    writeI32(buf, o, k.tick, `${f}.tick`);
    writeI128(buf, o + 4, k.liquidityNet, `${f}.liquidityNet`);
    writeU128(buf, o + 20, k.liquidityGross, `${f}.liquidityGross`);
    writeU128(buf, o + 36, k.feeGrowthOutside0X64, `${f}.feeGrowthOutside0X64`);
    writeU128(buf, o + 52, k.feeGrowthOutside1X64, `${f}.feeGrowthOutside1X64`);
    if (k.rewardGrowthsOutsideX64.length !== CLMM_REWARD_NUM) throw new RangeError(`${f}.rewardGrowthsOutsideX64 must hold 3`);
    k.rewardGrowthsOutsideX64.forEach((v, j) => writeU128(buf, o + 68 + 16 * j, v, `${f}.rewardGrowthsOutsideX64[${j}]`));
    writeU64(buf, o + 116, k.orderPhase, `${f}.orderPhase`);
    writeU64(buf, o + 124, k.ordersAmount, `${f}.ordersAmount`);
    writeU64(buf, o + 132, k.partFilledOrdersRemaining, `${f}.partFilledOrdersRemaining`);
    writeU128(buf, o + 140, k.unfilledRatioX64, `${f}.unfilledRatioX64`);
  });
  writeUInt(buf, 10124, t.initializedTickCount, 1, 'initializedTickCount');
  writeU64(buf, 10125, t.recentEpoch, 'recentEpoch');
  return buf;
}

// ---- TickArrayBitmapExtension ----

/** Decode a TickArrayBitmapExtension. `owner`, when given, must be the CLMM program. */
export function decodeClmmTickArrayBitmapExtension(
  data: Uint8Array,
  owner?: string,
  address = '(unknown)',
): ClmmTickArrayBitmapExtension {
  const buf = checkAccount(
    data,
    owner,
    address,
    CLMM_TICK_ARRAY_BITMAP_EXTENSION_SIZE,
    CLMM_TICK_ARRAY_BITMAP_EXTENSION_DISCRIMINATOR,
    'TickArrayBitmapExtension',
  );
  const read = (base: number): bigint[][] => {
    const out: bigint[][] = [];
    for (let i = 0; i < CLMM_EXTENSION_BITMAP_COUNT; i++) {
      const words: bigint[] = [];
      for (let j = 0; j < 8; j++) words.push(buf.readBigUInt64LE(base + 64 * i + 8 * j));
      out.push(words);
    }
    return out;
  };
  return { poolId: readPubkey(buf, 8), positiveTickArrayBitmap: read(40), negativeTickArrayBitmap: read(936) };
}

/** Encode a TickArrayBitmapExtension (1832 bytes). */
export function encodeClmmTickArrayBitmapExtension(e: ClmmTickArrayBitmapExtension): Buffer {
  const buf = Buffer.alloc(CLMM_TICK_ARRAY_BITMAP_EXTENSION_SIZE);
  CLMM_TICK_ARRAY_BITMAP_EXTENSION_DISCRIMINATOR.copy(buf, 0);
  writePubkey(buf, 8, e.poolId);
  const write = (base: number, maps: bigint[][], name: string): void => {
    if (maps.length !== CLMM_EXTENSION_BITMAP_COUNT) throw new RangeError(`${name} must hold 14 bitmaps`);
    maps.forEach((words, i) => {
      if (words.length !== 8) throw new RangeError(`${name}[${i}] must hold 8 words`);
      words.forEach((w, j) => writeU64(buf, base + 64 * i + 8 * j, w, `${name}[${i}][${j}]`));
    });
  };
  write(40, e.positiveTickArrayBitmap, 'positiveTickArrayBitmap');
  write(936, e.negativeTickArrayBitmap, 'negativeTickArrayBitmap');
  return buf;
}

// ---- ObservationState ----

/** Decode an ObservationState. `owner`, when given, must be the CLMM program. */
export function decodeClmmObservationState(data: Uint8Array, owner?: string, address = '(unknown)'): ClmmObservationState {
  const buf = checkAccount(
    data,
    owner,
    address,
    CLMM_OBSERVATION_STATE_SIZE,
    CLMM_OBSERVATION_STATE_DISCRIMINATOR,
    'ObservationState',
  );
  const observations: ClmmObservation[] = [];
  for (let i = 0; i < CLMM_OBSERVATION_NUM; i++) {
    const o = 51 + 44 * i;
    observations.push({ blockTimestamp: buf.readUInt32LE(o), tickCumulative: buf.readBigInt64LE(o + 4) });
  }
  return {
    initialized: readBool(buf, 8, address, 'initialized'),
    recentEpoch: buf.readBigUInt64LE(9),
    observationIndex: buf.readUInt16LE(17),
    poolId: readPubkey(buf, 19),
    observations,
  };
}

/** Encode an ObservationState (4483 bytes). */
export function encodeClmmObservationState(s: ClmmObservationState): Buffer {
  const buf = Buffer.alloc(CLMM_OBSERVATION_STATE_SIZE);
  CLMM_OBSERVATION_STATE_DISCRIMINATOR.copy(buf, 0);
  buf[8] = s.initialized ? 1 : 0;
  writeU64(buf, 9, s.recentEpoch, 'recentEpoch');
  writeUInt(buf, 17, s.observationIndex, 2, 'observationIndex');
  writePubkey(buf, 19, s.poolId);
  if (s.observations.length !== CLMM_OBSERVATION_NUM) throw new RangeError('observations must hold 100 entries');
  s.observations.forEach((ob, i) => {
    writeUInt(buf, 51 + 44 * i, ob.blockTimestamp, 4, `observations[${i}].blockTimestamp`);
    writeI64(buf, 55 + 44 * i, ob.tickCumulative, `observations[${i}].tickCumulative`);
  });
  return buf;
}

// ---- ProtocolPositionState ----

/** Decode a ProtocolPositionState. `owner`, when given, must be the CLMM program. */
export function decodeClmmProtocolPositionState(
  data: Uint8Array,
  owner?: string,
  address = '(unknown)',
): ClmmProtocolPositionState {
  const buf = checkAccount(
    data,
    owner,
    address,
    CLMM_PROTOCOL_POSITION_SIZE,
    CLMM_PROTOCOL_POSITION_DISCRIMINATOR,
    'ProtocolPositionState',
  );
  return {
    bump: buf[8],
    poolId: readPubkey(buf, 9),
    tickLowerIndex: buf.readInt32LE(41),
    tickUpperIndex: buf.readInt32LE(45),
    liquidity: readU128(buf, 49),
    feeGrowthInside0LastX64: readU128(buf, 65),
    feeGrowthInside1LastX64: readU128(buf, 81),
    tokenFeesOwed0: buf.readBigUInt64LE(97),
    tokenFeesOwed1: buf.readBigUInt64LE(105),
    rewardGrowthInside: [readU128(buf, 113), readU128(buf, 129), readU128(buf, 145)],
    recentEpoch: buf.readBigUInt64LE(161),
  };
}

// ---- PDAs (seeds as in the program) ----

export const CLMM_SEEDS = {
  ammConfig: 'amm_config',
  pool: 'pool',
  poolVault: 'pool_vault',
  observation: 'observation',
  tickArray: 'tick_array',
  bitmapExtension: 'pool_tick_array_bitmap_extension',
} as const;

function pda(seeds: (string | Buffer)[]): string {
  return programAddress(PROGRAM_IDS.raydiumClmm, seeds);
}

function key(address: string): Buffer {
  return new PublicKey(address).toBuffer();
}

/** An AmmConfig ["amm_config", index as u16 big endian]. */
export function clmmAmmConfigAddress(index: number): string {
  if (!Number.isInteger(index) || index < 0 || index > 0xffff) throw new RangeError(`index out of u16 range: ${index}`);
  const be = Buffer.alloc(2);
  be.writeUInt16BE(index, 0);
  return pda([CLMM_SEEDS.ammConfig, be]);
}

/** A pool at its canonical address ["pool", ammConfig, mint0, mint1]. */
export function clmmPoolAddress(ammConfig: string, mint0: string, mint1: string): string {
  return pda([CLMM_SEEDS.pool, key(ammConfig), key(mint0), key(mint1)]);
}

/** A pool vault ["pool_vault", pool, mint]. */
export function clmmVaultAddress(pool: string, mint: string): string {
  return pda([CLMM_SEEDS.poolVault, key(pool), key(mint)]);
}

/** The pool's observation account ["observation", pool]. */
export function clmmObservationAddress(pool: string): string {
  return pda([CLMM_SEEDS.observation, key(pool)]);
}

const tickArrayAddressCache = new Map<string, string>();

/** A tick array ["tick_array", pool, startTickIndex as i32 big endian]. */
export function clmmTickArrayAddress(pool: string, startTickIndex: number): string {
  if (!Number.isInteger(startTickIndex) || startTickIndex < -0x80000000 || startTickIndex > 0x7fffffff) {
    throw new RangeError(`startTickIndex out of i32 range: ${startTickIndex}`);
  }
  const cacheKey = `${pool}:${startTickIndex}`;
  let address = tickArrayAddressCache.get(cacheKey);
  if (address === undefined) {
    const be = Buffer.alloc(4);
    be.writeInt32BE(startTickIndex, 0);
    address = pda([CLMM_SEEDS.tickArray, key(pool), be]);
    if (tickArrayAddressCache.size > 100_000) tickArrayAddressCache.clear();
    tickArrayAddressCache.set(cacheKey, address);
  }
  return address;
}

/** The pool's tick array bitmap extension ["pool_tick_array_bitmap_extension", pool]. */
export function clmmBitmapExtensionAddress(pool: string): string {
  return pda([CLMM_SEEDS.bitmapExtension, key(pool)]);
}
