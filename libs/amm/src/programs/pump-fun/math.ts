/**
 * pump.fun bonding-curve math, integer-exact with the program's rounding (as documented in the
 * program's IDL for buy_exact_sol_in and in pump's public SDK for buy / sell).
 *
 * Constant product over the virtual reserves (vT tokens, vQ lamports); fees are on the SOL side.
 *  Fees (bps): from the FeeConfig when present: the tier of market cap = vQ * supply / vT
 *            (first tier below the first threshold, else the last tier whose threshold <= cap);
 *            else Global.feeBasisPoints / creatorFeeBasisPoints. The creator fee is 0 when the
 *            curve has no creator (default pubkey). fee(x, bps) = ceil(x * bps / 10_000), taken
 *            separately for protocol and creator.
 *  buy (exact tokens T): solCost = floor(T * vQ / (vT - T)) + 1; pays solCost + fees(solCost).
 *            T must be <= realTokenReserves.
 *  buy_exact_sol_in (budget S): net = floor(S * 10_000 / (10_000 + totalBps)); if net + fees(net)
 *            > S, net -= the excess; T = floor((net - 1) * vT / (vQ + net - 1)), capped at
 *            realTokenReserves; then a buy of exactly T (its cost is <= net, so <= S).
 *  sell (exact tokens T): solOut = floor(T * vQ / (vT + T)) (<= realQuoteReserves); the user
 *            receives solOut - fees(solOut).
 *  A `complete` curve does not trade.
 */
import { PoolQuoteError } from '../../pool';
import {
  DEFAULT_PUBKEY,
  type PumpBondingCurve,
  type PumpFeeConfig,
  type PumpFeeTier,
  type PumpFees,
  type PumpGlobal,
} from '@app/solana';

export const BPS = 10_000n;
const U64_MAX = 0xffffffffffffffffn;

/** fee(x, bps) = ceil(x * bps / 10_000) */
export function pumpFee(amount: bigint, bps: bigint): bigint {
  return (amount * bps + BPS - 1n) / BPS;
}

/** The tier for `marketCap` (calculate_fee_tier): below the first threshold the first tier, else the last tier reached. */
export function pumpFeeTier(tiers: readonly PumpFeeTier[], marketCap: bigint): PumpFees {
  if (tiers.length === 0) throw new PoolQuoteError('not-quotable', 'the fee config has no fee tiers');
  if (marketCap < tiers[0].marketCapLamportsThreshold) return tiers[0].fees;
  for (let i = tiers.length - 1; i >= 0; i--) {
    if (marketCap >= tiers[i].marketCapLamportsThreshold) return tiers[i].fees;
  }
  return tiers[0].fees;
}

/** Market cap in lamports: vQ * supply / vT. */
export function pumpFunMarketCap(curve: PumpBondingCurve, mintSupply: bigint = curve.tokenTotalSupply): bigint {
  if (curve.virtualTokenReserves === 0n) throw new PoolQuoteError('not-quotable', 'virtual token reserves are zero (migrated curve)');
  return (curve.virtualQuoteReserves * mintSupply) / curve.virtualTokenReserves;
}

export interface PumpFunFeeBps {
  protocolFeeBps: bigint;
  /** 0 when the curve has no creator */
  creatorFeeBps: bigint;
}

/**
 * The fee rates a trade on `curve` pays now. `mintSupply` defaults to the curve's
 * tokenTotalSupply (equal to the mint's supply for pump coins unless tokens were burnt).
 */
export function pumpFunFeeBps(
  global: PumpGlobal,
  feeConfig: PumpFeeConfig | null,
  curve: PumpBondingCurve,
  mintSupply?: bigint,
): PumpFunFeeBps {
  let protocolFeeBps: bigint;
  let creatorFeeBps: bigint;
  if (feeConfig !== null) {
    const tier = pumpFeeTier(feeConfig.feeTiers, pumpFunMarketCap(curve, mintSupply));
    protocolFeeBps = tier.protocolFeeBps;
    creatorFeeBps = tier.creatorFeeBps;
  } else {
    protocolFeeBps = global.feeBasisPoints;
    creatorFeeBps = global.creatorFeeBasisPoints;
  }
  if (curve.creator === DEFAULT_PUBKEY) creatorFeeBps = 0n;
  if (protocolFeeBps + creatorFeeBps >= BPS) {
    throw new PoolQuoteError('not-quotable', `total fee ${protocolFeeBps + creatorFeeBps} bps is not below 10000`);
  }
  return { protocolFeeBps, creatorFeeBps };
}

export interface PumpFunBuy {
  tokensOut: bigint;
  /** SOL that enters the curve (moves the reserves) */
  solCost: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  /** what the buyer pays: solCost + fees */
  totalSol: bigint;
}

export interface PumpFunSell {
  tokensIn: bigint;
  /** SOL that leaves the curve (moves the reserves) */
  solOut: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  /** what the seller receives: solOut - fees */
  netSol: bigint;
}

function checkTradable(curve: PumpBondingCurve): void {
  if (curve.complete) {
    throw new PoolQuoteError('not-quotable', 'the bonding curve is complete: it no longer trades (its token moved to PumpSwap)');
  }
  if (curve.virtualTokenReserves === 0n || curve.virtualQuoteReserves === 0n) {
    throw new PoolQuoteError('not-quotable', 'the bonding curve has no virtual reserves (migrated)');
  }
}

/** buy: exactly `tokens` out. */
export function pumpFunBuyExactTokens(curve: PumpBondingCurve, fees: PumpFunFeeBps, tokens: bigint): PumpFunBuy {
  checkTradable(curve);
  if (tokens <= 0n) throw new PoolQuoteError('zero-output', 'token amount is zero');
  if (tokens > curve.realTokenReserves) {
    throw new PoolQuoteError('insufficient-liquidity', `${tokens} tokens exceed the curve's real token reserves ${curve.realTokenReserves}`);
  }
  if (tokens >= curve.virtualTokenReserves) throw new PoolQuoteError('insufficient-liquidity', 'tokens exceed the virtual reserves');
  const solCost = (tokens * curve.virtualQuoteReserves) / (curve.virtualTokenReserves - tokens) + 1n;
  const protocolFee = pumpFee(solCost, fees.protocolFeeBps);
  const creatorFee = pumpFee(solCost, fees.creatorFeeBps);
  const totalSol = solCost + protocolFee + creatorFee;
  if (totalSol > U64_MAX) throw new PoolQuoteError('insufficient-liquidity', 'cost exceeds u64');
  return { tokensOut: tokens, solCost, protocolFee, creatorFee, totalSol };
}

/** The net SOL of buy_exact_sol_in's budget split (fees deducted from the budget). */
export function pumpFunNetSolOfBudget(spendable: bigint, fees: PumpFunFeeBps): bigint {
  let net = (spendable * BPS) / (BPS + fees.protocolFeeBps + fees.creatorFeeBps);
  const total = net + pumpFee(net, fees.protocolFeeBps) + pumpFee(net, fees.creatorFeeBps);
  if (total > spendable) net -= total - spendable;
  return net;
}

/** buy_exact_sol_in: spend at most `spendable` lamports (the buyer pays the returned totalSol <= spendable). */
export function pumpFunBuyExactSolIn(curve: PumpBondingCurve, fees: PumpFunFeeBps, spendable: bigint): PumpFunBuy {
  checkTradable(curve);
  if (spendable <= 0n) throw new PoolQuoteError('zero-output', 'SOL amount is zero');
  if (spendable > U64_MAX) throw new RangeError(`spendable out of u64 range: ${spendable}`);
  const net = pumpFunNetSolOfBudget(spendable, fees);
  if (net <= 1n) throw new PoolQuoteError('zero-output', `${spendable} lamports buy nothing after fees`);
  let tokens = ((net - 1n) * curve.virtualTokenReserves) / (curve.virtualQuoteReserves + net - 1n);
  if (tokens > curve.realTokenReserves) tokens = curve.realTokenReserves;
  if (tokens === 0n) throw new PoolQuoteError('zero-output', `${spendable} lamports buy nothing`);
  return pumpFunBuyExactTokens(curve, fees, tokens);
}

/** sell: exactly `tokens` in. */
export function pumpFunSellExactTokens(curve: PumpBondingCurve, fees: PumpFunFeeBps, tokens: bigint): PumpFunSell {
  checkTradable(curve);
  if (tokens <= 0n) throw new PoolQuoteError('zero-output', 'token amount is zero');
  if (tokens > U64_MAX) throw new RangeError(`tokens out of u64 range: ${tokens}`);
  const solOut = (tokens * curve.virtualQuoteReserves) / (curve.virtualTokenReserves + tokens);
  if (solOut > curve.realQuoteReserves) {
    throw new PoolQuoteError('insufficient-liquidity', `${solOut} lamports out exceed the curve's real SOL ${curve.realQuoteReserves}`);
  }
  const protocolFee = pumpFee(solOut, fees.protocolFeeBps);
  const creatorFee = pumpFee(solOut, fees.creatorFeeBps);
  const netSol = solOut - protocolFee - creatorFee;
  if (netSol <= 0n) throw new PoolQuoteError('zero-output', `${tokens} tokens sell for nothing after fees`);
  return { tokensIn: tokens, solOut, protocolFee, creatorFee, netSol };
}

/**
 * The smallest input (found by search; exact up to the ±1 non-monotonicity that separate ceil
 * fees cause) for which `out(input) >= want`, starting from the float-free estimate `start`.
 * `out` returns null where the program would fail. Throws insufficient-liquidity when no input
 * up to u64 gives `want`.
 */
export function searchMinInput(out: (input: bigint) => bigint | null, want: bigint, start: bigint): bigint {
  const ok = (x: bigint) => {
    const o = out(x);
    return o !== null && o >= want;
  };
  // the estimate may lie beyond u64 (an amount the program cannot take): start the search within range
  let hi = start < 1n ? 1n : start > U64_MAX ? U64_MAX : start;
  let step = 1n;
  while (!ok(hi)) {
    if (hi >= U64_MAX) throw new PoolQuoteError('insufficient-liquidity', `no input fills ${want}`);
    hi = hi + step > U64_MAX ? U64_MAX : hi + step;
    step *= 2n;
  }
  // lo: an input that does not fill (or 0)
  let lo = hi - 1n;
  step = 1n;
  while (lo > 0n && ok(lo)) {
    hi = lo;
    lo = lo - step < 0n ? 0n : lo - step;
    step *= 2n;
  }
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

function quietly<T>(f: () => T): T | null {
  try {
    return f();
  } catch (e) {
    if (e instanceof PoolQuoteError) return null;
    throw e;
  }
}

/** The tokens to sell so that the seller receives at least `wantSol` lamports (sell has no exact-output form). */
export function pumpFunSellForSol(curve: PumpBondingCurve, fees: PumpFunFeeBps, wantSol: bigint): PumpFunSell {
  checkTradable(curve);
  if (wantSol <= 0n) throw new PoolQuoteError('zero-output', 'SOL amount is zero');
  const totalBps = fees.protocolFeeBps + fees.creatorFeeBps;
  const gross = (wantSol * BPS + (BPS - totalBps) - 1n) / (BPS - totalBps);
  if (gross > curve.realQuoteReserves || gross >= curve.virtualQuoteReserves) {
    throw new PoolQuoteError('insufficient-liquidity', `${wantSol} lamports exceed what the curve can pay`);
  }
  const start = (gross * curve.virtualTokenReserves + (curve.virtualQuoteReserves - gross) - 1n) / (curve.virtualQuoteReserves - gross);
  const tokens = searchMinInput((t) => quietly(() => pumpFunSellExactTokens(curve, fees, t))?.netSol ?? null, wantSol, start);
  return pumpFunSellExactTokens(curve, fees, tokens);
}

/** The curve after a buy (for the simulated market); `complete` is set when no real tokens remain. */
export function pumpFunApplyBuy(curve: PumpBondingCurve, buy: PumpFunBuy): PumpBondingCurve {
  const realTokenReserves = curve.realTokenReserves - buy.tokensOut;
  return {
    ...curve,
    virtualTokenReserves: curve.virtualTokenReserves - buy.tokensOut,
    virtualQuoteReserves: curve.virtualQuoteReserves + buy.solCost,
    realTokenReserves,
    realQuoteReserves: curve.realQuoteReserves + buy.solCost,
    complete: realTokenReserves === 0n,
  };
}

/** The curve after a sell (for the simulated market). */
export function pumpFunApplySell(curve: PumpBondingCurve, sell: PumpFunSell): PumpBondingCurve {
  return {
    ...curve,
    virtualTokenReserves: curve.virtualTokenReserves + sell.tokensIn,
    virtualQuoteReserves: curve.virtualQuoteReserves - sell.solOut,
    realTokenReserves: curve.realTokenReserves + sell.tokensIn,
    realQuoteReserves: curve.realQuoteReserves - sell.solOut,
  };
}
