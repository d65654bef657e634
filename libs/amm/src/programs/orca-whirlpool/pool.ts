import { PoolQuoteError, type HopQuote, type Pool, type PoolKind } from '../../pool';
import { PROGRAM_IDS } from '@app/solana';
import { type EpochTransferFee, TransferFeeQuoting } from '../../transfer-fee';
import {
  isAdaptiveFeeWhirlpool,
  whirlpoolOracleAddress,
  whirlpoolTickArrayAddress,
  type Whirlpool,
  type WhirlpoolOracle,
  type WhirlpoolTickArray,
} from '@app/solana';
import { MAX_TICK_INDEX, MIN_TICK_INDEX, TICK_ARRAY_SIZE, WhirlpoolMathError, sqrtPriceFromTickIndex } from './math';
import {
  buildSwapTickSequence,
  swapTickArrayStartIndexes,
  whirlpoolSwap,
  type AdaptiveFeeInfo,
  type SwapResult,
  type SwapTickArray,
} from './swap';

/**
 * Start indexes of every tick array a swap from the pool's current state may use, both
 * directions (a->b: the array holding the current tick and the two below; b->a: the array
 * holding it, or the next one when the tick is within one spacing of the end, and the two above).
 * Re-evaluate after every pool update: the set moves with the price.
 */
export function whirlpoolTickArrayStarts(whirlpool: Pick<Whirlpool, 'tickCurrentIndex' | 'tickSpacing'>): number[] {
  const a = swapTickArrayStartIndexes(whirlpool.tickCurrentIndex, whirlpool.tickSpacing, true);
  const b = swapTickArrayStartIndexes(whirlpool.tickCurrentIndex, whirlpool.tickSpacing, false);
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}

/**
 * Accounts a Whirlpool's quotes depend on besides the pool itself: the tick arrays (PDAs) of
 * both directions, the Oracle when the pool comes from an adaptive fee tier, and the two mints
 * (decimals, Token-2022 extensions). Vaults are not needed: the math runs on liquidity and price.
 */
export function whirlpoolDependencies(address: string, whirlpool: Whirlpool): string[] {
  const out = whirlpoolTickArrayStarts(whirlpool).map((s) => whirlpoolTickArrayAddress(address, s));
  if (isAdaptiveFeeWhirlpool(whirlpool)) out.push(whirlpoolOracleAddress(address));
  out.push(whirlpool.tokenMintA, whirlpool.tokenMintB);
  return out;
}

export interface WhirlpoolPoolArgs {
  address: string;
  whirlpool: Whirlpool;
  /** decoded tick arrays (fixed or dynamic) of this pool; others are ignored */
  tickArrays: ReadonlyArray<WhirlpoolTickArray>;
  /**
   * start indexes whose tick-array accounts are known not to exist on chain: the program treats
   * such an array as empty when its PDA is passed, so the swap can run through it
   */
  absentTickArrayStarts?: ReadonlyArray<number>;
  slot: number;
  /**
   * the pool's Oracle account: required for adaptive-fee pools (fee tier index != tick spacing);
   * `null` = known not to exist (the program then charges the static fee)
   */
  oracle?: WhirlpoolOracle | null;
  /** unix time (seconds) the quote is for; required when an oracle applies */
  unixTimestamp?: number;
  /** Token-2022 transfer fee in force of mintA / mintB (null or absent: none) */
  transferFeeA?: EpochTransferFee | null;
  transferFeeB?: EpochTransferFee | null;
}

/** One direction's liquidity walk, for the float guides: segments of constant liquidity. */
interface Walk {
  /** sqrt prices (real units, not Q64) at segment boundaries, length n+1 */
  sp: Float64Array;
  /** liquidity of segment i, length n */
  liq: Float64Array;
  /** cumulative input (before fee) and output at each boundary */
  cumIn: Float64Array;
  cumOut: Float64Array;
}

const Q64 = 2 ** 64;

/**
 * An Orca Whirlpool (concentrated liquidity). Exact quotes run the program's swap over the
 * tick arrays the program would use, built from the arrays given; a swap that needs an array
 * that was not given fails with 'insufficient-liquidity', as the transaction would fail.
 * Token-2022 transfer fees (transferFeeA / B) apply to quoteExactIn / quoteExactOut (transfer-fee.ts); `swap` is the vault side.
 */
export class WhirlpoolPool extends TransferFeeQuoting implements Pool {
  readonly kind: PoolKind = 'concentrated-liquidity';
  readonly label = 'Orca Whirlpool';
  readonly programId: string = PROGRAM_IDS.orcaWhirlpool;
  readonly address: string;
  readonly mintA: string;
  readonly mintB: string;
  /** the static fee rate in bps (an adaptive pool adds a volatility-dependent part on top) */
  readonly feeBps: number;
  readonly slot: number;
  readonly whirlpool: Whirlpool;
  /** why the pool cannot be quoted at all, or null */
  readonly transferFeeA: EpochTransferFee | null;
  readonly transferFeeB: EpochTransferFee | null;
  readonly notQuotable: string | null;

  private readonly byStart = new Map<number, SwapTickArray | null>();
  private readonly adaptive: AdaptiveFeeInfo | null;
  private readonly timestamp: bigint;
  private seqAB: SwapTickArray[] | WhirlpoolMathError | undefined;
  private seqBA: SwapTickArray[] | WhirlpoolMathError | undefined;
  private walkAB: Walk | undefined;
  private walkBA: Walk | undefined;
  private readonly price: number;

  constructor(args: WhirlpoolPoolArgs) {
    super();
    const w = args.whirlpool;
    this.transferFeeA = args.transferFeeA ?? null;
    this.transferFeeB = args.transferFeeB ?? null;
    this.address = args.address;
    this.whirlpool = w;
    this.slot = args.slot;
    this.mintA = w.tokenMintA;
    this.mintB = w.tokenMintB;
    this.feeBps = w.feeRate / 100;
    for (const ta of args.tickArrays) {
      if (ta.whirlpool === args.address) this.byStart.set(ta.startTickIndex, ta);
    }
    for (const s of args.absentTickArrayStarts ?? []) {
      if (!this.byStart.has(s)) this.byStart.set(s, null);
    }
    const sp = Number(w.sqrtPrice) / Q64;
    this.price = sp * sp;

    let reason: string | null = null;
    let adaptive: AdaptiveFeeInfo | null = null;
    const ts = args.unixTimestamp;
    if (w.liquidity === 0n && this.byStart.size === 0) reason = 'no liquidity and no tick arrays';
    if (args.oracle === undefined) {
      if (isAdaptiveFeeWhirlpool(w)) {
        reason = `adaptive-fee pool (fee tier index ${w.feeTierIndexSeed}, tick spacing ${w.tickSpacing}) needs its Oracle account and a timestamp`;
      }
    } else if (args.oracle !== null) {
      if (args.oracle.whirlpool !== args.address) {
        reason = `oracle belongs to ${args.oracle.whirlpool}, not ${args.address}`;
      } else if (ts === undefined) {
        reason = 'adaptive-fee pool needs a timestamp to quote';
      } else if (BigInt(Math.floor(ts)) < args.oracle.tradeEnableTimestamp) {
        reason = `trading opens at ${args.oracle.tradeEnableTimestamp}`;
      } else {
        adaptive = { constants: args.oracle.adaptiveFeeConstants, variables: args.oracle.adaptiveFeeVariables };
      }
    }
    if (reason === null && ts !== undefined && BigInt(Math.floor(ts)) < w.rewardLastUpdatedTimestamp) {
      reason = `timestamp ${ts} is before the pool's last update ${w.rewardLastUpdatedTimestamp}`;
    }
    this.notQuotable = reason;
    this.adaptive = adaptive;
    this.timestamp = ts === undefined ? w.rewardLastUpdatedTimestamp : BigInt(Math.floor(ts));
  }

  private direction(inputMint: string): boolean {
    if (inputMint === this.mintA) return true;
    if (inputMint === this.mintB) return false;
    throw new Error(`mint ${inputMint} is not in pool ${this.address}`);
  }

  private sequence(aToB: boolean): SwapTickArray[] | WhirlpoolMathError {
    const cached = aToB ? this.seqAB : this.seqBA;
    if (cached !== undefined) return cached;
    let seq: SwapTickArray[] | WhirlpoolMathError;
    try {
      seq = buildSwapTickSequence(this.whirlpool.tickCurrentIndex, this.whirlpool.tickSpacing, aToB, (s) => this.byStart.get(s));
    } catch (e) {
      if (!(e instanceof WhirlpoolMathError)) throw e;
      seq = e;
    }
    if (aToB) this.seqAB = seq;
    else this.seqBA = seq;
    return seq;
  }

  /**
   * The program's swap in this pool's state. `sqrtPriceLimit` 0n = none; `trackFeeGrowth`
   * false: amounts only, no fee growth (see SwapParams). Throws PoolQuoteError ('not-quotable'
   * for the pool as a whole, 'insufficient-liquidity' for program errors).
   */
  swap(inputMint: string, mode: 'ExactIn' | 'ExactOut', amount: bigint, sqrtPriceLimit = 0n, trackFeeGrowth = true): SwapResult {
    const aToB = this.direction(inputMint);
    if (this.notQuotable !== null) throw new PoolQuoteError('not-quotable', `pool ${this.address}: ${this.notQuotable}`);
    if (amount <= 0n) throw new PoolQuoteError('zero-output', `amount must be positive, got ${amount}`);
    const seq = this.sequence(aToB);
    try {
      if (seq instanceof WhirlpoolMathError) throw seq;
      return whirlpoolSwap(this.whirlpool, seq, {
        amount,
        sqrtPriceLimit,
        amountSpecifiedIsInput: mode === 'ExactIn',
        aToB,
        timestamp: this.timestamp,
        adaptiveFee: this.adaptive,
        trackFeeGrowth,
      });
    } catch (e) {
      if (!(e instanceof WhirlpoolMathError)) throw e;
      const why =
        e.code === 'TickArraySequenceInvalidIndex' || e.code === 'InvalidTickArraySequence'
          ? 'the swap runs past the tick arrays available'
          : e.code === 'PartialFillError'
            ? 'not enough liquidity for the exact output'
            : `the program fails with ${e.code}`;
      const reason = e.code === 'InvalidTimestamp' ? 'not-quotable' : 'insufficient-liquidity';
      throw new PoolQuoteError(reason, `pool ${this.address}: ${why}`);
    }
  }

  protected rawExactIn(inputMint: string, amountIn: bigint): HopQuote {
    const aToB = this.direction(inputMint);
    const r = this.swap(inputMint, 'ExactIn', amountIn, 0n, false);
    const paid = aToB ? r.amountA : r.amountB;
    const out = aToB ? r.amountB : r.amountA;
    if (paid !== amountIn) {
      throw new PoolQuoteError('insufficient-liquidity', `pool ${this.address}: only ${paid} of ${amountIn} can be swapped (price bound)`);
    }
    if (out === 0n) throw new PoolQuoteError('zero-output', `pool ${this.address}: ${amountIn} in gives nothing out`);
    return { amountIn: paid, amountOut: out, feeAmount: r.feeAmount };
  }

  protected rawExactOut(inputMint: string, amountOut: bigint): HopQuote {
    const aToB = this.direction(inputMint);
    const r = this.swap(inputMint, 'ExactOut', amountOut, 0n, false);
    const paid = aToB ? r.amountA : r.amountB;
    const out = aToB ? r.amountB : r.amountA;
    return { amountIn: paid, amountOut: out, feeAmount: r.feeAmount };
  }

  /** segments of constant liquidity along the tick arrays the swap can use, in float */
  private walk(aToB: boolean): Walk | null {
    const cached = aToB ? this.walkAB : this.walkBA;
    if (cached !== undefined) return cached;
    const seq = this.sequence(aToB);
    const w = this.whirlpool;
    const ts = w.tickSpacing;
    const sps: number[] = [Number(w.sqrtPrice) / Q64];
    const liqs: number[] = [];
    if (!(seq instanceof WhirlpoolMathError) && this.notQuotable === null) {
      let liq = w.liquidity;
      // walk initialized ticks in the swap direction within the sequence
      const ticks: [number, bigint][] = [];
      for (const ta of seq) {
        if (ta.ticks === null) continue;
        for (let i = 0; i < TICK_ARRAY_SIZE; i++) {
          const t = ta.ticks[i];
          if (t.initialized) ticks.push([ta.startTickIndex + i * ts, t.liquidityNet]);
        }
      }
      const last = seq[seq.length - 1];
      let end = aToB ? last.startTickIndex : last.startTickIndex + TICK_ARRAY_SIZE * ts - 1;
      end = Math.min(MAX_TICK_INDEX, Math.max(MIN_TICK_INDEX, end));
      if (aToB) {
        ticks.sort((x, y) => y[0] - x[0]);
        for (const [t, net] of ticks) {
          if (t > w.tickCurrentIndex || t < end) continue;
          liqs.push(Number(liq));
          sps.push(Number(sqrtPriceFromTickIndex(t)) / Q64);
          liq -= net;
        }
      } else {
        ticks.sort((x, y) => x[0] - y[0]);
        for (const [t, net] of ticks) {
          if (t <= w.tickCurrentIndex || t > end) continue;
          liqs.push(Number(liq));
          sps.push(Number(sqrtPriceFromTickIndex(t)) / Q64);
          liq += net;
        }
      }
      liqs.push(Number(liq));
      sps.push(Number(sqrtPriceFromTickIndex(end)) / Q64);
    }
    const n = liqs.length;
    const sp = Float64Array.from(sps);
    const liq = Float64Array.from(liqs);
    const cumIn = new Float64Array(n + 1);
    const cumOut = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) {
      const l = liq[i];
      const s0 = sp[i];
      const s1 = aToB ? Math.min(s0, sp[i + 1]) : Math.max(s0, sp[i + 1]);
      sp[i + 1] = s1;
      const dIn = aToB ? l * (1 / s1 - 1 / s0) : l * (s1 - s0);
      const dOut = aToB ? l * (s0 - s1) : l * (1 / s0 - 1 / s1);
      cumIn[i + 1] = cumIn[i] + (dIn > 0 ? dIn : 0);
      cumOut[i + 1] = cumOut[i] + (dOut > 0 ? dOut : 0);
    }
    const res: Walk = { sp, liq, cumIn, cumOut };
    if (aToB) this.walkAB = res;
    else this.walkBA = res;
    return res;
  }

  private feeKeep(): number {
    return 1 - this.whirlpool.feeRate / 1e6;
  }

  /** float guide; saturates at what the available tick arrays can pay out (monotone) */
  protected rawApproxOut(inputMint: string, amountIn: number): number {
    const aToB = this.direction(inputMint);
    const wk = this.walk(aToB);
    if (wk === null || !(amountIn > 0)) return 0;
    const net = amountIn * this.feeKeep();
    const { sp, liq, cumIn, cumOut } = wk;
    const n = liq.length;
    if (n === 0) return 0;
    if (net >= cumIn[n]) return cumOut[n];
    let i = 0;
    while (i < n - 1 && cumIn[i + 1] <= net) i++;
    const l = liq[i];
    if (!(l > 0)) return cumOut[i];
    const rem = net - cumIn[i];
    const s0 = sp[i];
    if (aToB) {
      const s1 = 1 / (1 / s0 + rem / l);
      return cumOut[i] + l * (s0 - s1);
    }
    const s1 = s0 + rem / l;
    return cumOut[i] + l * (1 / s0 - 1 / s1);
  }

  /** float guide; Infinity beyond what the available tick arrays can pay out */
  protected rawApproxIn(inputMint: string, amountOut: number): number {
    const aToB = this.direction(inputMint);
    const wk = this.walk(aToB);
    if (wk === null) return Infinity;
    if (!(amountOut > 0)) return 0;
    const { sp, liq, cumIn, cumOut } = wk;
    const n = liq.length;
    if (n === 0 || amountOut >= cumOut[n]) return Infinity;
    let i = 0;
    while (i < n - 1 && cumOut[i + 1] <= amountOut) i++;
    const l = liq[i];
    if (!(l > 0)) return Infinity;
    const rem = amountOut - cumOut[i];
    const s0 = sp[i];
    let dIn: number;
    if (aToB) {
      const s1 = s0 - rem / l;
      if (!(s1 > 0)) return Infinity;
      dIn = l * (1 / s1 - 1 / s0);
    } else {
      const inv = 1 / s0 - rem / l;
      if (!(inv > 0)) return Infinity;
      dIn = l * (1 / inv - s0);
    }
    return (cumIn[i] + dIn) / this.feeKeep();
  }

  /** B per A from the sqrt price (A in), or its inverse (B in), smallest units, before fees */
  spotPrice(inputMint: string): number {
    return this.direction(inputMint) ? this.price : this.price > 0 ? 1 / this.price : 0;
  }

  /**
   * Depth figure: how much of `mint` the pool can pay out by a swap through the tick arrays it
   * was given (the float walk over the program's own sequence), in smallest units. It is bounded
   * by real liquidity in reach, unlike virtual reserves, and 0 when the pool is not quotable.
   */
  reserve(mint: string): number {
    // paying out A means a b->a swap
    const aToB = mint === this.mintB ? true : mint === this.mintA ? false : this.direction(mint);
    const wk = this.walk(aToB);
    if (wk === null || wk.liq.length === 0) return 0;
    return wk.cumOut[wk.liq.length];
  }
}
