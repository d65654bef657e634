/**
 * pump.fun bonding-curve program (6EF8rrec…) account codecs, and the pump fees program's
 * FeeConfig (shared with PumpSwap). Anchor accounts: 8-byte discriminator, then borsh fields.
 *
 * pump.fun accounts grow by `extend_account`: new fields are appended and read as zero by the
 * program while an account is shorter than them. The decoders do the same: a field that lies
 * wholly beyond the data is its zero value (false, 0, the default pubkey); the account must hold
 * at least the original fields. A field cut in half by the end of the data is treated as absent.
 *
 * BondingCurve (current 115 bytes of fields; mainnet accounts are extended to 150):
 *  disc @0 | virtualTokenReserves u64 @8 | virtualQuoteReserves u64 @16 | realTokenReserves @24
 *  | realQuoteReserves @32 | tokenTotalSupply @40 | complete bool @48 | creator @49
 *  | isMayhemMode bool @81 | isCashbackCoin bool @82 | quoteMint @83 (default pubkey = SOL).
 *  The IDL's virtual_quote_reserves / real_quote_reserves were virtual_sol_reserves /
 *  real_sol_reserves before non-SOL quote mints; for SOL curves they are lamports.
 *
 * Global: disc | initialized bool @8 | authority @9 | feeRecipient @41
 *  | initialVirtualTokenReserves u64 @73 | initialVirtualSolReserves @81 | initialRealTokenReserves @89
 *  | tokenTotalSupply @97 | feeBasisPoints @105 | withdrawAuthority @113 | enableMigrate bool @145
 *  | poolMigrationFee u64 @146 | creatorFeeBasisPoints u64 @154 | feeRecipients [pubkey;7] @162
 *  | setCreatorAuthority @386 | adminSetCreatorAuthority @418 | createV2Enabled bool @450
 *  | whitelistPda @451 | reservedFeeRecipient @483 | mayhemModeEnabled bool @515
 *  | reservedFeeRecipients [pubkey;7] @516 | isCashbackEnabled bool @740
 *  | buybackFeeRecipients [pubkey;8] @741 | buybackBasisPoints u64 @997
 *  | initialVirtualQuoteReserves u64 @1005 | whitelistedQuoteMints [pubkey;1] @1013 — 1045 bytes.
 *
 * FeeConfig (owner: pump fees program): disc | bump u8 @8 | admin @9 | flatFees Fees @41
 *  (lpFeeBps, protocolFeeBps, creatorFeeBps: u64) | feeTiers Vec<FeeTier> @65 (u32 length, then
 *  per tier marketCapLamportsThreshold u128 + Fees = 40 bytes) | stableFeeTiers Vec<FeeTier>.
 */
import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { readPubkey, writePubkey } from './base58';
import { AccountDecodeError } from './decode-error';
import { PROGRAM_IDS } from './programs';
import { programAddress } from './pda';

/** The pump fees program (owner of FeeConfig accounts; computes the tiered fees). */
export const PUMP_FEES_PROGRAM_ID = 'pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ';
/** The all-zero public key (Pubkey::default()). */
export const DEFAULT_PUBKEY = PROGRAM_IDS.system;

export function anchorAccountDiscriminator(name: string): Buffer {
  return createHash('sha256').update(`account:${name}`).digest().subarray(0, 8);
}

export const PUMP_BONDING_CURVE_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('BondingCurve');
export const PUMP_GLOBAL_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('Global');
export const PUMP_FEE_CONFIG_DISCRIMINATOR: Buffer = anchorAccountDiscriminator('FeeConfig');

// ---------------------------------------------------------------------------------------------
// A small fixed-layout field reader/writer shared by the pump codecs (also used by pump-amm.ts).
// ---------------------------------------------------------------------------------------------

export type FieldKind = 'u8' | 'u16' | 'bool' | 'u64' | 'u128' | 'pubkey' | { pubkeys: number };
export type FieldSpec = readonly [name: string, kind: FieldKind];

function kindSize(kind: FieldKind): number {
  if (typeof kind === 'object') return 32 * kind.pubkeys;
  return { u8: 1, u16: 2, bool: 1, u64: 8, u128: 16, pubkey: 32 }[kind];
}

function zeroValue(kind: FieldKind): unknown {
  if (typeof kind === 'object') return Array.from({ length: kind.pubkeys }, () => DEFAULT_PUBKEY);
  switch (kind) {
    case 'u8':
    case 'u16':
      return 0;
    case 'bool':
      return false;
    case 'u64':
    case 'u128':
      return 0n;
    case 'pubkey':
      return DEFAULT_PUBKEY;
  }
}

/** Byte offset just past the last field of `specs` starting at `start`. */
export function layoutEnd(specs: readonly FieldSpec[], start = 8): number {
  return specs.reduce((o, [, k]) => o + kindSize(k), start);
}

/** Byte offset of the field `name` in `specs` starting at `start`. */
export function fieldOffset(specs: readonly FieldSpec[], name: string, start = 8): number {
  let o = start;
  for (const [n, k] of specs) {
    if (n === name) return o;
    o += kindSize(k);
  }
  throw new Error(`no field ${name}`);
}

export function view(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

export function readU128(buf: Buffer, offset: number): bigint {
  return buf.readBigUInt64LE(offset) | (buf.readBigUInt64LE(offset + 8) << 64n);
}

export function writeU128(buf: Buffer, offset: number, value: bigint, field: string): void {
  if (value < 0n || value >= 1n << 128n) throw new RangeError(`${field} out of u128 range: ${value}`);
  buf.writeBigUInt64LE(value & 0xffffffffffffffffn, offset);
  buf.writeBigUInt64LE(value >> 64n, offset + 8);
}

export function writeU64(buf: Buffer, offset: number, value: bigint, field: string): void {
  if (value < 0n || value > 0xffffffffffffffffn) throw new RangeError(`${field} out of u64 range: ${value}`);
  buf.writeBigUInt64LE(value, offset);
}

/**
 * Check owner, discriminator and minimum size (`minEnd`), then read `specs` from byte 8; fields
 * past the data end are zero. Throws AccountDecodeError; never returns a partial value.
 */
export function decodeFields(
  data: Uint8Array,
  opts: {
    owner: string | undefined;
    expectedOwner: string;
    address: string;
    discriminator: Buffer;
    what: string;
    minEnd: number;
  },
  specs: readonly FieldSpec[],
): Record<string, unknown> {
  const { owner, expectedOwner, address, discriminator, what, minEnd } = opts;
  if (owner !== undefined && owner !== expectedOwner) {
    throw new AccountDecodeError(address, `wrong owner ${owner} for a ${what}: expected ${expectedOwner}`);
  }
  const buf = view(data);
  if (buf.length < 8 || !buf.subarray(0, 8).equals(discriminator)) {
    throw new AccountDecodeError(
      address,
      `wrong discriminator ${buf.subarray(0, Math.min(8, buf.length)).toString('hex')} for a ${what}: expected ${discriminator.toString('hex')}`,
    );
  }
  if (buf.length < minEnd) throw new AccountDecodeError(address, `${what} too short: ${buf.length} bytes, needs at least ${minEnd}`);
  const out: Record<string, unknown> = {};
  let o = 8;
  for (const [name, kind] of specs) {
    const size = kindSize(kind);
    if (o + size > buf.length) {
      out[name] = zeroValue(kind);
    } else if (typeof kind === 'object') {
      out[name] = Array.from({ length: kind.pubkeys }, (_, i) => readPubkey(buf, o + 32 * i));
    } else {
      switch (kind) {
        case 'u8':
          out[name] = buf[o];
          break;
        case 'u16':
          out[name] = buf.readUInt16LE(o);
          break;
        case 'bool':
          if (buf[o] > 1) throw new AccountDecodeError(address, `invalid bool byte ${buf[o]} for ${what}.${name}`);
          out[name] = buf[o] === 1;
          break;
        case 'u64':
          out[name] = buf.readBigUInt64LE(o);
          break;
        case 'u128':
          out[name] = readU128(buf, o);
          break;
        case 'pubkey':
          out[name] = readPubkey(buf, o);
          break;
      }
    }
    o += size;
  }
  return out;
}

/**
 * Write `value`'s `specs` fields after `discriminator` into a zeroed buffer of `size` bytes. A
 * `size` below the full layout (an account not yet extended) leaves out the fields that do not
 * fit wholly; it must hold at least `minEnd` bytes.
 */
export function encodeFields(value: object, discriminator: Buffer, specs: readonly FieldSpec[], size: number, minEnd: number): Buffer {
  if (size < minEnd) throw new RangeError(`size ${size} is below the minimum ${minEnd} bytes`);
  const buf = Buffer.alloc(size);
  discriminator.copy(buf, 0);
  const v = value as Record<string, unknown>;
  let o = 8;
  for (const [name, kind] of specs) {
    const x = v[name];
    if (o + kindSize(kind) > size) break;
    if (typeof kind === 'object') {
      const keys = x as string[];
      if (!Array.isArray(keys) || keys.length !== kind.pubkeys) throw new RangeError(`${name} must hold ${kind.pubkeys} keys`);
      keys.forEach((k, i) => writePubkey(buf, o + 32 * i, k));
    } else {
      switch (kind) {
        case 'u8':
          if (!Number.isInteger(x) || (x as number) < 0 || (x as number) > 255) throw new RangeError(`${name} out of u8 range: ${x}`);
          buf[o] = x as number;
          break;
        case 'u16':
          if (!Number.isInteger(x) || (x as number) < 0 || (x as number) > 0xffff) throw new RangeError(`${name} out of u16 range: ${x}`);
          buf.writeUInt16LE(x as number, o);
          break;
        case 'bool':
          buf[o] = x ? 1 : 0;
          break;
        case 'u64':
          writeU64(buf, o, x as bigint, name);
          break;
        case 'u128':
          writeU128(buf, o, x as bigint, name);
          break;
        case 'pubkey':
          writePubkey(buf, o, x as string);
          break;
      }
    }
    o += kindSize(kind);
  }
  return buf;
}

// ---------------------------------------------------------------------------------------------
// BondingCurve
// ---------------------------------------------------------------------------------------------

export interface PumpBondingCurve {
  virtualTokenReserves: bigint;
  /** virtual quote (lamports for SOL curves); the SDKs call it virtualSolReserves */
  virtualQuoteReserves: bigint;
  realTokenReserves: bigint;
  /** real quote held by the curve (lamports for SOL curves) */
  realQuoteReserves: bigint;
  tokenTotalSupply: bigint;
  /** all real tokens sold: the curve no longer trades (its token moves to PumpSwap) */
  complete: boolean;
  /** the coin creator; the default pubkey means none (no creator fee) */
  creator: string;
  isMayhemMode: boolean;
  isCashbackCoin: boolean;
  /** the default pubkey for SOL curves */
  quoteMint: string;
}

const BONDING_CURVE_FIELDS: readonly FieldSpec[] = [
  ['virtualTokenReserves', 'u64'],
  ['virtualQuoteReserves', 'u64'],
  ['realTokenReserves', 'u64'],
  ['realQuoteReserves', 'u64'],
  ['tokenTotalSupply', 'u64'],
  ['complete', 'bool'],
  ['creator', 'pubkey'],
  ['isMayhemMode', 'bool'],
  ['isCashbackCoin', 'bool'],
  ['quoteMint', 'pubkey'],
];
/** the original layout (through `complete`): 49 bytes */
export const PUMP_BONDING_CURVE_MIN_SIZE = 49;
/** the size mainnet curves are extended to */
export const PUMP_BONDING_CURVE_SIZE = 150;

export function decodePumpBondingCurve(data: Uint8Array, owner?: string, address = '(unknown)'): PumpBondingCurve {
  return decodeFields(
    data,
    {
      owner,
      expectedOwner: PROGRAM_IDS.pumpFun,
      address,
      discriminator: PUMP_BONDING_CURVE_DISCRIMINATOR,
      what: 'pump.fun BondingCurve',
      minEnd: PUMP_BONDING_CURVE_MIN_SIZE,
    },
    BONDING_CURVE_FIELDS,
  ) as unknown as PumpBondingCurve;
}

export function encodePumpBondingCurve(c: PumpBondingCurve, size = PUMP_BONDING_CURVE_SIZE): Buffer {
  return encodeFields(c, PUMP_BONDING_CURVE_DISCRIMINATOR, BONDING_CURVE_FIELDS, size, PUMP_BONDING_CURVE_MIN_SIZE);
}

// ---------------------------------------------------------------------------------------------
// Global
// ---------------------------------------------------------------------------------------------

export interface PumpGlobal {
  initialized: boolean;
  authority: string;
  feeRecipient: string;
  initialVirtualTokenReserves: bigint;
  initialVirtualSolReserves: bigint;
  initialRealTokenReserves: bigint;
  tokenTotalSupply: bigint;
  /** protocol fee (bps) when there is no FeeConfig */
  feeBasisPoints: bigint;
  withdrawAuthority: string;
  enableMigrate: boolean;
  poolMigrationFee: bigint;
  /** creator fee (bps) when there is no FeeConfig */
  creatorFeeBasisPoints: bigint;
  feeRecipients: string[];
  setCreatorAuthority: string;
  adminSetCreatorAuthority: string;
  createV2Enabled: boolean;
  whitelistPda: string;
  reservedFeeRecipient: string;
  mayhemModeEnabled: boolean;
  reservedFeeRecipients: string[];
  isCashbackEnabled: boolean;
  buybackFeeRecipients: string[];
  buybackBasisPoints: bigint;
  initialVirtualQuoteReserves: bigint;
  whitelistedQuoteMints: string[];
}

const GLOBAL_FIELDS: readonly FieldSpec[] = [
  ['initialized', 'bool'],
  ['authority', 'pubkey'],
  ['feeRecipient', 'pubkey'],
  ['initialVirtualTokenReserves', 'u64'],
  ['initialVirtualSolReserves', 'u64'],
  ['initialRealTokenReserves', 'u64'],
  ['tokenTotalSupply', 'u64'],
  ['feeBasisPoints', 'u64'],
  ['withdrawAuthority', 'pubkey'],
  ['enableMigrate', 'bool'],
  ['poolMigrationFee', 'u64'],
  ['creatorFeeBasisPoints', 'u64'],
  ['feeRecipients', { pubkeys: 7 }],
  ['setCreatorAuthority', 'pubkey'],
  ['adminSetCreatorAuthority', 'pubkey'],
  ['createV2Enabled', 'bool'],
  ['whitelistPda', 'pubkey'],
  ['reservedFeeRecipient', 'pubkey'],
  ['mayhemModeEnabled', 'bool'],
  ['reservedFeeRecipients', { pubkeys: 7 }],
  ['isCashbackEnabled', 'bool'],
  ['buybackFeeRecipients', { pubkeys: 8 }],
  ['buybackBasisPoints', 'u64'],
  ['initialVirtualQuoteReserves', 'u64'],
  ['whitelistedQuoteMints', { pubkeys: 1 }],
];
/** through poolMigrationFee (the layout before creator fees): 154 bytes */
export const PUMP_GLOBAL_MIN_SIZE = 154;
/** every field of the current IDL */
export const PUMP_GLOBAL_SIZE = layoutEnd(GLOBAL_FIELDS);

export function decodePumpGlobal(data: Uint8Array, owner?: string, address = '(unknown)'): PumpGlobal {
  return decodeFields(
    data,
    {
      owner,
      expectedOwner: PROGRAM_IDS.pumpFun,
      address,
      discriminator: PUMP_GLOBAL_DISCRIMINATOR,
      what: 'pump.fun Global',
      minEnd: PUMP_GLOBAL_MIN_SIZE,
    },
    GLOBAL_FIELDS,
  ) as unknown as PumpGlobal;
}

export function encodePumpGlobal(g: PumpGlobal, size = PUMP_GLOBAL_SIZE): Buffer {
  return encodeFields(g, PUMP_GLOBAL_DISCRIMINATOR, GLOBAL_FIELDS, size, PUMP_GLOBAL_MIN_SIZE);
}

// ---------------------------------------------------------------------------------------------
// FeeConfig (pump fees program): shared by pump.fun and PumpSwap, one account per program.
// ---------------------------------------------------------------------------------------------

export interface PumpFees {
  lpFeeBps: bigint;
  protocolFeeBps: bigint;
  creatorFeeBps: bigint;
}

export interface PumpFeeTier {
  /** the tier applies from this market cap (quote smallest units) up */
  marketCapLamportsThreshold: bigint;
  fees: PumpFees;
}

export interface PumpFeeConfig {
  bump: number;
  admin: string;
  /** fees of non-canonical PumpSwap pools */
  flatFees: PumpFees;
  /** market-cap tiers (SOL-quoted), ascending thresholds */
  feeTiers: PumpFeeTier[];
  /** market-cap tiers for stable-coin quotes (empty in older accounts) */
  stableFeeTiers: PumpFeeTier[];
}

const FEE_TIER_SIZE = 40;
const MAX_TIERS = 1024;

function readFees(buf: Buffer, o: number): PumpFees {
  return { lpFeeBps: buf.readBigUInt64LE(o), protocolFeeBps: buf.readBigUInt64LE(o + 8), creatorFeeBps: buf.readBigUInt64LE(o + 16) };
}

function readTiers(buf: Buffer, o: number, address: string, field: string): { tiers: PumpFeeTier[]; end: number } {
  if (o + 4 > buf.length) throw new AccountDecodeError(address, `pump FeeConfig.${field}: vec length past the end of the data`);
  const n = buf.readUInt32LE(o);
  if (n > MAX_TIERS || o + 4 + n * FEE_TIER_SIZE > buf.length) {
    throw new AccountDecodeError(address, `pump FeeConfig.${field}: ${n} tiers do not fit in ${buf.length} bytes`);
  }
  const tiers: PumpFeeTier[] = [];
  for (let i = 0; i < n; i++) {
    const p = o + 4 + i * FEE_TIER_SIZE;
    tiers.push({ marketCapLamportsThreshold: readU128(buf, p), fees: readFees(buf, p + 16) });
  }
  return { tiers, end: o + 4 + n * FEE_TIER_SIZE };
}

/** Decode a FeeConfig. `owner`, when given, must be the pump fees program. */
export function decodePumpFeeConfig(data: Uint8Array, owner?: string, address = '(unknown)'): PumpFeeConfig {
  if (owner !== undefined && owner !== PUMP_FEES_PROGRAM_ID) {
    throw new AccountDecodeError(address, `wrong owner ${owner} for a pump FeeConfig: expected ${PUMP_FEES_PROGRAM_ID}`);
  }
  const buf = view(data);
  if (buf.length < 8 || !buf.subarray(0, 8).equals(PUMP_FEE_CONFIG_DISCRIMINATOR)) {
    throw new AccountDecodeError(address, `wrong discriminator for a pump FeeConfig: expected ${PUMP_FEE_CONFIG_DISCRIMINATOR.toString('hex')}`);
  }
  if (buf.length < 69) throw new AccountDecodeError(address, `pump FeeConfig too short: ${buf.length} bytes`);
  const fee = readTiers(buf, 65, address, 'feeTiers');
  // stableFeeTiers was appended later: absent in accounts that end after feeTiers
  const stable = fee.end + 4 <= buf.length ? readTiers(buf, fee.end, address, 'stableFeeTiers').tiers : [];
  return {
    bump: buf[8],
    admin: readPubkey(buf, 9),
    flatFees: readFees(buf, 41),
    feeTiers: fee.tiers,
    stableFeeTiers: stable,
  };
}

/** Encode a FeeConfig (borsh, exact length unless `size` pads it with zeros). */
export function encodePumpFeeConfig(c: PumpFeeConfig, size?: number): Buffer {
  const need = 65 + 4 + FEE_TIER_SIZE * c.feeTiers.length + 4 + FEE_TIER_SIZE * c.stableFeeTiers.length;
  const buf = Buffer.alloc(Math.max(need, size ?? 0));
  PUMP_FEE_CONFIG_DISCRIMINATOR.copy(buf, 0);
  if (!Number.isInteger(c.bump) || c.bump < 0 || c.bump > 255) throw new RangeError(`bump out of u8 range: ${c.bump}`);
  buf[8] = c.bump;
  writePubkey(buf, 9, c.admin);
  const fees = (o: number, f: PumpFees, name: string) => {
    writeU64(buf, o, f.lpFeeBps, `${name}.lpFeeBps`);
    writeU64(buf, o + 8, f.protocolFeeBps, `${name}.protocolFeeBps`);
    writeU64(buf, o + 16, f.creatorFeeBps, `${name}.creatorFeeBps`);
  };
  fees(41, c.flatFees, 'flatFees');
  let o = 65;
  for (const [name, tiers] of [
    ['feeTiers', c.feeTiers],
    ['stableFeeTiers', c.stableFeeTiers],
  ] as const) {
    buf.writeUInt32LE(tiers.length, o);
    o += 4;
    tiers.forEach((t, i) => {
      writeU128(buf, o, t.marketCapLamportsThreshold, `${name}[${i}].marketCapLamportsThreshold`);
      fees(o + 16, t.fees, `${name}[${i}]`);
      o += FEE_TIER_SIZE;
    });
  }
  return buf;
}

/** Which pump.fun account the bytes hold, by discriminator (null when none matches). */
export function pumpFunAccountType(data: Uint8Array): 'BondingCurve' | 'Global' | 'FeeConfig' | null {
  if (data.length < 8) return null;
  const d = view(data).subarray(0, 8);
  if (d.equals(PUMP_BONDING_CURVE_DISCRIMINATOR)) return 'BondingCurve';
  if (d.equals(PUMP_GLOBAL_DISCRIMINATOR)) return 'Global';
  if (d.equals(PUMP_FEE_CONFIG_DISCRIMINATOR)) return 'FeeConfig';
  return null;
}

// ---------------------------------------------------------------------------------------------
// PDAs
// ---------------------------------------------------------------------------------------------

/** the program address of `seeds` (strings as UTF-8) under `programId` (also used by pump-amm) */
export function pumpPda(programId: string, seeds: (string | Buffer)[]): string {
  return programAddress(programId, seeds);
}

/** a public key's 32 bytes, as a PDA seed */
export function seedKey(address: string): Buffer {
  return new PublicKey(address).toBuffer();
}

/** The bonding curve of `mint`: ["bonding-curve", mint]. */
export function pumpBondingCurveAddress(mint: string): string {
  return pumpPda(PROGRAM_IDS.pumpFun, ['bonding-curve', seedKey(mint)]);
}

/** The sole Global account: ["global"] (4wTV1YmiEkRvAtNtsSGPtUrqRYQMe5SKy2uB4Jjaxnjf). */
export function pumpGlobalAddress(): string {
  return pumpPda(PROGRAM_IDS.pumpFun, ['global']);
}

/** The creator fee vault: ["creator-vault", creator]. */
export function pumpCreatorVaultAddress(creator: string): string {
  return pumpPda(PROGRAM_IDS.pumpFun, ['creator-vault', seedKey(creator)]);
}

/** The FeeConfig of a program (pump.fun or PumpSwap): ["fee_config", programId] under the fees program. */
export function pumpFeeConfigAddress(configProgramId: string): string {
  return pumpPda(PUMP_FEES_PROGRAM_ID, ['fee_config', seedKey(configProgramId)]);
}

/**
 * The pool authority pump.fun's `migrate` uses as PumpSwap pool creator: ["pool-authority", mint]
 * under pump.fun. A PumpSwap pool whose creator equals this is canonical (tiered fees).
 */
export function pumpPoolAuthorityAddress(baseMint: string): string {
  return pumpPda(PROGRAM_IDS.pumpFun, ['pool-authority', seedKey(baseMint)]);
}
