/**
 * SwapResult / InstructionsResult (API.md §2) from a BuiltSwap. Plain functions.
 *
 * - `RawInstruction.data` is base64 of the instruction data bytes.
 * - `minAmountOut` and `maxAmountIn` are both always present: ExactIn → minAmountOut is the
 *   slippage-adjusted minimum output (= otherAmountThreshold) and maxAmountIn equals amountIn
 *   (the exact input); ExactOut → maxAmountIn is the slippage-adjusted maximum input
 *   (= otherAmountThreshold) and minAmountOut equals amountOut (the exact output).
 * - `simulation` is present only when the simulation ran (skipSimulation false).
 */
import type { TransactionInstruction } from '@solana/web3.js';
import type { SimulationResult } from '../chain/chain-gateway';
import type { BuiltSwap } from './swap-builder';

export interface RawInstruction {
  programId: string;
  /** base64 of the instruction data */
  data: string;
  accounts: { publicKey: string; isSigner: boolean; isWritable: boolean }[];
}

export interface InstructionsResult {
  amountIn: string;
  amountOut: string;
  otherAmountThreshold: string;
  feeAmount: string;
  route: string[];
  hopCount: number;
  pools: string[];
  instructions: RawInstruction[];
  addressLookupTableAddresses: string[];
}

export interface SwapResult {
  transaction: string;
  lastValidBlockHeight: number;
  amountIn: string;
  amountOut: string;
  feeAmount: string;
  route: string[];
  hopCount: number;
  pools: string[];
  minAmountOut: string;
  maxAmountIn: string;
  simulation?: SimulationResult;
  computeUnitsEstimate: number;
  isSplitRoute: boolean;
  splitPercents: number[];
}

export function rawInstruction(ix: TransactionInstruction): RawInstruction {
  return {
    programId: ix.programId.toBase58(),
    data: Buffer.from(ix.data).toString('base64'),
    accounts: ix.keys.map((k) => ({ publicKey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
  };
}

export function instructionsResult(b: BuiltSwap, lookupTables: string[]): InstructionsResult {
  return {
    amountIn: b.amountIn.toString(),
    amountOut: b.amountOut.toString(),
    otherAmountThreshold: b.otherAmountThreshold.toString(),
    feeAmount: b.feeAmount.toString(),
    route: b.routePath,
    hopCount: b.hopCount,
    pools: b.pools,
    instructions: b.instructions.map(rawInstruction),
    addressLookupTableAddresses: lookupTables,
  };
}

export function swapResult(b: BuiltSwap, transaction: Uint8Array, lastValidBlockHeight: number, simulation: SimulationResult | undefined): SwapResult {
  const out: SwapResult = {
    transaction: Buffer.from(transaction).toString('base64'),
    lastValidBlockHeight,
    amountIn: b.amountIn.toString(),
    amountOut: b.amountOut.toString(),
    feeAmount: b.feeAmount.toString(),
    route: b.routePath,
    hopCount: b.hopCount,
    pools: b.pools,
    minAmountOut: (b.mode === 'ExactIn' ? b.otherAmountThreshold : b.amountOut).toString(),
    maxAmountIn: (b.mode === 'ExactOut' ? b.otherAmountThreshold : b.amountIn).toString(),
    computeUnitsEstimate: b.computeUnitsEstimate,
    isSplitRoute: b.isSplitRoute,
    splitPercents: b.splitPercents,
  };
  if (simulation !== undefined) out.simulation = simulation;
  return out;
}
