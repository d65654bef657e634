/**
 * Serum v3 / OpenBook market account (the order-book market a Raydium AMM v4 pool is attached
 * to). AMM v4's swap instruction still lists the market's accounts (bids, asks, event queue,
 * vaults, vault signer) although the program no longer trades on the book; the instruction
 * builder reads them from this account (decodeSerumMarketAccounts in instructions/programs.ts).
 *
 * Layout (388 bytes): "serum" head, account_flags u64 @5, own_address @13, vault_signer_nonce
 * u64 @45, coin_mint @53, pc_mint @85, coin_vault @117, coin_deposits_total u64 @149,
 * coin_fees_accrued u64 @157, pc_vault @165, pc_deposits_total u64 @197, pc_fees_accrued u64
 * @205, pc_dust_threshold u64 @213, request_queue @221, event_queue @253, bids @285, asks @317,
 * coin_lot_size u64 @349, pc_lot_size u64 @357, fee_rate_bps u64 @365, referrer_rebates_accrued
 * u64 @373, "padding" tail @381.
 */
import { PublicKey } from '@solana/web3.js';
import { writePubkey } from './base58';

export const SERUM_MARKET_SIZE = 388;
/** account_flags: Initialized | Market */
export const SERUM_MARKET_FLAGS = 3n;

export interface SerumMarket {
  address: string;
  vaultSignerNonce: bigint;
  coinMint: string;
  pcMint: string;
  coinVault: string;
  pcVault: string;
  requestQueue: string;
  eventQueue: string;
  bids: string;
  asks: string;
  coinLotSize: bigint;
  pcLotSize: bigint;
  feeRateBps: bigint;
}

export function encodeSerumMarket(m: SerumMarket): Buffer {
  const b = Buffer.alloc(SERUM_MARKET_SIZE);
  b.write('serum', 0, 'latin1');
  b.writeBigUInt64LE(SERUM_MARKET_FLAGS, 5);
  writePubkey(b, 13, m.address);
  b.writeBigUInt64LE(m.vaultSignerNonce, 45);
  writePubkey(b, 53, m.coinMint);
  writePubkey(b, 85, m.pcMint);
  writePubkey(b, 117, m.coinVault);
  writePubkey(b, 165, m.pcVault);
  writePubkey(b, 221, m.requestQueue);
  writePubkey(b, 253, m.eventQueue);
  writePubkey(b, 285, m.bids);
  writePubkey(b, 317, m.asks);
  b.writeBigUInt64LE(m.coinLotSize, 349);
  b.writeBigUInt64LE(m.pcLotSize, 357);
  b.writeBigUInt64LE(m.feeRateBps, 365);
  b.write('padding', 381, 'latin1');
  return b;
}

/**
 * The smallest vault-signer nonce for which create_program_address([market, nonce u64 LE]) is
 * a valid program address, as the DEX's market creation searches it.
 */
export function serumVaultSignerNonce(market: string, marketProgram: string): bigint {
  const key = new PublicKey(market).toBuffer();
  const program = new PublicKey(marketProgram);
  for (let n = 0n; n < 256n; n++) {
    const le = Buffer.alloc(8);
    le.writeBigUInt64LE(n, 0);
    try {
      PublicKey.createProgramAddressSync([key, le], program);
      return n;
    } catch {
      // on the curve: try the next nonce
    }
  }
  throw new Error(`no vault signer nonce for market ${market}`);
}
