/**
 * SwapBuilder: turns an exact route (single path or split) into the instructions of one atomic
 * transaction, with the slippage bound enforced by the swap instructions themselves. Pure: no
 * Nest, no IO; it reads pool state from the `Pool` objects and raw accounts (mints, tick arrays)
 * from an `AccountSource` (the Projection). What differs per program (its swap instruction, its
 * compute units, whether it trades native SOL) comes from the program's venue writer (venues/).
 *
 * Instruction order: compute budget (unit limit, optional unit price) → create-idempotent ATAs
 * for every output / intermediate mint (and the input when it is wrapped SOL) → wrap SOL when
 * the input is SOL → the swaps, leg by leg, hop by hop → the aggregator fee transfer → close
 * the wrapped-SOL account (unwrap) when SOL was used as wrapped SOL.
 *
 * Slippage and intermediate amounts (why any shortfall reverts the whole transaction):
 * Solana has no "use whatever the previous instruction produced" without an aggregator
 * program, so every hop's amounts are fixed at build time from the exact quote:
 * - ExactIn: hop i pays exactly its quoted input. An intermediate hop's minimum output is the
 *   quoted output, which is exactly what the next hop pays in; the LAST hop's minimum output is
 *   the slippage-adjusted threshold. If an intermediate pool moved against the user, that hop
 *   fails its own minimum (the program's slippage error) and the whole transaction reverts; if
 *   it moved in the user's favour, the surplus stays in the user's intermediate token account.
 * - ExactOut: every hop receives exactly its quoted output (the final one the requested amount);
 *   an intermediate hop may pay at most its quoted input (exactly what the previous hop
 *   produced); the FIRST hop may pay at most the slippage-adjusted maximum input.
 * Exception: a single path of two Whirlpool hops goes as one two_hop_swap_v2 (whirlpool-two-hop.ts),
 * bounded by the outer bound only, so either pool may move within the slippage.
 * Otherwise the user's tolerance covers the price of the outer hop, and intermediate pools must not
 * move against the user between quote and execution: stricter than necessary, never a partial
 * fill, never a worse price than the threshold. (Programs without the needed exact form: a sell
 * on PumpSwap / pump.fun always pays an exact token amount and checks a minimum output.)
 * Split routes (the hops are the edges of a flow DAG): the rules apply per edge; the edges into
 * the output mint (ExactIn) or out of the input mint (ExactOut) share the bound in proportion to
 * their quoted amounts (floor, the last takes the remainder), so the shares add up to the bound.
 *
 * Aggregator fee (when configured for the route; amounts and bound from quote/aggregator-fee.ts,
 * as the quote reports them): ExactIn takes it from the output and the last hops must produce
 * minAmountOut + fee; ExactOut adds it to the input and the first hops may pay at most
 * maxAmountIn − fee. It is a fixed amount paid by a transfer in the same transaction (TransferChecked to the fee
 * wallet's ATA, created idempotently; a System transfer when the fee is in native SOL). An
 * integrator's fee (platformFeeBps) is a second transfer, to its fee account (a token account of
 * the fee's mint; native SOL goes in with a System transfer and SyncNative).
 *
 * Options: `wrapAndUnwrapSol: false` spends the user's wrapped-SOL account as it is (no wrap of
 * an input of SOL) and leaves wrapped SOL received in it (no close at the end); a pump.fun hop
 * still trades native lamports. `destinationTokenAccount`: the hops into the output deliver there
 * (no token account of the user's is created for the output), except when a fee is taken from
 * the output (ExactIn with a fee) or a pump.fun sell pays native SOL: then the user receives it as
 * usual and the guaranteed minimum (otherAmountThreshold) is moved to the destination in the same
 * transaction, whatever surplus the pools give above it staying with the user.
 */
import type { TransactionInstruction } from '@solana/web3.js';
import type { Pool } from '@app/amm';
import type { Route, SwapMode } from '@app/amm';
import { chargeRoute, type AggregatorFee } from '../quote/aggregator-fee';
import { ataCreateUnits, INSTRUCTION_UNITS, MAX_COMPUTE_UNITS } from './compute-units';
import { isWhirlpoolTwoHop, whirlpoolTwoHopInstruction } from './whirlpool-two-hop';
import { BuildError, MissingPoolDataError } from './build-errors';
import { swapUnits, venueWriter } from './venues/venue-writers';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { associatedTokenAddress, isTokenProgram } from '@app/solana';
import {
  closeAccount,
  createAtaIdempotent,
  setComputeUnitLimit,
  setComputeUnitPrice,
  syncNative,
  systemTransfer,
  transferChecked,
} from '@app/solana';

export { BuildError, MissingPoolDataError };

/** Raw accounts and mint decimals, as the projection holds them. */
export interface AccountSource {
  account(address: string): { owner: string; data: Buffer } | undefined;
  decimals(mint: string): number | undefined;
}

export interface SwapBuildRequest {
  /** the exact route: a single path, or a split (its hops are the edges of a flow DAG, in trade order) */
  route: Route;
  userWallet: string;
  slippageBps: number;
  fee: AggregatorFee | null;
  /** SetComputeUnitPrice in micro-lamports; 0 = no price instruction */
  computeUnitPriceMicroLamports: bigint;
  /** false: use the user's wrapped-SOL account as it is (default true: wrap an input of SOL, unwrap at the end) */
  wrapAndUnwrapSol?: boolean;
  /** the token account the output goes to (default: the user's associated token account) */
  destinationTokenAccount?: string;
}

export interface BuiltSwap {
  mode: SwapMode;
  inputMint: string;
  outputMint: string;
  /** what the user pays (ExactOut: route input + fee) */
  amountIn: bigint;
  /** what the user receives (ExactIn: route output − fee) */
  amountOut: bigint;
  feeAmount: bigint;
  /** ExactIn: minimum output; ExactOut: maximum input (both net of the aggregator fee) */
  otherAmountThreshold: bigint;
  /** token path of a single-path route (empty for a split: the caller takes the quote's main path) */
  routePath: string[];
  /** hops of a single-path route (0 for a split) */
  hopCount: number;
  /** pools in instruction order */
  pools: string[];
  isSplitRoute: boolean;
  /** one per pool of `pools`, in its order: filled by the caller (the quote's per-pool percents; 100 each on a single path) */
  splitPercents: number[];
  computeUnitsEstimate: number;
  instructions: TransactionInstruction[];
}

/** Split `total` over legs in proportion to `weights` (floor; the last leg takes the remainder, capped at its weight when `cap`). */
export function shareOut(total: bigint, weights: bigint[], sum: bigint): bigint[] {
  const out: bigint[] = [];
  let acc = 0n;
  for (let i = 0; i < weights.length; i++) {
    const v = i === weights.length - 1 ? total - acc : sum === 0n ? 0n : (weights[i] * total) / sum;
    out.push(v);
    acc += v;
  }
  return out;
}

interface Ctx {
  src: AccountSource;
  wallet: string;
  ixs: TransactionInstruction[];
  units: number;
  /** where SOL currently sits for the next consumer */
  wsolUsed: boolean;
  /** the account the hops into the output mint deliver to, when not the user's own */
  deliverTo: string | null;
  outputMint: string;
}

function tokenProgramOf(src: AccountSource, mint: string): string {
  if (mint === MINTS.SOL) return PROGRAM_IDS.token;
  const acc = src.account(mint);
  if (!acc) throw new MissingPoolDataError(`mint account ${mint} is not in the projection`);
  if (!isTokenProgram(acc.owner)) throw new BuildError(`mint ${mint} is owned by ${acc.owner}, not a token program`);
  return acc.owner;
}

function decimalsOf(src: AccountSource, mint: string): number {
  if (mint === MINTS.SOL) return 9;
  const d = src.decimals(mint);
  if (d === undefined) throw new MissingPoolDataError(`decimals of ${mint} unknown`);
  return d;
}

/** True when the hop trades native SOL lamports (its venue's `nativeSol`: pump.fun) rather than wrapped SOL. */
function nativeSolHop(pool: Pool): boolean {
  return venueWriter(pool.programId)?.nativeSol === true;
}

export function buildSwap(req: SwapBuildRequest, src: AccountSource): BuiltSwap {
  const route = req.route;
  const edges = route.hops;
  if (edges.length === 0) throw new BuildError('route has no hops');
  const { mode, inputMint, outputMint } = route;
  // the hops are the edges of a flow DAG (a single path is a chain) in trade order
  const produced = new Set<string>([inputMint]);
  for (const e of edges) {
    if (!produced.has(e.inputMint)) throw new BuildError(`hop through ${e.pool.address} spends ${e.inputMint} before any hop produces it`);
    produced.add(e.outputMint);
  }
  const wallet = req.userWallet;
  const distinctPath = new Set(edges.map((e) => e.inputMint)).size;
  const isSplit = edges.length > distinctPath;
  const { amountIn, amountOut, feeAmount, platformFeeAmount, threshold, maxRouteIn } = chargeRoute(route, req.fee, req.slippageBps);
  const wrapAndUnwrap = req.wrapAndUnwrapSol !== false;

  // ExactIn: the hops into the output share the minimum output; ExactOut: the hops out of the input share the maximum input
  const outer = edges.map((e, i) => (mode === 'ExactIn' ? e.outputMint === outputMint : e.inputMint === inputMint) ? i : -1).filter((i) => i >= 0);
  const bounds = new Map<number, bigint>();
  if (mode === 'ExactIn') {
    const weights = outer.map((i) => edges[i].amountOut);
    const shares = shareOut(threshold + feeAmount, weights, weights.reduce((a, b) => a + b, 0n));
    outer.forEach((i, k) => bounds.set(i, shares[k] > edges[i].amountOut ? edges[i].amountOut : shares[k]));
  } else {
    const weights = outer.map((i) => edges[i].amountIn);
    const shares = shareOut(maxRouteIn, weights, weights.reduce((a, b) => a + b, 0n));
    outer.forEach((i, k) => bounds.set(i, shares[k]));
  }

  // the output straight into destinationTokenAccount when the delivering hops can put it there
  const delivering = edges.filter((e) => e.outputMint === outputMint);
  const nativeOut = outputMint === MINTS.SOL && delivering.some((e) => nativeSolHop(e.pool));
  if (req.destinationTokenAccount !== undefined && nativeOut && !delivering.every((e) => nativeSolHop(e.pool))) {
    throw new BuildError('destinationTokenAccount: the output arrives both as native and as wrapped SOL');
  }
  const direct = req.destinationTokenAccount !== undefined && !nativeOut && !(mode === 'ExactIn' && feeAmount > 0n);
  const ctx: Ctx = { src, wallet, ixs: [], units: 0, wsolUsed: false, deliverTo: direct ? req.destinationTokenAccount! : null, outputMint };

  // token accounts: every mint the user receives, plus wrapped SOL whenever a non-native hop uses it
  const twoHop = isWhirlpoolTwoHop(edges, isSplit, (m) => tokenProgramOf(src, m));
  const needsAta = new Set<string>();
  for (const h of twoHop ? [{ ...edges[0], outputMint: edges[1].outputMint }] : edges) {
    if (h.outputMint !== MINTS.SOL || !nativeSolHop(h.pool)) needsAta.add(h.outputMint);
    if (h.inputMint === MINTS.SOL && !nativeSolHop(h.pool)) needsAta.add(MINTS.SOL);
  }
  if (direct) needsAta.delete(outputMint);
  for (const m of needsAta) {
    ctx.ixs.push(createAtaIdempotent(wallet, wallet, m, tokenProgramOf(src, m)));
    ctx.units += ataCreateUnits(wallet, m, tokenProgramOf(src, m));
  }
  if (needsAta.has(MINTS.SOL)) ctx.wsolUsed = true;
  const wsolAta = associatedTokenAddress(wallet, MINTS.SOL);

  // input SOL paid as wrapped SOL: wrap what the wrapped-SOL hops may spend
  if (inputMint === MINTS.SOL && wrapAndUnwrap) {
    let wrap = 0n;
    edges.forEach((e, i) => {
      if (e.inputMint === MINTS.SOL && !nativeSolHop(e.pool)) wrap += mode === 'ExactIn' ? e.amountGiven : bounds.get(i)!;
    });
    if (wrap > 0n) {
      ctx.ixs.push(systemTransfer(wallet, wsolAta, wrap), syncNative(wsolAta));
      ctx.units += INSTRUCTION_UNITS.systemTransfer + INSTRUCTION_UNITS.syncNative;
    }
  }

  // the swaps, edge by edge
  let solNativeProduced = false;
  let solWrappedProduced = false;
  edges.forEach((e, i) => {
    if (twoHop) {
      // one two_hop_swap_v2 for both hops, bounded by the route's outer bound only
      if (i === 1) return;
      const amount = mode === 'ExactIn' ? e.amountGiven : edges[1].amountOut;
      const threshold = mode === 'ExactIn' ? bounds.get(1)! : bounds.get(0)!;
      ctx.ixs.push(
        whirlpoolTwoHopInstruction({
          hops: edges,
          mode,
          amount,
          threshold,
          wallet,
          source: userAccount(ctx, inputMint),
          destination: userAccount(ctx, outputMint),
          tokenProgramOf: (m) => tokenProgramOf(src, m),
        }),
      );
      for (const h of edges) {
        const token2022Sides = [h.inputMint, h.outputMint].filter((m) => m !== MINTS.SOL && tokenProgramOf(src, m) === PROGRAM_IDS.token2022).length;
        ctx.units += swapUnits({ pool: h.pool, inputMint: h.inputMint, mode, amount: mode === 'ExactIn' ? h.amountGiven : h.amountOut, token2022Sides });
      }
      return;
    }
    let amount: bigint;
    let bound: bigint;
    if (mode === 'ExactIn') {
      // the amount the quote was computed for (a budget-style buy may spend a unit less)
      amount = e.amountGiven;
      bound = bounds.get(i) ?? e.amountOut;
    } else {
      amount = e.amountOut;
      bound = bounds.get(i) ?? e.amountIn;
    }
    // intermediate SOL between a native (pump.fun) hop and a wrapped-SOL hop
    if (e.inputMint === MINTS.SOL && e.inputMint !== inputMint) {
      const native = nativeSolHop(e.pool);
      if (!native && solNativeProduced) {
        ctx.ixs.push(systemTransfer(wallet, wsolAta, e.amountGiven), syncNative(wsolAta));
        ctx.units += INSTRUCTION_UNITS.systemTransfer + INSTRUCTION_UNITS.syncNative;
      } else if (native && solWrappedProduced) {
        // closing the wrapped-SOL account makes its lamports (the previous hops' output) spendable
        ctx.ixs.push(closeAccount(wsolAta, wallet, wallet), createAtaIdempotent(wallet, wallet, MINTS.SOL));
        ctx.units += INSTRUCTION_UNITS.closeAccount + ataCreateUnits(wallet, MINTS.SOL, PROGRAM_IDS.token);
        solWrappedProduced = false;
      }
    }
    if (e.outputMint === MINTS.SOL) {
      if (nativeSolHop(e.pool)) solNativeProduced = true;
      else solWrappedProduced = true;
    }
    ctx.ixs.push(hopInstruction(ctx, e.pool, e.inputMint, e.outputMint, mode, amount, bound, e.amountIn, e.amountOut));
    const token2022Sides = [e.inputMint, e.outputMint].filter((m) => m !== MINTS.SOL && tokenProgramOf(src, m) === PROGRAM_IDS.token2022).length;
    ctx.units += swapUnits({ pool: e.pool, inputMint: e.inputMint, mode, amount, token2022Sides });
  });

  // the fees: the configured one to its wallet's ATA, the integrator's to its fee account
  if (feeAmount > 0n) {
    const feeMint = mode === 'ExactIn' ? outputMint : inputMint;
    const feeEdges = outer.map((i) => edges[i]);
    const native = feeMint === MINTS.SOL && feeEdges.every((e) => nativeSolHop(e.pool));
    const serviceFee = feeAmount - platformFeeAmount;
    const prog = native ? PROGRAM_IDS.token : tokenProgramOf(src, feeMint);
    if (!native && feeMint === MINTS.SOL && mode === 'ExactOut' && wrapAndUnwrap) {
      ctx.ixs.push(systemTransfer(wallet, wsolAta, feeAmount), syncNative(wsolAta));
      ctx.units += INSTRUCTION_UNITS.systemTransfer + INSTRUCTION_UNITS.syncNative;
    }
    if (serviceFee > 0n) {
      if (native) {
        ctx.ixs.push(systemTransfer(wallet, req.fee!.wallet, serviceFee));
        ctx.units += INSTRUCTION_UNITS.systemTransfer;
      } else {
        ctx.ixs.push(createAtaIdempotent(wallet, req.fee!.wallet, feeMint, prog));
        ctx.ixs.push(transferChecked(associatedTokenAddress(wallet, feeMint, prog), feeMint, associatedTokenAddress(req.fee!.wallet, feeMint, prog), wallet, serviceFee, decimalsOf(src, feeMint), prog));
        ctx.units += ataCreateUnits(req.fee!.wallet, feeMint, prog) + INSTRUCTION_UNITS.transferChecked;
      }
    }
    if (platformFeeAmount > 0n) {
      const to = req.fee?.platformAccount;
      if (to === undefined) throw new BuildError('an integrator fee without its fee account');
      moveTo(ctx, feeMint, native, to, platformFeeAmount, prog);
    }
  }

  // the output's minimum into destinationTokenAccount, when the hops could not deliver it there
  if (req.destinationTokenAccount !== undefined && !direct) moveTo(ctx, outputMint, nativeOut, req.destinationTokenAccount, threshold, nativeOut ? PROGRAM_IDS.token : tokenProgramOf(src, outputMint));

  // unwrap: every lamport of the wrapped-SOL account back to the wallet
  if (ctx.wsolUsed && wrapAndUnwrap) {
    ctx.ixs.push(closeAccount(wsolAta, wallet, wallet));
    ctx.units += INSTRUCTION_UNITS.closeAccount;
  }

  const budgetCount = req.computeUnitPriceMicroLamports > 0n ? 2 : 1;
  const units = Math.min(MAX_COMPUTE_UNITS, ctx.units + budgetCount * INSTRUCTION_UNITS.computeBudget);
  const budget: TransactionInstruction[] = [setComputeUnitLimit(units)];
  if (req.computeUnitPriceMicroLamports > 0n) budget.push(setComputeUnitPrice(req.computeUnitPriceMicroLamports));
  return {
    mode,
    inputMint,
    outputMint,
    amountIn,
    amountOut,
    feeAmount,
    otherAmountThreshold: threshold,
    routePath: isSplit ? [] : [inputMint, ...edges.map((e) => e.outputMint)],
    hopCount: isSplit ? 0 : edges.length,
    pools: edges.map((e) => e.pool.address),
    isSplitRoute: isSplit,
    splitPercents: [],
    computeUnitsEstimate: units,
    instructions: [...budget, ...ctx.ixs],
  };
}

/**
 * `amount` of `mint` from the user to the token account `to`: TransferChecked from the user's
 * account; native SOL (in the wallet's lamports) as a System transfer and SyncNative.
 */
function moveTo(ctx: Ctx, mint: string, native: boolean, to: string, amount: bigint, prog: string): void {
  if (native) {
    ctx.ixs.push(systemTransfer(ctx.wallet, to, amount), syncNative(to));
    ctx.units += INSTRUCTION_UNITS.systemTransfer + INSTRUCTION_UNITS.syncNative;
    return;
  }
  ctx.ixs.push(transferChecked(associatedTokenAddress(ctx.wallet, mint, prog), mint, to, ctx.wallet, amount, decimalsOf(ctx.src, mint), prog));
  ctx.units += INSTRUCTION_UNITS.transferChecked;
}

/** The token account a hop takes `mint` from or delivers it to: the user's ATA under the mint's token program, or the destination for the output. */
function userAccount(ctx: Ctx, mint: string): string {
  if (ctx.deliverTo !== null && mint === ctx.outputMint) return ctx.deliverTo;
  return associatedTokenAddress(ctx.wallet, mint, tokenProgramOf(ctx.src, mint));
}

/**
 * One hop's swap instruction, from its venue's writer. `amount` / `bound` follow the route mode
 * (ExactIn: exact input / minimum output; ExactOut: exact output / maximum input); sells without
 * an exact-output form pay the quoted input and require `amount` as the minimum output.
 */
function hopInstruction(
  ctx: Ctx,
  pool: Pool,
  inputMint: string,
  outputMint: string,
  mode: SwapMode,
  amount: bigint,
  bound: bigint,
  quotedIn: bigint,
  _quotedOut: bigint,
): TransactionInstruction {
  const source = userAccount(ctx, inputMint);
  const destination = userAccount(ctx, outputMint);
  const writer = venueWriter(pool.programId);
  if (!writer) throw new BuildError(`no instruction builder for pool ${pool.address} (${pool.label})`);
  return writer.hopInstruction({
    pool,
    inputMint,
    outputMint,
    mode,
    amount,
    bound,
    quotedIn,
    wallet: ctx.wallet,
    source,
    destination,
    tokenProgramOf: (m) => tokenProgramOf(ctx.src, m),
    account: (a) => ctx.src.account(a),
  });
}
