import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { VersionedTransaction } from '@solana/web3.js';
import { APP_CONFIG } from '../../../../libs/config/src/config.module';
import type { AppConfig } from '../../../../libs/config/src/config';
import { findBestRoute, type SwapMode } from '../../../../libs/amm/src/routing/route-search';
import { ProjectionService } from '../projection/projection.service';
import { ApiError, SAME_MINT_ERROR, toApiError } from '../http/api-error';
import { CHAIN_GATEWAY, type ChainGateway, type SimulationResult } from '../chain/chain-gateway';
import { buildSwap, MissingPoolDataError, type AggregatorFee, type BuiltSwap } from './swap-builder';
import { buildQuoteResponse } from '../quote/quote-response';
import type { Route } from '../../../../libs/amm/src/routing/route-search';
import { compileTransaction, LookupTableIndex, TransactionTooLargeError } from './transaction';
import { instructionsResult, swapResult, type InstructionsResult, type SwapResult } from './swap-result';

export interface SwapParams {
  userWallet: string;
  inputMint: string;
  outputMint: string;
  amount: bigint;
  swapMode: SwapMode;
  slippageBps: number;
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

  constructor(
    private readonly projections: ProjectionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHAIN_GATEWAY) private readonly gateway: ChainGateway,
  ) {
    this.tables = new LookupTableIndex({
      lookupTableAddresses: () => this.projections.projection.lookupTableAddresses(),
      account: (a) => this.projections.projection.account(a),
    });
    this.fee = config.feeBps > 0 && config.feeWallet ? { bps: config.feeBps, wallet: config.feeWallet, routes: config.feeRoutes } : null;
  }

  /** route and build; route errors as for quote; `missing pool data` / `<buildError>` (500) otherwise */
  private build(p: SwapParams, buildError: string): BuiltSwap {
    if (p.inputMint === p.outputMint) throw new ApiError(HttpStatus.BAD_REQUEST, SAME_MINT_ERROR);
    const projection = this.projections.projection;
    let route: Route;
    try {
      route = findBestRoute(projection, { inputMint: p.inputMint, outputMint: p.outputMint, amount: p.amount, mode: p.swapMode, maxHops: this.config.maxHops });
    } catch (e) {
      throw toApiError(e) ?? e;
    }
    try {
      const built = buildSwap(
        { route, userWallet: p.userWallet, slippageBps: p.slippageBps, fee: this.fee, computeUnitPriceMicroLamports: BigInt(this.config.computeUnitPriceMicroLamports) },
        projection,
      );
      // the token path, hop count and per-pool percents exactly as the quote reports them
      const q = buildQuoteResponse(route, { slippageBps: p.slippageBps, contextSlot: projection.slot, logPosition: {} });
      built.routePath = q.routePath;
      built.hopCount = q.hopCount;
      built.splitPercents = built.isSplitRoute ? q.routes.map((r) => r.percent) : [100];
      return built;
    } catch (e) {
      if (e instanceof MissingPoolDataError) {
        this.logger.warn(`missing pool data: ${e.detail}`);
        throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, buildError === 'failed to build instructions' ? 'missing pool data' : buildError);
      }
      this.logger.error(`${buildError}: ${(e as Error).message}`);
      throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, buildError);
    }
  }

  instructions(p: SwapParams): InstructionsResult {
    const built = this.build(p, 'failed to build instructions');
    const tables = this.tables.select(p.userWallet, built.instructions).map((t) => t.key.toBase58());
    return instructionsResult(built, tables);
  }

  async swap(p: SwapParams & { skipSimulation: boolean }): Promise<SwapResult> {
    const built = this.build(p, 'failed to build transaction');
    let latest;
    try {
      latest = await this.gateway.latestBlockhash();
    } catch (e) {
      this.logger.error(`latest blockhash: ${(e as Error).message}`);
      throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, 'failed to build transaction');
    }
    let compiled;
    try {
      compiled = compileTransaction(p.userWallet, built.instructions, latest.blockhash, this.tables.select(p.userWallet, built.instructions));
    } catch (e) {
      if (e instanceof TransactionTooLargeError) throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, `failed to build transaction: ${e.message}`);
      this.logger.error(`failed to build transaction: ${(e as Error).message}`);
      throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, 'failed to build transaction');
    }
    let simulation: SimulationResult | undefined;
    if (!p.skipSimulation) {
      try {
        simulation = await this.gateway.simulate(VersionedTransaction.deserialize(compiled.bytes));
      } catch (e) {
        throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, `simulation failed: ${(e as Error).message}`);
      }
      if (!simulation.success) throw new ApiError(HttpStatus.INTERNAL_SERVER_ERROR, `simulation failed: ${simulation.error}`);
    }
    return swapResult(built, compiled.bytes, latest.lastValidBlockHeight, simulation);
  }
}
