/**
 * An instruction as plain data (program id, account metas in order, data bytes as hex), so the
 * instruction differential specs compare ours with the official builders' with toEqual.
 */
import type { TransactionInstruction } from '@solana/web3.js';

export interface FlatIx {
  programId: string;
  keys: { pubkey: string; isSigner: boolean; isWritable: boolean }[];
  data: string;
}

export const flat = (ix: TransactionInstruction): FlatIx => ({
  programId: ix.programId.toBase58(),
  keys: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
  data: Buffer.from(ix.data).toString('hex'),
});
