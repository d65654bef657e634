/**
 * Compute budget, System transfer, and the SPL Token / Token-2022 / Associated Token Account
 * instructions a swap transaction needs around the swaps. Layouts as the native programs define
 * them (one-byte tag, little-endian arguments).
 */
import type { TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../programs';
import { ArgWriter, associatedTokenAddress, instruction, isTokenProgram, r, s, sw, w } from './common';

/** ComputeBudget SetComputeUnitLimit (tag 2, u32 units). */
export function setComputeUnitLimit(units: number): TransactionInstruction {
  if (!Number.isInteger(units) || units <= 0 || units > 1_400_000) throw new RangeError(`compute unit limit out of range: ${units}`);
  return instruction(PROGRAM_IDS.computeBudget, [], new ArgWriter().u8(2).u32(units).done());
}

/** ComputeBudget SetComputeUnitPrice (tag 3, u64 micro-lamports per compute unit). */
export function setComputeUnitPrice(microLamports: bigint): TransactionInstruction {
  return instruction(PROGRAM_IDS.computeBudget, [], new ArgWriter().u8(3).u64(microLamports, 'microLamports').done());
}

/**
 * Associated Token Account CreateIdempotent (tag 1): creates `owner`'s ATA for `mint` under
 * `tokenProgram` when missing, succeeds without change when it exists. Accounts: payer (signer,
 * writable), ata (writable), owner, mint, system program, token program.
 */
export function createAtaIdempotent(payer: string, owner: string, mint: string, tokenProgram: string = PROGRAM_IDS.token): TransactionInstruction {
  if (!isTokenProgram(tokenProgram)) throw new Error(`not a token program: ${tokenProgram}`);
  const ata = associatedTokenAddress(owner, mint, tokenProgram);
  return instruction(
    PROGRAM_IDS.associatedToken,
    [sw(payer), w(ata), r(owner), r(mint), r(PROGRAM_IDS.system), r(tokenProgram)],
    Buffer.from([1]),
  );
}

/** System Transfer (u32 tag 2, u64 lamports): from (signer, writable) to (writable). */
export function systemTransfer(from: string, to: string, lamports: bigint): TransactionInstruction {
  return instruction(PROGRAM_IDS.system, [sw(from), w(to)], new ArgWriter().u32(2).u64(lamports, 'lamports').done());
}

/** Token SyncNative (tag 17): a wrapped-SOL account's amount := its lamports minus rent. */
export function syncNative(account: string, tokenProgram: string = PROGRAM_IDS.token): TransactionInstruction {
  return instruction(tokenProgram, [w(account)], Buffer.from([17]));
}

/** Token CloseAccount (tag 9): account (writable), destination (writable), owner (signer). */
export function closeAccount(account: string, destination: string, owner: string, tokenProgram: string = PROGRAM_IDS.token): TransactionInstruction {
  return instruction(tokenProgram, [w(account), w(destination), s(owner)], Buffer.from([9]));
}

/**
 * Token TransferChecked (tag 12, u64 amount, u8 decimals): source (writable), mint, destination
 * (writable), owner (signer). Works for Token and Token-2022 (where plain Transfer is refused for
 * mints with transfer-fee or hook extensions).
 */
export function transferChecked(
  source: string,
  mint: string,
  destination: string,
  owner: string,
  amount: bigint,
  decimals: number,
  tokenProgram: string = PROGRAM_IDS.token,
): TransactionInstruction {
  return instruction(tokenProgram, [w(source), r(mint), w(destination), s(owner)], new ArgWriter().u8(12).u64(amount, 'amount').u8(decimals).done());
}

/**
 * Wrap native SOL: create the owner's wrapped-SOL ATA (idempotent), transfer `lamports` into it
 * and SyncNative so its token amount reflects them.
 */
export function wrapSol(owner: string, lamports: bigint): TransactionInstruction[] {
  const ata = associatedTokenAddress(owner, PROGRAM_IDS_WSOL);
  return [createAtaIdempotent(owner, owner, PROGRAM_IDS_WSOL), systemTransfer(owner, ata, lamports), syncNative(ata)];
}

/** Unwrap: close the owner's wrapped-SOL ATA, every lamport (balance and rent) back to the owner. */
export function unwrapSol(owner: string): TransactionInstruction {
  return closeAccount(associatedTokenAddress(owner, PROGRAM_IDS_WSOL), owner, owner);
}

const PROGRAM_IDS_WSOL = 'So11111111111111111111111111111111111111112';
