/**
 * Raydium AMM v4 swap instructions: the OpenBook form (tags 9 / 11, with the market accounts it
 * reads from the Serum v3 / OpenBook market account) and the form without OpenBook (tags 16 / 17).
 */
import { PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../programs';
import { ammV4Authority, type AmmV4Info } from '../raydium-amm-v4';
import { ArgWriter, instruction, pk, r, s, w } from './common';
import type { SwapDirection, SwapUser } from './swap-basics';

/** Raydium AMM v4 instruction tags (native program, one-byte tag). */
export const AMM_V4_TAG = { swapBaseIn: 9, swapBaseOut: 11, swapBaseInV2: 16, swapBaseOutV2: 17 } as const;

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
