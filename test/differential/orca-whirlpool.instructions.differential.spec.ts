/**
 * Differential test of the Orca Whirlpool swap INSTRUCTIONS: our builder
 * (libs/solana/src/instructions/programs.ts orcaWhirlpoolSwapV2, with the tick arrays the router
 * picks: libs/amm/src/programs/orca-whirlpool/swap.ts swapTickArrayStartIndexes, the program's
 * sparse_swap.rs get_start_tick_indexes) against Orca's official instruction builder
 * (`@orca-so/whirlpools-client` getSwapV2Instruction, the builder the high-level
 * `@orca-so/whirlpools` swapInstructions calls), for the real mainnet Whirlpools in
 * ../shared/fixtures/orca-whirlpool, both directions (a to b, b to a), both variants
 * (amount_specified_is_input true for ExactIn, false for ExactOut), several amounts, with the
 * Token / Token-2022 program on either side.
 *
 * Each side decodes the same raw Whirlpool bytes itself (our decodeWhirlpool, the client's
 * getWhirlpoolDecoder) and derives the tick array and Oracle PDAs itself (our
 * whirlpoolTickArrayAddress / whirlpoolOracleAddress, the client's getTickArrayAddress /
 * getOracleAddress). Compared: program id, data bytes, every account meta (pubkey, signer,
 * writable; the client's AccountRole) in order. sqrt_price_limit is 0 on both sides, as
 * swapInstructions sends it (the program's NO_EXPLICIT_SQRT_PRICE_LIMIT: MIN / MAX sqrt price by
 * direction, and PartialFillError for an exact-output swap that cannot be filled,
 * swap_manager.rs).
 *
 * Documented difference, the tick arrays (orca-so/whirlpools ts-sdk/whirlpool/src/swap.ts
 * fetchTickArrayOrDefault + swapInstructions; programs/whirlpool/src/util/sparse_swap.rs):
 * swapInstructions passes the arrays starting at s, s+o, s+2o as tick_array_0..2 (s the start of
 * the current tick's array, o = 88 × tick spacing, whatever the direction) and s-o, s-2o as two
 * supplemental tick arrays (remaining_accounts_info = Some([SupplementalTickArrays, 2]), the two
 * addresses appended). We pass the three arrays the program will use in the swap's direction
 * (a to b: s, s-o, s-2o; b to a: s, s+o, s+2o, or s+o, s+2o, s+3o when the current tick is the
 * last of its array) and remaining_accounts_info = None. The program merges the fixed and
 * supplemental arrays, dedups them, accepts any order and uses those its start-index sequence
 * names, so both are valid. The test pins the SDK's form against ours: same program id and
 * accounts 0..10 and 14 (oracle), tick_array_0..2 = s, s+o, s+2o, the two supplemental addresses
 * appended, data equal up to the Option tag, then the encoded slices; and every one of our arrays
 * within s ± 2o is among the SDK's five.
 * This spec is the only kind of place that imports the SDK: a devDependency, never product code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import { flat, type FlatIx } from '../support/flat-instruction';
import { address, AccountRole, createNoopSigner, isSignerRole, isWritableRole, type Address } from '@solana/kit';
import {
  AccountsType,
  getOracleAddress,
  getSwapV2Instruction,
  getTickArrayAddress,
  getWhirlpoolDecoder,
  WHIRLPOOL_PROGRAM_ADDRESS,
} from '@orca-so/whirlpools-client';
import { getTickArrayStartTickIndex, _TICK_ARRAY_SIZE } from '@orca-so/whirlpools-core';
import { getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { PROGRAM_IDS } from '@app/solana';
import { decodeWhirlpool, whirlpoolAccountType, whirlpoolOracleAddress, whirlpoolTickArrayAddress } from '@app/solana';
import { swapTickArrayStartIndexes } from '@app/amm';
import { associatedTokenAddress } from '@app/solana';
import { orcaWhirlpoolSwapV2, type SwapDirection } from '@app/solana';

const ORCA = path.resolve(__dirname, '../..', '..', 'shared', 'fixtures', 'orca-whirlpool');

interface KitIx {
  programAddress: Address;
  accounts?: readonly { address: Address; role: AccountRole }[];
  data?: ArrayLike<number>;
}
const flatKit = (ix: KitIx): FlatIx => ({
  programId: ix.programAddress,
  keys: (ix.accounts ?? []).map((a) => ({ pubkey: a.address, isSigner: isSignerRole(a.role), isWritable: isWritableRole(a.role) })),
  data: Buffer.from(Array.from(ix.data ?? [])).toString('hex'),
});

/** The fixture Whirlpools whose address is known: [file under orca-whirlpool/, address]. */
const FILES: [string, string][] = [
  ['whirlpool-essentials/sol_usdc_wp_whirlpool.HJPjoWUrhoZzkNfRpHuieeFk9WcZWjwy6PBjZ81ngndJ.json', 'HJPjoWUrhoZzkNfRpHuieeFk9WcZWjwy6PBjZ81ngndJ'],
  ['whirlpool-essentials/samo_usdc_wp_whirlpool.9vqYJjDUFecLL2xPUC4Rc7hyCtZ6iJ4mDiVZX7aFXoAe.json', '9vqYJjDUFecLL2xPUC4Rc7hyCtZ6iJ4mDiVZX7aFXoAe'],
  ['orca-whirlpools-repo/whirlpool.Czfq3xZZDmsdGdUyrNLtRhGc47cXcZtLG4crryfu44zE.json', 'Czfq3xZZDmsdGdUyrNLtRhGc47cXcZtLG4crryfu44zE'],
  ['orca-whirlpools-repo/whirlpool.7vWRTPPBq3aNaJZsrfterTz1BSjht4YSHBXJwnbuV6SC.json', '7vWRTPPBq3aNaJZsrfterTz1BSjht4YSHBXJwnbuV6SC'],
  ['ipv4sq_src_dex_whirlpool_pool_data.HyA4ct7i4XvZsVrLyb5VJhcTP1EZVDZoF9fFGym16zcj.json', 'HyA4ct7i4XvZsVrLyb5VJhcTP1EZVDZoF9fFGym16zcj'],
  ['carbon_whirlpool_account.json', 'C9U2Ksk6KKWvLEeo5yUQ7Xu46X7NzeBJtd9PBfuXaUSM'],
];

function accountData(j: { data?: unknown; account?: { data?: unknown } }): Buffer {
  const d = j.account?.data ?? j.data;
  if (typeof d === 'string') return Buffer.from(d, 'base64');
  if (Array.isArray(d) && typeof d[0] === 'string') return Buffer.from(d[0], 'base64');
  if (Array.isArray(d)) return Buffer.from(d as number[]);
  throw new Error('unknown fixture format');
}

const pools = FILES.map(([file, addr]) => ({ address: addr, data: accountData(JSON.parse(fs.readFileSync(path.join(ORCA, file), 'utf8'))) })).filter(
  (p) => whirlpoolAccountType(p.data) === 'Whirlpool',
);

const AMOUNTS: [bigint, bigint][] = [
  [1n, 0n],
  [1_000_000_000n, 24_680_000n],
  [(1n << 64n) - 1n, (1n << 64n) - 1n],
];
const walletKey = Keypair.fromSeed(new Uint8Array(32).fill(7)).publicKey;
const wallet = walletKey.toBase58();
const signer = createNoopSigner(address(wallet));

describe('Orca Whirlpool swap_v2 instructions vs @orca-so/whirlpools-client getSwapV2Instruction', () => {
  it('has real mainnet Whirlpools to compare; the client program id is ours', () => {
    expect(pools.length).toBeGreaterThanOrEqual(5);
    expect(WHIRLPOOL_PROGRAM_ADDRESS).toBe(PROGRAM_IDS.orcaWhirlpool);
  });

  for (const pool of pools) {
    describe(`whirlpool ${pool.address}`, () => {
      const ours = decodeWhirlpool(pool.data, PROGRAM_IDS.orcaWhirlpool, pool.address);
      const sdk = getWhirlpoolDecoder().decode(pool.data);
      const whirlpool = address(pool.address);

      for (const [progA, progB] of [
        [TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID],
        [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID],
      ]) {
        for (const aToB of [true, false]) {
          for (const mode of ['ExactIn', 'ExactOut'] as SwapDirection[]) {
            it(`${aToB ? 'a to b' : 'b to a'} ${mode} (token programs ${progA.toBase58().slice(0, 6)}/${progB.toBase58().slice(0, 6)}): identical; the SDK's tick-array form is the documented one`, async () => {
              const sdkOracle = (await getOracleAddress(whirlpool))[0];
              expect(whirlpoolOracleAddress(pool.address)).toBe(sdkOracle);
              const starts = swapTickArrayStartIndexes(ours.tickCurrentIndex, ours.tickSpacing, aToB);
              const arrays = starts.slice(0, 3).map((s) => whirlpoolTickArrayAddress(pool.address, s));
              while (arrays.length < 3) arrays.push(arrays[arrays.length - 1]);
              const sdkArrays = await Promise.all(starts.slice(0, 3).map(async (s) => (await getTickArrayAddress(whirlpool, s))[0] as string));
              while (sdkArrays.length < 3) sdkArrays.push(sdkArrays[sdkArrays.length - 1]);
              expect(arrays).toEqual(sdkArrays);

              // the user's token accounts as the SDK derives them (its prepareTokenAccountsInstructions uses the ATAs)
              const sdkOwnerA = getAssociatedTokenAddressSync(new PublicKey(sdk.tokenMintA), walletKey, false, progA).toBase58();
              const sdkOwnerB = getAssociatedTokenAddressSync(new PublicKey(sdk.tokenMintB), walletKey, false, progB).toBase58();
              const [inMint, outMint, inProg, outProg] = aToB ? [ours.tokenMintA, ours.tokenMintB, progA, progB] : [ours.tokenMintB, ours.tokenMintA, progB, progA];
              const user = {
                wallet,
                source: associatedTokenAddress(wallet, inMint, inProg.toBase58()),
                destination: associatedTokenAddress(wallet, outMint, outProg.toBase58()),
              };
              for (const [amount, threshold] of AMOUNTS) {
                const mine = flat(
                  orcaWhirlpoolSwapV2({
                    pool: pool.address,
                    whirlpool: ours,
                    inputMint: inMint,
                    mode,
                    amount,
                    threshold,
                    user,
                    tokenProgramA: progA.toBase58(),
                    tokenProgramB: progB.toBase58(),
                    tickArrays: [arrays[0], arrays[1], arrays[2]],
                    oracle: whirlpoolOracleAddress(pool.address),
                  }),
                );
                const base = {
                  tokenProgramA: address(progA.toBase58()),
                  tokenProgramB: address(progB.toBase58()),
                  tokenAuthority: signer,
                  whirlpool,
                  tokenMintA: sdk.tokenMintA,
                  tokenMintB: sdk.tokenMintB,
                  tokenOwnerAccountA: address(sdkOwnerA),
                  tokenVaultA: sdk.tokenVaultA,
                  tokenOwnerAccountB: address(sdkOwnerB),
                  tokenVaultB: sdk.tokenVaultB,
                  oracle: sdkOracle,
                  amount,
                  otherAmountThreshold: threshold,
                  sqrtPriceLimit: 0,
                  amountSpecifiedIsInput: mode === 'ExactIn',
                  aToB,
                };
                const theirs = flatKit(
                  getSwapV2Instruction({
                    ...base,
                    tickArray0: address(sdkArrays[0]),
                    tickArray1: address(sdkArrays[1]),
                    tickArray2: address(sdkArrays[2]),
                    remainingAccountsInfo: null,
                  }),
                );
                expect(mine).toEqual(theirs);
                expect(mine.keys).toHaveLength(15);
                // disc 8 + amount 8 + threshold 8 + sqrt_price_limit 16 + 2 bools + Option None
                expect(mine.data).toHaveLength(2 * 43);

                // documented: swapInstructions' form (s, s+o, s+2o fixed; s-o, s-2o supplemental)
                const s = getTickArrayStartTickIndex(sdk.tickCurrentIndex, sdk.tickSpacing);
                const o = sdk.tickSpacing * _TICK_ARRAY_SIZE();
                const five = await Promise.all([s, s + o, s + 2 * o, s - o, s - 2 * o].map(async (x) => (await getTickArrayAddress(whirlpool, x))[0] as string));
                const sdkForm = getSwapV2Instruction({
                  ...base,
                  tickArray0: address(five[0]),
                  tickArray1: address(five[1]),
                  tickArray2: address(five[2]),
                  remainingAccountsInfo: { slices: [{ accountsType: AccountsType.SupplementalTickArrays, length: 2 }] },
                });
                const viaSdk = flatKit({ ...sdkForm, accounts: [...sdkForm.accounts, { address: address(five[3]), role: AccountRole.WRITABLE }, { address: address(five[4]), role: AccountRole.WRITABLE }] });
                expect(viaSdk.programId).toBe(mine.programId);
                expect([...viaSdk.keys.slice(0, 11), viaSdk.keys[14]]).toEqual([...mine.keys.slice(0, 11), mine.keys[14]]);
                expect(viaSdk.keys.slice(11, 14).concat(viaSdk.keys.slice(15)).map((k) => k.pubkey)).toEqual(five);
                expect(viaSdk.keys.slice(11, 14).concat(viaSdk.keys.slice(15)).every((k) => k.isWritable && !k.isSigner)).toBe(true);
                // data: ours up to the Option tag, then Some(vec![(SupplementalTickArrays, 2)])
                const some = Buffer.from([1, 1, 0, 0, 0, AccountsType.SupplementalTickArrays, 2]).toString('hex');
                expect(viaSdk.data).toBe(mine.data.slice(0, -2) + some);
                for (const st of starts) if (Math.abs(st - s) <= 2 * o) expect(five).toContain(whirlpoolTickArrayAddress(pool.address, st));
              }
            });
          }
        }
      }
    });
  }
});
