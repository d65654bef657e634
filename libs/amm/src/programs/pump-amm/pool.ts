import { PoolQuoteError, type HopQuote, type Pool, type PoolKind } from '../../pool';
import { PROGRAM_IDS } from '@app/solana';
import { type EpochTransferFee, TransferFeeQuoting } from '../../transfer-fee';
import { pumpFeeConfigAddress, type PumpFeeConfig } from '@app/solana';
import {
  PUMP_AMM_DISABLE_BIT,
  isCanonicalPumpPool,
  pumpAmmGlobalConfigAddress,
  type PumpAmmGlobalConfig,
  type PumpAmmPoolState,
} from '@app/solana';
import { BPS } from '../pump-fun/math';
import {
  pumpAmmBuyExactBase,
  pumpAmmBuyExactQuoteIn,
  pumpAmmFeeBps,
  pumpAmmSellExactBase,
  pumpAmmSellForQuote,
  type PumpAmmBuy,
  type PumpAmmFeeBps,
  type PumpAmmSell,
} from './math';

/**
 * Accounts a PumpSwap pool's quotes depend on besides the pool itself: GlobalConfig, PumpSwap's
 * FeeConfig (pump fees program), both pool token accounts and the base mint (its supply picks
 * the fee tier).
 */
export function pumpAmmDependencies(pool: PumpAmmPoolState): string[] {
  return [
    pumpAmmGlobalConfigAddress(),
    pumpFeeConfigAddress(PROGRAM_IDS.pumpSwapAmm),
    pool.poolBaseTokenAccount,
    pool.poolQuoteTokenAccount,
    pool.baseMint,
  ];
}

export interface PumpAmmPoolArgs {
  address: string;
  pool: PumpAmmPoolState;
  globalConfig: PumpAmmGlobalConfig;
  /** PumpSwap's FeeConfig; null prices with GlobalConfig's rates */
  feeConfig: PumpFeeConfig | null;
  baseVaultAmount: bigint;
  quoteVaultAmount: bigint;
  /** the base mint's supply (market-cap tier) */
  baseMintSupply: bigint;
  slot: number;
  /** precomputed isCanonicalPumpPool(pool) (a PDA search); computed when omitted */
  canonical?: boolean;
  /** Token-2022 transfer fee in force of mintA / mintB (null or absent: none) */
  transferFeeA?: EpochTransferFee | null;
  transferFeeB?: EpochTransferFee | null;
}

/**
 * A PumpSwap pool (constant product, fees on the quote side). mintA = base, mintB = quote.
 * - quote in, ExactIn: buy_exact_quote_in; amountIn is what the program debits (<= the budget).
 * - base out, ExactOut: buy of exactly that base.
 * - base in, ExactIn: sell.
 * - quote out, ExactOut: no exact-output sell exists; the sell of the fewest base paying at least
 *   the quote asked, amountOut = what it pays (>= asked).
 * feeAmount is in input-token units (for sells the quote fee is converted at the trade's rate).
 */
export class PumpAmmPool extends TransferFeeQuoting implements Pool {
  readonly kind: PoolKind = 'constant-product';
  readonly label = 'PumpSwap';
  readonly programId: string = PROGRAM_IDS.pumpSwapAmm;
  readonly address: string;
  readonly mintA: string;
  readonly mintB: string;
  readonly feeBps: number;
  readonly slot: number;
  readonly pool: PumpAmmPoolState;
  readonly globalConfig: PumpAmmGlobalConfig;
  readonly feeConfig: PumpFeeConfig | null;
  readonly baseReserve: bigint;
  readonly quoteReserve: bigint;
  readonly fees: PumpAmmFeeBps | null;
  /** why the pool cannot be quoted at all, or null */
  readonly transferFeeA: EpochTransferFee | null;
  readonly transferFeeB: EpochTransferFee | null;
  readonly notQuotable: string | null;

  private readonly b: number;
  private readonly q: number;
  private readonly feeFrac: number;

  constructor(args: PumpAmmPoolArgs) {
    super();
    const { pool } = args;
    this.transferFeeA = args.transferFeeA ?? null;
    this.transferFeeB = args.transferFeeB ?? null;
    this.address = args.address;
    this.pool = pool;
    this.globalConfig = args.globalConfig;
    this.feeConfig = args.feeConfig;
    this.slot = args.slot;
    this.mintA = pool.baseMint;
    this.mintB = pool.quoteMint;
    this.baseReserve = args.baseVaultAmount;
    this.quoteReserve = args.quoteVaultAmount;
    let reason: string | null = null;
    let fees: PumpAmmFeeBps | null = null;
    try {
      fees = pumpAmmFeeBps({
        globalConfig: args.globalConfig,
        feeConfig: args.feeConfig,
        pool,
        canonical: args.canonical ?? isCanonicalPumpPool(pool),
        baseMintSupply: args.baseMintSupply,
        baseReserve: args.baseVaultAmount,
        quoteReserve: args.quoteVaultAmount,
      });
    } catch (e) {
      if (!(e instanceof PoolQuoteError)) throw e;
      reason = e.message;
    }
    this.notQuotable = reason;
    this.fees = fees;
    this.feeBps = fees ? Number(fees.lpFeeBps + fees.protocolFeeBps + fees.creatorFeeBps) : 0;
    this.feeFrac = this.feeBps / Number(BPS);
    this.b = reason === null ? Number(args.baseVaultAmount) : 0;
    this.q = reason === null ? Number(args.quoteVaultAmount) : 0;
  }

  /** true when the quote token is the input (a buy) */
  private isBuy(inputMint: string): boolean {
    if (inputMint === this.mintB) return true;
    if (inputMint === this.mintA) return false;
    throw new Error(`mint ${inputMint} is not in pool ${this.address}`);
  }

  private liveFees(buy: boolean): PumpAmmFeeBps {
    if (this.notQuotable !== null || this.fees === null) {
      throw new PoolQuoteError('not-quotable', `PumpSwap pool ${this.address}: ${this.notQuotable}`);
    }
    const bit = buy ? PUMP_AMM_DISABLE_BIT.buy : PUMP_AMM_DISABLE_BIT.sell;
    if ((this.globalConfig.disableFlags & bit) !== 0) {
      throw new PoolQuoteError('not-quotable', `PumpSwap ${buy ? 'buys' : 'sells'} are disabled (GlobalConfig.disableFlags)`);
    }
    return this.fees;
  }

  /** the exact buy / sell the program performs for this quote */
  trade(inputMint: string, mode: 'ExactIn' | 'ExactOut', amount: bigint): PumpAmmBuy | PumpAmmSell {
    const buy = this.isBuy(inputMint);
    const f = this.liveFees(buy);
    const [bR, qR] = [this.baseReserve, this.quoteReserve];
    if (buy) return mode === 'ExactIn' ? pumpAmmBuyExactQuoteIn(bR, qR, f, amount) : pumpAmmBuyExactBase(bR, qR, f, amount);
    return mode === 'ExactIn' ? pumpAmmSellExactBase(bR, qR, f, amount) : pumpAmmSellForQuote(bR, qR, f, amount);
  }

  private static hop(t: PumpAmmBuy | PumpAmmSell): HopQuote {
    const fee = t.lpFee + t.protocolFee + t.creatorFee;
    if ('baseOut' in t) return { amountIn: t.totalQuote, amountOut: t.baseOut, feeAmount: fee };
    return { amountIn: t.baseIn, amountOut: t.netQuote, feeAmount: t.quoteOut === 0n ? 0n : (fee * t.baseIn) / t.quoteOut };
  }

  protected rawExactIn(inputMint: string, amountIn: bigint): HopQuote {
    return PumpAmmPool.hop(this.trade(inputMint, 'ExactIn', amountIn));
  }

  protected rawExactOut(inputMint: string, amountOut: bigint): HopQuote {
    return PumpAmmPool.hop(this.trade(inputMint, 'ExactOut', amountOut));
  }

  protected rawApproxOut(inputMint: string, amountIn: number): number {
    const buy = this.isBuy(inputMint);
    if (this.b <= 0 || this.q <= 0 || !(amountIn > 0)) return 0;
    if (buy) {
      const net = amountIn / (1 + this.feeFrac);
      return (this.b * net) / (this.q + net);
    }
    return ((this.q * amountIn) / (this.b + amountIn)) * (1 - this.feeFrac);
  }

  protected rawApproxIn(inputMint: string, amountOut: number): number {
    const buy = this.isBuy(inputMint);
    if (this.b <= 0 || this.q <= 0) return Infinity;
    if (!(amountOut > 0)) return 0;
    if (buy) {
      if (amountOut >= this.b) return Infinity;
      return ((this.q * amountOut) / (this.b - amountOut)) * (1 + this.feeFrac);
    }
    const gross = amountOut / (1 - this.feeFrac);
    if (gross >= this.q) return Infinity;
    return (this.b * gross) / (this.q - gross);
  }

  spotPrice(inputMint: string): number {
    const buy = this.isBuy(inputMint);
    if (this.b <= 0 || this.q <= 0) return 0;
    return buy ? this.b / this.q : this.q / this.b;
  }

  /** the pool token account balance of `mint` (the swap reserve), smallest units; 0 when not quotable */
  reserve(mint: string): number {
    if (mint === this.mintA) return this.b;
    if (mint === this.mintB) return this.q;
    throw new Error(`mint ${mint} is not in pool ${this.address}`);
  }
}
