import { Body, Controller, HttpCode, HttpStatus, Inject, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { QUOTE_ID_HEADER } from '../http/quote-id';
import { BuildAudit } from './build-audit';
import type { BuildTarget } from './by-quote';
import { VersionedTransaction } from '@solana/web3.js';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { ApiError, SAME_MINT_ERROR, UNKNOWN_PARAMETER } from '../http/api-error';
import { ApiErrorTexts, type ErrorTexts } from '../http/api-errors';
import { NO_ROUTE_WITHIN_MAX_ACCOUNTS } from './account-budget';
import { QUOTE_ID_ERRORS } from '../quote/served-quotes';
import { InstructionsEnvelopeDto, SwapEnvelopeDto } from './swap-result.dto';
import { CHAIN_GATEWAY, type ChainGateway, type SimulationResult } from '../chain/chain-gateway';
import { SimChainGateway } from '../chain/sim.gateway';
import { priorityFeeOf } from './priority-fee.dto';
import { createSwapBodyPipe, FaucetBodyDto, InstructionsBodyDto, SendBodyDto, SwapBodyDto } from './swap-body.dto';
import { SwapService } from './swap.service';
import type { InstructionsResult, SwapResult } from './swap-result';

const pipe = createSwapBodyPipe();
const ERRORS =
  'Errors (envelope {success:false, error}): unknown parameter <name> (400: a field this API does not know); invalid user wallet, invalid inputMint, invalid outputMint, invalid amount, invalid swapMode, ' +
  'invalid slippageBps, invalid <route control> (400, first invalid field in that order); same mints (400); no pool found / no route found (404); insufficient liquidity (400); ' +
  'no route within maxAccounts (404); with quoteId: quoteId does not match <field>, <route control> not allowed with quoteId, allowRequote needs quoteId (400), ' +
  `quote not found (404), quote state moved on (409, unless allowRequote). Every answer is recorded on quotes-served; its id is in the ${QUOTE_ID_HEADER} response header`;
/** the error texts /swap and /instructions share (API.md §7: the quote errors and the wallet's; with quoteId, its own) */
const ROUTE_ERRORS = {
  400: [
    `${UNKNOWN_PARAMETER} <name>`,
    'invalid user wallet',
    'invalid <field>',
    SAME_MINT_ERROR,
    'insufficient liquidity',
    'quoteId does not match <field>',
    '<route control> not allowed with quoteId',
    'allowRequote needs quoteId',
  ],
  404: ['no pool found', 'no route found', NO_ROUTE_WITHIN_MAX_ACCOUNTS, QUOTE_ID_ERRORS.notFound],
  409: [QUOTE_ID_ERRORS.moved],
} as const satisfies ErrorTexts;
const QUOTE_ID_HEADER_DOC = { [QUOTE_ID_HEADER]: { description: 'id of the quotes-served audit record of this answer', schema: { type: 'string' } } };

/** the builder's parameters of a request's target, with the body's transaction options */
function paramsOf(b: InstructionsBodyDto, t: BuildTarget) {
  return {
    userWallet: b.userWallet,
    ...t.params,
    controls: t.controls,
    ...(t.fixedRoute !== undefined ? { fixedRoute: t.fixedRoute } : {}),
    ...(b.payer !== undefined ? { payer: b.payer } : {}),
    ...(b.feeAccount !== undefined ? { feeAccount: b.feeAccount } : {}),
    ...(b.wrapAndUnwrapSol !== undefined ? { wrapAndUnwrapSol: b.wrapAndUnwrapSol } : {}),
    ...(b.destinationTokenAccount !== undefined ? { destinationTokenAccount: b.destinationTokenAccount } : {}),
  };
}

@ApiTags('swap')
@Controller('api/v1')
export class SwapController {
  constructor(
    private readonly swaps: SwapService,
    private readonly builds: BuildAudit,
  ) {}

  @Post('swap')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Unsigned version-0 transaction for the best route',
    description:
      `${ERRORS}; simulation failed: <details> (500); failed to build transaction (500; also when no route fits 1232 bytes: ` +
      'a best route too large gives way to the best one with fewer split branches, a single path, or fewer hops that fits). ' +
      'With the simulation, the compute unit limit is the simulated consumption + 10% (computeUnitsEstimate); without, the estimate. ' +
      'minAmountOut and maxAmountIn are always present: ExactIn → minAmountOut = slippage-adjusted minimum output, maxAmountIn = amountIn; ' +
      'ExactOut → maxAmountIn = slippage-adjusted maximum input, minAmountOut = amountOut. `simulation` only when skipSimulation is false.',
  })
  @ApiOkResponse({ type: SwapEnvelopeDto, headers: QUOTE_ID_HEADER_DOC })
  @ApiErrorTexts({ ...ROUTE_ERRORS, 500: ['simulation failed: <details>', 'failed to build transaction'] }, { body: true })
  async swap(@Body(pipe) b: SwapBodyDto, @Res({ passthrough: true }) res: Response): Promise<{ success: true; data: SwapResult }> {
    const t = this.builds.target(b);
    const answered = await this.swaps.answerSwap({ ...paramsOf(b, t), ...priorityFeeOf(b), skipSimulation: b.skipSimulation ?? false });
    this.builds.record('swap', b.userWallet, t, answered, res);
    return { success: true, data: answered.data };
  }

  @Post('instructions')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Raw instructions for the best route',
    description:
      `${ERRORS}; failed to build instructions (500); missing pool data (500). RawInstruction.data is base64. ` +
      'The list starts with ComputeBudget instructions (unit limit, and unit price when configured) that a composer may replace.',
  })
  @ApiOkResponse({ type: InstructionsEnvelopeDto, headers: QUOTE_ID_HEADER_DOC })
  @ApiErrorTexts({ ...ROUTE_ERRORS, 500: ['failed to build instructions', 'missing pool data'] }, { body: true })
  async instructions(@Body(pipe) b: InstructionsBodyDto, @Res({ passthrough: true }) res: Response): Promise<{ success: true; data: InstructionsResult }> {
    const t = this.builds.target(b);
    const answered = await this.swaps.answerInstructions({ ...paramsOf(b, t), ...priorityFeeOf(b) });
    this.builds.record('instructions', b.userWallet, t, answered, res);
    return { success: true, data: answered.data };
  }
}

const simPipe = createSwapBodyPipe();

/**
 * The sim chain's faucet and send: only with CHAIN_GATEWAY=sim, and with AUTH_MODE=keys only
 * when SIM_ENDPOINTS=on (404 `not found` otherwise, as for a route that does not exist); a
 * faucet call credits at most SIM_FAUCET_MAX.
 */
@ApiTags('sim')
@Controller('api/v1/sim')
export class SimChainController {
  constructor(
    @Inject(CHAIN_GATEWAY) private readonly gateway: ChainGateway,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private sim(): SimChainGateway {
    if (!this.config.simEndpoints || !(this.gateway instanceof SimChainGateway)) throw new ApiError(HttpStatus.NOT_FOUND, 'not found');
    return this.gateway;
  }

  @Post('faucet')
  @HttpCode(200)
  @ApiOperation({ summary: 'Fund a wallet on the sim chain (like a devnet faucet): lamports, or tokens into its associated token account' })
  faucet(@Body(simPipe) b: FaucetBodyDto): { success: true; data: { wallet: string; mint: string | null; account: string; balance: string } } {
    const sim = this.sim();
    if (BigInt(b.amount) > this.config.simFaucetMax) throw new ApiError(HttpStatus.BAD_REQUEST, `amount over the faucet's cap of ${this.config.simFaucetMax} per call`);
    try {
      const r = sim.fund(b.wallet, b.mint ?? null, BigInt(b.amount));
      return { success: true, data: { wallet: b.wallet, mint: b.mint ?? null, account: r.account, balance: r.balance.toString() } };
    } catch (e) {
      throw new ApiError(HttpStatus.BAD_REQUEST, (e as Error).message);
    }
  }

  @Post('send')
  @HttpCode(200)
  @ApiOperation({ summary: 'Execute a /swap transaction on the sim chain and keep its effects (signatures are not checked)' })
  send(@Body() b: SendBodyDto): { success: true; data: SimulationResult } {
    const sim = this.sim();
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(Buffer.from(String(b?.transaction ?? ''), 'base64'));
    } catch {
      throw new ApiError(HttpStatus.BAD_REQUEST, 'invalid transaction');
    }
    const { success, error, insufficientFunds, slippageExceeded, computeUnitsConsumed, logs } = sim.execute(tx, true);
    return { success: true, data: { success, error, insufficientFunds, slippageExceeded, computeUnitsConsumed, logs } };
  }
}
