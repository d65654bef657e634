/**
 * Raydium AMM v4 swap math, integer-exact with the program's rounding (process_swap_base_in /
 * process_swap_base_out and their v2 twins, OpenBook-less path of current versions).
 *
 *  Reserves: X, Y = vault balance - stateData.needTakePnl{Coin,Pc} (the program's checked_sub:
 *            a vault below its pnl owed makes every swap fail).
 *  ExactIn:  fee = ceil(in * swapFeeNumerator / swapFeeDenominator); net = in - fee;
 *            out = floor(Y * net / (X + net)).
 *            Fails when out == 0 or in == 0 (InvalidInput) or out >= Y (InsufficientFunds).
 *  ExactOut: beforeFee = ceil(X * out / (Y - out));
 *            in = ceil(beforeFee * swapFeeDenominator / (swapFeeDenominator - swapFeeNumerator));
 *            fee = in - beforeFee. Both divisions round up (the SDK's computeAmountIn floors both
 *            and can come out up to 2 units low: such a max_amount_in fails with ExceededSlippage).
 *            Fails when out >= Y, in == 0 / out == 0, or in exceeds u64.
 * "coin" is the base token (mintA), "pc" the quote token (mintB).
 */
import { PoolQuoteError } from '../../pool';
import { ammV4SwapPermitted, AMM_V4_STATUS, type AmmV4Fees, type AmmV4Info } from '@app/solana';

const U64_MAX = 0xffffffffffffffffn;

export interface AmmV4SwapResult {
  /** what the user pays into the input vault */
  amountIn: bigint;
  /** what leaves the output vault to the user */
  amountOut: bigint;
  /** the swap fee, input-token units (stays in the vault: LP income) */
  fee: bigint;
}

export interface AmmV4Reserves {
  coin: bigint;
  pc: bigint;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** Swap reserves net of the pnl owed (the program's calc_total_without_take_pnl_no_orderbook). */
export function ammV4Reserves(info: AmmV4Info, coinVaultAmount: bigint, pcVaultAmount: bigint): AmmV4Reserves {
  const coin = coinVaultAmount - info.stateData.needTakePnlCoin;
  const pc = pcVaultAmount - info.stateData.needTakePnlPc;
  if (coin < 0n || pc < 0n) {
    throw new PoolQuoteError(
      'not-quotable',
      `vault balance below the pnl owed (coin ${coinVaultAmount} < ${info.stateData.needTakePnlCoin} or pc ${pcVaultAmount} < ${info.stateData.needTakePnlPc})`,
    );
  }
  return { coin, pc };
}

/** Throws PoolQuoteError('not-quotable') when the fee fraction is one the program cannot use. */
export function ammV4CheckFees(fees: AmmV4Fees): void {
  if (fees.swapFeeDenominator === 0n || fees.swapFeeNumerator >= fees.swapFeeDenominator) {
    throw new PoolQuoteError(
      'not-quotable',
      `invalid swap fee ${fees.swapFeeNumerator}/${fees.swapFeeDenominator}`,
    );
  }
}

/**
 * Why the program refuses swaps on this pool (null when it swaps): status without swap
 * permission, identical mints, or a WaitingTrade pool before its open time (only checked when
 * `unixTimestamp` is given).
 */
export function ammV4NotSwappable(info: AmmV4Info, unixTimestamp?: number): string | null {
  if (!ammV4SwapPermitted(info.status)) return `status ${info.status} does not permit swaps`;
  if (info.coinVaultMint === info.pcVaultMint) return 'coin and pc mints are the same';
  if (
    info.status === BigInt(AMM_V4_STATUS.waitingTrade) &&
    unixTimestamp !== undefined &&
    BigInt(Math.floor(unixTimestamp)) < info.stateData.poolOpenTime
  ) {
    return `pool opens at ${info.stateData.poolOpenTime}`;
  }
  return null;
}

/** swap_base_in: the user pays exactly `amountIn`. */
export function ammV4SwapBaseIn(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, fees: AmmV4Fees): AmmV4SwapResult {
  ammV4CheckFees(fees);
  if (amountIn < 0n || amountIn > U64_MAX) throw new RangeError(`amountIn out of u64 range: ${amountIn}`);
  if (amountIn === 0n) throw new PoolQuoteError('zero-output', 'amount in is zero');
  const fee = ceilDiv(amountIn * fees.swapFeeNumerator, fees.swapFeeDenominator);
  const net = amountIn - fee;
  const den = reserveIn + net;
  if (den === 0n) throw new PoolQuoteError('insufficient-liquidity', 'pool reserves are empty');
  const amountOut = (reserveOut * net) / den;
  if (amountOut === 0n) throw new PoolQuoteError('zero-output', `${amountIn} in gives nothing out`);
  if (amountOut >= reserveOut) throw new PoolQuoteError('insufficient-liquidity', 'output would empty the pool');
  return { amountIn, amountOut, fee };
}

/** swap_base_out: the user receives exactly `amountOut`. */
export function ammV4SwapBaseOut(amountOut: bigint, reserveIn: bigint, reserveOut: bigint, fees: AmmV4Fees): AmmV4SwapResult {
  ammV4CheckFees(fees);
  if (amountOut < 0n || amountOut > U64_MAX) throw new RangeError(`amountOut out of u64 range: ${amountOut}`);
  if (amountOut === 0n) throw new PoolQuoteError('zero-output', 'amount out is zero');
  if (amountOut >= reserveOut) {
    throw new PoolQuoteError('insufficient-liquidity', `amount out ${amountOut} is not below the reserve ${reserveOut}`);
  }
  const beforeFee = ceilDiv(reserveIn * amountOut, reserveOut - amountOut);
  const amountIn = ceilDiv(beforeFee * fees.swapFeeDenominator, fees.swapFeeDenominator - fees.swapFeeNumerator);
  if (amountIn > U64_MAX) throw new PoolQuoteError('insufficient-liquidity', `amount in ${amountIn} exceeds u64`);
  if (amountIn === 0n) throw new PoolQuoteError('zero-output', 'amount in is zero (empty input reserve)');
  return { amountIn, amountOut, fee: amountIn - beforeFee };
}

/**
 * The pool after one swap (for the simulated market): new vault balances. `coinToPc` is the
 * direction (coin in, pc out). AmmInfo itself does not change on a swap apart from
 * recent_epoch, which the caller sets.
 */
export function ammV4ApplySwap(
  info: AmmV4Info,
  coinVault: bigint,
  pcVault: bigint,
  coinToPc: boolean,
  mode: 'ExactIn' | 'ExactOut',
  amount: bigint,
): { coinVault: bigint; pcVault: bigint; result: AmmV4SwapResult } {
  const why = ammV4NotSwappable(info);
  if (why !== null) throw new PoolQuoteError('not-quotable', why);
  const { coin, pc } = ammV4Reserves(info, coinVault, pcVault);
  const [rIn, rOut] = coinToPc ? [coin, pc] : [pc, coin];
  const result =
    mode === 'ExactIn' ? ammV4SwapBaseIn(amount, rIn, rOut, info.fees) : ammV4SwapBaseOut(amount, rIn, rOut, info.fees);
  return coinToPc
    ? { coinVault: coinVault + result.amountIn, pcVault: pcVault - result.amountOut, result }
    : { coinVault: coinVault - result.amountOut, pcVault: pcVault + result.amountIn, result };
}
