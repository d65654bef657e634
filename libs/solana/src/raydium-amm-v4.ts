/**
 * Raydium AMM v4 (the "liquidity pool v4" program, 675kPX9M…) account codec.
 *
 * Not an Anchor program: AmmInfo is a `#[repr(C, packed)]` struct of 752 bytes with no
 * discriminator. The program itself only checks the owner, the exact size and that `status` is
 * not Uninitialized; this decoder does the same and also rejects status/state values the
 * program's enums cannot hold (its `from_u64` would panic on them).
 *
 * AmmInfo layout (little endian, packed):
 *  status @0 | nonce @8 | orderNum @16 | depth @24 | coinDecimals @32 | pcDecimals @40 | state @48
 *  | resetFlag @56 | minSize @64 | volMaxCutRatio @72 | amountWave @80 | coinLotSize @88
 *  | pcLotSize @96 | minPriceMultiplier @104 | maxPriceMultiplier @112 | sysDecimalValue @120 (all u64)
 *  | fees: Fees @128 (8 × u64: minSeparateNumerator, minSeparateDenominator, tradeFeeNumerator,
 *    tradeFeeDenominator, pnlNumerator, pnlDenominator, swapFeeNumerator, swapFeeDenominator)
 *  | stateData: StateData @192 (144 bytes: needTakePnlCoin u64 @192, needTakePnlPc @200,
 *    totalPnlPc @208, totalPnlCoin @216, poolOpenTime @224, padding [u64;2] @232,
 *    orderbookToInitTime @248, swapCoinInAmount u128 @256, swapPcOutAmount u128 @272,
 *    swapAccPcFee u64 @288, swapPcInAmount u128 @296, swapCoinOutAmount u128 @312,
 *    swapAccCoinFee u64 @328)
 *  | coinVault @336 | pcVault @368 | coinVaultMint @400 | pcVaultMint @432 | lpMint @464
 *  | openOrders @496 | market @528 | marketProgram @560 | targetOrders @592 (pubkeys)
 *  | padding1 [u64;8] @624 | ammOwner @688 | lpAmount u64 @720 | clientOrderId @728
 *  | recentEpoch @736 | padding2 @744 — 752 bytes.
 *
 * "coin" is the base token, "pc" (price currency) the quote token.
 */
import { PublicKey } from '@solana/web3.js';
import { readPubkey, writePubkey } from './base58';
import { AccountDecodeError } from './decode-error';
import { PROGRAM_IDS } from './programs';
import { readU128, view, writeU128, writeU64 } from './bytes';

export const AMM_V4_INFO_SIZE = 752;

/** AmmStatus (u64 on chain). */
export const AMM_V4_STATUS = {
  uninitialized: 0,
  initialized: 1,
  disabled: 2,
  withdrawOnly: 3,
  liquidityOnly: 4,
  orderBookOnly: 5,
  swapOnly: 6,
  waitingTrade: 7,
} as const;

/** Seed of the pool authority PDA: create_program_address(["amm authority", [nonce]]). */
export const AMM_V4_AUTHORITY_SEED = 'amm authority';

export interface AmmV4Fees {
  minSeparateNumerator: bigint;
  minSeparateDenominator: bigint;
  tradeFeeNumerator: bigint;
  tradeFeeDenominator: bigint;
  pnlNumerator: bigint;
  pnlDenominator: bigint;
  /** the swap fee the program charges on the input: swapFeeNumerator / swapFeeDenominator */
  swapFeeNumerator: bigint;
  swapFeeDenominator: bigint;
}

export interface AmmV4StateData {
  /** coin owed to the protocol, still in the coin vault: not part of the swap reserve */
  needTakePnlCoin: bigint;
  /** pc owed to the protocol, still in the pc vault: not part of the swap reserve */
  needTakePnlPc: bigint;
  totalPnlPc: bigint;
  totalPnlCoin: bigint;
  /** unix seconds; a WaitingTrade pool swaps from this time on */
  poolOpenTime: bigint;
  padding: [bigint, bigint];
  orderbookToInitTime: bigint;
  swapCoinInAmount: bigint;
  swapPcOutAmount: bigint;
  swapAccPcFee: bigint;
  swapPcInAmount: bigint;
  swapCoinOutAmount: bigint;
  swapAccCoinFee: bigint;
}

export interface AmmV4Info {
  status: bigint;
  nonce: bigint;
  orderNum: bigint;
  depth: bigint;
  coinDecimals: bigint;
  pcDecimals: bigint;
  state: bigint;
  resetFlag: bigint;
  minSize: bigint;
  volMaxCutRatio: bigint;
  amountWave: bigint;
  coinLotSize: bigint;
  pcLotSize: bigint;
  minPriceMultiplier: bigint;
  maxPriceMultiplier: bigint;
  sysDecimalValue: bigint;
  fees: AmmV4Fees;
  stateData: AmmV4StateData;
  coinVault: string;
  pcVault: string;
  coinVaultMint: string;
  pcVaultMint: string;
  lpMint: string;
  openOrders: string;
  market: string;
  marketProgram: string;
  targetOrders: string;
  padding1: bigint[];
  ammOwner: string;
  lpAmount: bigint;
  clientOrderId: bigint;
  recentEpoch: bigint;
  padding2: bigint;
}

const HEAD_U64 = [
  'status',
  'nonce',
  'orderNum',
  'depth',
  'coinDecimals',
  'pcDecimals',
  'state',
  'resetFlag',
  'minSize',
  'volMaxCutRatio',
  'amountWave',
  'coinLotSize',
  'pcLotSize',
  'minPriceMultiplier',
  'maxPriceMultiplier',
  'sysDecimalValue',
] as const;

const FEE_U64 = [
  'minSeparateNumerator',
  'minSeparateDenominator',
  'tradeFeeNumerator',
  'tradeFeeDenominator',
  'pnlNumerator',
  'pnlDenominator',
  'swapFeeNumerator',
  'swapFeeDenominator',
] as const;

const KEYS = [
  'coinVault',
  'pcVault',
  'coinVaultMint',
  'pcVaultMint',
  'lpMint',
  'openOrders',
  'market',
  'marketProgram',
  'targetOrders',
] as const;




/**
 * Decode an AmmInfo. `owner`, when given, must be the AMM v4 program. Throws AccountDecodeError
 * on a wrong owner, a size other than 752, an Uninitialized pool or an out-of-range status/state.
 */
export function decodeAmmV4Info(data: Uint8Array, owner?: string, address = '(unknown)'): AmmV4Info {
  if (owner !== undefined && owner !== PROGRAM_IDS.raydiumAmmV4) {
    throw new AccountDecodeError(address, `wrong owner ${owner} for a Raydium AMM v4 AmmInfo: expected ${PROGRAM_IDS.raydiumAmmV4}`);
  }
  const buf = view(data);
  if (buf.length !== AMM_V4_INFO_SIZE) {
    throw new AccountDecodeError(address, `wrong size ${buf.length} for a Raydium AMM v4 AmmInfo: expected ${AMM_V4_INFO_SIZE}`);
  }
  const status = buf.readBigUInt64LE(0);
  if (status === 0n) throw new AccountDecodeError(address, 'Raydium AMM v4 AmmInfo is uninitialized (status 0)');
  if (status > 7n) throw new AccountDecodeError(address, `invalid Raydium AMM v4 status ${status} (valid: 1..7)`);
  const state = buf.readBigUInt64LE(48);
  if (state > 6n) throw new AccountDecodeError(address, `invalid Raydium AMM v4 state ${state} (valid: 0..6)`);

  const head = {} as Record<(typeof HEAD_U64)[number], bigint>;
  HEAD_U64.forEach((k, i) => (head[k] = buf.readBigUInt64LE(8 * i)));
  const fees = {} as AmmV4Fees;
  FEE_U64.forEach((k, i) => (fees[k] = buf.readBigUInt64LE(128 + 8 * i)));
  const stateData: AmmV4StateData = {
    needTakePnlCoin: buf.readBigUInt64LE(192),
    needTakePnlPc: buf.readBigUInt64LE(200),
    totalPnlPc: buf.readBigUInt64LE(208),
    totalPnlCoin: buf.readBigUInt64LE(216),
    poolOpenTime: buf.readBigUInt64LE(224),
    padding: [buf.readBigUInt64LE(232), buf.readBigUInt64LE(240)],
    orderbookToInitTime: buf.readBigUInt64LE(248),
    swapCoinInAmount: readU128(buf, 256),
    swapPcOutAmount: readU128(buf, 272),
    swapAccPcFee: buf.readBigUInt64LE(288),
    swapPcInAmount: readU128(buf, 296),
    swapCoinOutAmount: readU128(buf, 312),
    swapAccCoinFee: buf.readBigUInt64LE(328),
  };
  const keys = {} as Record<(typeof KEYS)[number], string>;
  KEYS.forEach((k, i) => (keys[k] = readPubkey(buf, 336 + 32 * i)));
  const padding1: bigint[] = [];
  for (let i = 0; i < 8; i++) padding1.push(buf.readBigUInt64LE(624 + 8 * i));
  return {
    ...head,
    fees,
    stateData,
    ...keys,
    padding1,
    ammOwner: readPubkey(buf, 688),
    lpAmount: buf.readBigUInt64LE(720),
    clientOrderId: buf.readBigUInt64LE(728),
    recentEpoch: buf.readBigUInt64LE(736),
    padding2: buf.readBigUInt64LE(744),
  };
}

/** Encode an AmmInfo into its 752-byte layout. */
export function encodeAmmV4Info(a: AmmV4Info): Buffer {
  const buf = Buffer.alloc(AMM_V4_INFO_SIZE);
  HEAD_U64.forEach((k, i) => writeU64(buf, 8 * i, a[k], k));
  FEE_U64.forEach((k, i) => writeU64(buf, 128 + 8 * i, a.fees[k], `fees.${k}`));
  const s = a.stateData;
  writeU64(buf, 192, s.needTakePnlCoin, 'needTakePnlCoin');
  writeU64(buf, 200, s.needTakePnlPc, 'needTakePnlPc');
  writeU64(buf, 208, s.totalPnlPc, 'totalPnlPc');
  writeU64(buf, 216, s.totalPnlCoin, 'totalPnlCoin');
  writeU64(buf, 224, s.poolOpenTime, 'poolOpenTime');
  writeU64(buf, 232, s.padding[0], 'padding[0]');
  writeU64(buf, 240, s.padding[1], 'padding[1]');
  writeU64(buf, 248, s.orderbookToInitTime, 'orderbookToInitTime');
  writeU128(buf, 256, s.swapCoinInAmount, 'swapCoinInAmount');
  writeU128(buf, 272, s.swapPcOutAmount, 'swapPcOutAmount');
  writeU64(buf, 288, s.swapAccPcFee, 'swapAccPcFee');
  writeU128(buf, 296, s.swapPcInAmount, 'swapPcInAmount');
  writeU128(buf, 312, s.swapCoinOutAmount, 'swapCoinOutAmount');
  writeU64(buf, 328, s.swapAccCoinFee, 'swapAccCoinFee');
  KEYS.forEach((k, i) => writePubkey(buf, 336 + 32 * i, a[k]));
  if (a.padding1.length !== 8) throw new RangeError(`padding1 must hold 8 values, got ${a.padding1.length}`);
  a.padding1.forEach((v, i) => writeU64(buf, 624 + 8 * i, v, `padding1[${i}]`));
  writePubkey(buf, 688, a.ammOwner);
  writeU64(buf, 720, a.lpAmount, 'lpAmount');
  writeU64(buf, 728, a.clientOrderId, 'clientOrderId');
  writeU64(buf, 736, a.recentEpoch, 'recentEpoch');
  writeU64(buf, 744, a.padding2, 'padding2');
  return buf;
}

/** True when the pool's status lets the program swap (Initialized, SwapOnly, WaitingTrade). */
export function ammV4SwapPermitted(status: bigint): boolean {
  return (
    status === BigInt(AMM_V4_STATUS.initialized) ||
    status === BigInt(AMM_V4_STATUS.swapOnly) ||
    status === BigInt(AMM_V4_STATUS.waitingTrade)
  );
}

const authorityCache = new Map<number, string>();
/**
 * The pool authority (owner of both vaults and the LP mint):
 * create_program_address(["amm authority", [nonce]], program). Throws if the nonce gives no
 * valid address.
 */
export function ammV4Authority(nonce: number | bigint): string {
  const n = Number(nonce);
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new RangeError(`nonce out of u8 range: ${nonce}`);
  let key = authorityCache.get(n);
  if (key === undefined) {
    key = PublicKey.createProgramAddressSync(
      [Buffer.from(AMM_V4_AUTHORITY_SEED, 'utf8'), Buffer.from([n])],
      new PublicKey(PROGRAM_IDS.raydiumAmmV4),
    ).toBase58();
    authorityCache.set(n, key);
  }
  return key;
}
