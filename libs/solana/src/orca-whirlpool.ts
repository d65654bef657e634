/**
 * Orca Whirlpool (whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc) account codecs and PDAs.
 *
 * Layouts, as the program declares them (Anchor; zero-copy accounts are `repr(C, packed)`):
 *
 * Whirlpool (653 B): disc @0 | whirlpoolsConfig @8 | whirlpoolBump [u8;1] @40 | tickSpacing u16 @41
 * | feeTierIndexSeed [u8;2] @43 | feeRate u16 @45 | protocolFeeRate u16 @47 | liquidity u128 @49
 * | sqrtPrice u128 @65 | tickCurrentIndex i32 @81 | protocolFeeOwedA u64 @85 | protocolFeeOwedB u64 @93
 * | tokenMintA @101 | tokenVaultA @133 | feeGrowthGlobalA u128 @165 | tokenMintB @181
 * | tokenVaultB @213 | feeGrowthGlobalB u128 @245 | rewardLastUpdatedTimestamp u64 @261
 * | rewardInfos 3 x (mint 32 | vault 32 | extension [u8;32] | emissionsPerSecondX64 u128
 *   | growthGlobalX64 u128) @269.
 *
 * TickArray ("fixed", 9,988 B, zero-copy): disc | startTickIndex i32 @8 | ticks 88 x Tick @12
 * | whirlpool @9956. Tick (113 B packed): initialized bool | liquidityNet i128 | liquidityGross u128
 * | feeGrowthOutsideA u128 | feeGrowthOutsideB u128 | rewardGrowthsOutside [u128;3].
 *
 * DynamicTickArray (148..10,004 B, borsh-like): disc | startTickIndex i32 @8 | whirlpool @12
 * | tickBitmap u128 @44 | 88 x DynamicTick @60 where DynamicTick is tag 0 (uninitialized, 1 byte)
 * or tag 1 followed by the 112-byte tick data (no `initialized` byte). The account is resized on
 * every tick (un)initialization, so its size is exactly 148 + 112 x popcount(tickBitmap).
 *
 * WhirlpoolsConfig (108 B): disc | feeAuthority | collectProtocolFeesAuthority
 * | rewardEmissionsSuperAuthority | defaultProtocolFeeRate u16 @104 | featureFlags u16 @106.
 * FeeTier (44 B): disc | whirlpoolsConfig | tickSpacing u16 @40 | defaultFeeRate u16 @42.
 * AdaptiveFeeTier (256 B): disc | whirlpoolsConfig | feeTierIndex u16 @40 | tickSpacing u16 @42
 * | initializePoolAuthority @44 | delegatedFeeAuthority @76 | defaultBaseFeeRate u16 @108
 * | filterPeriod u16 @110 | decayPeriod u16 @112 | reductionFactor u16 @114
 * | adaptiveFeeControlFactor u32 @116 | maxVolatilityAccumulator u32 @120 | tickGroupSize u16 @124
 * | majorSwapThresholdTicks u16 @126 | reserved [u8;128].
 * Oracle (256 B, zero-copy packed): disc | whirlpool @8 | tradeEnableTimestamp u64 @40
 * | AdaptiveFeeConstants @48 (filterPeriod u16, decayPeriod u16, reductionFactor u16,
 *   adaptiveFeeControlFactor u32, maxVolatilityAccumulator u32, tickGroupSize u16,
 *   majorSwapThresholdTicks u16, reserved 16) | AdaptiveFeeVariables @80 (lastReferenceUpdateTimestamp
 *   u64, lastMajorSwapTimestamp u64, volatilityReference u32, tickGroupIndexReference i32,
 *   volatilityAccumulator u32, reserved 16) | reserved [u8;128] @128.
 * Position (216 B), PositionBundle (136 B), TokenBadge (200 B), WhirlpoolsConfigExtension (616 B),
 * LockConfig (241 B): decoded for completeness (see the interfaces).
 */
import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { base58Encode, readPubkey, writePubkey } from './base58';
import { AccountDecodeError } from './decode-error';
import { PROGRAM_IDS } from './programs';
import { isZeroRange, readBool, readI128, readU128, view, writeI128, writeI32, writeU128, writeU16, writeU64 } from './bytes';
import { programAddress } from './pda';

export const WHIRLPOOL_SIZE = 653;
export const WHIRLPOOLS_CONFIG_SIZE = 108;
export const FEE_TIER_SIZE = 44;
export const ADAPTIVE_FEE_TIER_SIZE = 256;
export const ORACLE_SIZE = 256;
export const POSITION_SIZE = 216;
export const POSITION_BUNDLE_SIZE = 136;
export const TOKEN_BADGE_SIZE = 200;
export const WHIRLPOOLS_CONFIG_EXTENSION_SIZE = 616;
export const LOCK_CONFIG_SIZE = 241;
export const TICK_ARRAY_SIZE = 88;
export const TICK_SIZE = 113;
export const FIXED_TICK_ARRAY_SIZE = 8 + 4 + TICK_SIZE * TICK_ARRAY_SIZE + 32; // 9988
export const DYNAMIC_TICK_DATA_SIZE = 112;
export const DYNAMIC_TICK_ARRAY_MIN_SIZE = 8 + 4 + 32 + 16 + TICK_ARRAY_SIZE; // 148
export const DYNAMIC_TICK_ARRAY_MAX_SIZE = DYNAMIC_TICK_ARRAY_MIN_SIZE + DYNAMIC_TICK_DATA_SIZE * TICK_ARRAY_SIZE; // 10004
export const NUM_REWARDS = 3;

function anchorAccountDiscriminator(name: string): Buffer {
  return createHash('sha256').update(`account:${name}`).digest().subarray(0, 8);
}

export const WHIRLPOOL_DISCRIMINATORS = {
  Whirlpool: anchorAccountDiscriminator('Whirlpool'),
  WhirlpoolsConfig: anchorAccountDiscriminator('WhirlpoolsConfig'),
  FeeTier: anchorAccountDiscriminator('FeeTier'),
  AdaptiveFeeTier: anchorAccountDiscriminator('AdaptiveFeeTier'),
  /** the fixed-size tick array keeps the historical name "TickArray" */
  TickArray: anchorAccountDiscriminator('TickArray'),
  DynamicTickArray: anchorAccountDiscriminator('DynamicTickArray'),
  Oracle: anchorAccountDiscriminator('Oracle'),
  Position: anchorAccountDiscriminator('Position'),
  PositionBundle: anchorAccountDiscriminator('PositionBundle'),
  TokenBadge: anchorAccountDiscriminator('TokenBadge'),
  WhirlpoolsConfigExtension: anchorAccountDiscriminator('WhirlpoolsConfigExtension'),
  LockConfig: anchorAccountDiscriminator('LockConfig'),
} as const;

export type WhirlpoolAccountType = keyof typeof WHIRLPOOL_DISCRIMINATORS;

// ---------------------------------------------------------------- types

export interface WhirlpoolRewardInfo {
  mint: string;
  vault: string;
  /** 32 raw bytes: reward authority (index 0), control flags segment (1), reserved (2) */
  extension: Uint8Array;
  emissionsPerSecondX64: bigint;
  growthGlobalX64: bigint;
}

export interface Whirlpool {
  whirlpoolsConfig: string;
  whirlpoolBump: number;
  tickSpacing: number;
  /** the two seed bytes read as u16 little endian: the fee tier index */
  feeTierIndexSeed: number;
  /** hundredths of a basis point (1e-6) */
  feeRate: number;
  /** basis points of the fee (1e-4) */
  protocolFeeRate: number;
  liquidity: bigint;
  /** Q64.64 */
  sqrtPrice: bigint;
  tickCurrentIndex: number;
  protocolFeeOwedA: bigint;
  protocolFeeOwedB: bigint;
  tokenMintA: string;
  tokenVaultA: string;
  feeGrowthGlobalA: bigint;
  tokenMintB: string;
  tokenVaultB: string;
  feeGrowthGlobalB: bigint;
  rewardLastUpdatedTimestamp: bigint;
  rewardInfos: WhirlpoolRewardInfo[];
}

export interface WhirlpoolTick {
  initialized: boolean;
  liquidityNet: bigint;
  liquidityGross: bigint;
  feeGrowthOutsideA: bigint;
  feeGrowthOutsideB: bigint;
  rewardGrowthsOutside: [bigint, bigint, bigint];
}

/** Fixed and dynamic tick arrays decode to the same shape (88 ticks; uninitialized = zeros). */
export interface WhirlpoolTickArray {
  kind: 'fixed' | 'dynamic';
  startTickIndex: number;
  whirlpool: string;
  ticks: WhirlpoolTick[];
  /** dynamic arrays only: bit i set = tick i initialized (fixed: derived from the ticks) */
  tickBitmap: bigint;
}

export interface WhirlpoolsConfig {
  feeAuthority: string;
  collectProtocolFeesAuthority: string;
  rewardEmissionsSuperAuthority: string;
  defaultProtocolFeeRate: number;
  featureFlags: number;
}

export interface WhirlpoolFeeTier {
  whirlpoolsConfig: string;
  tickSpacing: number;
  defaultFeeRate: number;
}

export interface WhirlpoolAdaptiveFeeTier {
  whirlpoolsConfig: string;
  feeTierIndex: number;
  tickSpacing: number;
  initializePoolAuthority: string;
  delegatedFeeAuthority: string;
  defaultBaseFeeRate: number;
  filterPeriod: number;
  decayPeriod: number;
  reductionFactor: number;
  adaptiveFeeControlFactor: number;
  maxVolatilityAccumulator: number;
  tickGroupSize: number;
  majorSwapThresholdTicks: number;
}

export interface AdaptiveFeeConstants {
  filterPeriod: number;
  decayPeriod: number;
  reductionFactor: number;
  adaptiveFeeControlFactor: number;
  maxVolatilityAccumulator: number;
  tickGroupSize: number;
  majorSwapThresholdTicks: number;
}

export interface AdaptiveFeeVariables {
  lastReferenceUpdateTimestamp: bigint;
  lastMajorSwapTimestamp: bigint;
  volatilityReference: number;
  tickGroupIndexReference: number;
  volatilityAccumulator: number;
}

export interface WhirlpoolOracle {
  whirlpool: string;
  tradeEnableTimestamp: bigint;
  adaptiveFeeConstants: AdaptiveFeeConstants;
  adaptiveFeeVariables: AdaptiveFeeVariables;
}

export interface WhirlpoolPosition {
  whirlpool: string;
  positionMint: string;
  liquidity: bigint;
  tickLowerIndex: number;
  tickUpperIndex: number;
  feeGrowthCheckpointA: bigint;
  feeOwedA: bigint;
  feeGrowthCheckpointB: bigint;
  feeOwedB: bigint;
  rewardInfos: { growthInsideCheckpoint: bigint; amountOwed: bigint }[];
}

export interface WhirlpoolPositionBundle {
  positionBundleMint: string;
  positionBitmap: Uint8Array;
}

export interface WhirlpoolTokenBadge {
  whirlpoolsConfig: string;
  tokenMint: string;
  attributeRequireNonTransferablePosition: boolean;
}

export interface WhirlpoolsConfigExtension {
  whirlpoolsConfig: string;
  configExtensionAuthority: string;
  tokenBadgeAuthority: string;
}

export interface WhirlpoolLockConfig {
  position: string;
  positionOwner: string;
  whirlpool: string;
  lockedTimestamp: bigint;
  /** 0 = Permanent */
  lockType: number;
}

// ---------------------------------------------------------------- helpers






function checkHeader(
  data: Uint8Array,
  owner: string | undefined,
  address: string,
  type: WhirlpoolAccountType,
): Buffer {
  if (owner !== undefined && owner !== PROGRAM_IDS.orcaWhirlpool) {
    throw new AccountDecodeError(
      address,
      `wrong owner ${owner} for an Orca Whirlpool ${type}: expected ${PROGRAM_IDS.orcaWhirlpool}`,
    );
  }
  const buf = view(data);
  const disc = WHIRLPOOL_DISCRIMINATORS[type];
  if (buf.length < 8) {
    throw new AccountDecodeError(address, `${buf.length} bytes is too short for an Orca Whirlpool ${type}`);
  }
  if (!buf.subarray(0, 8).equals(disc)) {
    throw new AccountDecodeError(
      address,
      `wrong discriminator ${buf.subarray(0, 8).toString('hex')} for an Orca Whirlpool ${type}: expected ${disc.toString('hex')}`,
    );
  }
  return buf;
}

function checkAccount(
  data: Uint8Array,
  owner: string | undefined,
  address: string,
  type: WhirlpoolAccountType,
  size: number,
): Buffer {
  const buf = view(data);
  if (owner === undefined || owner === PROGRAM_IDS.orcaWhirlpool) {
    if (buf.length !== size) {
      throw new AccountDecodeError(address, `wrong size ${buf.length} for an Orca Whirlpool ${type}: expected ${size}`);
    }
  }
  return checkHeader(buf, owner, address, type);
}

/** Which Whirlpool-program account the bytes hold, by Anchor discriminator (null when none matches). */
export function whirlpoolAccountType(data: Uint8Array): WhirlpoolAccountType | null {
  if (data.length < 8) return null;
  const d = view(data).subarray(0, 8);
  for (const [name, disc] of Object.entries(WHIRLPOOL_DISCRIMINATORS)) {
    if (d.equals(disc)) return name as WhirlpoolAccountType;
  }
  return null;
}

// ---------------------------------------------------------------- Whirlpool

/** Decode a Whirlpool. `owner`, when given, must be the Whirlpool program. */
export function decodeWhirlpool(data: Uint8Array, owner?: string, address = '(unknown)'): Whirlpool {
  const buf = checkAccount(data, owner, address, 'Whirlpool', WHIRLPOOL_SIZE);
  const rewardInfos: WhirlpoolRewardInfo[] = [];
  for (let i = 0; i < NUM_REWARDS; i++) {
    const o = 269 + 128 * i;
    rewardInfos.push({
      mint: readPubkey(buf, o),
      vault: readPubkey(buf, o + 32),
      extension: Uint8Array.from(buf.subarray(o + 64, o + 96)),
      emissionsPerSecondX64: readU128(buf, o + 96),
      growthGlobalX64: readU128(buf, o + 112),
    });
  }
  const tickSpacing = buf.readUInt16LE(41);
  if (tickSpacing === 0) throw new AccountDecodeError(address, 'Whirlpool tickSpacing is 0');
  return {
    whirlpoolsConfig: readPubkey(buf, 8),
    whirlpoolBump: buf[40],
    tickSpacing,
    feeTierIndexSeed: buf.readUInt16LE(43),
    feeRate: buf.readUInt16LE(45),
    protocolFeeRate: buf.readUInt16LE(47),
    liquidity: readU128(buf, 49),
    sqrtPrice: readU128(buf, 65),
    tickCurrentIndex: buf.readInt32LE(81),
    protocolFeeOwedA: buf.readBigUInt64LE(85),
    protocolFeeOwedB: buf.readBigUInt64LE(93),
    tokenMintA: readPubkey(buf, 101),
    tokenVaultA: readPubkey(buf, 133),
    feeGrowthGlobalA: readU128(buf, 165),
    tokenMintB: readPubkey(buf, 181),
    tokenVaultB: readPubkey(buf, 213),
    feeGrowthGlobalB: readU128(buf, 245),
    rewardLastUpdatedTimestamp: buf.readBigUInt64LE(261),
    rewardInfos,
  };
}

/** Encode a Whirlpool (653 bytes). */
export function encodeWhirlpool(w: Whirlpool): Buffer {
  const buf = Buffer.alloc(WHIRLPOOL_SIZE);
  WHIRLPOOL_DISCRIMINATORS.Whirlpool.copy(buf, 0);
  writePubkey(buf, 8, w.whirlpoolsConfig);
  if (!Number.isInteger(w.whirlpoolBump) || w.whirlpoolBump < 0 || w.whirlpoolBump > 255) {
    throw new RangeError(`whirlpoolBump out of u8 range: ${w.whirlpoolBump}`);
  }
  buf[40] = w.whirlpoolBump;
  writeU16(buf, 41, w.tickSpacing, 'tickSpacing');
  writeU16(buf, 43, w.feeTierIndexSeed, 'feeTierIndexSeed');
  writeU16(buf, 45, w.feeRate, 'feeRate');
  writeU16(buf, 47, w.protocolFeeRate, 'protocolFeeRate');
  writeU128(buf, 49, w.liquidity, 'liquidity');
  writeU128(buf, 65, w.sqrtPrice, 'sqrtPrice');
  writeI32(buf, 81, w.tickCurrentIndex, 'tickCurrentIndex');
  writeU64(buf, 85, w.protocolFeeOwedA, 'protocolFeeOwedA');
  writeU64(buf, 93, w.protocolFeeOwedB, 'protocolFeeOwedB');
  writePubkey(buf, 101, w.tokenMintA);
  writePubkey(buf, 133, w.tokenVaultA);
  writeU128(buf, 165, w.feeGrowthGlobalA, 'feeGrowthGlobalA');
  writePubkey(buf, 181, w.tokenMintB);
  writePubkey(buf, 213, w.tokenVaultB);
  writeU128(buf, 245, w.feeGrowthGlobalB, 'feeGrowthGlobalB');
  writeU64(buf, 261, w.rewardLastUpdatedTimestamp, 'rewardLastUpdatedTimestamp');
  if (w.rewardInfos.length !== NUM_REWARDS) throw new RangeError(`rewardInfos must have ${NUM_REWARDS} entries`);
  w.rewardInfos.forEach((r, i) => {
    const o = 269 + 128 * i;
    writePubkey(buf, o, r.mint);
    writePubkey(buf, o + 32, r.vault);
    if (r.extension.length !== 32) throw new RangeError(`rewardInfos[${i}].extension must be 32 bytes`);
    buf.set(r.extension, o + 64);
    writeU128(buf, o + 96, r.emissionsPerSecondX64, `rewardInfos[${i}].emissionsPerSecondX64`);
    writeU128(buf, o + 112, r.growthGlobalX64, `rewardInfos[${i}].growthGlobalX64`);
  });
  return buf;
}

/** The fee tier index (seed bytes as u16 LE). */
export function whirlpoolFeeTierIndex(w: Pick<Whirlpool, 'feeTierIndexSeed'>): number {
  return w.feeTierIndexSeed;
}

/** Pools created from an AdaptiveFeeTier have a fee tier index that differs from the tick spacing. */
export function isAdaptiveFeeWhirlpool(w: Pick<Whirlpool, 'feeTierIndexSeed' | 'tickSpacing'>): boolean {
  return w.feeTierIndexSeed !== w.tickSpacing;
}

/** rewardInfos[0].extension holds the reward authority. */
export function whirlpoolRewardAuthority(w: Whirlpool): string {
  return base58Encode(w.rewardInfos[0].extension);
}

// ---------------------------------------------------------------- tick arrays

const ZERO_TICK: WhirlpoolTick = Object.freeze({
  initialized: false,
  liquidityNet: 0n,
  liquidityGross: 0n,
  feeGrowthOutsideA: 0n,
  feeGrowthOutsideB: 0n,
  rewardGrowthsOutside: Object.freeze([0n, 0n, 0n]) as unknown as [bigint, bigint, bigint],
}) as WhirlpoolTick;

/** A shared, frozen uninitialized tick. */
export function zeroTick(): WhirlpoolTick {
  return ZERO_TICK;
}

function readTickData(buf: Buffer, o: number, initialized: boolean): WhirlpoolTick {
  return {
    initialized,
    liquidityNet: readI128(buf, o),
    liquidityGross: readU128(buf, o + 16),
    feeGrowthOutsideA: readU128(buf, o + 32),
    feeGrowthOutsideB: readU128(buf, o + 48),
    rewardGrowthsOutside: [readU128(buf, o + 64), readU128(buf, o + 80), readU128(buf, o + 96)],
  };
}

/** Decode a fixed-size TickArray (9,988 bytes). */
export function decodeFixedTickArray(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolTickArray {
  const buf = checkAccount(data, owner, address, 'TickArray', FIXED_TICK_ARRAY_SIZE);
  const ticks: WhirlpoolTick[] = new Array(TICK_ARRAY_SIZE);
  let bitmap = 0n;
  for (let i = 0; i < TICK_ARRAY_SIZE; i++) {
    const o = 12 + TICK_SIZE * i;
    const initialized = readBool(buf, o, address, `ticks[${i}].initialized`);
    if (initialized) bitmap |= 1n << BigInt(i);
    // the common case on chain: an all-zero uninitialized tick shares one frozen object
    ticks[i] = !initialized && isZeroRange(buf, o + 1, o + TICK_SIZE) ? ZERO_TICK : readTickData(buf, o + 1, initialized);
  }
  return {
    kind: 'fixed',
    startTickIndex: buf.readInt32LE(8),
    whirlpool: readPubkey(buf, 12 + TICK_SIZE * TICK_ARRAY_SIZE),
    ticks,
    tickBitmap: bitmap,
  };
}

function popcount128(x: bigint): number {
  let n = 0;
  while (x > 0n) {
    x &= x - 1n;
    n++;
  }
  return n;
}

/** Decode a DynamicTickArray (148 + 112 per initialized tick). */
export function decodeDynamicTickArray(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolTickArray {
  const buf = checkHeader(data, owner, address, 'DynamicTickArray');
  if (buf.length < DYNAMIC_TICK_ARRAY_MIN_SIZE || buf.length > DYNAMIC_TICK_ARRAY_MAX_SIZE) {
    throw new AccountDecodeError(
      address,
      `wrong size ${buf.length} for an Orca Whirlpool DynamicTickArray: expected ${DYNAMIC_TICK_ARRAY_MIN_SIZE}..${DYNAMIC_TICK_ARRAY_MAX_SIZE}`,
    );
  }
  const tickBitmap = readU128(buf, 44);
  if (tickBitmap >> BigInt(TICK_ARRAY_SIZE) !== 0n) {
    throw new AccountDecodeError(address, `DynamicTickArray tickBitmap has bits above ${TICK_ARRAY_SIZE}`);
  }
  const expected = DYNAMIC_TICK_ARRAY_MIN_SIZE + DYNAMIC_TICK_DATA_SIZE * popcount128(tickBitmap);
  if (buf.length !== expected) {
    throw new AccountDecodeError(
      address,
      `wrong size ${buf.length} for an Orca Whirlpool DynamicTickArray with ${popcount128(tickBitmap)} initialized ticks: expected ${expected}`,
    );
  }
  const ticks: WhirlpoolTick[] = new Array(TICK_ARRAY_SIZE);
  let o = 60;
  for (let i = 0; i < TICK_ARRAY_SIZE; i++) {
    const tag = buf[o];
    const bit = ((tickBitmap >> BigInt(i)) & 1n) === 1n;
    if (tag > 1) throw new AccountDecodeError(address, `invalid DynamicTick tag ${tag} at tick ${i}`);
    if ((tag === 1) !== bit) {
      throw new AccountDecodeError(address, `DynamicTick ${i} tag ${tag} disagrees with tickBitmap`);
    }
    if (tag === 0) {
      ticks[i] = ZERO_TICK;
      o += 1;
    } else {
      ticks[i] = readTickData(buf, o + 1, true);
      o += 1 + DYNAMIC_TICK_DATA_SIZE;
    }
  }
  return {
    kind: 'dynamic',
    startTickIndex: buf.readInt32LE(8),
    whirlpool: readPubkey(buf, 12),
    ticks,
    tickBitmap,
  };
}

/** Decode either tick array kind, chosen by discriminator. */
export function decodeTickArray(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolTickArray {
  const type = whirlpoolAccountType(data);
  if (type === 'DynamicTickArray') return decodeDynamicTickArray(data, owner, address);
  if (type === 'TickArray') return decodeFixedTickArray(data, owner, address);
  if (owner !== undefined && owner !== PROGRAM_IDS.orcaWhirlpool) {
    throw new AccountDecodeError(address, `wrong owner ${owner} for an Orca Whirlpool tick array: expected ${PROGRAM_IDS.orcaWhirlpool}`);
  }
  const d = view(data).subarray(0, 8).toString('hex');
  throw new AccountDecodeError(address, `discriminator ${d} is neither a TickArray nor a DynamicTickArray`);
}

function writeTickData(buf: Buffer, o: number, t: WhirlpoolTick, field: string): void {
  writeI128(buf, o, t.liquidityNet, `${field}.liquidityNet`);
  writeU128(buf, o + 16, t.liquidityGross, `${field}.liquidityGross`);
  writeU128(buf, o + 32, t.feeGrowthOutsideA, `${field}.feeGrowthOutsideA`);
  writeU128(buf, o + 48, t.feeGrowthOutsideB, `${field}.feeGrowthOutsideB`);
  for (let r = 0; r < NUM_REWARDS; r++) {
    writeU128(buf, o + 64 + 16 * r, t.rewardGrowthsOutside[r], `${field}.rewardGrowthsOutside[${r}]`);
  }
}

/** Encode a fixed-size TickArray (9,988 bytes); `kind` and `tickBitmap` are ignored. */
export function encodeFixedTickArray(ta: Pick<WhirlpoolTickArray, 'startTickIndex' | 'whirlpool' | 'ticks'>): Buffer {
  if (ta.ticks.length !== TICK_ARRAY_SIZE) throw new RangeError(`a tick array has ${TICK_ARRAY_SIZE} ticks`);
  const buf = Buffer.alloc(FIXED_TICK_ARRAY_SIZE);
  WHIRLPOOL_DISCRIMINATORS.TickArray.copy(buf, 0);
  writeI32(buf, 8, ta.startTickIndex, 'startTickIndex');
  ta.ticks.forEach((t, i) => {
    const o = 12 + TICK_SIZE * i;
    buf[o] = t.initialized ? 1 : 0;
    writeTickData(buf, o + 1, t, `ticks[${i}]`);
  });
  writePubkey(buf, 12 + TICK_SIZE * TICK_ARRAY_SIZE, ta.whirlpool);
  return buf;
}

/** Encode a DynamicTickArray (size depends on the initialized ticks). */
export function encodeDynamicTickArray(ta: Pick<WhirlpoolTickArray, 'startTickIndex' | 'whirlpool' | 'ticks'>): Buffer {
  if (ta.ticks.length !== TICK_ARRAY_SIZE) throw new RangeError(`a tick array has ${TICK_ARRAY_SIZE} ticks`);
  const n = ta.ticks.filter((t) => t.initialized).length;
  const buf = Buffer.alloc(DYNAMIC_TICK_ARRAY_MIN_SIZE + DYNAMIC_TICK_DATA_SIZE * n);
  WHIRLPOOL_DISCRIMINATORS.DynamicTickArray.copy(buf, 0);
  writeI32(buf, 8, ta.startTickIndex, 'startTickIndex');
  writePubkey(buf, 12, ta.whirlpool);
  let bitmap = 0n;
  let o = 60;
  ta.ticks.forEach((t, i) => {
    if (t.initialized) {
      bitmap |= 1n << BigInt(i);
      buf[o] = 1;
      writeTickData(buf, o + 1, t, `ticks[${i}]`);
      o += 1 + DYNAMIC_TICK_DATA_SIZE;
    } else {
      o += 1;
    }
  });
  writeU128(buf, 44, bitmap, 'tickBitmap');
  return buf;
}

// ---------------------------------------------------------------- config, fee tiers, oracle

export function decodeWhirlpoolsConfig(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolsConfig {
  const buf = checkAccount(data, owner, address, 'WhirlpoolsConfig', WHIRLPOOLS_CONFIG_SIZE);
  return {
    feeAuthority: readPubkey(buf, 8),
    collectProtocolFeesAuthority: readPubkey(buf, 40),
    rewardEmissionsSuperAuthority: readPubkey(buf, 72),
    defaultProtocolFeeRate: buf.readUInt16LE(104),
    featureFlags: buf.readUInt16LE(106),
  };
}

export function decodeFeeTier(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolFeeTier {
  const buf = checkAccount(data, owner, address, 'FeeTier', FEE_TIER_SIZE);
  return {
    whirlpoolsConfig: readPubkey(buf, 8),
    tickSpacing: buf.readUInt16LE(40),
    defaultFeeRate: buf.readUInt16LE(42),
  };
}

export function decodeAdaptiveFeeTier(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolAdaptiveFeeTier {
  const buf = checkAccount(data, owner, address, 'AdaptiveFeeTier', ADAPTIVE_FEE_TIER_SIZE);
  return {
    whirlpoolsConfig: readPubkey(buf, 8),
    feeTierIndex: buf.readUInt16LE(40),
    tickSpacing: buf.readUInt16LE(42),
    initializePoolAuthority: readPubkey(buf, 44),
    delegatedFeeAuthority: readPubkey(buf, 76),
    defaultBaseFeeRate: buf.readUInt16LE(108),
    filterPeriod: buf.readUInt16LE(110),
    decayPeriod: buf.readUInt16LE(112),
    reductionFactor: buf.readUInt16LE(114),
    adaptiveFeeControlFactor: buf.readUInt32LE(116),
    maxVolatilityAccumulator: buf.readUInt32LE(120),
    tickGroupSize: buf.readUInt16LE(124),
    majorSwapThresholdTicks: buf.readUInt16LE(126),
  };
}

export function decodeOracle(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolOracle {
  const buf = checkAccount(data, owner, address, 'Oracle', ORACLE_SIZE);
  return {
    whirlpool: readPubkey(buf, 8),
    tradeEnableTimestamp: buf.readBigUInt64LE(40),
    adaptiveFeeConstants: {
      filterPeriod: buf.readUInt16LE(48),
      decayPeriod: buf.readUInt16LE(50),
      reductionFactor: buf.readUInt16LE(52),
      adaptiveFeeControlFactor: buf.readUInt32LE(54),
      maxVolatilityAccumulator: buf.readUInt32LE(58),
      tickGroupSize: buf.readUInt16LE(62),
      majorSwapThresholdTicks: buf.readUInt16LE(64),
    },
    adaptiveFeeVariables: {
      lastReferenceUpdateTimestamp: buf.readBigUInt64LE(82),
      lastMajorSwapTimestamp: buf.readBigUInt64LE(90),
      volatilityReference: buf.readUInt32LE(98),
      tickGroupIndexReference: buf.readInt32LE(102),
      volatilityAccumulator: buf.readUInt32LE(106),
    },
  };
}

/** Encode an Oracle (256 bytes, reserved zero); for tests and the simulated market. */
export function encodeOracle(o: WhirlpoolOracle): Buffer {
  const buf = Buffer.alloc(ORACLE_SIZE);
  WHIRLPOOL_DISCRIMINATORS.Oracle.copy(buf, 0);
  writePubkey(buf, 8, o.whirlpool);
  writeU64(buf, 40, o.tradeEnableTimestamp, 'tradeEnableTimestamp');
  const c = o.adaptiveFeeConstants;
  writeU16(buf, 48, c.filterPeriod, 'filterPeriod');
  writeU16(buf, 50, c.decayPeriod, 'decayPeriod');
  writeU16(buf, 52, c.reductionFactor, 'reductionFactor');
  buf.writeUInt32LE(c.adaptiveFeeControlFactor, 54);
  buf.writeUInt32LE(c.maxVolatilityAccumulator, 58);
  writeU16(buf, 62, c.tickGroupSize, 'tickGroupSize');
  writeU16(buf, 64, c.majorSwapThresholdTicks, 'majorSwapThresholdTicks');
  const v = o.adaptiveFeeVariables;
  writeU64(buf, 82, v.lastReferenceUpdateTimestamp, 'lastReferenceUpdateTimestamp');
  writeU64(buf, 90, v.lastMajorSwapTimestamp, 'lastMajorSwapTimestamp');
  buf.writeUInt32LE(v.volatilityReference, 98);
  writeI32(buf, 102, v.tickGroupIndexReference, 'tickGroupIndexReference');
  buf.writeUInt32LE(v.volatilityAccumulator, 106);
  return buf;
}

// ---------------------------------------------------------------- other accounts

export function decodeWhirlpoolPosition(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolPosition {
  const buf = checkAccount(data, owner, address, 'Position', POSITION_SIZE);
  const rewardInfos = [];
  for (let i = 0; i < NUM_REWARDS; i++) {
    const o = 144 + 24 * i;
    rewardInfos.push({ growthInsideCheckpoint: readU128(buf, o), amountOwed: buf.readBigUInt64LE(o + 16) });
  }
  return {
    whirlpool: readPubkey(buf, 8),
    positionMint: readPubkey(buf, 40),
    liquidity: readU128(buf, 72),
    tickLowerIndex: buf.readInt32LE(88),
    tickUpperIndex: buf.readInt32LE(92),
    feeGrowthCheckpointA: readU128(buf, 96),
    feeOwedA: buf.readBigUInt64LE(112),
    feeGrowthCheckpointB: readU128(buf, 120),
    feeOwedB: buf.readBigUInt64LE(136),
    rewardInfos,
  };
}

export function decodeWhirlpoolPositionBundle(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolPositionBundle {
  const buf = checkAccount(data, owner, address, 'PositionBundle', POSITION_BUNDLE_SIZE);
  return { positionBundleMint: readPubkey(buf, 8), positionBitmap: Uint8Array.from(buf.subarray(40, 72)) };
}

export function decodeWhirlpoolTokenBadge(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolTokenBadge {
  const buf = checkAccount(data, owner, address, 'TokenBadge', TOKEN_BADGE_SIZE);
  return {
    whirlpoolsConfig: readPubkey(buf, 8),
    tokenMint: readPubkey(buf, 40),
    attributeRequireNonTransferablePosition: readBool(buf, 72, address, 'attributeRequireNonTransferablePosition'),
  };
}

export function decodeWhirlpoolsConfigExtension(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolsConfigExtension {
  const buf = checkAccount(data, owner, address, 'WhirlpoolsConfigExtension', WHIRLPOOLS_CONFIG_EXTENSION_SIZE);
  return {
    whirlpoolsConfig: readPubkey(buf, 8),
    configExtensionAuthority: readPubkey(buf, 40),
    tokenBadgeAuthority: readPubkey(buf, 72),
  };
}

export function decodeWhirlpoolLockConfig(data: Uint8Array, owner?: string, address = '(unknown)'): WhirlpoolLockConfig {
  const buf = checkAccount(data, owner, address, 'LockConfig', LOCK_CONFIG_SIZE);
  const lockType = buf[112];
  if (lockType !== 0) throw new AccountDecodeError(address, `unknown LockConfig lockType ${lockType}`);
  return {
    position: readPubkey(buf, 8),
    positionOwner: readPubkey(buf, 40),
    whirlpool: readPubkey(buf, 72),
    lockedTimestamp: buf.readBigUInt64LE(104),
    lockType,
  };
}

// ---------------------------------------------------------------- PDAs

function pda(seeds: (string | Buffer)[]): string {
  return programAddress(PROGRAM_IDS.orcaWhirlpool, seeds);
}

function key(address: string): Buffer {
  return new PublicKey(address).toBuffer();
}

function u16le(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(v, 0);
  return b;
}

const tickArrayPdaCache = new Map<string, string>();

/** ["tick_array", whirlpool, start tick index as a decimal string]. Cached (PDA search is slow). */
export function whirlpoolTickArrayAddress(whirlpool: string, startTickIndex: number): string {
  const k = `${whirlpool}:${startTickIndex}`;
  let v = tickArrayPdaCache.get(k);
  if (v === undefined) {
    v = pda(['tick_array', key(whirlpool), String(startTickIndex)]);
    if (tickArrayPdaCache.size > 100_000) tickArrayPdaCache.clear();
    tickArrayPdaCache.set(k, v);
  }
  return v;
}

const oraclePdaCache = new Map<string, string>();
/** ["oracle", whirlpool] */
export function whirlpoolOracleAddress(whirlpool: string): string {
  let v = oraclePdaCache.get(whirlpool);
  if (v === undefined) {
    v = pda(['oracle', key(whirlpool)]);
    if (oraclePdaCache.size > 100_000) oraclePdaCache.clear();
    oraclePdaCache.set(whirlpool, v);
  }
  return v;
}

/** ["whirlpool", config, mintA, mintB, feeTierIndex u16 LE] */
export function whirlpoolAddress(config: string, mintA: string, mintB: string, feeTierIndex: number): string {
  return pda(['whirlpool', key(config), key(mintA), key(mintB), u16le(feeTierIndex)]);
}

/** ["fee_tier", config, feeTierIndex u16 LE] (FeeTier and AdaptiveFeeTier share it) */
export function whirlpoolFeeTierAddress(config: string, feeTierIndex: number): string {
  return pda(['fee_tier', key(config), u16le(feeTierIndex)]);
}

// ---------------------------------------------------------------- dispatcher

export type DecodedWhirlpoolAccount =
  | { type: 'Whirlpool'; value: Whirlpool }
  | { type: 'WhirlpoolsConfig'; value: WhirlpoolsConfig }
  | { type: 'FeeTier'; value: WhirlpoolFeeTier }
  | { type: 'AdaptiveFeeTier'; value: WhirlpoolAdaptiveFeeTier }
  | { type: 'TickArray' | 'DynamicTickArray'; value: WhirlpoolTickArray }
  | { type: 'Oracle'; value: WhirlpoolOracle }
  | { type: 'Position'; value: WhirlpoolPosition }
  | { type: 'PositionBundle'; value: WhirlpoolPositionBundle }
  | { type: 'TokenBadge'; value: WhirlpoolTokenBadge }
  | { type: 'WhirlpoolsConfigExtension'; value: WhirlpoolsConfigExtension }
  | { type: 'LockConfig'; value: WhirlpoolLockConfig };

/** Decode any Whirlpool-program account by its discriminator; throws AccountDecodeError when unknown. */
export function decodeWhirlpoolProgramAccount(data: Uint8Array, owner?: string, address = '(unknown)'): DecodedWhirlpoolAccount {
  if (owner !== undefined && owner !== PROGRAM_IDS.orcaWhirlpool) {
    throw new AccountDecodeError(address, `wrong owner ${owner} for an Orca Whirlpool account: expected ${PROGRAM_IDS.orcaWhirlpool}`);
  }
  const type = whirlpoolAccountType(data);
  switch (type) {
    case 'Whirlpool':
      return { type, value: decodeWhirlpool(data, owner, address) };
    case 'WhirlpoolsConfig':
      return { type, value: decodeWhirlpoolsConfig(data, owner, address) };
    case 'FeeTier':
      return { type, value: decodeFeeTier(data, owner, address) };
    case 'AdaptiveFeeTier':
      return { type, value: decodeAdaptiveFeeTier(data, owner, address) };
    case 'TickArray':
      return { type, value: decodeFixedTickArray(data, owner, address) };
    case 'DynamicTickArray':
      return { type, value: decodeDynamicTickArray(data, owner, address) };
    case 'Oracle':
      return { type, value: decodeOracle(data, owner, address) };
    case 'Position':
      return { type, value: decodeWhirlpoolPosition(data, owner, address) };
    case 'PositionBundle':
      return { type, value: decodeWhirlpoolPositionBundle(data, owner, address) };
    case 'TokenBadge':
      return { type, value: decodeWhirlpoolTokenBadge(data, owner, address) };
    case 'WhirlpoolsConfigExtension':
      return { type, value: decodeWhirlpoolsConfigExtension(data, owner, address) };
    case 'LockConfig':
      return { type, value: decodeWhirlpoolLockConfig(data, owner, address) };
    default: {
      const d = data.length >= 8 ? view(data).subarray(0, 8).toString('hex') : `${data.length} bytes`;
      throw new AccountDecodeError(address, `unknown Orca Whirlpool account discriminator ${d}`);
    }
  }
}
