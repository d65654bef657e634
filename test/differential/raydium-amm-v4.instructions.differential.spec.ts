/**
 * Differential test of the Raydium AMM v4 swap INSTRUCTIONS: our builder
 * (libs/solana/src/instructions/programs.ts raydiumAmmV4SwapV2, and raydiumAmmV4Swap with
 * decodeSerumMarketAccounts)
 * against the official SDK's builder (`@raydium-io/raydium-sdk-v2` liquidity/instruction
 * makeAMMSwapInstruction, version 4: makeSwapFixedInInstruction / makeSwapFixedOutInstruction),
 * for the real mainnet SOL/USDC AmmInfo in ../shared/fixtures/raydium-amm-v4 (two captures), both
 * directions, both variants: swap_base_in (tag 9, ExactIn) and swap_base_out (tag 11, ExactOut).
 *
 * Each side reads the pool from its own decoding of the same raw bytes (our decodeAmmV4Info, the
 * SDK's liquidityStateV4Layout) and the OpenBook market accounts from its own decoding of the same
 * market account bytes (our decodeSerumMarketAccounts, the SDK's MARKET_STATE_LAYOUT_V3). There is
 * no market account among the fixtures, so the market account is synthetic: the real market
 * address and market program of the pool, its other keys random, laid out as Serum v3 stores it
 * ("serum" head, account flags, then the fields), with the first viable vault-signer nonce (the
 * one the SDK's getSerumAssociatedAuthority searches for; we read the nonce the market records).
 * Compared: program id, data bytes, every account meta (pubkey, isSigner, isWritable) in order.
 *
 * Documented differences (raydium-amm program/src/processor.rs process_swap_base_in /
 * process_swap_base_out, instruction.rs):
 *  - The SDK's high-level `liquidity.swap` no longer emits these instructions for v4 pools: it
 *    emits swap_base_in_v2 / swap_base_out_v2 (tags 16 / 17, makeAMMSwapV2Instruction): 8
 *    accounts, no open orders, target orders or OpenBook market accounts. The program accepts
 *    both forms (tag 9 / 11 take 17 or 18 accounts, the market accounts unread since the
 *    OpenBook dependency was removed; tag 16 / 17 take 8). The router emits the v2 form
 *    (raydiumAmmV4SwapV2), compared with the SDK's v2 builder; the test also pins that it is our
 *    tag 9 / 11 form without the open orders, target orders and the 8 market accounts.
 *  - Our builder can also emit the 17-account form (withTargetOrders: false; the program's
 *    "(optional) AMM target orders Account, no longer used"); the SDK has no builder for it: it
 *    is the SDK's 18 accounts without amm_target_orders (index 4). The router emits 18.
 * This spec is the only kind of place that imports the SDK: a devDependency, never product code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import { flat } from '../support/flat-instruction';
import { makeAMMSwapInstruction, makeAMMSwapV2Instruction } from '@raydium-io/raydium-sdk-v2/lib/raydium/liquidity/instruction';
import { liquidityStateV4Layout } from '@raydium-io/raydium-sdk-v2/lib/raydium/liquidity/layout';
import { getLiquidityAssociatedAuthority } from '@raydium-io/raydium-sdk-v2/lib/raydium/liquidity/utils';
import { getSerumAssociatedAuthority } from '@raydium-io/raydium-sdk-v2/lib/raydium/liquidity/serum';
import { MARKET_STATE_LAYOUT_V3 } from '@raydium-io/raydium-sdk-v2/lib/raydium/serum/layout';
import { AMM_V4 } from '@raydium-io/raydium-sdk-v2/lib/common/programId';
import { getATAAddress } from '@raydium-io/raydium-sdk-v2/lib/common/pda';
import { PROGRAM_IDS } from '@app/solana';
import { decodeAmmV4Info } from '@app/solana';
import { associatedTokenAddress } from '@app/solana';
import { decodeSerumMarketAccounts, raydiumAmmV4Swap, raydiumAmmV4SwapV2, type SwapDirection } from '@app/solana/instructions/programs';

// the SDK's own bn.js (no types here)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BN: new (v: string) => unknown = require('bn.js');
const bn = (v: bigint) => new BN(v.toString()) as never;

const DIR = path.resolve(__dirname, '../..', '..', 'shared', 'fixtures', 'raydium-amm-v4', 'unattributed');


const pools = fs
  .readdirSync(DIR)
  .filter((f) => f.startsWith('amm_info.'))
  .map((f) => {
    const j = JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8'));
    return { file: f, address: j.pubkey as string, data: Buffer.from(j.account.data[0], 'base64') };
  });

/** Deterministic keys for the synthetic parts (user wallet, market queues and vaults). */
const keyOf = (seed: number): PublicKey => Keypair.fromSeed(new Uint8Array(32).fill(seed)).publicKey;

/** A Serum v3 / OpenBook market account (388 bytes) at `market` owned by `marketProgram`. */
function syntheticMarket(market: PublicKey, marketProgram: PublicKey, baseMint: PublicKey, quoteMint: PublicKey): Buffer {
  // the first nonce whose [market, nonce u64 LE] is off the curve, as markets are created
  let nonce = 0;
  for (; ; nonce++) {
    try {
      PublicKey.createProgramAddressSync([market.toBuffer(), Buffer.from([nonce, 0, 0, 0, 0, 0, 0, 0])], marketProgram);
      break;
    } catch {
      continue;
    }
  }
  const b = Buffer.alloc(388);
  b.write('serum', 0, 'latin1');
  b.writeBigUInt64LE(0b11n, 5); // account flags: initialized | market
  market.toBuffer().copy(b, 13);
  b.writeBigUInt64LE(BigInt(nonce), 45);
  baseMint.toBuffer().copy(b, 53);
  quoteMint.toBuffer().copy(b, 85);
  keyOf(11).toBuffer().copy(b, 117); // base vault
  keyOf(12).toBuffer().copy(b, 165); // quote vault
  keyOf(13).toBuffer().copy(b, 221); // request queue
  keyOf(14).toBuffer().copy(b, 253); // event queue
  keyOf(15).toBuffer().copy(b, 285); // bids
  keyOf(16).toBuffer().copy(b, 317); // asks
  b.write('padding', 381, 'latin1');
  return b;
}

const AMOUNTS: [bigint, bigint][] = [
  [1n, 0n],
  [2_500_000_000n, 370_123_456n],
  [(1n << 64n) - 1n, (1n << 64n) - 2n],
];

const wallet = keyOf(7);

describe('Raydium AMM v4 swap instructions vs @raydium-io/raydium-sdk-v2 makeAMMSwapInstruction (v4)', () => {
  it('has the real mainnet pool to compare', () => {
    expect(pools.length).toBeGreaterThanOrEqual(2);
    expect(AMM_V4.toBase58()).toBe(PROGRAM_IDS.raydiumAmmV4);
  });

  for (const pool of pools) {
    describe(`${pool.file}`, () => {
      const ours = decodeAmmV4Info(pool.data, PROGRAM_IDS.raydiumAmmV4, pool.address);
      const sdk = liquidityStateV4Layout.decode(pool.data);
      const marketData = syntheticMarket(sdk.marketId, sdk.marketProgramId, sdk.baseMint, sdk.quoteMint);
      const sdkMarket = MARKET_STATE_LAYOUT_V3.decode(marketData);
      const ourMarket = decodeSerumMarketAccounts(ours.market, ours.marketProgram, marketData);
      const poolKeys = {
        programId: AMM_V4.toBase58(),
        id: pool.address,
        authority: getLiquidityAssociatedAuthority({ programId: AMM_V4 }).publicKey.toBase58(),
        openOrders: sdk.openOrders.toBase58(),
        targetOrders: sdk.targetOrders.toBase58(),
        vault: { A: sdk.baseVault.toBase58(), B: sdk.quoteVault.toBase58() },
        marketProgramId: sdk.marketProgramId.toBase58(),
        marketId: sdk.marketId.toBase58(),
        marketAuthority: getSerumAssociatedAuthority({ programId: sdk.marketProgramId, marketId: sdk.marketId }).publicKey.toBase58(),
        marketBaseVault: sdkMarket.baseVault.toBase58(),
        marketQuoteVault: sdkMarket.quoteVault.toBase58(),
        marketBids: sdkMarket.bids.toBase58(),
        marketAsks: sdkMarket.asks.toBase58(),
        marketEventQueue: sdkMarket.eventQueue.toBase58(),
      };

      it('both sides read the same market account the same way', () => {
        expect(sdkMarket.ownAddress.toBase58()).toBe(ours.market);
        expect(ourMarket).toEqual({
          bids: poolKeys.marketBids,
          asks: poolKeys.marketAsks,
          eventQueue: poolKeys.marketEventQueue,
          coinVault: poolKeys.marketBaseVault,
          pcVault: poolKeys.marketQuoteVault,
          vaultSigner: poolKeys.marketAuthority,
        });
      });

      for (const coinToPc of [true, false]) {
        for (const mode of ['ExactIn', 'ExactOut'] as SwapDirection[]) {
          it(`${coinToPc ? 'coin -> pc' : 'pc -> coin'} ${mode}: identical to the SDK; the SDK's v2 form and our 17-account form are the documented subsets`, () => {
            const [inMint, outMint] = coinToPc ? [sdk.baseMint, sdk.quoteMint] : [sdk.quoteMint, sdk.baseMint];
            const userKeys = {
              tokenAccountIn: getATAAddress(wallet, inMint).publicKey,
              tokenAccountOut: getATAAddress(wallet, outMint).publicKey,
              owner: wallet,
            };
            const inputMint = coinToPc ? ours.coinVaultMint : ours.pcVaultMint;
            const outputMint = coinToPc ? ours.pcVaultMint : ours.coinVaultMint;
            const user = {
              wallet: wallet.toBase58(),
              source: associatedTokenAddress(wallet.toBase58(), inputMint),
              destination: associatedTokenAddress(wallet.toBase58(), outputMint),
            };
            for (const [amount, threshold] of AMOUNTS) {
              const args = { pool: pool.address, info: ours, market: ourMarket, inputMint, mode, amount, threshold, user };
              const mine = raydiumAmmV4Swap(args);
              // the SDK's amountIn / amountOut: (exact in, min out) for fixedSide in, (max in, exact out) for out
              const [amountIn, amountOut] = mode === 'ExactIn' ? [amount, threshold] : [threshold, amount];
              const sdkArgs = { poolKeys: poolKeys as never, userKeys, amountIn: bn(amountIn), amountOut: bn(amountOut), fixedSide: mode === 'ExactIn' ? ('in' as const) : ('out' as const) };
              const theirs = makeAMMSwapInstruction({ ...sdkArgs, version: 4 });
              expect(flat(mine)).toEqual(flat(theirs));
              expect(mine.keys).toHaveLength(18);
              expect(mine.data[0]).toBe(mode === 'ExactIn' ? 9 : 11);

              // documented: the 17-account form is the SDK's 18 without amm_target_orders (index 4)
              const without = flat(raydiumAmmV4Swap({ ...args, withTargetOrders: false }));
              const sdk18 = flat(theirs);
              expect(without).toEqual({ ...sdk18, keys: sdk18.keys.filter((_, i) => i !== 4) });
              expect(sdk18.keys[4].pubkey).toBe(ours.targetOrders);

              // documented: the SDK's default (liquidity.swap) form, swap_base_in_v2 / swap_base_out_v2
              const v2 = flat(makeAMMSwapV2Instruction({ ...sdkArgs, version: 4 }));
              const m = flat(mine);
              expect(v2.programId).toBe(m.programId);
              expect(v2.keys).toEqual([0, 1, 2, 5, 6, 15, 16, 17].map((i) => m.keys[i]));
              expect(v2.data).toBe(Buffer.from([mode === 'ExactIn' ? 16 : 17]).toString('hex') + m.data.slice(2));
              // what the router emits: the v2 form, identical to the SDK's
              expect(flat(raydiumAmmV4SwapV2({ pool: pool.address, info: ours, inputMint, mode, amount, threshold, user }))).toEqual(v2);
            }
          });
        }
      }
    });
  }
});
