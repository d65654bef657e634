/**
 * PumpSwap AMM swap math, integer-exact with the rounding of pump's public swap SDK
 * (buyBaseInput / buyQuoteInput / sellBaseInput / sellQuoteInput) and the buy_exact_quote_in
 * instruction. Reserves are the pool's two token accounts (protocol and creator fees leave the
 * pool; the LP fee stays in it). Fees are on the quote side; fee(x, bps) = ceil(x * bps / 10_000),
 * separately for LP, protocol and coin creator (the creator fee is 0 without a coin creator).
 *
 *  buy (exact base B):  quoteIn = ceil(Q * B / (Bres - B)); pays quoteIn + fees(quoteIn). B < Bres.
 *  buy_exact_quote_in (budget S): net = floor(S * 10_000 / (10_000 + totalBps)); when net +
 *            fees(net) > S, net -= the excess; B = floor(Bres * (net - 1) / (Q + net - 1)); then
 *            a buy of exactly B (its cost is <= net - 1, so the total is <= S).
 *  sell (exact base B): quoteOut = floor(Q * B / (Bres + B)); receives quoteOut - fees(quoteOut).
 *  Fee rates: with a FeeConfig, canonical pools (creator = pump.fun's pool authority of the base
 *  mint) use the tier of market cap = Q * baseMintSupply / Bres (stable tiers for a USDC quote
 *  when present); other pools the flat fees. Without a FeeConfig: GlobalConfig's three rates.
 */
import { PoolQuoteError } from '../../pool';
import { MINTS } from '@app/solana';
import { DEFAULT_PUBKEY, type PumpFeeConfig } from '@app/solana';
import type { PumpAmmGlobalConfig, PumpAmmPoolState } from '@app/solana';
import { BPS, pumpFee, pumpFeeTier, searchMinInput } from '../pump-fun/math';

const U64_MAX = 0xffffffffffffffffn;

export interface PumpAmmFeeBps {
  lpFeeBps: bigint;
  protocolFeeBps: bigint;
  /** 0 when the pool has no coin creator */
  creatorFeeBps: bigint;
}

export interface PumpAmmFeeContext {
  globalConfig: PumpAmmGlobalConfig;
  feeConfig: PumpFeeConfig | null;
  pool: Pick<PumpAmmPoolState, 'coinCreator' | 'quoteMint'>;
  /** pool.creator is pump.fun's pool authority of the base mint (isCanonicalPumpPool) */
  canonical: boolean;
  baseMintSupply: bigint;
  baseReserve: bigint;
  quoteReserve: bigint;
}

/** Market cap in quote units: quoteReserve * baseMintSupply / baseReserve. */
export function pumpAmmMarketCap(baseReserve: bigint, quoteReserve: bigint, baseMintSupply: bigint): bigint {
  if (baseReserve === 0n) throw new PoolQuoteError('insufficient-liquidity', 'pool base reserve is zero');
  return (quoteReserve * baseMintSupply) / baseReserve;
}

export function pumpAmmFeeBps(ctx: PumpAmmFeeContext): PumpAmmFeeBps {
  let fees: PumpAmmFeeBps;
  if (ctx.feeConfig === null) {
    fees = {
      lpFeeBps: ctx.globalConfig.lpFeeBasisPoints,
      protocolFeeBps: ctx.globalConfig.protocolFeeBasisPoints,
      creatorFeeBps: ctx.globalConfig.coinCreatorFeeBasisPoints,
    };
  } else if (ctx.canonical) {
    const tiers =
      ctx.pool.quoteMint === MINTS.USDC && ctx.feeConfig.stableFeeTiers.length > 0 ? ctx.feeConfig.stableFeeTiers : ctx.feeConfig.feeTiers;
    fees = { ...pumpFeeTier(tiers, pumpAmmMarketCap(ctx.baseReserve, ctx.quoteReserve, ctx.baseMintSupply)) };
  } else {
    fees = { ...ctx.feeConfig.flatFees };
  }
  if (ctx.pool.coinCreator === DEFAULT_PUBKEY) fees.creatorFeeBps = 0n;
  if (fees.lpFeeBps + fees.protocolFeeBps + fees.creatorFeeBps >= BPS) {
    throw new PoolQuoteError('not-quotable', `total fee ${fees.lpFeeBps + fees.protocolFeeBps + fees.creatorFeeBps} bps is not below 10000`);
  }
  return fees;
}

export interface PumpAmmBuy {
  baseOut: bigint;
  /** quote that prices the swap (before fees) */
  quoteIn: bigint;
  lpFee: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  /** what the buyer pays: quoteIn + all fees */
  totalQuote: bigint;
}

export interface PumpAmmSell {
  baseIn: bigint;
  /** quote the swap prices out (before fees) */
  quoteOut: bigint;
  lpFee: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  /** what the seller receives: quoteOut - all fees */
  netQuote: bigint;
}

function checkReserves(baseReserve: bigint, quoteReserve: bigint): void {
  if (baseReserve <= 0n || quoteReserve <= 0n) throw new PoolQuoteError('insufficient-liquidity', 'a pool reserve is empty');
}

/** buy: exactly `base` out. */
export function pumpAmmBuyExactBase(baseReserve: bigint, quoteReserve: bigint, fees: PumpAmmFeeBps, base: bigint): PumpAmmBuy {
  checkReserves(baseReserve, quoteReserve);
  if (base <= 0n) throw new PoolQuoteError('zero-output', 'base amount is zero');
  if (base >= baseReserve) throw new PoolQuoteError('insufficient-liquidity', `base out ${base} is not below the reserve ${baseReserve}`);
  const den = baseReserve - base;
  const quoteIn = (quoteReserve * base + den - 1n) / den;
  const lpFee = pumpFee(quoteIn, fees.lpFeeBps);
  const protocolFee = pumpFee(quoteIn, fees.protocolFeeBps);
  const creatorFee = pumpFee(quoteIn, fees.creatorFeeBps);
  const totalQuote = quoteIn + lpFee + protocolFee + creatorFee;
  if (totalQuote > U64_MAX) throw new PoolQuoteError('insufficient-liquidity', 'cost exceeds u64');
  return { baseOut: base, quoteIn, lpFee, protocolFee, creatorFee, totalQuote };
}

/** buy_exact_quote_in: spend at most `spendable` quote (the buyer pays the returned totalQuote <= spendable). */
export function pumpAmmBuyExactQuoteIn(baseReserve: bigint, quoteReserve: bigint, fees: PumpAmmFeeBps, spendable: bigint): PumpAmmBuy {
  checkReserves(baseReserve, quoteReserve);
  if (spendable <= 0n) throw new PoolQuoteError('zero-output', 'quote amount is zero');
  if (spendable > U64_MAX) throw new RangeError(`spendable out of u64 range: ${spendable}`);
  let net = (spendable * BPS) / (BPS + fees.lpFeeBps + fees.protocolFeeBps + fees.creatorFeeBps);
  const total = net + pumpFee(net, fees.lpFeeBps) + pumpFee(net, fees.protocolFeeBps) + pumpFee(net, fees.creatorFeeBps);
  if (total > spendable) net -= total - spendable;
  if (net <= 1n) throw new PoolQuoteError('zero-output', `${spendable} quote buys nothing after fees`);
  const base = (baseReserve * (net - 1n)) / (quoteReserve + net - 1n);
  if (base === 0n) throw new PoolQuoteError('zero-output', `${spendable} quote buys nothing`);
  return pumpAmmBuyExactBase(baseReserve, quoteReserve, fees, base);
}

/** sell: exactly `base` in. */
export function pumpAmmSellExactBase(baseReserve: bigint, quoteReserve: bigint, fees: PumpAmmFeeBps, base: bigint): PumpAmmSell {
  checkReserves(baseReserve, quoteReserve);
  if (base <= 0n) throw new PoolQuoteError('zero-output', 'base amount is zero');
  if (base > U64_MAX) throw new RangeError(`base out of u64 range: ${base}`);
  const quoteOut = (quoteReserve * base) / (baseReserve + base);
  const lpFee = pumpFee(quoteOut, fees.lpFeeBps);
  const protocolFee = pumpFee(quoteOut, fees.protocolFeeBps);
  const creatorFee = pumpFee(quoteOut, fees.creatorFeeBps);
  const netQuote = quoteOut - lpFee - protocolFee - creatorFee;
  if (netQuote <= 0n) throw new PoolQuoteError('zero-output', `${base} base sells for nothing after fees`);
  return { baseIn: base, quoteOut, lpFee, protocolFee, creatorFee, netQuote };
}

/** The base to sell so that the seller receives at least `wantQuote` (sell has no exact-output form). */
export function pumpAmmSellForQuote(baseReserve: bigint, quoteReserve: bigint, fees: PumpAmmFeeBps, wantQuote: bigint): PumpAmmSell {
  checkReserves(baseReserve, quoteReserve);
  if (wantQuote <= 0n) throw new PoolQuoteError('zero-output', 'quote amount is zero');
  const totalBps = fees.lpFeeBps + fees.protocolFeeBps + fees.creatorFeeBps;
  const gross = (wantQuote * BPS + (BPS - totalBps) - 1n) / (BPS - totalBps);
  if (gross >= quoteReserve) throw new PoolQuoteError('insufficient-liquidity', `${wantQuote} quote exceeds what the pool can pay`);
  const start = (baseReserve * gross + (quoteReserve - gross) - 1n) / (quoteReserve - gross);
  const base = searchMinInput(
    (b) => {
      try {
        return pumpAmmSellExactBase(baseReserve, quoteReserve, fees, b).netQuote;
      } catch (e) {
        if (e instanceof PoolQuoteError) return null;
        throw e;
      }
    },
    wantQuote,
    start,
  );
  return pumpAmmSellExactBase(baseReserve, quoteReserve, fees, base);
}

/**
 * The vault balances after a trade (for the simulated market): the LP fee stays in the quote
 * vault; protocol and creator fees go elsewhere.
 */
export function pumpAmmApplyTrade(baseVault: bigint, quoteVault: bigint, t: PumpAmmBuy | PumpAmmSell): { baseVault: bigint; quoteVault: bigint } {
  if ('baseOut' in t) return { baseVault: baseVault - t.baseOut, quoteVault: quoteVault + t.quoteIn + t.lpFee };
  return { baseVault: baseVault + t.baseIn, quoteVault: quoteVault - t.quoteOut + t.lpFee };
}
