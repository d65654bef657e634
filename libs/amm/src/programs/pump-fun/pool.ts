import { PoolQuoteError, type HopQuote, type Pool, type PoolKind } from '../../pool';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { DEFAULT_PUBKEY, pumpFeeConfigAddress, pumpGlobalAddress, type PumpBondingCurve, type PumpFeeConfig, type PumpGlobal } from '@app/solana';
import {
  BPS,
  pumpFunBuyExactSolIn,
  pumpFunBuyExactTokens,
  pumpFunFeeBps,
  pumpFunSellExactTokens,
  pumpFunSellForSol,
  type PumpFunBuy,
  type PumpFunFeeBps,
  type PumpFunSell,
} from './math';

let sharedDeps: string[] | undefined;
/**
 * Accounts a pump.fun curve's quotes depend on besides the curve itself: the Global account and
 * pump.fun's FeeConfig (pump fees program). The token mint matters only for its supply, which the
 * curve carries as tokenTotalSupply.
 */
export function pumpFunDependencies(): string[] {
  return (sharedDeps ??= [pumpGlobalAddress(), pumpFeeConfigAddress(PROGRAM_IDS.pumpFun)]).slice();
}

export interface PumpFunCurveArgs {
  /** the bonding curve account (PDA ["bonding-curve", mint]) */
  address: string;
  /** the token mint (the curve account does not store it) */
  mint: string;
  curve: PumpBondingCurve;
  global: PumpGlobal;
  /** pump.fun's FeeConfig; null prices with Global's flat fees */
  feeConfig: PumpFeeConfig | null;
  slot: number;
  /** the mint's supply for the market-cap fee tier; defaults to curve.tokenTotalSupply */
  mintSupply?: bigint;
}

/**
 * A pump.fun bonding curve (SOL-quoted). mintA = the token, mintB = wrapped SOL.
 * - SOL in, ExactIn: buy_exact_sol_in; the quote's amountIn is what the program actually debits
 *   (the cost of the tokens bought plus fees), which can be a little below the budget given.
 * - token out, ExactOut: buy of exactly that many tokens.
 * - token in, ExactIn: sell.
 * - SOL out, ExactOut: the program has no exact-output sell; the quote is the sell of the fewest
 *   tokens that pay at least the SOL asked, and its amountOut is what that sell pays (>= asked).
 * feeAmount is in input-token units (for sells the SOL fee is converted at the trade's own rate).
 */
export class PumpFunCurve implements Pool {
  readonly kind: PoolKind = 'bonding-curve';
  readonly label = 'pump.fun';
  readonly programId: string = PROGRAM_IDS.pumpFun;
  readonly address: string;
  readonly mintA: string;
  readonly mintB: string = MINTS.SOL;
  readonly feeBps: number;
  readonly slot: number;
  readonly curve: PumpBondingCurve;
  readonly global: PumpGlobal;
  readonly feeConfig: PumpFeeConfig | null;
  /** the fee rates in force for the next trade (null when not quotable) */
  readonly fees: PumpFunFeeBps | null;
  /** why the curve cannot be quoted at all, or null */
  readonly notQuotable: string | null;

  private readonly vT: number;
  private readonly vQ: number;
  private readonly realT: number;
  private readonly realQ: number;
  private readonly feeFrac: number;

  constructor(args: PumpFunCurveArgs) {
    const { curve } = args;
    this.address = args.address;
    this.mintA = args.mint;
    this.curve = curve;
    this.global = args.global;
    this.feeConfig = args.feeConfig;
    this.slot = args.slot;
    let reason: string | null = null;
    let fees: PumpFunFeeBps | null = null;
    if (curve.complete) {
      reason = 'the bonding curve is complete: it no longer trades (its token moved to PumpSwap)';
    } else if (curve.quoteMint !== DEFAULT_PUBKEY && curve.quoteMint !== MINTS.SOL) {
      reason = `quote mint ${curve.quoteMint} is not SOL (only SOL-quoted curves are supported)`;
    } else {
      try {
        fees = pumpFunFeeBps(args.global, args.feeConfig, curve, args.mintSupply);
      } catch (e) {
        if (!(e instanceof PoolQuoteError)) throw e;
        reason = e.message;
      }
    }
    this.notQuotable = reason;
    this.fees = fees;
    this.feeBps = fees ? Number(fees.protocolFeeBps + fees.creatorFeeBps) : 0;
    this.feeFrac = this.feeBps / Number(BPS);
    const live = reason === null;
    this.vT = live ? Number(curve.virtualTokenReserves) : 0;
    this.vQ = live ? Number(curve.virtualQuoteReserves) : 0;
    this.realT = live ? Number(curve.realTokenReserves) : 0;
    this.realQ = live ? Number(curve.realQuoteReserves) : 0;
  }

  /** true when SOL is the input (a buy) */
  private isBuy(inputMint: string): boolean {
    if (inputMint === this.mintB) return true;
    if (inputMint === this.mintA) return false;
    throw new Error(`mint ${inputMint} is not in pool ${this.address}`);
  }

  private liveFees(): PumpFunFeeBps {
    if (this.notQuotable !== null || this.fees === null) {
      throw new PoolQuoteError('not-quotable', `pump.fun curve ${this.address}: ${this.notQuotable}`);
    }
    return this.fees;
  }

  private static buyHop(b: PumpFunBuy): HopQuote {
    return { amountIn: b.totalSol, amountOut: b.tokensOut, feeAmount: b.protocolFee + b.creatorFee };
  }

  private static sellHop(s: PumpFunSell): HopQuote {
    const feeSol = s.protocolFee + s.creatorFee;
    return { amountIn: s.tokensIn, amountOut: s.netSol, feeAmount: s.solOut === 0n ? 0n : (feeSol * s.tokensIn) / s.solOut };
  }

  /** the exact buy / sell the program performs for this quote */
  trade(inputMint: string, mode: 'ExactIn' | 'ExactOut', amount: bigint): PumpFunBuy | PumpFunSell {
    const buy = this.isBuy(inputMint);
    const fees = this.liveFees();
    if (buy) return mode === 'ExactIn' ? pumpFunBuyExactSolIn(this.curve, fees, amount) : pumpFunBuyExactTokens(this.curve, fees, amount);
    return mode === 'ExactIn' ? pumpFunSellExactTokens(this.curve, fees, amount) : pumpFunSellForSol(this.curve, fees, amount);
  }

  quoteExactIn(inputMint: string, amountIn: bigint): HopQuote {
    const t = this.trade(inputMint, 'ExactIn', amountIn);
    return 'tokensOut' in t ? PumpFunCurve.buyHop(t) : PumpFunCurve.sellHop(t);
  }

  quoteExactOut(inputMint: string, amountOut: bigint): HopQuote {
    const t = this.trade(inputMint, 'ExactOut', amountOut);
    return 'tokensOut' in t ? PumpFunCurve.buyHop(t) : PumpFunCurve.sellHop(t);
  }

  approxOut(inputMint: string, amountIn: number): number {
    const buy = this.isBuy(inputMint);
    if (this.vT === 0 || !(amountIn > 0)) return 0;
    if (buy) {
      const net = amountIn / (1 + this.feeFrac);
      return Math.min((this.vT * net) / (this.vQ + net), this.realT);
    }
    const gross = (this.vQ * amountIn) / (this.vT + amountIn);
    return Math.min(gross, this.realQ) * (1 - this.feeFrac);
  }

  approxIn(inputMint: string, amountOut: number): number {
    const buy = this.isBuy(inputMint);
    if (this.vT === 0) return Infinity;
    if (!(amountOut > 0)) return 0;
    if (buy) {
      if (amountOut > this.realT || amountOut >= this.vT) return Infinity;
      return ((this.vQ * amountOut) / (this.vT - amountOut)) * (1 + this.feeFrac);
    }
    const gross = amountOut / (1 - this.feeFrac);
    if (gross > this.realQ || gross >= this.vQ) return Infinity;
    return (this.vT * gross) / (this.vQ - gross);
  }

  spotPrice(inputMint: string): number {
    const buy = this.isBuy(inputMint);
    if (this.vT === 0 || this.vQ === 0) return 0;
    return buy ? this.vT / this.vQ : this.vQ / this.vT;
  }

  /**
   * The curve's REAL reserve of `mint` in smallest units: tokens still for sale, lamports the
   * curve holds (what can actually leave it). Prices use the virtual reserves. 0 when not quotable.
   */
  reserve(mint: string): number {
    if (mint === this.mintA) return this.realT;
    if (mint === this.mintB) return this.realQ;
    throw new Error(`mint ${mint} is not in pool ${this.address}`);
  }
}
