/**
 * Differential test of the standard instructions a swap transaction carries around the swaps
 * (libs/solana/src/instructions/system-token.ts): compute budget SetComputeUnitLimit /
 * SetComputeUnitPrice, Associated Token Account CreateIdempotent, Token SyncNative, CloseAccount,
 * TransferChecked, System Transfer, and the wrap / unwrap sequences, against the official
 * builders: `@solana/web3.js` ComputeBudgetProgram / SystemProgram and `@solana/spl-token`
 * (createAssociatedTokenAccountIdempotentInstruction, createSyncNativeInstruction,
 * createCloseAccountInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync),
 * under both the Token and the Token-2022 program, with wallet and off-curve (PDA) owners and
 * amounts at the edges. Compared: program id, data bytes, every account meta (pubkey, isSigner,
 * isWritable) in order. No documented difference.
 */
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { flat } from '../support/flat-instruction';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { associatedTokenAddress } from '@app/solana';
import {
  closeAccount,
  createAtaIdempotent,
  setComputeUnitLimit,
  setComputeUnitPrice,
  syncNative,
  systemTransfer,
  transferChecked,
  unwrapSol,
  wrapSol,
} from '@app/solana/instructions/system-token';


const key = (seed: number): PublicKey => Keypair.fromSeed(new Uint8Array(32).fill(seed)).publicKey;
const wallet = key(1);
const other = key(2);
// an off-curve owner (a program-derived address), as a fee vault or a pool authority can be
const pdaOwner = PublicKey.findProgramAddressSync([Buffer.from('vault'), wallet.toBuffer()], new PublicKey(PROGRAM_IDS.raydiumCpmm))[0];
const MINT_LIST = [new PublicKey(MINTS.USDC), new PublicKey(MINTS.SOL), key(3)];
const PROGRAMS = [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID];
const U64_MAX = (1n << 64n) - 1n;

describe('standard instructions vs @solana/web3.js and @solana/spl-token builders', () => {
  it('program ids are the official ones', () => {
    expect(TOKEN_PROGRAM_ID.toBase58()).toBe(PROGRAM_IDS.token);
    expect(TOKEN_2022_PROGRAM_ID.toBase58()).toBe(PROGRAM_IDS.token2022);
    expect(ASSOCIATED_TOKEN_PROGRAM_ID.toBase58()).toBe(PROGRAM_IDS.associatedToken);
    expect(ComputeBudgetProgram.programId.toBase58()).toBe(PROGRAM_IDS.computeBudget);
    expect(SystemProgram.programId.toBase58()).toBe(PROGRAM_IDS.system);
    expect(NATIVE_MINT.toBase58()).toBe(MINTS.SOL);
  });

  it('SetComputeUnitLimit equals ComputeBudgetProgram.setComputeUnitLimit', () => {
    for (const units of [1, 200_000, 345_678, 1_400_000]) {
      expect(flat(setComputeUnitLimit(units))).toEqual(flat(ComputeBudgetProgram.setComputeUnitLimit({ units })));
    }
  });

  it('SetComputeUnitPrice equals ComputeBudgetProgram.setComputeUnitPrice', () => {
    for (const microLamports of [0n, 1n, 1_000n, 123_456_789n, U64_MAX]) {
      expect(flat(setComputeUnitPrice(microLamports))).toEqual(flat(ComputeBudgetProgram.setComputeUnitPrice({ microLamports })));
    }
  });

  it('the associated token address equals getAssociatedTokenAddressSync (wallet and off-curve owners, both token programs)', () => {
    for (const owner of [wallet, other, pdaOwner]) {
      for (const mint of MINT_LIST) {
        for (const prog of PROGRAMS) {
          expect(associatedTokenAddress(owner.toBase58(), mint.toBase58(), prog.toBase58())).toBe(getAssociatedTokenAddressSync(mint, owner, true, prog).toBase58());
        }
      }
    }
  });

  it('CreateIdempotent equals createAssociatedTokenAccountIdempotentInstruction', () => {
    for (const owner of [wallet, other, pdaOwner]) {
      for (const mint of MINT_LIST) {
        for (const prog of PROGRAMS) {
          const ata = getAssociatedTokenAddressSync(mint, owner, true, prog);
          expect(flat(createAtaIdempotent(wallet.toBase58(), owner.toBase58(), mint.toBase58(), prog.toBase58()))).toEqual(
            flat(createAssociatedTokenAccountIdempotentInstruction(wallet, ata, owner, mint, prog)),
          );
        }
      }
    }
  });

  it('SyncNative equals createSyncNativeInstruction', () => {
    for (const prog of PROGRAMS) {
      const acc = getAssociatedTokenAddressSync(NATIVE_MINT, wallet, false, prog);
      expect(flat(syncNative(acc.toBase58(), prog.toBase58()))).toEqual(flat(createSyncNativeInstruction(acc, prog)));
    }
  });

  it('CloseAccount equals createCloseAccountInstruction (single owner)', () => {
    for (const prog of PROGRAMS) {
      const acc = getAssociatedTokenAddressSync(NATIVE_MINT, wallet, false, prog);
      for (const dest of [wallet, other]) {
        expect(flat(closeAccount(acc.toBase58(), dest.toBase58(), wallet.toBase58(), prog.toBase58()))).toEqual(flat(createCloseAccountInstruction(acc, dest, wallet, [], prog)));
      }
    }
  });

  it('TransferChecked equals createTransferCheckedInstruction', () => {
    for (const prog of PROGRAMS) {
      for (const mint of MINT_LIST) {
        const src = getAssociatedTokenAddressSync(mint, wallet, false, prog);
        const dst = getAssociatedTokenAddressSync(mint, pdaOwner, true, prog);
        for (const [amount, decimals] of [
          [0n, 0],
          [1n, 6],
          [987_654_321n, 9],
          [U64_MAX, 255],
        ] as [bigint, number][]) {
          expect(flat(transferChecked(src.toBase58(), mint.toBase58(), dst.toBase58(), wallet.toBase58(), amount, decimals, prog.toBase58()))).toEqual(
            flat(createTransferCheckedInstruction(src, mint, dst, wallet, amount, decimals, [], prog)),
          );
        }
      }
    }
  });

  it('System Transfer equals SystemProgram.transfer', () => {
    for (const lamports of [0n, 1n, 2_039_280n, U64_MAX]) {
      expect(flat(systemTransfer(wallet.toBase58(), other.toBase58(), lamports))).toEqual(flat(SystemProgram.transfer({ fromPubkey: wallet, toPubkey: other, lamports })));
    }
  });

  it('wrap and unwrap SOL equal the spl-token sequence (create idempotent, transfer, sync native; close)', () => {
    const ata = getAssociatedTokenAddressSync(NATIVE_MINT, wallet);
    const lamports = 1_234_567_890n;
    expect(wrapSol(wallet.toBase58(), lamports).map(flat)).toEqual(
      [
        createAssociatedTokenAccountIdempotentInstruction(wallet, ata, wallet, NATIVE_MINT),
        SystemProgram.transfer({ fromPubkey: wallet, toPubkey: ata, lamports }),
        createSyncNativeInstruction(ata),
      ].map(flat),
    );
    expect(flat(unwrapSol(wallet.toBase58()))).toEqual(flat(createCloseAccountInstruction(ata, wallet, wallet)));
  });
});
