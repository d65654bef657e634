/**
 * Differential test of the Raydium CPMM swap INSTRUCTIONS: our builder
 * (libs/solana/src/instructions/programs.ts raydiumCpmmSwap) against the official SDK's builders
 * (`@raydium-io/raydium-sdk-v2` cpmm/instruction makeSwapCpmmBaseInInstruction /
 * makeSwapCpmmBaseOutInstruction), for the real mainnet pools in ../shared/fixtures/raydium-cpmm,
 * both directions, both instruction variants (swap_base_input for ExactIn, swap_base_output for
 * ExactOut), several amounts.
 *
 * Each side gets the pool from its own decoding of the same raw account bytes: ours from
 * decodeCpmmPoolState, the SDK's from its CpmmPoolInfoLayout; the authority and the user token
 * accounts from each side's own derivation (our cpmmAuthority / associatedTokenAddress, the SDK's
 * getPdaPoolAuthority / getATAAddress). Compared: program id, data bytes, and every account meta
 * (pubkey, isSigner, isWritable) in order. No documented difference: the SDK's swap builders are
 * what the program (raydium-cp-swap swap_base_input.rs, whose Swap accounts swap_base_output
 * shares) takes.
 * This spec is the only kind of place that imports the SDK: a devDependency, never product code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import { flat } from '../support/flat-instruction';
import { makeSwapCpmmBaseInInstruction, makeSwapCpmmBaseOutInstruction } from '@raydium-io/raydium-sdk-v2/lib/raydium/cpmm/instruction';
import { CpmmPoolInfoLayout } from '@raydium-io/raydium-sdk-v2/lib/raydium/cpmm/layout';
import { getPdaObservationId, getPdaPoolAuthority } from '@raydium-io/raydium-sdk-v2/lib/raydium/cpmm/pda';
import { CREATE_CPMM_POOL_PROGRAM } from '@raydium-io/raydium-sdk-v2/lib/common/programId';
import { getATAAddress } from '@raydium-io/raydium-sdk-v2/lib/common/pda';
import { PROGRAM_IDS } from '@app/solana';
import { cpmmAccountType, decodeCpmmPoolState } from '@app/solana';
import { associatedTokenAddress } from '@app/solana';
import { raydiumCpmmSwap, type SwapDirection } from '@app/solana';

// the SDK's own bn.js (no types here)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BN: new (v: string) => unknown = require('bn.js');
const bn = (v: bigint) => new BN(v.toString()) as never;

const FIXTURES = path.resolve(__dirname, '../..', '..', 'shared', 'fixtures');
const CPMM_DIR = path.join(FIXTURES, 'raydium-cpmm');


function listJson(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return listJson(p);
    return e.name.endsWith('.json') && !e.name.endsWith('.expected_decoded.json') ? [p] : [];
  });
}

// the PoolState fixtures whose address is known (the address is an account of the instruction)
const pools = listJson(CPMM_DIR)
  .map((f) => JSON.parse(fs.readFileSync(f, 'utf8')))
  .filter((j) => typeof j.pubkey === 'string')
  .map((j) => ({ address: j.pubkey as string, data: Buffer.from(j.account.data[0], 'base64') }))
  .filter((p) => cpmmAccountType(p.data) === 'PoolState');

// [amount, threshold]: small, typical, large, the u64 edges
const AMOUNTS: [bigint, bigint][] = [
  [1n, 0n],
  [1_000_000n, 987_654n],
  [123_456_789_012_345n, 98_765_432_101n],
  [(1n << 64n) - 1n, (1n << 63n) + 12345n],
];

const wallet = Keypair.fromSeed(new Uint8Array(32).fill(7)).publicKey;

describe('Raydium CPMM swap instructions vs @raydium-io/raydium-sdk-v2 makeSwapCpmmBase{In,Out}Instruction', () => {
  it('has real mainnet pools to compare', () => {
    expect(pools.length).toBeGreaterThanOrEqual(2);
    expect(CREATE_CPMM_POOL_PROGRAM.toBase58()).toBe(PROGRAM_IDS.raydiumCpmm);
  });

  for (const pool of pools) {
    describe(`pool ${pool.address}`, () => {
      const ours = decodeCpmmPoolState(pool.data, PROGRAM_IDS.raydiumCpmm, pool.address);
      const sdk = CpmmPoolInfoLayout.decode(pool.data);
      const programId = CREATE_CPMM_POOL_PROGRAM;

      it('the SDK derives the observation account the pool records', () => {
        expect(getPdaObservationId(programId, new PublicKey(pool.address)).publicKey.toBase58()).toBe(sdk.observationId.toBase58());
      });

      for (const zeroForOne of [true, false]) {
        for (const mode of ['ExactIn', 'ExactOut'] as SwapDirection[]) {
          it(`${zeroForOne ? 'token0 -> token1' : 'token1 -> token0'} ${mode}: identical program id, data and accounts`, () => {
            const [inMint, outMint, inVault, outVault, inProg, outProg] = zeroForOne
              ? [sdk.mintA, sdk.mintB, sdk.vaultA, sdk.vaultB, sdk.mintProgramA, sdk.mintProgramB]
              : [sdk.mintB, sdk.mintA, sdk.vaultB, sdk.vaultA, sdk.mintProgramB, sdk.mintProgramA];
            const sdkUserIn = getATAAddress(wallet, inMint, inProg).publicKey;
            const sdkUserOut = getATAAddress(wallet, outMint, outProg).publicKey;
            const inputMint = zeroForOne ? ours.token0Mint : ours.token1Mint;
            const outputMint = zeroForOne ? ours.token1Mint : ours.token0Mint;
            const user = {
              wallet: wallet.toBase58(),
              source: associatedTokenAddress(wallet.toBase58(), inputMint, zeroForOne ? ours.token0Program : ours.token1Program),
              destination: associatedTokenAddress(wallet.toBase58(), outputMint, zeroForOne ? ours.token1Program : ours.token0Program),
            };
            for (const [amount, threshold] of AMOUNTS) {
              const mine = raydiumCpmmSwap({ pool: pool.address, state: ours, inputMint, mode, amount, threshold, user });
              const args = [
                programId,
                wallet,
                getPdaPoolAuthority(programId).publicKey,
                sdk.configId,
                new PublicKey(pool.address),
                sdkUserIn,
                sdkUserOut,
                inVault,
                outVault,
                inProg,
                outProg,
                inMint,
                outMint,
                sdk.observationId,
              ] as const;
              // ExactIn: (amount_in, minimum_amount_out); ExactOut: (max_amount_in, amount_out)
              const theirs =
                mode === 'ExactIn'
                  ? makeSwapCpmmBaseInInstruction(...args, bn(amount), bn(threshold))
                  : makeSwapCpmmBaseOutInstruction(...args, bn(threshold), bn(amount));
              expect(flat(mine)).toEqual(flat(theirs));
              // not vacuous: 13 accounts, an 8-byte discriminator and two u64 arguments
              expect(mine.keys).toHaveLength(13);
              expect(mine.data).toHaveLength(24);
            }
          });
        }
      }
    });
  }
});
