/**
 * Raydium CPMM (cp-swap) account codecs and PDAs.
 *
 * PoolState (637 bytes, Anchor zero-copy, packed): discriminator @0 (8) | ammConfig @8
 * | poolCreator @40 | token0Vault @72 | token1Vault @104 | lpMint @136 | token0Mint @168
 * | token1Mint @200 | token0Program @232 | token1Program @264 | observationKey @296
 * | authBump u8 @328 | status u8 @329 | lpMintDecimals u8 @330 | mint0Decimals u8 @331
 * | mint1Decimals u8 @332 | lpSupply u64 @333 | protocolFeesToken0 @341 | protocolFeesToken1 @349
 * | fundFeesToken0 @357 | fundFeesToken1 @365 | openTime @373 | recentEpoch @381
 * | creatorFeeOn u8 @389 | enableCreatorFee bool @390 | padding1 [u8;6] @391
 * | creatorFeesToken0 u64 @397 | creatorFeesToken1 u64 @405 | padding [u64;28] @413.
 *
 * AmmConfig (236 bytes, Anchor borsh): discriminator @0 | bump u8 @8 | disableCreatePool bool @9
 * | index u16 @10 | tradeFeeRate u64 @12 | protocolFeeRate @20 | fundFeeRate @28
 * | createPoolFee @36 | protocolOwner @44 | fundOwner @76 | creatorFeeRate u64 @108
 * | padding [u64;15] @116.
 */
import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { readPubkey, writePubkey } from './base58';
import { PROGRAM_IDS } from './programs';
import { readBool, readU64, view, writeU64, checkAnchorAccount } from './bytes';
import { programAddress } from './pda';

export const CPMM_POOL_STATE_SIZE = 637;
export const CPMM_AMM_CONFIG_SIZE = 236;
/** ObservationState: 8 + 1 + 2 + 32 + 40 * 100 + 8 * 4 */
export const CPMM_OBSERVATION_STATE_SIZE = 4075;

function anchorAccountDiscriminator(name: string): Buffer {
  return createHash('sha256').update(`account:${name}`).digest().subarray(0, 8);
}

export const CPMM_POOL_STATE_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('PoolState');
export const CPMM_AMM_CONFIG_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('AmmConfig');
export const CPMM_OBSERVATION_STATE_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('ObservationState');

/** PoolState.status bits: a set bit disables the operation. */
export const CPMM_STATUS_BIT = { deposit: 1, withdraw: 2, swap: 4 } as const;

export interface CpmmPoolState {
  ammConfig: string;
  poolCreator: string;
  token0Vault: string;
  token1Vault: string;
  lpMint: string;
  token0Mint: string;
  token1Mint: string;
  token0Program: string;
  token1Program: string;
  observationKey: string;
  authBump: number;
  /** bit0 disables deposit, bit1 withdraw, bit2 swap */
  status: number;
  lpMintDecimals: number;
  mint0Decimals: number;
  mint1Decimals: number;
  lpSupply: bigint;
  protocolFeesToken0: bigint;
  protocolFeesToken1: bigint;
  fundFeesToken0: bigint;
  fundFeesToken1: bigint;
  openTime: bigint;
  recentEpoch: bigint;
  /** 0: creator fee taken from the input token; 1: only token0; 2: only token1 */
  creatorFeeOn: number;
  enableCreatorFee: boolean;
  creatorFeesToken0: bigint;
  creatorFeesToken1: bigint;
}

export interface CpmmAmmConfig {
  bump: number;
  disableCreatePool: boolean;
  index: number;
  /** all rates are in millionths (FEE_RATE_DENOMINATOR 1_000_000) */
  tradeFeeRate: bigint;
  /** share of the trade fee that goes to the protocol, millionths */
  protocolFeeRate: bigint;
  /** share of the trade fee that goes to the fund, millionths */
  fundFeeRate: bigint;
  createPoolFee: bigint;
  protocolOwner: string;
  fundOwner: string;
  creatorFeeRate: bigint;
}

function checkAccount(data: Uint8Array, owner: string | undefined, address: string, size: number, discriminator: Buffer, what: string): Buffer {
  return checkAnchorAccount(data, owner, address, { programId: PROGRAM_IDS.raydiumCpmm, what: `a Raydium CPMM ${what}`, size, discriminator });
}

function writeU8(buf: Buffer, offset: number, value: number, field: string): void {
  if (!Number.isInteger(value) || value < 0 || value > 255) throw new RangeError(`${field} out of u8 range: ${value}`);
  buf[offset] = value;
}

/** Which CPMM account the bytes hold, by Anchor discriminator (null when none matches). */
export function cpmmAccountType(data: Uint8Array): 'PoolState' | 'AmmConfig' | 'ObservationState' | null {
  if (data.length < 8) return null;
  const d = view(data).subarray(0, 8);
  if (d.equals(CPMM_POOL_STATE_DISCRIMINATOR)) return 'PoolState';
  if (d.equals(CPMM_AMM_CONFIG_DISCRIMINATOR)) return 'AmmConfig';
  if (d.equals(CPMM_OBSERVATION_STATE_DISCRIMINATOR)) return 'ObservationState';
  return null;
}

const POOL_KEYS = [
  'ammConfig',
  'poolCreator',
  'token0Vault',
  'token1Vault',
  'lpMint',
  'token0Mint',
  'token1Mint',
  'token0Program',
  'token1Program',
  'observationKey',
] as const;

const POOL_U64_A = [
  'lpSupply',
  'protocolFeesToken0',
  'protocolFeesToken1',
  'fundFeesToken0',
  'fundFeesToken1',
  'openTime',
  'recentEpoch',
] as const;

/** Decode a PoolState. `owner`, when given, must be the CPMM program. */
export function decodeCpmmPoolState(data: Uint8Array, owner?: string, address = '(unknown)'): CpmmPoolState {
  const buf = checkAccount(data, owner, address, CPMM_POOL_STATE_SIZE, CPMM_POOL_STATE_DISCRIMINATOR, 'PoolState');
  return poolStateOf(
    buf,
    address,
    readPubkey(buf, 8),
    readPubkey(buf, 40),
    readPubkey(buf, 72),
    readPubkey(buf, 104),
    readPubkey(buf, 136),
    readPubkey(buf, 168),
    readPubkey(buf, 200),
    readPubkey(buf, 232),
    readPubkey(buf, 264),
    readPubkey(buf, 296),
    null,
    null,
  );
}

/**
 * Delta decode of a PoolState whose bytes 0..328 (discriminator and the ten keys) are those of
 * `prevData`, a content of the same account (same owner, same size) that decoded to `prev`: the
 * keys are taken from `prev`, the scalars read from `data` (a u64 whose bytes did not change
 * keeps prev's value). Equal to decodeCpmmPoolState(data) field for field, same error when the
 * enableCreatorFee byte is invalid. The caller checks the preconditions.
 */
export function decodeCpmmPoolStateKeysFrom(prev: CpmmPoolState, prevData: Uint8Array, data: Uint8Array, address = '(unknown)'): CpmmPoolState {
  const p = prev;
  return poolStateOf(
    view(data),
    address,
    p.ammConfig,
    p.poolCreator,
    p.token0Vault,
    p.token1Vault,
    p.lpMint,
    p.token0Mint,
    p.token1Mint,
    p.token0Program,
    p.token1Program,
    p.observationKey,
    prev,
    view(prevData),
  );
}

/** a u64 of `buf`, or prev's value when `prevBuf` holds the same 8 bytes there */
function u64(buf: Buffer, o: number, prevBuf: Buffer | null, prevValue: bigint | undefined): bigint {
  if (prevBuf !== null && prevValue !== undefined) {
    let same = true;
    for (let i = o; i < o + 8; i++) {
      if (buf[i] !== prevBuf[i]) {
        same = false;
        break;
      }
    }
    if (same) return prevValue;
  }
  return readU64(buf, o);
}

/** one shape for every decoded PoolState (same key order as the layout) */
function poolStateOf(
  buf: Buffer,
  address: string,
  ammConfig: string,
  poolCreator: string,
  token0Vault: string,
  token1Vault: string,
  lpMint: string,
  token0Mint: string,
  token1Mint: string,
  token0Program: string,
  token1Program: string,
  observationKey: string,
  prev: CpmmPoolState | null,
  prevBuf: Buffer | null,
): CpmmPoolState {
  return {
    ammConfig,
    poolCreator,
    token0Vault,
    token1Vault,
    lpMint,
    token0Mint,
    token1Mint,
    token0Program,
    token1Program,
    observationKey,
    authBump: buf[328],
    status: buf[329],
    lpMintDecimals: buf[330],
    mint0Decimals: buf[331],
    mint1Decimals: buf[332],
    lpSupply: u64(buf, 333, prevBuf, prev?.lpSupply),
    protocolFeesToken0: u64(buf, 341, prevBuf, prev?.protocolFeesToken0),
    protocolFeesToken1: u64(buf, 349, prevBuf, prev?.protocolFeesToken1),
    fundFeesToken0: u64(buf, 357, prevBuf, prev?.fundFeesToken0),
    fundFeesToken1: u64(buf, 365, prevBuf, prev?.fundFeesToken1),
    openTime: u64(buf, 373, prevBuf, prev?.openTime),
    recentEpoch: u64(buf, 381, prevBuf, prev?.recentEpoch),
    creatorFeeOn: buf[389],
    enableCreatorFee: readBool(buf, 390, address, 'enableCreatorFee'),
    creatorFeesToken0: u64(buf, 397, prevBuf, prev?.creatorFeesToken0),
    creatorFeesToken1: u64(buf, 405, prevBuf, prev?.creatorFeesToken1),
  };
}

/** Encode a PoolState (637 bytes, padding zero). */
export function encodeCpmmPoolState(s: CpmmPoolState): Buffer {
  const buf = Buffer.alloc(CPMM_POOL_STATE_SIZE);
  CPMM_POOL_STATE_DISCRIMINATOR.copy(buf, 0);
  POOL_KEYS.forEach((k, i) => writePubkey(buf, 8 + 32 * i, s[k]));
  writeU8(buf, 328, s.authBump, 'authBump');
  writeU8(buf, 329, s.status, 'status');
  writeU8(buf, 330, s.lpMintDecimals, 'lpMintDecimals');
  writeU8(buf, 331, s.mint0Decimals, 'mint0Decimals');
  writeU8(buf, 332, s.mint1Decimals, 'mint1Decimals');
  POOL_U64_A.forEach((k, i) => writeU64(buf, 333 + 8 * i, s[k], k));
  writeU8(buf, 389, s.creatorFeeOn, 'creatorFeeOn');
  buf[390] = s.enableCreatorFee ? 1 : 0;
  writeU64(buf, 397, s.creatorFeesToken0, 'creatorFeesToken0');
  writeU64(buf, 405, s.creatorFeesToken1, 'creatorFeesToken1');
  return buf;
}

/** Decode an AmmConfig. `owner`, when given, must be the CPMM program. */
export function decodeCpmmAmmConfig(data: Uint8Array, owner?: string, address = '(unknown)'): CpmmAmmConfig {
  const buf = checkAccount(data, owner, address, CPMM_AMM_CONFIG_SIZE, CPMM_AMM_CONFIG_DISCRIMINATOR, 'AmmConfig');
  return {
    bump: buf[8],
    disableCreatePool: readBool(buf, 9, address, 'disableCreatePool'),
    index: buf.readUInt16LE(10),
    tradeFeeRate: buf.readBigUInt64LE(12),
    protocolFeeRate: buf.readBigUInt64LE(20),
    fundFeeRate: buf.readBigUInt64LE(28),
    createPoolFee: buf.readBigUInt64LE(36),
    protocolOwner: readPubkey(buf, 44),
    fundOwner: readPubkey(buf, 76),
    creatorFeeRate: buf.readBigUInt64LE(108),
  };
}

/** Encode an AmmConfig (236 bytes, padding zero). */
export function encodeCpmmAmmConfig(c: CpmmAmmConfig): Buffer {
  const buf = Buffer.alloc(CPMM_AMM_CONFIG_SIZE);
  CPMM_AMM_CONFIG_DISCRIMINATOR.copy(buf, 0);
  writeU8(buf, 8, c.bump, 'bump');
  buf[9] = c.disableCreatePool ? 1 : 0;
  if (!Number.isInteger(c.index) || c.index < 0 || c.index > 0xffff) throw new RangeError(`index out of u16 range: ${c.index}`);
  buf.writeUInt16LE(c.index, 10);
  writeU64(buf, 12, c.tradeFeeRate, 'tradeFeeRate');
  writeU64(buf, 20, c.protocolFeeRate, 'protocolFeeRate');
  writeU64(buf, 28, c.fundFeeRate, 'fundFeeRate');
  writeU64(buf, 36, c.createPoolFee, 'createPoolFee');
  writePubkey(buf, 44, c.protocolOwner);
  writePubkey(buf, 76, c.fundOwner);
  writeU64(buf, 108, c.creatorFeeRate, 'creatorFeeRate');
  return buf;
}

// ---- PDAs (seeds as in the program) ----

export const CPMM_SEEDS = {
  authority: 'vault_and_lp_mint_auth_seed',
  ammConfig: 'amm_config',
  pool: 'pool',
  poolVault: 'pool_vault',
  poolLpMint: 'pool_lp_mint',
  observation: 'observation',
} as const;

function pda(seeds: (string | Buffer)[]): string {
  return programAddress(PROGRAM_IDS.raydiumCpmm, seeds);
}

function key(address: string): Buffer {
  return new PublicKey(address).toBuffer();
}

let authorityCache: string | undefined;
/** The vault and LP mint authority ["vault_and_lp_mint_auth_seed"]. */
export function cpmmAuthority(): string {
  return (authorityCache ??= pda([CPMM_SEEDS.authority]));
}

/** A pool created at its canonical address ["pool", ammConfig, mint0, mint1]. */
export function cpmmPoolAddress(ammConfig: string, mint0: string, mint1: string): string {
  return pda([CPMM_SEEDS.pool, key(ammConfig), key(mint0), key(mint1)]);
}

/** A pool vault ["pool_vault", pool, mint]. */
export function cpmmVaultAddress(pool: string, mint: string): string {
  return pda([CPMM_SEEDS.poolVault, key(pool), key(mint)]);
}

/** The pool's LP mint ["pool_lp_mint", pool]. */
export function cpmmLpMintAddress(pool: string): string {
  return pda([CPMM_SEEDS.poolLpMint, key(pool)]);
}

/** An AmmConfig ["amm_config", index as u16 big endian]. */
export function cpmmAmmConfigAddress(index: number): string {
  if (!Number.isInteger(index) || index < 0 || index > 0xffff) throw new RangeError(`index out of u16 range: ${index}`);
  const be = Buffer.alloc(2);
  be.writeUInt16BE(index, 0);
  return pda([CPMM_SEEDS.ammConfig, be]);
}

/** The pool's observation (oracle) account ["observation", pool]. */
export function cpmmObservationAddress(pool: string): string {
  return pda([CPMM_SEEDS.observation, key(pool)]);
}
