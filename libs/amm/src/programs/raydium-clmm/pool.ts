import { PoolQuoteError, type HopQuote, type Pool, type PoolKind } from '../../pool';
import { PROGRAM_IDS } from '@app/solana';
import { type EpochTransferFee, TransferFeeQuoting } from '../../transfer-fee';
import {
  CLMM_STATUS_BIT,
  clmmBitmapExtensionAddress,
  clmmDynamicFeeEnabled,
  clmmTickArrayAddress,
  type ClmmAmmConfig,
  type ClmmPoolState,
  type ClmmTickArrayBitmapExtension,
  type ClmmTickArrayState,
} from '@app/solana';
import { ClmmMathError, FEE_RATE_DENOMINATOR, MAX_FEE_RATE_NUMERATOR, getSqrtPriceAtTick } from './math';
import {
  ClmmTickArrayNotLoadedError,
  clmmSwap,
  dynamicFeeRate,
  type ClmmSwapPoolState,
  type ClmmSwapResult,
} from './swap';
import {
  type ClmmBitmaps,
  type ClmmSwapTickArray,
  firstInitializedTickArray,
  initializedTickArraysFrom,
  nextInitializedTickArrayStartIndex,
  prepareBitmaps,
  tickIsInitialized,
} from './tick-array';

/** Default number of initialized tick arrays to load on each side of the current price. */
export const CLMM_DEFAULT_ARRAYS_PER_SIDE = 3;

/**
 * Accounts a CLMM pool's quotes depend on besides the pool itself: its AmmConfig, the tick array
 * bitmap extension (only when tick spacing < 15: wider spacings are fully covered by the pool's
 * own bitmap), and the initialized tick arrays around the current tick, `arraysPerSide` in each
 * direction (the array holding the current tick counts when initialized). Arrays beyond the
 * pool's own bitmap are only listed when `extension` is given; call again once it is loaded.
 * Vaults are not needed: the CLMM math does not read vault balances.
 */
export function clmmDependencies(
  address: string,
  pool: ClmmPoolState,
  extension?: ClmmTickArrayBitmapExtension | null,
  arraysPerSide = CLMM_DEFAULT_ARRAYS_PER_SIDE,
): string[] {
  const out = [pool.ammConfig];
  if (pool.tickSpacing < 15) out.push(clmmBitmapExtensionAddress(address));
  for (const start of clmmTickArrayStartIndexes(pool, extension, arraysPerSide)) out.push(clmmTickArrayAddress(address, start));
  return out;
}

/** Start indexes of the initialized tick arrays clmmDependencies lists (down side first, then up). */
export function clmmTickArrayStartIndexes(
  pool: ClmmPoolState,
  extension?: ClmmTickArrayBitmapExtension | null,
  arraysPerSide = CLMM_DEFAULT_ARRAYS_PER_SIDE,
): number[] {
  const bitmaps = prepareBitmaps(pool.tickSpacing, pool.tickArrayBitmap, extension ?? null);
  const down = initializedTickArraysFrom(bitmaps, pool.tickCurrent, true, arraysPerSide);
  const up = initializedTickArraysFrom(bitmaps, pool.tickCurrent, false, arraysPerSide);
  const seen = new Set<number>();
  const out: number[] = [];
  for (const s of [...down, ...up]) {
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  }
  return out;
}

export interface ClmmPoolArgs {
  address: string;
  state: ClmmPoolState;
  config: ClmmAmmConfig;
  /** the pool's TickArrayBitmapExtension; needed only when the swap leaves the pool bitmap's range */
  extension?: ClmmTickArrayBitmapExtension | null;
  /** the loaded tick arrays of this pool (any order) */
  tickArrays: ReadonlyArray<ClmmTickArrayState>;
  slot: number;
  /**
   * Optional block time (unix seconds) the quote is for. When given, a swap at or before the
   * pool's openTime is not quotable, and a dynamic-fee pool is quoted at that time. Without it a
   * dynamic-fee pool is quoted only when its result does not depend on the time.
   */
  unixTimestamp?: number;
  /** Token-2022 transfer fee in force of mintA / mintB (null or absent: none) */
  transferFeeA?: EpochTransferFee | null;
  transferFeeB?: EpochTransferFee | null;
}

/** Float guide of one direction: segments between initialized ticks in the loaded arrays. */
interface Side {
  /** sqrt price (float) at each segment boundary, starting with the current price */
  sqrt: number[];
  /** liquidity (float) of segment i, between sqrt[i] and sqrt[i + 1] */
  liq: number[];
  /** cumulative input (before fee) and gross output at each boundary */
  cumIn: number[];
  cumOut: number[];
  inKeep: number;
  outKeep: number;
}

const TWO64 = 2 ** 64;

/**
 * A Raydium CLMM pool built from its decoded accounts. Quotes run the program's swap loop over
 * the loaded tick arrays only; a swap that needs an array not loaded is 'not-quotable'.
 * Token-2022 transfer fees (transferFeeA / B) apply to quoteExactIn / quoteExactOut (transfer-fee.ts); `swap` is the vault side.
 *
 * reserve(mint) is the amount of `mint` the pool would pay out if the price moved to the end of
 * the loaded tick arrays (its tradable depth as loaded), not a vault balance.
 */
export class ClmmPool extends TransferFeeQuoting implements Pool {
  readonly kind: PoolKind = 'concentrated-liquidity';
  readonly label = 'Raydium CLMM';
  readonly programId: string = PROGRAM_IDS.raydiumClmm;
  readonly address: string;
  readonly mintA: string;
  readonly mintB: string;
  /** trade fee plus the dynamic fee at the pool's current volatility, rounded to 0.01 bp */
  readonly feeBps: number;
  readonly slot: number;
  readonly state: ClmmPoolState;
  readonly config: ClmmAmmConfig;
  readonly extension: ClmmTickArrayBitmapExtension | null;
  readonly unixTimestamp: number | undefined;
  /** why the pool cannot be quoted at all, or null */
  readonly transferFeeA: EpochTransferFee | null;
  readonly transferFeeB: EpochTransferFee | null;
  readonly notQuotable: string | null;

  private readonly swapState: ClmmSwapPoolState;
  private readonly bitmaps: ClmmBitmaps;
  private readonly arrays: Map<number, ClmmSwapTickArray>;
  private readonly side01: Side;
  private readonly side10: Side;
  private readonly price: number;

  constructor(args: ClmmPoolArgs) {
    super();
    const { state, config } = args;
    this.transferFeeA = args.transferFeeA ?? null;
    this.transferFeeB = args.transferFeeB ?? null;
    this.address = args.address;
    this.state = state;
    this.config = config;
    this.extension = args.extension ?? null;
    this.slot = args.slot;
    this.unixTimestamp = args.unixTimestamp;
    this.mintA = state.tokenMint0;
    this.mintB = state.tokenMint1;
    if (this.extension && this.extension.poolId !== args.address) {
      throw new Error(`bitmap extension belongs to pool ${this.extension.poolId}, not ${args.address}`);
    }
    this.arrays = new Map();
    for (const a of args.tickArrays) {
      if (a.poolId !== args.address) throw new Error(`tick array ${a.startTickIndex} belongs to pool ${a.poolId}, not ${args.address}`);
      this.arrays.set(a.startTickIndex, a);
    }
    const dynamic = clmmDynamicFeeEnabled(state.dynamicFeeInfo) ? state.dynamicFeeInfo : null;
    this.swapState = {
      tickSpacing: state.tickSpacing,
      liquidity: state.liquidity,
      sqrtPriceX64: state.sqrtPriceX64,
      tickCurrent: state.tickCurrent,
      feeOn: state.feeOn,
      tradeFeeRate: config.tradeFeeRate,
      protocolFeeRate: config.protocolFeeRate,
      fundFeeRate: config.fundFeeRate,
      dynamicFeeInfo: dynamic,
    };
    this.bitmaps = prepareBitmaps(state.tickSpacing, state.tickArrayBitmap, this.extension);

    let feeRate = BigInt(config.tradeFeeRate);
    if (dynamic) {
      try {
        feeRate += dynamicFeeRate(dynamic, BigInt(dynamic.volatilityAccumulator), state.tickSpacing);
      } catch {
        /* reported by the exact quote */
      }
      if (feeRate > MAX_FEE_RATE_NUMERATOR) feeRate = MAX_FEE_RATE_NUMERATOR;
    }
    this.feeBps = Math.round(Number(feeRate)) / 100;

    let reason: string | null = null;
    if ((state.status & CLMM_STATUS_BIT.swap) !== 0) reason = 'swaps are disabled on this pool (status bit 4)';
    else if (args.unixTimestamp !== undefined && BigInt(Math.floor(args.unixTimestamp)) <= state.openTime) {
      reason = `pool opens after ${state.openTime}`;
    } else if (state.tickSpacing === 0) reason = 'tick spacing is 0';
    this.notQuotable = reason;

    this.price = (Number(state.sqrtPriceX64) / TWO64) ** 2;
    const f = Number(feeRate) / Number(FEE_RATE_DENOMINATOR);
    this.side01 = reason ? ClmmPool.emptySide() : this.buildSide(true, f);
    this.side10 = reason ? ClmmPool.emptySide() : this.buildSide(false, f);
  }

  private static emptySide(): Side {
    return { sqrt: [], liq: [], cumIn: [0], cumOut: [0], inKeep: 0, outKeep: 0 };
  }

  /** Segments between the initialized ticks of the loaded arrays, in swap order (float guide). */
  private buildSide(zeroForOne: boolean, fee: number): Side {
    const s = this.state;
    const feeOnInput = s.feeOn === 1 ? zeroForOne : s.feeOn === 2 ? !zeroForOne : true;
    const side: Side = {
      sqrt: [Number(s.sqrtPriceX64) / TWO64],
      liq: [],
      cumIn: [0],
      cumOut: [0],
      inKeep: feeOnInput ? 1 - fee : 1,
      outKeep: feeOnInput ? 1 : 1 - fee,
    };
    let L = Number(s.liquidity);
    const push = (sqrtNext: number, liquidityNet: number | null): void => {
      const a = side.sqrt[side.sqrt.length - 1];
      const dIn = zeroForOne ? L * (1 / sqrtNext - 1 / a) : L * (sqrtNext - a);
      const dOut = zeroForOne ? L * (a - sqrtNext) : L * (1 / a - 1 / sqrtNext);
      side.liq.push(L);
      side.sqrt.push(sqrtNext);
      side.cumIn.push(side.cumIn[side.cumIn.length - 1] + Math.max(0, dIn));
      side.cumOut.push(side.cumOut[side.cumOut.length - 1] + Math.max(0, dOut));
      if (liquidityNet !== null) L = Math.max(0, L + (zeroForOne ? -liquidityNet : liquidityNet));
    };
    try {
      let [, start] = firstInitializedTickArray(this.bitmaps, s.tickCurrent, zeroForOne);
      for (let n = 0; n < 64; n++) {
        const arr = this.arrays.get(start);
        if (!arr) break;
        const ticks = zeroForOne ? [...arr.ticks].reverse() : arr.ticks;
        for (const t of ticks) {
          if (!tickIsInitialized(t) || t.liquidityGross === 0n) continue;
          if (zeroForOne ? t.tick > s.tickCurrent : t.tick <= s.tickCurrent) continue;
          const sq = Number(getSqrtPriceAtTick(t.tick)) / TWO64;
          const a = side.sqrt[side.sqrt.length - 1];
          if (zeroForOne ? sq > a : sq < a) continue;
          push(sq, Number(t.liquidityNet));
        }
        const next = nextInitializedTickArrayStartIndex(this.bitmaps, start, zeroForOne);
        if (next === null) break;
        start = next;
      }
    } catch (e) {
      if (!(e instanceof ClmmMathError)) throw e;
    }
    return side;
  }

  private direction(inputMint: string): boolean {
    if (inputMint === this.mintA) return true;
    if (inputMint === this.mintB) return false;
    throw new Error(`mint ${inputMint} is not in pool ${this.address}`);
  }

  /** The exact swap in this pool's current state (throws PoolQuoteError when it cannot be quoted). */
  swap(inputMint: string, mode: 'ExactIn' | 'ExactOut', amount: bigint): ClmmSwapResult {
    const zeroForOne = this.direction(inputMint);
    if (this.notQuotable !== null) throw new PoolQuoteError('not-quotable', `pool ${this.address}: ${this.notQuotable}`);
    if (amount <= 0n) throw new PoolQuoteError('zero-output', `pool ${this.address}: amount must be positive`);
    let r: ClmmSwapResult;
    try {
      r = clmmSwap(this.swapState, this.bitmaps, this.arrays, {
        zeroForOne,
        isBaseInput: mode === 'ExactIn',
        amount,
        unixTimestamp: this.unixTimestamp,
      });
    } catch (e) {
      throw this.toQuoteError(e);
    }
    if (!r.filled) {
      throw new PoolQuoteError('insufficient-liquidity', `pool ${this.address}: the price limit is reached before the amount is filled`);
    }
    if (r.amountIn === 0n || r.amountOut === 0n) {
      throw new PoolQuoteError('zero-output', `pool ${this.address}: the swap moves nothing on one side (TooSmallInputOrOutputAmount)`);
    }
    return r;
  }

  private toQuoteError(e: unknown): Error {
    if (e instanceof ClmmTickArrayNotLoadedError) {
      return new PoolQuoteError(
        'not-quotable',
        `pool ${this.address}: the swap reaches tick array ${e.startTickIndex} (${clmmTickArrayAddress(this.address, e.startTickIndex)}), which is not loaded`,
      );
    }
    if (e instanceof ClmmMathError) {
      switch (e.code) {
        case 'LiquidityInsufficient':
        case 'InsufficientLiquidityForDirection':
          return new PoolQuoteError('insufficient-liquidity', `pool ${this.address}: ${e.message}`);
        case 'MissingTickArrayBitmapExtensionAccount':
          return new PoolQuoteError('not-quotable', `pool ${this.address}: ${e.message}`);
        case 'NeedsClock':
          return new PoolQuoteError('not-quotable', `pool ${this.address}: ${e.message}`);
        default:
          return new PoolQuoteError('not-quotable', `pool ${this.address}: the program would fail: ${e.message}`);
      }
    }
    return e instanceof Error ? e : new Error(String(e));
  }

  private static hop(r: ClmmSwapResult): HopQuote {
    let feeAmount = r.tradeFee;
    if (!r.feeOnInput && r.tradeFee > 0n) {
      // fee taken from the output: expressed in input units at the swap's own rate
      feeAmount = (r.tradeFee * r.amountIn) / (r.amountOut + r.tradeFee);
    }
    return { amountIn: r.amountIn, amountOut: r.amountOut, feeAmount };
  }

  protected rawExactIn(inputMint: string, amountIn: bigint): HopQuote {
    return ClmmPool.hop(this.swap(inputMint, 'ExactIn', amountIn));
  }

  protected rawExactOut(inputMint: string, amountOut: bigint): HopQuote {
    return ClmmPool.hop(this.swap(inputMint, 'ExactOut', amountOut));
  }

  protected rawApproxOut(inputMint: string, amountIn: number): number {
    const zeroForOne = this.direction(inputMint);
    const s = zeroForOne ? this.side01 : this.side10;
    if (s.liq.length === 0 || !(amountIn > 0)) return 0;
    const net = amountIn * s.inKeep;
    const last = s.cumIn.length - 1;
    if (net >= s.cumIn[last]) return s.cumOut[last] * s.outKeep;
    // first boundary whose cumulative input exceeds net
    let lo = 0;
    let hi = last;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (s.cumIn[mid] <= net) lo = mid;
      else hi = mid;
    }
    const a = s.sqrt[lo];
    const L = s.liq[lo];
    const x = net - s.cumIn[lo];
    let out = 0;
    if (L > 0) {
      if (zeroForOne) {
        const b = 1 / (1 / a + x / L);
        out = L * (a - b);
      } else {
        const b = a + x / L;
        out = L * (1 / a - 1 / b);
      }
    }
    return Math.min(s.cumOut[lo] + Math.max(0, out), s.cumOut[hi]) * s.outKeep;
  }

  protected rawApproxIn(inputMint: string, amountOut: number): number {
    const zeroForOne = this.direction(inputMint);
    const s = zeroForOne ? this.side01 : this.side10;
    if (s.liq.length === 0) return Infinity;
    if (!(amountOut > 0)) return 0;
    const gross = amountOut / s.outKeep;
    const last = s.cumOut.length - 1;
    if (gross > s.cumOut[last]) return Infinity;
    let lo = 0;
    let hi = last;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (s.cumOut[mid] <= gross) lo = mid;
      else hi = mid;
    }
    const a = s.sqrt[lo];
    const L = s.liq[lo];
    const y = gross - s.cumOut[lo];
    let dIn = 0;
    if (y > 0) {
      if (!(L > 0)) return Infinity;
      if (zeroForOne) {
        const b = a - y / L;
        dIn = b > 0 ? L * (1 / b - 1 / a) : Infinity;
      } else {
        const inv = 1 / a - y / L;
        dIn = inv > 0 ? L * (1 / inv - a) : Infinity;
      }
    }
    return Math.min(s.cumIn[lo] + dIn, s.cumIn[hi]) / s.inKeep;
  }

  spotPrice(inputMint: string): number {
    const zeroForOne = this.direction(inputMint);
    if (this.notQuotable !== null || !(this.price > 0)) return 0;
    return zeroForOne ? this.price : 1 / this.price;
  }

  reserve(mint: string): number {
    if (mint === this.mintA) return this.side10.cumOut[this.side10.cumOut.length - 1];
    if (mint === this.mintB) return this.side01.cumOut[this.side01.cumOut.length - 1];
    throw new Error(`mint ${mint} is not in pool ${this.address}`);
  }
}
