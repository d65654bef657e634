import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { VersionedTransaction, type AddressLookupTableAccount, type TransactionInstruction } from '@solana/web3.js';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { type SwapMode } from '@app/amm';
import { ProjectionService } from '../projection/projection.service';
import { ApiError, SAME_MINT_ERROR, toApiError } from '../http/api-error';
import { CHAIN_GATEWAY, type ChainGateway, type SimulationResult } from '../chain/chain-gateway';
import { buildSwap, MissingPoolDataError, type BuiltSwap } from './swap-builder';
import { aggregatorFeeOf, betterNet, findBestNetRoute, withPlatformFee, type AggregatorFee } from '../quote/aggregator-fee';
import { buildQuoteResponse, type QuoteResponse } from '../quote/quote-response';
import { createHash } from 'node:crypto';
import type { Route } from '@app/amm';
import { compileTransaction, LookupTableIndex, measureTransaction, type CompiledTransaction } from './transaction';
import { fitLadder, fitRoute, NoFittingRouteError, type RouteShape } from './fit';
import { setComputeUnitLimit } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import { MAX_COMPUTE_UNITS } from './compute-units';
import { instructionsResult, swapResult, type InstructionsResult, type SwapResult } from './swap-result';
import { controlledSearch, type RouteControls } from '../quote/route-controls';
import { LEVEL_PRICES, levelPrice, unitPrice, withUnitPrice, writableAccounts, type PriorityFee } from './priority-fee';
import { groupInstructions, type InstructionGroups } from './instruction-groups';
import { fundedBy } from './fee-payer';
import { checkAccountBudget, noRouteWithinMaxAccounts, QUOTE_MEASURE_WALLET } from './account-budget';
import { metrics } from '@app/observability';

export interface SwapParams {
  userWallet: string;
  inputMint: string;
  outputMint: string;
  amount: bigint;
  swapMode: SwapMode;
  slippageBps: number;
  /** the request's route controls (none: the plain search) */
  controls?: RouteControls;
  /** build exactly this route (a served quote's, by quoteId): no search, no smaller route when it does not fit */
  fixedRoute?: Route;
  /** the request's priority fee (none: COMPUTE_UNIT_PRICE) */
  priorityFee?: PriorityFee;
  /** the fee payer, when not the user (see fee-payer.ts) */
  payer?: string;
  /** the token account the integrator fee (controls.platformFeeBps) goes to */
  feeAccount?: string;
  /** false: the user's wrapped-SOL account as it is (see swap-builder.ts) */
  wrapAndUnwrapSol?: boolean;
  /** the token account the output goes to (see swap-builder.ts) */
  destinationTokenAccount?: string;
}

/** a build's answer with the quote of the route built (its provenance read before the search): what quotes-served records */
export interface Answered<T> {
  data: T;
  quote: QuoteResponse;
  /** /swap: base64 SHA-256 of the transaction's serialized message (what the wallet signs) */
  messageHash?: string;
}

/**
 * /instructions and /swap: route (as for quote), build (SwapBuilder), and for /swap compile a v0
 * transaction with the chain gateway's latest blockhash and simulate it unless skipped.
 */
@Injectable()
export class SwapService {
  private readonly logger = new Logger('SwapService');
  private readonly tables: LookupTableIndex;
  private readonly fee: AggregatorFee | null;
  private readonly liquid: ReadonlySet<string>;

  constructor(
    private readonly projections: ProjectionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHAIN_GATEWAY) private readonly gateway: ChainGateway,
  ) {
    this.tables = new LookupTableIndex({
      lookupTableAddresses: () => this.projections.projection.lookupTableAddresses(),
      account: (a) => this.projections.projection.account(a),
    });
    this.fee = aggregatorFeeOf(config);
    this.liquid = new Set(config.intermediateTokens);
  }

  /** the fees of a request: the configured one, and its integrator fee to its feeAccount */
  private feeOf(p: Pick<SwapParams, 'controls' | 'feeAccount'>): AggregatorFee | null {
    return withPlatformFee(this.fee, p.controls?.platformFeeBps, p.feeAccount);
  }

  /**
   * Route and build, within the byte budget: the best route whose transaction (with the lookup
   * tables that cover it) fits 1232 bytes (see fit.ts), compiled with `blockhash`. Route errors
   * as for quote; `missing pool data` / `<buildError>` (500) otherwise; a NoFittingRouteError
   * when no route fits (in 1232 bytes and 64 accounts, and the request's maxAccounts).
   */
  private build(
    p: SwapParams,
    buildError: string,
    blockhash: string | null,
  ): { route: Route; quote: () => QuoteResponse; built: BuiltSwap; tables: AddressLookupTableAccount[]; compiled: CompiledTransaction | null } {
    if (p.inputMint === p.outputMint) throw new ApiError(HttpStatus.BAD_REQUEST, SAME_MINT_ERROR);
    const projection = this.projections.projection;
    const contextSlot = projection.slot;
    const logPosition = projection.positions;
    const fixed = p.fixedRoute;
    const payer = p.payer ?? p.userWallet;
    const controls = p.controls ?? {};
    const controlled = controlledSearch(controls, this.config.maxHops, this.liquid, p.inputMint, p.outputMint);
    const fee = this.feeOf(p);
    if (fee?.platformBps && p.feeAccount === undefined) throw new ApiError(HttpStatus.BAD_REQUEST, 'invalid feeAccount');
    const search = (shape: RouteShape | null): Route => {
      if (fixed !== undefined) return fixed;
      const maxHops = Math.min(shape?.maxHops ?? controlled.maxHops, controlled.maxHops);
      const req = { inputMint: p.inputMint, outputMint: p.outputMint, amount: p.amount, mode: p.swapMode, maxHops };
      // as the quote: the best direct route when it nets more after a multi-hop-only fee
      const best = (): Route => metrics.timeQuote(blockhash === null ? 'instructions' : 'swap', () => findBestNetRoute(projection, req, fee, { ...shape?.options, ...controlled.options }));
      if (shape !== null) return best();
      try {
        return best();
      } catch (e) {
        throw toApiError(e) ?? e;
      }
    };
    // the ladder measures each candidate without compiling it (measureTransaction: the size web3.js
    // would compile, checked against it); only the route served is compiled
    const tablesOf = new Map<BuiltSwap, AddressLookupTableAccount[]>();
    try {
      const fitted = fitRoute(
        search,
        (route) => this.buildRoute(route, p),
        (built) => {
          const tables = this.tables.select(payer, built.instructions);
          tablesOf.set(built, tables);
          checkAccountBudget(payer, built.instructions, controls.maxAccounts);
          return measureTransaction(payer, built.instructions, tables.map((t) => this.tables.addressSet(t)));
        },
        fixed !== undefined ? [] : fitLadder(controlled.maxHops),
        (a, b) => betterNet(a, b, fee) === b,
      );
      const tables = tablesOf.get(fitted.built)!;
      const quote = (): QuoteResponse => buildQuoteResponse(fitted.route, { slippageBps: p.slippageBps, contextSlot, logPosition, fee });
      return { route: fitted.route, quote, built: fitted.built, tables, compiled: blockhash === null ? null : compileTransaction(payer, fitted.built.instructions, blockhash, tables) };
    } catch (e) {
      if (e instanceof NoFittingRouteError && controls.maxAccounts !== undefined) throw noRouteWithinMaxAccounts();
      if (e instanceof ApiError || e instanceof NoFittingRouteError) throw e;
      if (e instanceof MissingPoolDataError) {
        this.logger.warn(`missing pool data: ${e.detail}`);
        throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, buildError === 'failed to build instructions' ? 'missing pool data' : buildError);
      }
      this.logger.error(`${buildError}: ${(e as Error).message}`);
      throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, buildError);
    }
  }

  /** the instructions of one route, with the quote's token path, hop count and percents */
  private buildRoute(route: Route, p: SwapParams): BuiltSwap {
    const projection = this.projections.projection;
    const built = buildSwap(
      {
        route,
        userWallet: p.userWallet,
        slippageBps: p.slippageBps,
        fee: this.feeOf(p),
        ...(p.wrapAndUnwrapSol !== undefined ? { wrapAndUnwrapSol: p.wrapAndUnwrapSol } : {}),
        ...(p.destinationTokenAccount !== undefined ? { destinationTokenAccount: p.destinationTokenAccount } : {}),
        // a request's priority fee: a placeholder price that reserves the instruction, set once the unit limit is known
        computeUnitPriceMicroLamports: p.priorityFee !== undefined ? 1n : BigInt(this.config.computeUnitPriceMicroLamports),
      },
      projection,
    );
    // the token path, hop count and per-pool percents exactly as the quote reports them:
    // splitPercents has one entry per pool of `pools` (the route's hops, as the quote's routes),
    // in the same order; every pool of a single path carries the whole amount
    const q = buildQuoteResponse(route, { slippageBps: p.slippageBps, contextSlot: projection.slot, logPosition: {} });
    built.routePath = q.routePath;
    built.hopCount = q.hopCount;
    built.splitPercents = built.isSplitRoute ? q.routes.map((r) => r.percent) : built.pools.map(() => 100);
    if (p.payer !== undefined) built.instructions = fundedBy(built.instructions, p.userWallet, p.payer);
    return built;
  }

  /**
   * The route a quote with maxAccounts serves: the best one whose transaction (measured for a
   * placeholder wallet, with the defaults of /swap) stays within maxAccounts and 1232 bytes.
   */
  quoteRoute(p: Omit<SwapParams, 'userWallet'>): Route {
    // an integrator fee is measured with a placeholder fee account (one account, as the real one)
    return this.build({ ...p, userWallet: QUOTE_MEASURE_WALLET, feeAccount: p.feeAccount ?? QUOTE_MEASURE_WALLET }, 'failed to build transaction', null).route;
  }

  /**
   * The instructions of the best route whose transaction fits 1232 bytes; when none does, those
   * of the best route (a composer may bring its own lookup tables).
   */
  instructions(p: SwapParams): InstructionsResult {
    return this.instructionsAt(p, null).data;
  }

  async swap(p: SwapParams & { skipSimulation: boolean }): Promise<SwapResult> {
    return (await this.answerSwap(p)).data;
  }

  /** instructions(), grouped, with the quote of the route built; a priority level's price from the chain gateway */
  async answerInstructions(p: SwapParams): Promise<Answered<InstructionsResult & InstructionGroups>> {
    return this.instructionsAt(p, async (ixs) => this.levelPriceOf(p.priorityFee, ixs));
  }

  /** the price of the request's priority level for these instructions (0 for the other kinds) */
  private async levelPriceOf(fee: PriorityFee | undefined, instructions: readonly TransactionInstruction[]): Promise<bigint> {
    if (fee?.kind !== 'level') return 0n;
    let recent: number[] | null = null;
    if (this.gateway.recentPrioritizationFees !== undefined) {
      try {
        recent = await this.gateway.recentPrioritizationFees(writableAccounts(instructions));
      } catch (e) {
        this.logger.warn(`getRecentPrioritizationFees: ${(e as Error).message}; the fixed table applies`);
      }
    }
    return levelPrice(fee.level, recent);
  }

  /** the instructions with the request's priority price for their unit limit (`level`: its level's price) */
  private priced(p: SwapParams, built: BuiltSwap, level: bigint): BuiltSwap {
    if (p.priorityFee === undefined) return built;
    return { ...built, instructions: withUnitPrice(built.instructions, unitPrice(p.priorityFee, built.computeUnitsEstimate, level)) };
  }

  private instructionsAt(p: SwapParams, level: null): Answered<InstructionsResult & InstructionGroups>;
  private instructionsAt(p: SwapParams, level: (ixs: readonly TransactionInstruction[]) => Promise<bigint>): Promise<Answered<InstructionsResult & InstructionGroups>>;
  private instructionsAt(
    p: SwapParams,
    level: ((ixs: readonly TransactionInstruction[]) => Promise<bigint>) | null,
  ): Answered<InstructionsResult & InstructionGroups> | Promise<Answered<InstructionsResult & InstructionGroups>> {
    let built: BuiltSwap;
    let tables: AddressLookupTableAccount[];
    let quote: () => QuoteResponse;
    const contextSlot = this.projections.projection.slot;
    const logPosition = this.projections.projection.positions;
    try {
      ({ built, tables, quote } = this.build(p, 'failed to build instructions', null));
    } catch (e) {
      if (!(e instanceof NoFittingRouteError)) throw e;
      const best = e as NoFittingRouteError<BuiltSwap>;
      built = best.best;
      tables = this.tables.select(p.payer ?? p.userWallet, built.instructions);
      quote = () => buildQuoteResponse(best.bestRoute!, { slippageBps: p.slippageBps, contextSlot, logPosition, fee: this.feeOf(p) });
    }
    const answer = (b: BuiltSwap): Answered<InstructionsResult & InstructionGroups> => ({
      data: { ...instructionsResult(b, tables.map((t) => t.key.toBase58())), ...groupInstructions(b.instructions) },
      quote: quote(),
    });
    // without a level to ask the gateway about (the sync path), a level takes its table price
    if (level === null) return answer(this.priced(p, built, p.priorityFee?.kind === 'level' ? LEVEL_PRICES[p.priorityFee.level] : 0n));
    const b0 = built;
    return level(b0.instructions).then((l) => answer(this.priced(p, b0, l)));
  }

  /** swap(), with the quote of the route built and the message hash */
  async answerSwap(p: SwapParams & { skipSimulation: boolean }): Promise<Answered<SwapResult>> {
    if (p.inputMint === p.outputMint) throw new ApiError(HttpStatus.BAD_REQUEST, SAME_MINT_ERROR);
    let latest;
    try {
      latest = await this.gateway.latestBlockhash();
    } catch (e) {
      this.logger.error(`latest blockhash: ${(e as Error).message}`);
      throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, 'failed to build transaction');
    }
    let built: BuiltSwap;
    let compiled: CompiledTransaction;
    let quote: () => QuoteResponse;
    try {
      const b = this.build(p, 'failed to build transaction', latest.blockhash);
      built = b.built;
      compiled = b.compiled!;
      quote = b.quote;
    } catch (e) {
      if (e instanceof NoFittingRouteError) {
        // the API's error text exactly; the reason goes to the log
        this.logger.warn(`failed to build transaction: ${e.message}`);
        throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, 'failed to build transaction');
      }
      throw e;
    }
    const level = await this.levelPriceOf(p.priorityFee, built.instructions);
    if (p.priorityFee !== undefined) ({ built, compiled } = this.withUnitLimit(built, built.computeUnitsEstimate, p, level, latest.blockhash));
    let simulation: SimulationResult | undefined;
    if (!p.skipSimulation) {
      simulation = await this.simulate(compiled);
      if (!simulation.success && isComputeBudgetExceeded(simulation)) {
        // the estimate was short: measure with the most a transaction may use, then set the limit from that
        const roomy = this.withUnitLimit(built, MAX_COMPUTE_UNITS, p, level, latest.blockhash);
        simulation = await this.simulate(roomy.compiled);
      }
      if (!simulation.success) throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, `simulation failed: ${simulation.error}`);
      if (simulation.computeUnitsConsumed > 0) {
        // the sim chain charges the compute-unit model (already an upper bound of the programs'
        // consumption); a node's simulation is the consumption itself and gets the margin
        const limit = this.gateway.kind === 'sim' ? simulation.computeUnitsConsumed : unitLimitFromSimulation(simulation.computeUnitsConsumed);
        ({ built, compiled } = this.withUnitLimit(built, limit, p, level, latest.blockhash));
      }
    }
    const message = VersionedTransaction.deserialize(compiled.bytes).message.serialize();
    return {
      data: swapResult(built, compiled.bytes, latest.lastValidBlockHeight, simulation),
      quote: quote(),
      messageHash: createHash('sha256').update(message).digest('base64'),
    };
  }

  private async simulate(compiled: CompiledTransaction): Promise<SimulationResult> {
    try {
      return await this.gateway.simulate(VersionedTransaction.deserialize(compiled.bytes));
    } catch (e) {
      throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, `simulation failed: ${(e as Error).message}`);
    }
  }

  /** the same swap with another compute unit limit (the first instruction), compiled again (same size) */
  private withUnitLimit(built: BuiltSwap, units: number, p: SwapParams, level: bigint, blockhash: string): { built: BuiltSwap; compiled: CompiledTransaction } {
    const wallet = p.payer ?? p.userWallet;
    const [first, ...rest] = built.instructions;
    if (first.programId.toBase58() !== PROGRAM_IDS.computeBudget || first.data[0] !== 2) throw new Error('the first instruction is not SetComputeUnitLimit');
    // the request's priority price follows the limit (a lamport amount stays within itself)
    const next: BuiltSwap = this.priced(p, { ...built, computeUnitsEstimate: units, instructions: [setComputeUnitLimit(units), ...rest] }, level);
    try {
      return { built: next, compiled: compileTransaction(wallet, next.instructions, blockhash, this.tables.select(wallet, next.instructions)) };
    } catch (e) {
      this.logger.error(`failed to build transaction: ${(e as Error).message}`);
      throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, 'failed to build transaction');
    }
  }
}

export { MAX_COMPUTE_UNITS };
/** headroom over the simulated consumption, percent (state moves between simulation and execution) */
export const COMPUTE_UNIT_MARGIN_PERCENT = 10;

/**
 * the unit limit set after a simulation: the consumption plus COMPUTE_UNIT_MARGIN, rounded up,
 * capped. Integer arithmetic: in floating point `consumed * 1.1` lands just above an integer for
 * many consumptions (100 * 1.1 = 110.00000000000001) and rounding up would add a unit.
 */
export function unitLimitFromSimulation(consumed: number): number {
  const margin = Math.ceil((consumed * COMPUTE_UNIT_MARGIN_PERCENT) / 100);
  return Math.min(MAX_COMPUTE_UNITS, consumed + margin);
}

/** the simulation ran out of compute units (sim chain and RPC wording) */
function isComputeBudgetExceeded(s: SimulationResult): boolean {
  return /ComputationalBudgetExceeded|exceeded CUs meter/.test(s.error + '\n' + s.logs.join('\n'));
}

