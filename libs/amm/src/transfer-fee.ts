/**
 * Token-2022 transfer fees, as the token program computes them, and their effect on a hop.
 *
 * A mint with the TransferFeeConfig extension withholds a fee from every transfer: the recipient
 * gets `amount - fee(amount)`, fee(x) = min(ceil(x * bps / 10_000), maximumFee) (0 when bps or x
 * is 0). The fee in force is the newer one once its epoch is reached; the epoch of a slot is
 * slot / 432,000 (mainnet has no warm-up epochs).
 *
 * What the AMM programs do with it (Raydium CPMM / CLMM swap_v2, Orca swap_v2), and what
 * `applyTransferFees` models:
 *  - ExactIn: the user transfers `amountIn`; the pool receives and swaps amountIn - fee_in(amountIn);
 *    the pool transfers the swap's output and the user receives out - fee_out(out).
 *  - ExactOut: the swap must pay out amountOut + inverseFee_out(amountOut) so that the user receives
 *    amountOut; the user transfers swapIn + inverseFee_in(swapIn) so that the pool receives swapIn.
 * inverseFee(post) = fee(preFeeAmount(post)), preFeeAmount(post) = ceil(post * 10_000 / (10_000 - bps)),
 * or post + maximumFee when that is not above it (bps = 10_000: always the maximum fee).
 */
import { PoolQuoteError, type HopQuote } from './pool';
import { mintTransferFeeConfig, transferFeeForEpoch, type MintAccount } from '@app/solana';

export const SLOTS_PER_EPOCH = 432_000;
const ONE_IN_BPS = 10_000n;
const U64_MAX = 0xffffffffffffffffn;

/** One epoch's transfer fee of a mint (bps 0..10_000). */
export interface EpochTransferFee {
  bps: number;
  maximumFee: bigint;
}

/** The epoch of `slot` (432,000 slots per epoch). */
export function epochOfSlot(slot: number): bigint {
  return BigInt(Math.floor(slot / SLOTS_PER_EPOCH));
}

/**
 * The transfer fee of `mint` in force at `epoch`; null when the mint has no transfer-fee extension
 * or its fee at that epoch is zero (no effect on any amount). Throws AccountDecodeError for a
 * malformed extension.
 */
export function mintEpochTransferFee(mint: MintAccount, epoch: bigint, address?: string): EpochTransferFee | null {
  const cfg = mintTransferFeeConfig(mint, address);
  if (cfg === null) return null;
  const f = transferFeeForEpoch(cfg, epoch);
  if (f.transferFeeBasisPoints === 0 || f.maximumFee === 0n) return null;
  if (f.transferFeeBasisPoints > 10_000) throw new RangeError(`transfer fee ${f.transferFeeBasisPoints} bps is above 10000`);
  return { bps: f.transferFeeBasisPoints, maximumFee: f.maximumFee };
}

/** The fee withheld from a transfer of `amount` (calculate_fee). */
export function transferFee(f: EpochTransferFee | null | undefined, amount: bigint): bigint {
  if (!f || f.bps === 0 || amount === 0n) return 0n;
  const raw = (amount * BigInt(f.bps) + ONE_IN_BPS - 1n) / ONE_IN_BPS;
  return raw < f.maximumFee ? raw : f.maximumFee;
}

/** The fee to add to `postFeeAmount` so that the recipient gets it (calculate_inverse_fee). */
export function transferFeeInverse(f: EpochTransferFee | null | undefined, postFeeAmount: bigint): bigint {
  if (!f || f.bps === 0 || postFeeAmount === 0n) return 0n;
  if (f.bps === 10_000) return f.maximumFee;
  const den = ONE_IN_BPS - BigInt(f.bps);
  const rawPre = (postFeeAmount * ONE_IN_BPS + den - 1n) / den;
  const pre = rawPre - postFeeAmount >= f.maximumFee ? postFeeAmount + f.maximumFee : rawPre;
  return transferFee(f, pre);
}

/**
 * A hop in ExactIn mode with transfer fees on the input and / or output mint. `swap(net)` is the
 * pool's own ExactIn quote on what the pool receives. When the swap takes less than it was offered
 * (a program that debits only what it needs), the user pays what the pool takes plus the inverse
 * fee on it. Throws 'zero-output' when a fee leaves nothing.
 */
export function exactInWithTransferFees(
  amountIn: bigint,
  feeIn: EpochTransferFee | null,
  feeOut: EpochTransferFee | null,
  swap: (net: bigint) => HopQuote,
): HopQuote {
  if (feeIn === null && feeOut === null) return swap(amountIn);
  const inFee = transferFee(feeIn, amountIn);
  const net = amountIn - inFee;
  if (net <= 0n) throw new PoolQuoteError('zero-output', `the input mint's transfer fee takes all of ${amountIn}`);
  const q = swap(net);
  const paid = q.amountIn === net ? amountIn : q.amountIn + transferFeeInverse(feeIn, q.amountIn);
  const received = q.amountOut - transferFee(feeOut, q.amountOut);
  if (received <= 0n) throw new PoolQuoteError('zero-output', `the output mint's transfer fee takes all of ${q.amountOut}`);
  return { amountIn: paid, amountOut: received, feeAmount: q.feeAmount };
}

/**
 * A hop in ExactOut mode with transfer fees: the swap pays out amountOut grossed up by the output
 * mint's inverse fee; the user pays the swap's input grossed up by the input mint's inverse fee.
 * amountOut of the result is what the user actually receives after the output transfer.
 */
export function exactOutWithTransferFees(
  amountOut: bigint,
  feeIn: EpochTransferFee | null,
  feeOut: EpochTransferFee | null,
  swap: (gross: bigint) => HopQuote,
): HopQuote {
  if (feeIn === null && feeOut === null) return swap(amountOut);
  if (amountOut <= 0n) return swap(amountOut);
  const gross = amountOut + transferFeeInverse(feeOut, amountOut);
  if (gross > U64_MAX) throw new PoolQuoteError('insufficient-liquidity', `output ${amountOut} plus its transfer fee exceeds u64`);
  const q = swap(gross);
  const received = q.amountOut - transferFee(feeOut, q.amountOut);
  const paid = q.amountIn + transferFeeInverse(feeIn, q.amountIn);
  if (paid > U64_MAX) throw new PoolQuoteError('insufficient-liquidity', `input ${q.amountIn} plus its transfer fee exceeds u64`);
  return { amountIn: paid, amountOut: received, feeAmount: q.feeAmount };
}

/** Fraction of a transfer that arrives (float guide; ignores the maximum fee). */
export function transferKeep(f: EpochTransferFee | null | undefined): number {
  return f ? 1 - f.bps / 10_000 : 1;
}

/**
 * The Token-2022 transfer-fee layer of a pool whose two mints may carry the extension: the
 * public quotes are what the user pays and receives, around the program's own swap math
 * (`raw*`, the vault side). Pools extend it and implement the raw quotes.
 */
export abstract class TransferFeeQuoting {
  abstract readonly mintA: string;
  abstract readonly transferFeeA: EpochTransferFee | null;
  abstract readonly transferFeeB: EpochTransferFee | null;

  /** the swap itself: exact input into / output from the vaults */
  protected abstract rawExactIn(inputMint: string, amountIn: bigint): HopQuote;
  protected abstract rawExactOut(inputMint: string, amountOut: bigint): HopQuote;
  /** float guides of the swap itself */
  protected abstract rawApproxOut(inputMint: string, amountIn: number): number;
  protected abstract rawApproxIn(inputMint: string, amountOut: number): number;

  /** transfer fees of the input and of the output mint for a swap from `inputMint` (no array: these run per hop quote and per estimate) */
  private feeIn(inputMint: string): EpochTransferFee | null {
    return inputMint === this.mintA ? this.transferFeeA : this.transferFeeB;
  }

  private feeOut(inputMint: string): EpochTransferFee | null {
    return inputMint === this.mintA ? this.transferFeeB : this.transferFeeA;
  }

  /** exact, what the user pays and receives: Token-2022 transfer fees applied around the swap */
  quoteExactIn(inputMint: string, amountIn: bigint): HopQuote {
    const feeIn = this.feeIn(inputMint);
    const feeOut = this.feeOut(inputMint);
    // no fee on either mint: the swap itself (no closure per quote)
    if (feeIn === null && feeOut === null) return this.rawExactIn(inputMint, amountIn);
    return exactInWithTransferFees(amountIn, feeIn, feeOut, (net) => this.rawExactIn(inputMint, net));
  }

  /** exact, what the user pays and receives: Token-2022 transfer fees applied around the swap */
  quoteExactOut(inputMint: string, amountOut: bigint): HopQuote {
    const feeIn = this.feeIn(inputMint);
    const feeOut = this.feeOut(inputMint);
    if (feeIn === null && feeOut === null) return this.rawExactOut(inputMint, amountOut);
    return exactOutWithTransferFees(amountOut, feeIn, feeOut, (gross) => this.rawExactOut(inputMint, gross));
  }

  approxOut(inputMint: string, amountIn: number): number {
    // no fee on either mint: the swap's own guide (the route search calls this per edge per step)
    if (this.transferFeeA === null && this.transferFeeB === null) return this.rawApproxOut(inputMint, amountIn);
    return this.rawApproxOut(inputMint, amountIn * transferKeep(this.feeIn(inputMint))) * transferKeep(this.feeOut(inputMint));
  }

  approxIn(inputMint: string, amountOut: number): number {
    if (this.transferFeeA === null && this.transferFeeB === null) return this.rawApproxIn(inputMint, amountOut);
    return this.rawApproxIn(inputMint, amountOut / transferKeep(this.feeOut(inputMint))) / transferKeep(this.feeIn(inputMint));
  }
}
