import { PoolQuoteError, type HopQuote, type Pool, type PoolKind } from '../../pool';
import { PROGRAM_IDS } from '@app/solana';
import type { AmmV4Info } from '@app/solana';
import { ammV4CheckFees, ammV4NotSwappable, ammV4Reserves, ammV4SwapBaseIn, ammV4SwapBaseOut, type AmmV4SwapResult } from './math';

/** Accounts an AMM v4 pool's quotes depend on besides the AmmInfo itself: both vaults and both mints. */
export function ammV4Dependencies(amm: AmmV4Info): string[] {
  return [amm.coinVault, amm.pcVault, amm.coinVaultMint, amm.pcVaultMint];
}

export interface AmmV4PoolArgs {
  address: string;
  info: AmmV4Info;
  coinVaultAmount: bigint;
  pcVaultAmount: bigint;
  slot: number;
  /** unix seconds the quote is for; when given, a WaitingTrade pool before its open time is not quotable */
  unixTimestamp?: number;
}

/**
 * A Raydium AMM v4 pool (constant product, fee on the input from the pool's own swap fee
 * fraction). mintA = coin (base), mintB = pc (quote).
 */
export class AmmV4Pool implements Pool {
  readonly kind: PoolKind = 'constant-product';
  readonly label = 'Raydium AMM v4';
  readonly programId: string = PROGRAM_IDS.raydiumAmmV4;
  readonly address: string;
  readonly mintA: string;
  readonly mintB: string;
  readonly feeBps: number;
  readonly slot: number;
  readonly info: AmmV4Info;
  readonly coinVaultAmount: bigint;
  readonly pcVaultAmount: bigint;
  /** swap reserves: vault balances minus the pnl owed (0n when not quotable) */
  readonly coinReserve: bigint;
  readonly pcReserve: bigint;
  /** why the pool cannot be quoted at all, or null */
  readonly notQuotable: string | null;

  private readonly keep: number;
  /** float reserves as a swap from coin / from pc sees them (x: in, y: out), built once per pool state */
  private readonly fromCoin: { x: number; y: number };
  private readonly fromPc: { x: number; y: number };

  constructor(args: AmmV4PoolArgs) {
    const { info } = args;
    this.address = args.address;
    this.info = info;
    this.slot = args.slot;
    this.coinVaultAmount = args.coinVaultAmount;
    this.pcVaultAmount = args.pcVaultAmount;
    this.mintA = info.coinVaultMint;
    this.mintB = info.pcVaultMint;
    const den = info.fees.swapFeeDenominator;
    this.feeBps = den === 0n ? 0 : (Number(info.fees.swapFeeNumerator) * 10_000) / Number(den);

    let reason: string | null = ammV4NotSwappable(info, args.unixTimestamp);
    let coin = 0n;
    let pc = 0n;
    if (reason === null) {
      try {
        ammV4CheckFees(info.fees);
        ({ coin, pc } = ammV4Reserves(info, args.coinVaultAmount, args.pcVaultAmount));
      } catch (e) {
        if (!(e instanceof PoolQuoteError)) throw e;
        reason = e.message;
        coin = pc = 0n;
      }
    }
    this.notQuotable = reason;
    this.coinReserve = coin;
    this.pcReserve = pc;
    this.fromCoin = { x: Number(coin), y: Number(pc) };
    this.fromPc = { x: this.fromCoin.y, y: this.fromCoin.x };
    this.keep = reason === null ? 1 - Number(info.fees.swapFeeNumerator) / Number(den) : 0;
  }

  private coinIn(inputMint: string): boolean {
    if (inputMint === this.mintA) return true;
    if (inputMint === this.mintB) return false;
    throw new Error(`mint ${inputMint} is not in pool ${this.address}`);
  }

  private sides(inputMint: string): { rIn: bigint; rOut: bigint } {
    const coinIn = this.coinIn(inputMint);
    if (this.notQuotable !== null) throw new PoolQuoteError('not-quotable', `pool ${this.address}: ${this.notQuotable}`);
    return coinIn ? { rIn: this.coinReserve, rOut: this.pcReserve } : { rIn: this.pcReserve, rOut: this.coinReserve };
  }

  /** the exact swap result in this pool's current state */
  swap(inputMint: string, mode: 'ExactIn' | 'ExactOut', amount: bigint): AmmV4SwapResult {
    const { rIn, rOut } = this.sides(inputMint);
    return mode === 'ExactIn'
      ? ammV4SwapBaseIn(amount, rIn, rOut, this.info.fees)
      : ammV4SwapBaseOut(amount, rIn, rOut, this.info.fees);
  }

  quoteExactIn(inputMint: string, amountIn: bigint): HopQuote {
    const r = this.swap(inputMint, 'ExactIn', amountIn);
    return { amountIn: r.amountIn, amountOut: r.amountOut, feeAmount: r.fee };
  }

  quoteExactOut(inputMint: string, amountOut: bigint): HopQuote {
    const r = this.swap(inputMint, 'ExactOut', amountOut);
    return { amountIn: r.amountIn, amountOut: r.amountOut, feeAmount: r.fee };
  }

  /** the float reserves in and out of a swap from `inputMint` (no allocation: this runs per path estimate) */
  private side(inputMint: string): { x: number; y: number } {
    return this.coinIn(inputMint) ? this.fromCoin : this.fromPc;
  }

  approxOut(inputMint: string, amountIn: number): number {
    const { x, y } = this.side(inputMint);
    if (x <= 0 || y <= 0 || !(amountIn > 0)) return 0;
    const net = amountIn * this.keep;
    return (y * net) / (x + net);
  }

  approxIn(inputMint: string, amountOut: number): number {
    const { x, y } = this.side(inputMint);
    if (x <= 0 || y <= 0) return Infinity;
    if (!(amountOut > 0)) return 0;
    if (amountOut >= y) return Infinity;
    return (x * amountOut) / (y - amountOut) / this.keep;
  }

  spotPrice(inputMint: string): number {
    const { x, y } = this.side(inputMint);
    return x <= 0 ? 0 : y / x;
  }

  /** the swap reserve of `mint` (vault balance minus pnl owed), smallest units; 0 when not quotable */
  reserve(mint: string): number {
    if (mint === this.mintA) return this.fromCoin.x;
    if (mint === this.mintB) return this.fromCoin.y;
    throw new Error(`mint ${mint} is not in pool ${this.address}`);
  }
}
