/**
 * Raydium CPMM (cp-swap) swap math, integer-exact with the program's own rounding.
 *
 * Rates are millionths (FEE_RATE_DENOMINATOR). All amounts are u64 on chain; intermediate
 * products fit in u128 there and are exact bigints here.
 *
 *  ExactIn:  tradeFee = ceil(in * rate / 1e6) (rate = trade + creator when the creator fee is on
 *            the input; then creatorFee = floor(total * creatorRate / (trade + creator)) and
 *            tradeFee = total - creatorFee); net = in - total;
 *            swapped = floor(net * Y / (X + net)); creator fee on the output side:
 *            creatorFee = ceil(swapped * creatorRate / 1e6), out = swapped - creatorFee.
 *  ExactOut: creator fee on the output side: gross = ceil(out * 1e6 / (1e6 - creatorRate)),
 *            creatorFee = gross - out; swappedIn = ceil(X * gross / (Y - gross));
 *            in = ceil(swappedIn * 1e6 / (1e6 - rate)) (rate as above; unchanged when rate 0);
 *            total fee = in - swappedIn, split as for ExactIn.
 *  protocolFee = floor(tradeFee * protocolRate / 1e6), fundFee = floor(tradeFee * fundRate / 1e6).
 *  Reserves: vault balance - (protocol + fund + creator fees owed) on each side.
 */
import { PoolQuoteError } from '../../pool';
import type { CpmmAmmConfig, CpmmPoolState } from '@app/solana';

export const FEE_RATE_DENOMINATOR = 1_000_000n;
const U64_MAX = 0xffffffffffffffffn;

export interface CpmmFeeRates {
  tradeFeeRate: bigint;
  protocolFeeRate: bigint;
  fundFeeRate: bigint;
  /** 0n when the pool's creator fee is not enabled */
  creatorFeeRate: bigint;
  /** the creator fee is taken from the input token (else from the output token) */
  creatorFeeOnInput: boolean;
}

export interface CpmmSwapResult {
  /** the user pays (what enters the input vault) */
  amountIn: bigint;
  /** the user receives (what leaves the output vault) */
  amountOut: bigint;
  /** the LP + protocol + fund part of the fee, input-token units */
  tradeFee: bigint;
  /** owed to the protocol, part of tradeFee, input-token units */
  protocolFee: bigint;
  /** owed to the fund, part of tradeFee, input-token units */
  fundFee: bigint;
  /** owed to the pool creator; input-token units when creatorFeeOnInput, else output-token units */
  creatorFee: bigint;
}

function ceilMulDiv(a: bigint, num: bigint, den: bigint): bigint {
  return (a * num + den - 1n) / den;
}

/** amount before a fee of `rate` millionths was taken, rounded up (the program's pre-fee amount) */
function preFeeAmount(postFee: bigint, rate: bigint): bigint {
  if (rate === 0n) return postFee;
  const den = FEE_RATE_DENOMINATOR - rate;
  if (den <= 0n) throw new PoolQuoteError('not-quotable', `fee rate ${rate} is not below ${FEE_RATE_DENOMINATOR}`);
  return (postFee * FEE_RATE_DENOMINATOR + den - 1n) / den;
}

function splitCreatorFee(totalFee: bigint, fees: CpmmFeeRates): bigint {
  const den = fees.tradeFeeRate + fees.creatorFeeRate;
  // the program's floor_div returns None for a zero denominator: the swap fails
  if (den === 0n) throw new PoolQuoteError('not-quotable', 'trade and creator fee rates are both zero with the creator fee on the input (the program rejects the swap)');
  return (totalFee * fees.creatorFeeRate) / den;
}

function checkRates(fees: CpmmFeeRates): void {
  if (fees.tradeFeeRate + fees.creatorFeeRate >= FEE_RATE_DENOMINATOR) {
    throw new PoolQuoteError('not-quotable', `trade + creator fee rate ${fees.tradeFeeRate + fees.creatorFeeRate} is not below ${FEE_RATE_DENOMINATOR}`);
  }
}

function checkReserves(inputReserve: bigint, outputReserve: bigint): void {
  // the program divides by each reserve (token_price_x32): a zero reserve aborts the swap
  if (inputReserve <= 0n || outputReserve <= 0n) {
    throw new PoolQuoteError('insufficient-liquidity', 'a pool reserve is empty');
  }
}

function protocolAndFund(tradeFee: bigint, fees: CpmmFeeRates): { protocolFee: bigint; fundFee: bigint } {
  return {
    protocolFee: (tradeFee * fees.protocolFeeRate) / FEE_RATE_DENOMINATOR,
    fundFee: (tradeFee * fees.fundFeeRate) / FEE_RATE_DENOMINATOR,
  };
}

/**
 * swap_base_input: the user pays exactly `amountIn` (the amount that reaches the vault, i.e. after
 * any Token-2022 transfer fee). Throws where the program fails.
 */
export function cpmmSwapBaseInput(
  amountIn: bigint,
  inputReserve: bigint,
  outputReserve: bigint,
  fees: CpmmFeeRates,
): CpmmSwapResult {
  if (amountIn <= 0n) throw new PoolQuoteError('zero-output', 'amount in must be positive');
  if (amountIn > U64_MAX) throw new PoolQuoteError('not-quotable', 'amount in exceeds u64');
  checkReserves(inputReserve, outputReserve);
  checkRates(fees);
  let tradeFee: bigint;
  let creatorFee = 0n;
  let netIn: bigint;
  if (fees.creatorFeeOnInput) {
    const total = ceilMulDiv(amountIn, fees.tradeFeeRate + fees.creatorFeeRate, FEE_RATE_DENOMINATOR);
    creatorFee = splitCreatorFee(total, fees);
    tradeFee = total - creatorFee;
    netIn = amountIn - total;
  } else {
    tradeFee = ceilMulDiv(amountIn, fees.tradeFeeRate, FEE_RATE_DENOMINATOR);
    netIn = amountIn - tradeFee;
  }
  const swapped = (netIn * outputReserve) / (inputReserve + netIn);
  let amountOut = swapped;
  if (!fees.creatorFeeOnInput) {
    creatorFee = ceilMulDiv(swapped, fees.creatorFeeRate, FEE_RATE_DENOMINATOR);
    amountOut = swapped - creatorFee;
  }
  if (amountOut <= 0n) throw new PoolQuoteError('zero-output', `amount in ${amountIn} buys nothing`);
  return { amountIn, amountOut, tradeFee, ...protocolAndFund(tradeFee, fees), creatorFee };
}

/**
 * swap_base_output: the user receives exactly `amountOut` (what leaves the vault, i.e. before any
 * Token-2022 transfer fee on the output). Throws where the program fails.
 */
export function cpmmSwapBaseOutput(
  amountOut: bigint,
  inputReserve: bigint,
  outputReserve: bigint,
  fees: CpmmFeeRates,
): CpmmSwapResult {
  if (amountOut <= 0n) throw new PoolQuoteError('zero-output', 'amount out must be positive');
  checkReserves(inputReserve, outputReserve);
  checkRates(fees);
  let creatorFee = 0n;
  let grossOut = amountOut;
  if (!fees.creatorFeeOnInput) {
    grossOut = preFeeAmount(amountOut, fees.creatorFeeRate);
    creatorFee = grossOut - amountOut;
  }
  if (grossOut >= outputReserve) {
    throw new PoolQuoteError('insufficient-liquidity', `amount out ${amountOut} reaches the reserve ${outputReserve}`);
  }
  const num = inputReserve * grossOut;
  const den = outputReserve - grossOut;
  const swappedIn = (num + den - 1n) / den;
  let amountIn: bigint;
  let tradeFee: bigint;
  if (fees.creatorFeeOnInput) {
    amountIn = preFeeAmount(swappedIn, fees.tradeFeeRate + fees.creatorFeeRate);
    const total = amountIn - swappedIn;
    creatorFee = splitCreatorFee(total, fees);
    tradeFee = total - creatorFee;
  } else {
    amountIn = preFeeAmount(swappedIn, fees.tradeFeeRate);
    tradeFee = amountIn - swappedIn;
  }
  if (amountIn > U64_MAX) throw new PoolQuoteError('insufficient-liquidity', 'amount in needed exceeds u64');
  return { amountIn, amountOut, tradeFee, ...protocolAndFund(tradeFee, fees), creatorFee };
}

/** vault_amount_without_fee: vault balances net of protocol, fund and creator fees owed. */
export function cpmmReserves(
  poolState: CpmmPoolState,
  vault0Amount: bigint,
  vault1Amount: bigint,
): { reserve0: bigint; reserve1: bigint } {
  const reserve0 = vault0Amount - poolState.protocolFeesToken0 - poolState.fundFeesToken0 - poolState.creatorFeesToken0;
  const reserve1 = vault1Amount - poolState.protocolFeesToken1 - poolState.fundFeesToken1 - poolState.creatorFeesToken1;
  if (reserve0 < 0n || reserve1 < 0n) {
    throw new PoolQuoteError('not-quotable', 'vault balance below the fees owed (the program fails with InsufficientVault)');
  }
  return { reserve0, reserve1 };
}

/** is_creator_fee_on_input: creatorFeeOn 0 = input side; 1 = token0 only; 2 = token1 only. */
export function cpmmCreatorFeeOnInput(creatorFeeOn: number, zeroForOne: boolean): boolean {
  switch (creatorFeeOn) {
    case 0:
      return true;
    case 1:
      return zeroForOne;
    case 2:
      return !zeroForOne;
    default:
      throw new PoolQuoteError('not-quotable', `invalid creatorFeeOn ${creatorFeeOn} (the program fails with InvalidFeeModel)`);
  }
}

/** The fee rates a swap in this direction uses. */
export function cpmmFeeRates(poolState: CpmmPoolState, config: CpmmAmmConfig, zeroForOne: boolean): CpmmFeeRates {
  return {
    tradeFeeRate: config.tradeFeeRate,
    protocolFeeRate: config.protocolFeeRate,
    fundFeeRate: config.fundFeeRate,
    creatorFeeRate: poolState.enableCreatorFee ? config.creatorFeeRate : 0n,
    creatorFeeOnInput: cpmmCreatorFeeOnInput(poolState.creatorFeeOn, zeroForOne),
  };
}

/** True when the pool's status bits allow swaps (bit 2 clear). */
export function cpmmSwapEnabled(poolState: CpmmPoolState): boolean {
  return (poolState.status & 4) === 0;
}

/**
 * One swap's on-chain state transition: the input vault gains `amountIn`, the output vault loses
 * `amountOut`, protocol and fund fees accrue on the input side, the creator fee on the side it was
 * taken from. Returns a new state object (recentEpoch is left as is: it comes from the clock).
 * Does not check the pool's open time (no clock here).
 */
export function cpmmApplySwap(
  state: CpmmPoolState,
  config: CpmmAmmConfig,
  vault0: bigint,
  vault1: bigint,
  zeroForOne: boolean,
  mode: 'ExactIn' | 'ExactOut',
  amount: bigint,
): { state: CpmmPoolState; vault0: bigint; vault1: bigint; result: CpmmSwapResult } {
  if (!cpmmSwapEnabled(state)) throw new PoolQuoteError('not-quotable', 'swaps are disabled on this pool');
  const fees = cpmmFeeRates(state, config, zeroForOne);
  const { reserve0, reserve1 } = cpmmReserves(state, vault0, vault1);
  const [rIn, rOut] = zeroForOne ? [reserve0, reserve1] : [reserve1, reserve0];
  const result =
    mode === 'ExactIn' ? cpmmSwapBaseInput(amount, rIn, rOut, fees) : cpmmSwapBaseOutput(amount, rIn, rOut, fees);
  const next: CpmmPoolState = { ...state };
  const creatorOn0 = zeroForOne === fees.creatorFeeOnInput;
  if (zeroForOne) {
    next.protocolFeesToken0 += result.protocolFee;
    next.fundFeesToken0 += result.fundFee;
  } else {
    next.protocolFeesToken1 += result.protocolFee;
    next.fundFeesToken1 += result.fundFee;
  }
  if (creatorOn0) next.creatorFeesToken0 += result.creatorFee;
  else next.creatorFeesToken1 += result.creatorFee;
  const newVault0 = zeroForOne ? vault0 + result.amountIn : vault0 - result.amountOut;
  const newVault1 = zeroForOne ? vault1 - result.amountOut : vault1 + result.amountIn;
  if (newVault0 > U64_MAX || newVault1 > U64_MAX) throw new PoolQuoteError('not-quotable', 'vault balance would exceed u64');
  return { state: next, vault0: newVault0, vault1: newVault1, result };
}
