/**
 * `payer`: another account than the user pays the transaction's fees and the rent of the token
 * accounts it creates (it funds the idempotent ATA creations); the user still signs, as the owner
 * of the token accounts the swaps spend from. Plain.
 */
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '@app/solana';

/** the instructions with every ATA creation funded by `payer` instead of `wallet` */
export function fundedBy(instructions: readonly TransactionInstruction[], wallet: string, payer: string): TransactionInstruction[] {
  if (payer === wallet) return [...instructions];
  const payerKey = new PublicKey(payer);
  return instructions.map((ix) => {
    if (ix.programId.toBase58() !== PROGRAM_IDS.associatedToken || ix.keys[0]?.pubkey.toBase58() !== wallet) return ix;
    return new TransactionInstruction({ programId: ix.programId, data: ix.data, keys: [{ ...ix.keys[0], pubkey: payerKey }, ...ix.keys.slice(1)] });
  });
}
