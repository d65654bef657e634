/**
 * Differential test of the Raydium CLMM swap INSTRUCTIONS: our builder
 * (libs/solana/src/instructions/programs.ts raydiumClmmSwapV2, with the tick arrays the router
 * picks: libs/amm/src/programs/raydium-clmm/tick-array.ts initializedTickArraysFrom, 3 of them)
 * against the official SDK (`@raydium-io/raydium-sdk-v2` clmm/instrument
 * ClmmInstrument.makeSwapBaseInInstructions / makeSwapBaseOutInstructions, the builders its
 * `clmm.swap` / `clmm.swapBaseOut` call, and clmm/libraries/tickArrayUtil
 * TickArrayBitmapUtil.findTickArrayStartIndex for the first initialized tick arrays). Pools: the
 * real mainnet PoolState 3ucNos4… in ../shared/fixtures/raydium-clmm (its tick arrays are in the
 * pool's own bitmap), and a synthetic pool (libs/amm/src/programs/raydium-clmm/synthetic.ts,
 * encoded to the program's bytes) whose current tick lies in the bitmap extension, so the
 * selection crosses from the extension into the pool bitmap. Both directions, both variants
 * (swap_v2 with is_base_input true for ExactIn, false for ExactOut), several amounts.
 *
 * Each side decodes the same raw bytes itself (our decodeClmmPoolState /
 * decodeClmmTickArrayBitmapExtension, the SDK's PoolInfoLayout / TickArrayBitmapExtensionLayout)
 * and derives the tick array, bitmap extension and user token account addresses itself.
 * Compared: program id, data bytes, every account meta (pubkey, isSigner, isWritable) in order.
 *
 * sqrt_price_limit_x64: the SDK's `clmm.swap` / `swapBaseOut` compute a limit from `priceLimit`
 * but pass 0 (the SDK's ZERO) to these builders; the program (raydium-clmm
 * programs/amm/src/instructions/swap_v2.rs exact_internal_v2) reads 0 as "no limit" (MIN + 1 /
 * MAX - 1 by direction) AND then requires the whole specified amount to be swapped ("Does't allow
 * partial filled without specified limit_price"). We send 0 too, so the program itself refuses a
 * partial fill (the router fixes every hop's amounts at build time). Compared with the SDK's
 * builders given 0, as its swap gives them.
 *
 * Documented difference (swap_v2.rs exact_internal_v2, remaining accounts): the SDK's
 * makeSwapBase{In,Out}Instructions ALWAYS put the tick array bitmap extension PDA first among the
 * remaining accounts. We put it only when the account exists (the router checks its projection).
 * The program classifies remaining accounts by data length (TickArrayState::LEN: a tick array;
 * TickArrayBitmapExtension::LEN: the extension) and stops at the first account that is neither:
 * an extension address with no account behind it (pools created before the extension existed)
 * would end the list before the tick arrays, and the swap would see no tick array. So where the
 * extension exists both are identical; where it does not, the SDK's list is ours with the
 * extension PDA inserted at index 13, and ours is the one the program can use.
 * This spec is the only kind of place that imports the SDK: a devDependency, never product code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import { flat } from '../support/flat-instruction';
import { ClmmInstrument } from '@raydium-io/raydium-sdk-v2/lib/raydium/clmm/instrument';
import { PoolInfoLayout, TickArrayBitmapExtensionLayout } from '@raydium-io/raydium-sdk-v2/lib/raydium/clmm/layout';
import { TickArrayBitmapUtil } from '@raydium-io/raydium-sdk-v2/lib/raydium/clmm/libraries/tickArrayUtil';
import { getPdaExBitmapAccount, getPdaObservationAccount, getPdaTickArrayAddress } from '@raydium-io/raydium-sdk-v2/lib/raydium/clmm/libraries/pda';
import { CLMM_PROGRAM_ID } from '@raydium-io/raydium-sdk-v2/lib/common/programId';
import { getATAAddress } from '@raydium-io/raydium-sdk-v2/lib/common/pda';
import { PROGRAM_IDS } from '@app/solana';
import {
  clmmTickArrayAddress,
  decodeClmmPoolState,
  decodeClmmTickArrayBitmapExtension,
  encodeClmmPoolState,
  encodeClmmTickArrayBitmapExtension,
  type ClmmTickArrayBitmapExtension,
} from '@app/solana';
import { buildSyntheticClmm } from '@app/amm';
import { initializedTickArraysFrom, prepareBitmaps } from '@app/amm';
import { associatedTokenAddress } from '@app/solana';
import { raydiumClmmSwapV2, type SwapDirection } from '@app/solana';

// the SDK's own bn.js (no types here)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BN: new (v: string) => unknown = require('bn.js');
const bn = (v: bigint) => new BN(v.toString()) as never;

const FIXTURES = path.resolve(__dirname, '../..', '..', 'shared', 'fixtures');


const keyOf = (seed: number): string => Keypair.fromSeed(new Uint8Array(32).fill(seed)).publicKey.toBase58();

interface Case {
  name: string;
  address: string;
  pool: Buffer;
  /** raw bitmap extension account, when the pool has one */
  extension: Buffer | null;
}

const real = ((): Case => {
  const f = 'ipv4sq_src_dex_raydium_clmm_pool_data.3ucNos4NbumPLZNWztqGHNFFgkHeRMBQAVemeeomsUxv.json';
  const j = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'raydium-clmm', f), 'utf8'));
  return { name: `mainnet pool ${j.pubkey}`, address: j.pubkey, pool: Buffer.from(j.account.data[0], 'base64'), extension: null };
})();

const synthetic = ((): Case => {
  const address = keyOf(31);
  // tick spacing 1: the pool bitmap covers ticks [-30720, 30720); the current tick is beyond it
  const s = buildSyntheticClmm({
    address,
    mint0: keyOf(32),
    mint1: keyOf(33),
    ammConfig: keyOf(34),
    tickSpacing: 1,
    tickCurrent: 30_800,
    positions: [
      { tickLower: 30_790, tickUpper: 30_900, liquidity: 10n ** 12n },
      { tickLower: 30_500, tickUpper: 31_500, liquidity: 10n ** 11n },
      { tickLower: 29_000, tickUpper: 33_000, liquidity: 10n ** 10n },
    ],
  });
  return { name: `synthetic pool ${address} (current tick in the bitmap extension)`, address, pool: encodeClmmPoolState(s.state), extension: encodeClmmTickArrayBitmapExtension(s.extension) };
})();

const AMOUNTS: [bigint, bigint][] = [
  [1n, 0n],
  [5_000_000n, 4_321_000n],
  [(1n << 64n) - 1n, 1n << 40n],
];

const wallet = new PublicKey(keyOf(7));

describe('Raydium CLMM swap_v2 instructions vs @raydium-io/raydium-sdk-v2 ClmmInstrument.makeSwapBase{In,Out}Instructions', () => {
  it('the SDK program id is ours', () => {
    expect(CLMM_PROGRAM_ID.toBase58()).toBe(PROGRAM_IDS.raydiumClmm);
  });

  for (const c of [real, synthetic]) {
    describe(c.name, () => {
      const ours = decodeClmmPoolState(c.pool, PROGRAM_IDS.raydiumClmm, c.address);
      const ourExt: ClmmTickArrayBitmapExtension | null = c.extension ? decodeClmmTickArrayBitmapExtension(c.extension) : null;
      const sdk = PoolInfoLayout.decode(c.pool);
      // no extension account: all-empty bitmaps for the SDK's search (it reads nothing beyond the pool's range then)
      const sdkExt = c.extension
        ? TickArrayBitmapExtensionLayout.decode(c.extension)
        : { poolId: new PublicKey(c.address), positiveTickArrayBitmap: Buffer.alloc(14 * 64), negativeTickArrayBitmap: Buffer.alloc(14 * 64) };
      const poolId = new PublicKey(c.address);

      if (!c.extension) {
        it('the SDK derives the observation account the mainnet pool records', () => {
          expect(getPdaObservationAccount(CLMM_PROGRAM_ID, poolId).publicKey.toBase58()).toBe(ours.observationKey);
        });
      }

      for (const zeroForOne of [true, false]) {
        const ourStarts = initializedTickArraysFrom(prepareBitmaps(ours.tickSpacing, ours.tickArrayBitmap, ourExt), ours.tickCurrent, zeroForOne, 3);
        const sdkStarts = TickArrayBitmapUtil.findTickArrayStartIndex({
          tickSpacing: sdk.tickSpacing,
          poolBitmap: sdk.tickArrayBitmap,
          tickArrayBitmap: sdkExt as never,
          findInfo: { type: zeroForOne ? 'zeroForOne' : 'oneForZero', count: 3, tickArrayCurrent: sdk.tickCurrent },
        });
        const sdkTickArrays = sdkStarts.map((s) => getPdaTickArrayAddress(CLMM_PROGRAM_ID, poolId, s).publicKey);

        it(`${zeroForOne ? 'zero for one' : 'one for zero'}: the same first three initialized tick arrays`, () => {
          expect(ourStarts).toHaveLength(3);
          expect(ourStarts).toEqual(sdkStarts);
          expect(ourStarts.map((s) => clmmTickArrayAddress(c.address, s))).toEqual(sdkTickArrays.map((k) => k.toBase58()));
          if (c.extension && zeroForOne) {
            // the synthetic case does cross from the extension into the pool's bitmap
            expect(ourStarts.some((s) => s >= 30_720)).toBe(true);
            expect(ourStarts.some((s) => s < 30_720)).toBe(true);
          }
        });

        for (const mode of ['ExactIn', 'ExactOut'] as SwapDirection[]) {
          it(`${zeroForOne ? 'zero for one' : 'one for zero'} ${mode}: identical with the bitmap extension; without it, the documented extra account`, () => {
            const [inMint, outMint] = zeroForOne ? [sdk.mintA, sdk.mintB] : [sdk.mintB, sdk.mintA];
            const ownerInfo = {
              wallet,
              tokenAccountA: getATAAddress(wallet, sdk.mintA).publicKey,
              tokenAccountB: getATAAddress(wallet, sdk.mintB).publicKey,
            };
            const poolInfo = {
              id: c.address,
              programId: CLMM_PROGRAM_ID.toBase58(),
              mintA: { address: sdk.mintA.toBase58() },
              mintB: { address: sdk.mintB.toBase58() },
              config: { id: sdk.configId.toBase58() },
            } as never;
            const poolKeys = { vault: { A: sdk.vaultA.toBase58(), B: sdk.vaultB.toBase58() } } as never;
            const inputMint = zeroForOne ? ours.tokenMint0 : ours.tokenMint1;
            const outputMint = zeroForOne ? ours.tokenMint1 : ours.tokenMint0;
            const user = {
              wallet: wallet.toBase58(),
              source: associatedTokenAddress(wallet.toBase58(), inputMint),
              destination: associatedTokenAddress(wallet.toBase58(), outputMint),
            };
            for (const [amount, threshold] of AMOUNTS) {
              const common = { pool: c.address, state: ours, inputMint, mode, amount, threshold, user, tickArrays: ourStarts.map((s) => clmmTickArrayAddress(c.address, s)) };
              const theirs =
                mode === 'ExactIn'
                  ? ClmmInstrument.makeSwapBaseInInstructions({
                      poolInfo,
                      poolKeys,
                      observationId: sdk.observationId,
                      ownerInfo,
                      inputMint: inMint,
                      amountIn: bn(amount),
                      amountOutMin: bn(threshold),
                      sqrtPriceLimitX64: bn(0n), // what clmm.swap passes
                      remainingAccounts: sdkTickArrays,
                    }).instructions
                  : ClmmInstrument.makeSwapBaseOutInstructions({
                      poolInfo,
                      poolKeys,
                      observationId: sdk.observationId,
                      ownerInfo,
                      outputMint: outMint,
                      amountOut: bn(amount),
                      amountInMax: bn(threshold),
                      sqrtPriceLimitX64: bn(0n), // what clmm.swapBaseOut passes
                      remainingAccounts: sdkTickArrays,
                    }).instructions;
              expect(theirs).toHaveLength(1);
              const sdkIx = flat(theirs[0]);

              const withExt = flat(raydiumClmmSwapV2({ ...common, withBitmapExtension: true }));
              expect(withExt).toEqual(sdkIx);
              expect(withExt.keys).toHaveLength(13 + 1 + 3);
              expect(withExt.keys[13].pubkey).toBe(getPdaExBitmapAccount(CLMM_PROGRAM_ID, poolId).publicKey.toBase58());
              expect(withExt.data).toHaveLength(2 * (8 + 8 + 8 + 16 + 1));

              // documented: without the extension account we leave its address out; the SDK never does
              const without = flat(raydiumClmmSwapV2({ ...common, withBitmapExtension: false }));
              expect({ ...without, keys: [...without.keys.slice(0, 13), sdkIx.keys[13], ...without.keys.slice(13)] }).toEqual(sdkIx);
            }
          });
        }
      }
    });
  }
});
