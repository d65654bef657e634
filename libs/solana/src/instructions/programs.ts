/**
 * Swap instructions of the six supported liquidity programs: instruction data (discriminators
 * and argument layout as each program's IDL defines them) and the account list in the program's
 * order with its signer / writable flags. Pure: the caller supplies the decoded pool state and
 * the addresses that are not in it (tick arrays, token programs, market accounts, user accounts).
 *
 * Amount semantics per builder (a = "amount", t = "threshold"):
 * - Raydium CPMM swap_base_input(a = exact in, t = min out) / swap_base_output(t = max in, a = exact out)
 * - Orca Whirlpool swap_v2(amount, other_amount_threshold, sqrt_price_limit = 0, amount_specified_is_input, a_to_b)
 * - Raydium CLMM swap_v2(amount, other_amount_threshold, sqrt_price_limit_x64 = 0, is_base_input)
 *   (a price limit of 0 is "none": both programs then swap to the end of the price range AND
 *   refuse a partial fill, the Whirlpool in exact-output mode, the CLMM in both modes)
 * - Raydium AMM v4 swap_base_in (tag 9: exact in, min out) / swap_base_out (tag 11: max in, exact out)
 * - PumpSwap buy(base out, max quote in) / buy_exact_quote_in(quote in, min base out) / sell(base in, min quote out)
 * - pump.fun buy(tokens out, max SOL) / buy_exact_sol_in(SOL in, min tokens) / sell(tokens in, min SOL)
 */
import { PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../programs';
import { cpmmAuthority, type CpmmPoolState } from '../raydium-cpmm';
import type { Whirlpool } from '../orca-whirlpool';
import { clmmBitmapExtensionAddress, type ClmmPoolState } from '../raydium-clmm';
import { ammV4Authority, type AmmV4Info } from '../raydium-amm-v4';
import type { PumpAmmGlobalConfig, PumpAmmPoolState } from '../pump-amm';
import { pumpAmmCoinCreatorVaultAuthority, pumpAmmGlobalConfigAddress } from '../pump-amm';
import {
  PUMP_FEES_PROGRAM_ID,
  pumpBondingCurveAddress,
  pumpCreatorVaultAddress,
  pumpFeeConfigAddress,
  pumpGlobalAddress,
  type PumpBondingCurve,
} from '../pump-fun';
import { anchorIxDiscriminator, ArgWriter, associatedTokenAddress, instruction, MEMO_PROGRAM_ID, pk, r, s, sw, w } from './common';
import { programAddress } from '../pda';

export const SWAP_DISCRIMINATORS = {
  cpmmSwapBaseInput: anchorIxDiscriminator('swap_base_input'),
  cpmmSwapBaseOutput: anchorIxDiscriminator('swap_base_output'),
  whirlpoolSwap: anchorIxDiscriminator('swap'),
  whirlpoolSwapV2: anchorIxDiscriminator('swap_v2'),
  whirlpoolTwoHopSwapV2: anchorIxDiscriminator('two_hop_swap_v2'),
  clmmSwapV2: anchorIxDiscriminator('swap_v2'),
  pumpBuy: anchorIxDiscriminator('buy'),
  pumpSell: anchorIxDiscriminator('sell'),
  pumpAmmBuyExactQuoteIn: anchorIxDiscriminator('buy_exact_quote_in'),
  pumpFunBuyExactSolIn: anchorIxDiscriminator('buy_exact_sol_in'),
} as const;

/** Raydium AMM v4 instruction tags (native program, one-byte tag). */
export const AMM_V4_TAG = { swapBaseIn: 9, swapBaseOut: 11, swapBaseInV2: 16, swapBaseOutV2: 17 } as const;

/**
 * The sqrt price limit both concentrated-liquidity builders send: 0, "no explicit limit". The
 * programs read it as the end of the price range in the swap's direction (Whirlpool: MIN / MAX
 * sqrt price, swap_manager.rs; CLMM: MIN + 1 / MAX - 1, swap_v2.rs) and, unlike an explicit
 * limit at those same bounds, then reject a partial fill: the Whirlpool with PartialFillError for
 * an exact-output swap, the CLMM by requiring the whole specified amount in both modes. The
 * official SDKs' swaps send 0 as well.
 */
export const NO_EXPLICIT_SQRT_PRICE_LIMIT = 0n;

/** Orca Whirlpool / Raydium CLMM price bounds (Q64.64): what a limit of 0 stands for. */
export const WHIRLPOOL_MIN_SQRT_PRICE = 4295048016n;
export const WHIRLPOOL_MAX_SQRT_PRICE = 79226673515401279992447579055n;
export const CLMM_MIN_SQRT_PRICE_X64 = 4295048016n;
export const CLMM_MAX_SQRT_PRICE_X64 = 79226673521066979257578248091n;

export type SwapDirection = 'ExactIn' | 'ExactOut';

/** The user's side of a swap: the signing wallet and its token accounts. */
export interface SwapUser {
  wallet: string;
  /** token account paying the input */
  source: string;
  /** token account receiving the output */
  destination: string;
}

// ---------------------------------------------------------------- Raydium CPMM

export interface CpmmSwapArgs {
  pool: string;
  state: CpmmPoolState;
  inputMint: string;
  mode: SwapDirection;
  /** ExactIn: the exact input; ExactOut: the exact output */
  amount: bigint;
  /** ExactIn: minimum output; ExactOut: maximum input */
  threshold: bigint;
  user: SwapUser;
}

export function raydiumCpmmSwap(a: CpmmSwapArgs): TransactionInstruction {
  const st = a.state;
  const zeroForOne = a.inputMint === st.token0Mint;
  if (!zeroForOne && a.inputMint !== st.token1Mint) throw new Error(`mint ${a.inputMint} is not in CPMM pool ${a.pool}`);
  const [inVault, outVault, inProg, outProg, inMint, outMint] = zeroForOne
    ? [st.token0Vault, st.token1Vault, st.token0Program, st.token1Program, st.token0Mint, st.token1Mint]
    : [st.token1Vault, st.token0Vault, st.token1Program, st.token0Program, st.token1Mint, st.token0Mint];
  const data =
    a.mode === 'ExactIn'
      ? new ArgWriter().bytes(SWAP_DISCRIMINATORS.cpmmSwapBaseInput).u64(a.amount, 'amount_in').u64(a.threshold, 'minimum_amount_out').done()
      : new ArgWriter().bytes(SWAP_DISCRIMINATORS.cpmmSwapBaseOutput).u64(a.threshold, 'max_amount_in').u64(a.amount, 'amount_out').done();
  return instruction(
    PROGRAM_IDS.raydiumCpmm,
    [
      s(a.user.wallet),
      r(cpmmAuthority()),
      r(st.ammConfig),
      w(a.pool),
      w(a.user.source),
      w(a.user.destination),
      w(inVault),
      w(outVault),
      r(inProg),
      r(outProg),
      r(inMint),
      r(outMint),
      w(st.observationKey),
    ],
    data,
  );
}

// ---------------------------------------------------------------- Orca Whirlpool

export interface WhirlpoolSwapArgs {
  pool: string;
  whirlpool: Whirlpool;
  inputMint: string;
  mode: SwapDirection;
  amount: bigint;
  threshold: bigint;
  user: SwapUser;
  tokenProgramA: string;
  tokenProgramB: string;
  /** three tick array addresses in swap direction (repeat the last when fewer exist) */
  tickArrays: [string, string, string];
  /** the pool's Oracle PDA ["oracle", whirlpool] */
  oracle: string;
}

/**
 * swap_v2 (Token and Token-2022 mints alike). The user's token accounts are given as A / B by
 * the pool's mint order; `remaining_accounts_info` is None (no transfer hooks, no supplemental
 * tick arrays).
 */
export function orcaWhirlpoolSwapV2(a: WhirlpoolSwapArgs): TransactionInstruction {
  const wp = a.whirlpool;
  const aToB = a.inputMint === wp.tokenMintA;
  if (!aToB && a.inputMint !== wp.tokenMintB) throw new Error(`mint ${a.inputMint} is not in whirlpool ${a.pool}`);
  const ownerA = aToB ? a.user.source : a.user.destination;
  const ownerB = aToB ? a.user.destination : a.user.source;
  const data = new ArgWriter()
    .bytes(SWAP_DISCRIMINATORS.whirlpoolSwapV2)
    .u64(a.amount, 'amount')
    .u64(a.threshold, 'other_amount_threshold')
    .u128(NO_EXPLICIT_SQRT_PRICE_LIMIT, 'sqrt_price_limit')
    .bool(a.mode === 'ExactIn')
    .bool(aToB)
    .u8(0) // Option<RemainingAccountsInfo>::None
    .done();
  return instruction(
    PROGRAM_IDS.orcaWhirlpool,
    [
      r(a.tokenProgramA),
      r(a.tokenProgramB),
      r(MEMO_PROGRAM_ID),
      s(a.user.wallet),
      w(a.pool),
      r(wp.tokenMintA),
      r(wp.tokenMintB),
      w(ownerA),
      w(wp.tokenVaultA),
      w(ownerB),
      w(wp.tokenVaultB),
      w(a.tickArrays[0]),
      w(a.tickArrays[1]),
      w(a.tickArrays[2]),
      w(a.oracle),
    ],
    data,
  );
}

export interface WhirlpoolTwoHopSwapArgs {
  one: { pool: string; whirlpool: Whirlpool; tickArrays: [string, string, string]; oracle: string };
  two: { pool: string; whirlpool: Whirlpool; tickArrays: [string, string, string]; oracle: string };
  inputMint: string;
  intermediateMint: string;
  outputMint: string;
  tokenPrograms: { input: string; intermediate: string; output: string };
  mode: SwapDirection;
  /** ExactIn: the input of hop one; ExactOut: the output of hop two */
  amount: bigint;
  /** ExactIn: the minimum final output; ExactOut: the maximum input */
  threshold: bigint;
  wallet: string;
  /** the user's input and output token accounts */
  source: string;
  destination: string;
}

/**
 * two_hop_swap_v2: two Whirlpool swaps in one instruction, the first one's output paid into the
 * second inside the program (vault to vault), only the final amount bounded; the intermediate
 * mint never reaches a user account. Accounts as the IDL lists them; no remaining accounts.
 */
export function orcaWhirlpoolTwoHopSwapV2(a: WhirlpoolTwoHopSwapArgs): TransactionInstruction {
  const aToBOne = a.inputMint === a.one.whirlpool.tokenMintA;
  const aToBTwo = a.intermediateMint === a.two.whirlpool.tokenMintA;
  const vault = (wp: Whirlpool, mint: string): string => (mint === wp.tokenMintA ? wp.tokenVaultA : wp.tokenVaultB);
  const data = new ArgWriter()
    .bytes(SWAP_DISCRIMINATORS.whirlpoolTwoHopSwapV2)
    .u64(a.amount, 'amount')
    .u64(a.threshold, 'other_amount_threshold')
    .bool(a.mode === 'ExactIn')
    .bool(aToBOne)
    .bool(aToBTwo)
    .u128(NO_EXPLICIT_SQRT_PRICE_LIMIT, 'sqrt_price_limit_one')
    .u128(NO_EXPLICIT_SQRT_PRICE_LIMIT, 'sqrt_price_limit_two')
    .u8(0) // Option<RemainingAccountsInfo>::None
    .done();
  return instruction(
    PROGRAM_IDS.orcaWhirlpool,
    [
      w(a.one.pool),
      w(a.two.pool),
      r(a.inputMint),
      r(a.intermediateMint),
      r(a.outputMint),
      r(a.tokenPrograms.input),
      r(a.tokenPrograms.intermediate),
      r(a.tokenPrograms.output),
      w(a.source),
      w(vault(a.one.whirlpool, a.inputMint)),
      w(vault(a.one.whirlpool, a.intermediateMint)),
      w(vault(a.two.whirlpool, a.intermediateMint)),
      w(vault(a.two.whirlpool, a.outputMint)),
      w(a.destination),
      s(a.wallet),
      ...a.one.tickArrays.map(w),
      ...a.two.tickArrays.map(w),
      w(a.one.oracle),
      w(a.two.oracle),
      r(MEMO_PROGRAM_ID),
    ],
    data,
  );
}

// ---------------------------------------------------------------- Raydium CLMM

export interface ClmmSwapArgs {
  pool: string;
  state: ClmmPoolState;
  inputMint: string;
  mode: SwapDirection;
  amount: bigint;
  threshold: bigint;
  user: SwapUser;
  /** initialized tick arrays in swap order, starting with the one holding the current tick */
  tickArrays: string[];
  /** pass the bitmap extension (it must be given when the swap may leave the pool's own bitmap) */
  withBitmapExtension: boolean;
}

/**
 * swap_v2. Remaining accounts, in the order the program reads them: the tick array bitmap
 * extension (when given), then the tick arrays.
 */
export function raydiumClmmSwapV2(a: ClmmSwapArgs): TransactionInstruction {
  const st = a.state;
  const zeroForOne = a.inputMint === st.tokenMint0;
  if (!zeroForOne && a.inputMint !== st.tokenMint1) throw new Error(`mint ${a.inputMint} is not in CLMM pool ${a.pool}`);
  if (a.tickArrays.length === 0) throw new Error(`CLMM swap on ${a.pool} needs at least one tick array`);
  const [inVault, outVault, inMint, outMint] = zeroForOne
    ? [st.tokenVault0, st.tokenVault1, st.tokenMint0, st.tokenMint1]
    : [st.tokenVault1, st.tokenVault0, st.tokenMint1, st.tokenMint0];
  const data = new ArgWriter()
    .bytes(SWAP_DISCRIMINATORS.clmmSwapV2)
    .u64(a.amount, 'amount')
    .u64(a.threshold, 'other_amount_threshold')
    .u128(NO_EXPLICIT_SQRT_PRICE_LIMIT, 'sqrt_price_limit_x64')
    .bool(a.mode === 'ExactIn')
    .done();
  const keys = [
    s(a.user.wallet),
    r(st.ammConfig),
    w(a.pool),
    w(a.user.source),
    w(a.user.destination),
    w(inVault),
    w(outVault),
    w(st.observationKey),
    r(PROGRAM_IDS.token),
    r(PROGRAM_IDS.token2022),
    r(MEMO_PROGRAM_ID),
    r(inMint),
    r(outMint),
  ];
  if (a.withBitmapExtension) keys.push(w(clmmBitmapExtensionAddress(a.pool)));
  for (const t of a.tickArrays) keys.push(w(t));
  return instruction(PROGRAM_IDS.raydiumClmm, keys, data);
}

// ---------------------------------------------------------------- Raydium AMM v4

/** The OpenBook / Serum market accounts AMM v4's swap takes (from the market account). */
export interface SerumMarketAccounts {
  bids: string;
  asks: string;
  eventQueue: string;
  coinVault: string;
  pcVault: string;
  vaultSigner: string;
}

export const SERUM_MARKET_MIN_SIZE = 388;

/**
 * The accounts AMM v4's swap needs from a Serum v3 / OpenBook market account (layout after the
 * 5-byte "serum" head: account_flags u64 @5, own_address @13, vault_signer_nonce u64 @45,
 * coin_mint @53, pc_mint @85, coin_vault @117, pc_vault @165, request_queue @221,
 * event_queue @253, bids @285, asks @317). The vault signer is create_program_address([market,
 * nonce u64 LE], market program).
 */
export function decodeSerumMarketAccounts(market: string, marketProgram: string, data: Uint8Array): SerumMarketAccounts {
  if (data.length < SERUM_MARKET_MIN_SIZE) throw new Error(`market ${market}: ${data.length} bytes, expected at least ${SERUM_MARKET_MIN_SIZE}`);
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.subarray(0, 5).toString('latin1') !== 'serum') throw new Error(`market ${market}: missing the "serum" head`);
  const own = new PublicKey(b.subarray(13, 45)).toBase58();
  if (own !== market) throw new Error(`market ${market}: own_address is ${own}`);
  const nonce = b.readBigUInt64LE(45);
  const key = (o: number): string => new PublicKey(b.subarray(o, o + 32)).toBase58();
  const nonceLe = Buffer.alloc(8);
  nonceLe.writeBigUInt64LE(nonce, 0);
  const vaultSigner = PublicKey.createProgramAddressSync([pk(market).toBuffer(), nonceLe], pk(marketProgram)).toBase58();
  return { coinVault: key(117), pcVault: key(165), eventQueue: key(253), bids: key(285), asks: key(317), vaultSigner };
}

export interface AmmV4SwapArgs {
  pool: string;
  info: AmmV4Info;
  market: SerumMarketAccounts;
  inputMint: string;
  mode: SwapDirection;
  amount: bigint;
  threshold: bigint;
  user: SwapUser;
  /**
   * 18-account layout (with amm_target_orders after amm_open_orders, as the IDL lists it) when
   * true; the 17-account layout the current program also accepts (target orders omitted) when false.
   */
  withTargetOrders?: boolean;
}

export function raydiumAmmV4Swap(a: AmmV4SwapArgs): TransactionInstruction {
  const info = a.info;
  if (a.inputMint !== info.coinVaultMint && a.inputMint !== info.pcVaultMint) throw new Error(`mint ${a.inputMint} is not in AMM v4 pool ${a.pool}`);
  const data = ammV4SwapData(a, AMM_V4_TAG.swapBaseIn, AMM_V4_TAG.swapBaseOut);
  const keys = [r(PROGRAM_IDS.token), w(a.pool), r(ammV4Authority(info.nonce)), w(info.openOrders)];
  if (a.withTargetOrders ?? true) keys.push(w(info.targetOrders));
  keys.push(
    w(info.coinVault),
    w(info.pcVault),
    r(info.marketProgram),
    w(info.market),
    w(a.market.bids),
    w(a.market.asks),
    w(a.market.eventQueue),
    w(a.market.coinVault),
    w(a.market.pcVault),
    r(a.market.vaultSigner),
    w(a.user.source),
    w(a.user.destination),
    s(a.user.wallet),
  );
  return instruction(PROGRAM_IDS.raydiumAmmV4, keys, data);
}

/** AMM v4 swap data: the tag, then (amount_in, minimum_amount_out) or (max_amount_in, amount_out) */
function ammV4SwapData(a: { mode: SwapDirection; amount: bigint; threshold: bigint }, inTag: number, outTag: number): Buffer {
  return a.mode === 'ExactIn'
    ? new ArgWriter().u8(inTag).u64(a.amount, 'amount_in').u64(a.threshold, 'minimum_amount_out').done()
    : new ArgWriter().u8(outTag).u64(a.threshold, 'max_amount_in').u64(a.amount, 'amount_out').done();
}

export type AmmV4SwapV2Args = Omit<AmmV4SwapArgs, 'market' | 'withTargetOrders'>;

/**
 * swap_base_in_v2 (tag 16: amount_in, minimum_amount_out) / swap_base_out_v2 (tag 17:
 * max_amount_in, amount_out), the form without OpenBook (raydium-amm instruction.rs): 8 accounts,
 * token program, amm, authority, coin vault, pc vault, user source, user destination, user owner.
 * The pool needs no market account; the transaction carries 10 accounts fewer than tag 9 / 11.
 */
export function raydiumAmmV4SwapV2(a: AmmV4SwapV2Args): TransactionInstruction {
  const info = a.info;
  if (a.inputMint !== info.coinVaultMint && a.inputMint !== info.pcVaultMint) throw new Error(`mint ${a.inputMint} is not in AMM v4 pool ${a.pool}`);
  const data = ammV4SwapData(a, AMM_V4_TAG.swapBaseInV2, AMM_V4_TAG.swapBaseOutV2);
  const keys = [
    r(PROGRAM_IDS.token),
    w(a.pool),
    r(ammV4Authority(info.nonce)),
    w(info.coinVault),
    w(info.pcVault),
    w(a.user.source),
    w(a.user.destination),
    s(a.user.wallet),
  ];
  return instruction(PROGRAM_IDS.raydiumAmmV4, keys, data);
}

// ---------------------------------------------------------------- PumpSwap AMM

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

export interface PumpAmmSwapArgs {
  pool: string;
  state: PumpAmmPoolState;
  globalConfig: PumpAmmGlobalConfig;
  /** base in (sell) or quote in (buy) */
  inputMint: string;
  mode: SwapDirection;
  amount: bigint;
  threshold: bigint;
  /** user.source / destination: the user's token accounts of the input / output mint */
  user: SwapUser;
  baseTokenProgram: string;
  quoteTokenProgram: string;
  /**
   * which protocol fee recipient to pay (default the first non-default one of
   * GlobalConfig.protocolFeeRecipients, or of [reservedFeeRecipient, ...reservedFeeRecipients]
   * for a mayhem-mode pool, as the program requires)
   */
  protocolFeeRecipient?: string;
  /**
   * Append the remaining accounts the program takes after the IDL's accounts (see
   * PUMP_BUYBACK_FEE_RECIPIENTS): required on mainnet since the 2026-04-28 upgrade; the router's
   * swap builder always sets it. Off, the instruction is exactly the IDL's account list.
   */
  withRemainingAccounts?: boolean;
  /** which buyback fee recipient to pay (default the first non-default of GlobalConfig.buybackFeeRecipients, else of PUMP_BUYBACK_FEE_RECIPIENTS) */
  buybackFeeRecipient?: string;
}

/**
 * PumpSwap: quote in → base out is a buy (ExactOut: buy(base_amount_out, max_quote_amount_in);
 * ExactIn: buy_exact_quote_in(spendable_quote_in, min_base_amount_out)); base in → quote out is a
 * sell(base_amount_in, min_quote_amount_out) (for ExactOut the caller passes the base amount the
 * quote needs as `amount` with mode ExactIn semantics: sell has no exact-output form).
 * `withRemainingAccounts` appends what the program takes after the IDL's accounts (cashback
 * accounts, pool-v2, buyback fee recipient and its quote ATA; see PUMP_BUYBACK_FEE_RECIPIENTS).
 */
export function pumpAmmSwap(a: PumpAmmSwapArgs): TransactionInstruction {
  const st = a.state;
  const buy = a.inputMint === st.quoteMint;
  if (!buy && a.inputMint !== st.baseMint) throw new Error(`mint ${a.inputMint} is not in PumpSwap pool ${a.pool}`);
  const gc = a.globalConfig;
  const recipient = a.protocolFeeRecipient ?? pumpAmmProtocolFeeRecipient(gc, st.isMayhemMode);
  if (recipient === undefined) throw new Error(`PumpSwap GlobalConfig has no ${st.isMayhemMode ? 'reserved (mayhem) ' : ''}protocol fee recipient`);
  const buyback = a.buybackFeeRecipient ?? pumpAmmBuybackFeeRecipient(gc);
  const [userBase, userQuote] = buy ? [a.user.destination, a.user.source] : [a.user.source, a.user.destination];
  const creatorAuthority = pumpAmmCoinCreatorVaultAuthority(st.coinCreator);
  const head = [
    w(a.pool),
    sw(a.user.wallet),
    r(pumpAmmGlobalConfigAddress()),
    r(st.baseMint),
    r(st.quoteMint),
    w(userBase),
    w(userQuote),
    w(st.poolBaseTokenAccount),
    w(st.poolQuoteTokenAccount),
    r(recipient),
    w(associatedTokenAddress(recipient, st.quoteMint, a.quoteTokenProgram)),
    r(a.baseTokenProgram),
    r(a.quoteTokenProgram),
    r(PROGRAM_IDS.system),
    r(PROGRAM_IDS.associatedToken),
    r(pumpAmmEventAuthority()),
    r(PROGRAM_IDS.pumpSwapAmm),
    w(associatedTokenAddress(creatorAuthority, st.quoteMint, a.quoteTokenProgram)),
    r(creatorAuthority),
  ];
  const fees = [r(pumpFeeConfigAddress(PROGRAM_IDS.pumpSwapAmm)), r(PUMP_FEES_PROGRAM_ID)];
  // remaining accounts, in the program's order: the cashback accounts of a cashback coin (its
  // user volume accumulator's quote ATA; for a sell also the accumulator), pool-v2 when the pool
  // has a coin creator, the buyback fee recipient and its quote ATA
  const uva = pumpAmmUserVolumeAccumulator(a.user.wallet);
  const cashback = st.isCashbackCoin ? [w(associatedTokenAddress(uva, st.quoteMint, a.quoteTokenProgram)), ...(buy ? [] : [w(uva)])] : [];
  const tail = a.withRemainingAccounts
    ? [
        ...cashback,
        ...(st.coinCreator !== PROGRAM_IDS.system ? [r(pumpAmmPoolV2(st.baseMint))] : []),
        r(buyback),
        w(associatedTokenAddress(buyback, st.quoteMint, a.quoteTokenProgram)),
      ]
    : [];
  if (!buy) {
    const data = new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpSell).u64(a.amount, 'base_amount_in').u64(a.threshold, 'min_quote_amount_out').done();
    return instruction(PROGRAM_IDS.pumpSwapAmm, [...head, ...fees, ...tail], data);
  }
  const data =
    a.mode === 'ExactIn'
      ? new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpAmmBuyExactQuoteIn).u64(a.amount, 'spendable_quote_in').u64(a.threshold, 'min_base_amount_out').bool(false).done()
      : new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpBuy).u64(a.amount, 'base_amount_out').u64(a.threshold, 'max_quote_amount_in').bool(false).done();
  return instruction(
    PROGRAM_IDS.pumpSwapAmm,
    [...head, r(pumpAmmGlobalVolumeAccumulator()), w(uva), ...fees, ...tail],
    data,
  );
}

// ---------------------------------------------------------------- pump.fun

export interface PumpFunSwapArgs {
  mint: string;
  curve: PumpBondingCurve;
  /** Global.feeRecipient (or one of Global.feeRecipients) */
  feeRecipient: string;
  /** the token side's program (Token, or Token-2022 for create_v2 coins) */
  tokenProgram: string;
  /** SOL in (buy) or the token in (sell) */
  inputMint: string;
  mode: SwapDirection;
  amount: bigint;
  threshold: bigint;
  wallet: string;
  /** the user's token account of the coin (associated_user) */
  userTokenAccount: string;
  /**
   * Append the remaining accounts the program takes after the IDL's accounts (see
   * PUMP_BUYBACK_FEE_RECIPIENTS): required on mainnet since the 2026-04-28 upgrade; the router's
   * swap builder always sets it. Off, the instruction is exactly the IDL's account list.
   */
  withRemainingAccounts?: boolean;
  /** which buyback fee recipient to pay (one of Global.buybackFeeRecipients, see pumpFunBuybackFeeRecipient; default PUMP_BUYBACK_FEE_RECIPIENTS[0]) */
  buybackFeeRecipient?: string;
}

/**
 * pump.fun trades native SOL (lamports of the wallet), not wrapped SOL. SOL → token: ExactIn is
 * buy_exact_sol_in(spendable_sol_in, min_tokens_out), ExactOut is buy(amount, max_sol_cost);
 * token → SOL is sell(amount, min_sol_output) (the caller passes the token amount as `amount`).
 * `withRemainingAccounts` appends what the program takes after the IDL's accounts (a cashback
 * coin's user volume accumulator on a sell, bonding-curve-v2, a buyback fee recipient).
 */
export function pumpFunSwap(a: PumpFunSwapArgs): TransactionInstruction {
  const curveAddress = pumpBondingCurveAddress(a.mint);
  const buy = a.inputMint !== a.mint;
  const common = [
    r(pumpGlobalAddress()),
    w(a.feeRecipient),
    r(a.mint),
    w(curveAddress),
    w(associatedTokenAddress(curveAddress, a.mint, a.tokenProgram)),
    w(a.userTokenAccount),
    sw(a.wallet),
    r(PROGRAM_IDS.system),
  ];
  const creatorVault = w(pumpCreatorVaultAddress(a.curve.creator));
  const event = [r(pumpFunEventAuthority()), r(PROGRAM_IDS.pumpFun)];
  const fees = [r(pumpFeeConfigAddress(PROGRAM_IDS.pumpFun)), r(PUMP_FEES_PROGRAM_ID)];
  // remaining accounts: bonding-curve-v2 and the buyback fee recipient (a sell of a cashback coin
  // first takes the user volume accumulator, which receives the cashback)
  const tail = a.withRemainingAccounts ? [r(pumpFunBondingCurveV2(a.mint)), w(a.buybackFeeRecipient ?? PUMP_BUYBACK_FEE_RECIPIENTS[0])] : [];
  if (!buy) {
    const data = new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpSell).u64(a.amount, 'amount').u64(a.threshold, 'min_sol_output').done();
    const cashback = a.withRemainingAccounts && a.curve.isCashbackCoin ? [w(pumpFunUserVolumeAccumulator(a.wallet))] : [];
    return instruction(PROGRAM_IDS.pumpFun, [...common, creatorVault, r(a.tokenProgram), ...event, ...fees, ...cashback, ...tail], data);
  }
  const data =
    a.mode === 'ExactIn'
      ? new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpFunBuyExactSolIn).u64(a.amount, 'spendable_sol_in').u64(a.threshold, 'min_tokens_out').bool(false).done()
      : new ArgWriter().bytes(SWAP_DISCRIMINATORS.pumpBuy).u64(a.amount, 'amount').u64(a.threshold, 'max_sol_cost').bool(false).done();
  return instruction(
    PROGRAM_IDS.pumpFun,
    [...common, r(a.tokenProgram), creatorVault, ...event, r(pumpFunGlobalVolumeAccumulator()), w(pumpFunUserVolumeAccumulator(a.wallet)), ...fees, ...tail],
    data,
  );
}
