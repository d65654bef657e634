import { PoolQuoteError, type ConstantProductGuide, type HopQuote, type Pool, type PoolKind } from '../../pool';
import { PROGRAM_IDS } from '@app/solana';
import { exactInWithTransferFees, exactOutWithTransferFees, transferKeep, type EpochTransferFee } from '../../transfer-fee';
import type { CpmmAmmConfig, CpmmPoolState } from '@app/solana';
import {
  FEE_RATE_DENOMINATOR,
  cpmmFeeRates,
  cpmmReserves,
  cpmmSwapBaseInput,
  cpmmSwapBaseOutput,
  cpmmSwapEnabled,
  type CpmmFeeRates,
  type CpmmSwapResult,
} from './math';

/** Accounts a CPMM pool's quotes depend on besides the pool itself. */
export function cpmmPoolDependencies(state: CpmmPoolState): string[] {
  return [state.ammConfig, state.token0Vault, state.token1Vault, state.token0Mint, state.token1Mint];
}

export interface CpmmPoolArgs {
  address: string;
  state: CpmmPoolState;
  config: CpmmAmmConfig;
  vault0Amount: bigint;
  vault1Amount: bigint;
  slot: number;
  /**
   * Optional unix time (seconds) the quote is for; when given and before the pool's openTime the
   * pool is not quotable (the program rejects swaps before openTime).
   */
  unixTimestamp?: number;
  /** Token-2022 transfer fee in force of token0 / token1 (null or absent: none) */
  transferFee0?: EpochTransferFee | null;
  transferFee1?: EpochTransferFee | null;
}

/** Float guide for one direction, precomputed. */
interface Side {
  x: number; // input reserve
  y: number; // output reserve
  /** fraction of the input left after input-side fees */
  inKeep: number;
  /** fraction of the swapped output left after an output-side creator fee */
  outKeep: number;
  /** inKeep and outKeep with the Token-2022 transfer fees of the input / output mint (the float guides' factors) */
  kIn: number;
  kOut: number;
}

/**
 * A Raydium CPMM pool (constant product, fee on the input; creator fee on either side).
 * Token-2022 transfer fees (transferFee0 / transferFee1) apply as swap_base_input / swap_base_output
 * do: quotes are what the user pays and receives (see transfer-fee.ts); `swap` is the vault side.
 */
export class CpmmPool implements Pool {
  readonly kind: PoolKind = 'constant-product';
  readonly label = 'Raydium CPMM';
  readonly programId: string = PROGRAM_IDS.raydiumCpmm;
  readonly address: string;
  readonly mintA: string;
  readonly mintB: string;
  readonly feeBps: number;
  readonly slot: number;
  readonly state: CpmmPoolState;
  readonly config: CpmmAmmConfig;
  readonly vault0Amount: bigint;
  readonly vault1Amount: bigint;
  /** reserves net of fees owed (0n when the pool is not quotable) */
  readonly reserve0: bigint;
  readonly reserve1: bigint;
  /** why the pool cannot be quoted at all, or null */
  readonly notQuotable: string | null;
  readonly transferFee0: EpochTransferFee | null;
  readonly transferFee1: EpochTransferFee | null;

  private readonly fees01: CpmmFeeRates | null;
  private readonly fees10: CpmmFeeRates | null;
  private readonly side01: Side;
  private readonly side10: Side;
  private readonly r0: number;
  private readonly r1: number;

  constructor(args: CpmmPoolArgs) {
    const { state, config } = args;
    this.address = args.address;
    this.state = state;
    this.config = config;
    this.vault0Amount = args.vault0Amount;
    this.vault1Amount = args.vault1Amount;
    this.slot = args.slot;
    this.transferFee0 = args.transferFee0 ?? null;
    this.transferFee1 = args.transferFee1 ?? null;
    this.mintA = state.token0Mint;
    this.mintB = state.token1Mint;
    const creatorRate = state.enableCreatorFee ? config.creatorFeeRate : 0n;
    this.feeBps = Number(config.tradeFeeRate + creatorRate) / 100;

    let reason: string | null = null;
    let reserve0 = 0n;
    let reserve1 = 0n;
    let fees01: CpmmFeeRates | null = null;
    let fees10: CpmmFeeRates | null = null;
    try {
      if (!cpmmSwapEnabled(state)) throw new PoolQuoteError('not-quotable', 'swaps are disabled on this pool');
      if (args.unixTimestamp !== undefined && BigInt(Math.floor(args.unixTimestamp)) < state.openTime) {
        throw new PoolQuoteError('not-quotable', `pool opens at ${state.openTime}`);
      }
      ({ reserve0, reserve1 } = cpmmReserves(state, args.vault0Amount, args.vault1Amount));
      fees01 = cpmmFeeRates(state, config, true);
      fees10 = cpmmFeeRates(state, config, false);
    } catch (e) {
      if (!(e instanceof PoolQuoteError)) throw e;
      reason = e.message;
      reserve0 = 0n;
      reserve1 = 0n;
      fees01 = fees10 = null;
    }
    this.notQuotable = reason;
    this.reserve0 = reserve0;
    this.reserve1 = reserve1;
    this.fees01 = fees01;
    this.fees10 = fees10;
    this.r0 = Number(reserve0);
    this.r1 = Number(reserve1);
    this.side01 = CpmmPool.side(this.r0, this.r1, fees01, this.transferFee0, this.transferFee1);
    this.side10 = CpmmPool.side(this.r1, this.r0, fees10, this.transferFee1, this.transferFee0);
  }

  private static side(x: number, y: number, fees: CpmmFeeRates | null, tIn: EpochTransferFee | null, tOut: EpochTransferFee | null): Side {
    if (!fees || x <= 0 || y <= 0) return { x: 0, y: 0, inKeep: 0, outKeep: 0, kIn: 0, kOut: 0 };
    const den = Number(FEE_RATE_DENOMINATOR);
    const trade = Number(fees.tradeFeeRate);
    const creator = Number(fees.creatorFeeRate);
    const inKeep = fees.creatorFeeOnInput ? 1 - (trade + creator) / den : 1 - trade / den;
    const outKeep = fees.creatorFeeOnInput ? 1 : 1 - creator / den;
    return { x, y, inKeep, outKeep, kIn: inKeep * transferKeep(tIn), kOut: outKeep * transferKeep(tOut) };
  }

  private direction(inputMint: string): boolean {
    if (inputMint === this.mintA) return true;
    if (inputMint === this.mintB) return false;
    throw new Error(`mint ${inputMint} is not in pool ${this.address}`);
  }

  private prepare(inputMint: string): { fees: CpmmFeeRates; rIn: bigint; rOut: bigint } {
    const zeroForOne = this.direction(inputMint);
    const fees = zeroForOne ? this.fees01 : this.fees10;
    if (this.notQuotable !== null || fees === null) {
      throw new PoolQuoteError('not-quotable', `pool ${this.address}: ${this.notQuotable}`);
    }
    return zeroForOne
      ? { fees, rIn: this.reserve0, rOut: this.reserve1 }
      : { fees, rIn: this.reserve1, rOut: this.reserve0 };
  }

  /** the exact swap result in this pool's current state */
  swap(inputMint: string, mode: 'ExactIn' | 'ExactOut', amount: bigint): CpmmSwapResult {
    const { fees, rIn, rOut } = this.prepare(inputMint);
    return mode === 'ExactIn'
      ? cpmmSwapBaseInput(amount, rIn, rOut, fees)
      : cpmmSwapBaseOutput(amount, rIn, rOut, fees);
  }

  private static hop(r: CpmmSwapResult, fees: CpmmFeeRates): HopQuote {
    let feeAmount = r.tradeFee;
    if (fees.creatorFeeOnInput) {
      feeAmount += r.creatorFee;
    } else if (r.creatorFee > 0n) {
      // creator fee taken from the output: expressed in input units at the swap's own rate
      feeAmount += (r.creatorFee * r.amountIn) / (r.amountOut + r.creatorFee);
    }
    return { amountIn: r.amountIn, amountOut: r.amountOut, feeAmount };
  }

  /** transfer fees of the input and of the output mint for a swap from `inputMint` (no array: these run per hop quote) */
  private feeIn(inputMint: string): EpochTransferFee | null {
    return this.direction(inputMint) ? this.transferFee0 : this.transferFee1;
  }

  private feeOut(inputMint: string): EpochTransferFee | null {
    return this.direction(inputMint) ? this.transferFee1 : this.transferFee0;
  }

  quoteExactIn(inputMint: string, amountIn: bigint): HopQuote {
    const { fees, rIn, rOut } = this.prepare(inputMint);
    return exactInWithTransferFees(amountIn, this.feeIn(inputMint), this.feeOut(inputMint), (net) => CpmmPool.hop(cpmmSwapBaseInput(net, rIn, rOut, fees), fees));
  }

  quoteExactOut(inputMint: string, amountOut: bigint): HopQuote {
    const { fees, rIn, rOut } = this.prepare(inputMint);
    return exactOutWithTransferFees(amountOut, this.feeIn(inputMint), this.feeOut(inputMint), (gross) => CpmmPool.hop(cpmmSwapBaseOutput(gross, rIn, rOut, fees), fees));
  }

  constantProductGuide(inputMint: string): ConstantProductGuide {
    return this.direction(inputMint) ? this.side01 : this.side10;
  }

  approxOut(inputMint: string, amountIn: number): number {
    const s = this.direction(inputMint) ? this.side01 : this.side10;
    if (s.x === 0 || !(amountIn > 0)) return 0;
    const net = amountIn * s.kIn;
    return ((net * s.y) / (s.x + net)) * s.kOut;
  }

  approxIn(inputMint: string, amountOut: number): number {
    const s = this.direction(inputMint) ? this.side01 : this.side10;
    if (s.x === 0) return Infinity;
    if (!(amountOut > 0)) return 0;
    const gross = amountOut / s.kOut;
    if (gross >= s.y) return Infinity;
    return (s.x * gross) / (s.y - gross) / s.kIn;
  }

  spotPrice(inputMint: string): number {
    const s = this.direction(inputMint) ? this.side01 : this.side10;
    return s.x === 0 ? 0 : s.y / s.x;
  }

  reserve(mint: string): number {
    if (mint === this.mintA) return this.r0;
    if (mint === this.mintB) return this.r1;
    throw new Error(`mint ${mint} is not in pool ${this.address}`);
  }
}
