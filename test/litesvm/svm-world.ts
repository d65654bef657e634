/**
 * A service and the real programs over the same accounts, for the LiteSVM suites and the landing
 * benchmark: a simulated market of the programs whose binaries exist (Whirlpool pools restricted
 * to those the binary can run), its projection, the SwapService of /swap over the sim gateway,
 * and an SvmChain holding the same account bytes. `landSwap` funds a fresh wallet on both, asks
 * the service for the swap, optionally lets something else execute first (an adverse move), sends
 * the service's transaction to the real programs and reports what the wallet paid and received.
 */
import { Keypair } from '@solana/web3.js';
import { SimMarket, type SimProgramName } from '@app/sim/market';
import type { PoolUpdate } from '@app/contracts';
import { loadConfig } from '@app/config';
import { SwapService } from '../../apps/router/src/swap/swap.service';
import type { SwapResult } from '../../apps/router/src/swap/swap-result';
import type { ProjectionService } from '../../apps/router/src/projection/projection.service';
import type { Projection } from '@app/pools';
import { SimChainGateway } from '../../apps/router/src/chain/sim.gateway';
import { LAMPORTS_PER_SIGNATURE, TOKEN_ACCOUNT_RENT } from '../../apps/router/src/chain/sim-chain';
import type { RouteControls } from '../../apps/router/src/quote/route-controls';
import { associatedTokenAddress } from '@app/solana';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { projectionOf } from '../support/projection';
import type { Pool } from '@app/amm';
import { evaluatePath } from '@app/amm';
import { buildSwap } from '../../apps/router/src/swap/swap-builder';
import { compileTransaction, LookupTableIndex } from '../../apps/router/src/swap/transaction';
import { SvmChain, whirlpoolRunsOnBinary, type SvmOutcome } from './svm-chain';

export type RealProgram = Extract<SimProgramName, 'orca-whirlpool' | 'raydium-cpmm' | 'raydium-amm-v4'>;
export const REAL_PROGRAM_NAMES: readonly RealProgram[] = ['orca-whirlpool', 'raydium-cpmm', 'raydium-amm-v4'];

export interface SvmWorld {
  market: SimMarket;
  /** the accounts both sides hold (the market's genesis, without the Whirlpools the binary cannot run) */
  updates: PoolUpdate[];
  projection: Projection;
  service: SwapService;
  gateway: SimChainGateway;
  svm: SvmChain;
}

export function svmWorld(opts: {
  seed: number;
  pools: number;
  tokens: number;
  programs: readonly RealProgram[];
  env?: Record<string, string>;
  /** accounts neither side gets */
  drop?: (u: PoolUpdate) => boolean;
}): SvmWorld {
  const market = new SimMarket({ seed: opts.seed, pools: opts.pools, tokens: opts.tokens, swapsPerSlot: 0, programs: opts.programs, lookupTables: true });
  const all = market.genesis();
  const whole = projectionOf(all);
  const skip = new Set(
    market
      .allPools()
      .filter((p) => p.program === 'orca-whirlpool' && !whirlpoolRunsOnBinary(whole, p.address))
      .map((p) => p.address),
  );
  const updates = all.filter((u) => !skip.has(u.address) && !(opts.drop?.(u) ?? false));
  const projection = projectionOf(updates);
  const gateway = new SimChainGateway(() => projection);
  const config = loadConfig({ DATA_DIR: 'unused', ...opts.env });
  const service = new SwapService({ projection } as unknown as ProjectionService, config, gateway);
  const svm = new SvmChain();
  svm.setClock(market.slot + 1, market.unixTime);
  resetAccounts({ svm, updates });
  return { market, updates, projection, service, gateway, svm };
}

/** every account back to the bytes the service quoted from */
export function resetAccounts(w: Pick<SvmWorld, 'svm' | 'updates'>): void {
  w.svm.load(w.updates);
  w.svm.addCpmmObservations(w.updates);
}

export interface SwapAsk {
  inputMint: string;
  outputMint: string;
  amount: bigint;
  swapMode: 'ExactIn' | 'ExactOut';
  slippageBps: number;
  /** the request's route controls (e.g. one program's direct pools for a per-program sweep) */
  controls?: RouteControls;
}

export interface LandedSwap {
  result: SwapResult;
  outcome: SvmOutcome;
  /** what left the wallet of the input mint (SOL: lamports net of the fee and kept rent) */
  paid: bigint;
  /** what arrived of the output mint (SOL: lamports net of the fee and kept rent) */
  received: bigint;
  wallet: string;
}

const WALLET_LAMPORTS = 1n << 62n;

/**
 * Fund a fresh wallet with SOL and `2 × maxAmountIn` of the input, ask the service for the swap
 * (simulated on the sim gateway unless `skipSimulation`), run `before` (e.g. another trader's
 * swap) and send the transaction to the real programs. Accounts are reset first.
 */
export async function landSwap(w: SvmWorld, ask: SwapAsk, o: { skipSimulation?: boolean; before?: (r: SwapResult) => void } = {}): Promise<LandedSwap> {
  resetAccounts(w);
  const wallet = Keypair.generate().publicKey.toBase58();
  // the budget the wallet holds of the input: enough for any quote of this size
  const budget = ask.swapMode === 'ExactIn' ? ask.amount : (1n << 62n);
  w.gateway.fund(wallet, null, WALLET_LAMPORTS);
  if (ask.inputMint !== MINTS.SOL) w.gateway.fund(wallet, ask.inputMint, budget);
  const result = await w.service.swap({ userWallet: wallet, ...ask, skipSimulation: o.skipSimulation ?? false });
  w.svm.airdrop(wallet, WALLET_LAMPORTS);
  const held = ask.inputMint === MINTS.SOL ? 0n : ask.swapMode === 'ExactIn' ? ask.amount : BigInt(result.maxAmountIn);
  if (ask.inputMint !== MINTS.SOL) w.svm.fundToken(wallet, ask.inputMint, held);
  o.before?.(result);
  const mints = [...new Set([...result.route, ask.inputMint, ask.outputMint])].filter((m) => m !== MINTS.SOL);
  const ata = (m: string): string => associatedTokenAddress(wallet, m, w.svm.account(m)?.owner ?? PROGRAM_IDS.token);
  const existed = new Map(mints.map((m) => [m, w.svm.account(ata(m)) !== undefined]));
  const tokensBefore = new Map(mints.map((m) => [m, w.svm.tokenAmount(ata(m))]));
  const lamportsBefore = w.svm.lamports(wallet);
  const outcome = w.svm.send(Buffer.from(result.transaction, 'base64'));
  const created = mints.filter((m) => !existed.get(m) && w.svm.account(ata(m)) !== undefined).length;
  // the fee: one signature plus the priority fee of the requested units
  const limit = BigInt(result.computeUnitsEstimate);
  const price = BigInt(w.service['config'].computeUnitPriceMicroLamports);
  const fee = LAMPORTS_PER_SIGNATURE + (limit * price + 999_999n) / 1_000_000n;
  const solNet = outcome.success ? w.svm.lamports(wallet) - lamportsBefore + fee + TOKEN_ACCOUNT_RENT * BigInt(created) : 0n;
  const delta = (m: string): bigint => (m === MINTS.SOL ? solNet : w.svm.tokenAmount(ata(m)) - tokensBefore.get(m)!);
  return { result, outcome, paid: -delta(ask.inputMint), received: delta(ask.outputMint), wallet };
}

/** the routable pools of a program with their two mints */
export function poolPairs(w: SvmWorld, program: RealProgram): Array<{ pool: string; mintA: string; mintB: string }> {
  const id = { 'orca-whirlpool': PROGRAM_IDS.orcaWhirlpool, 'raydium-cpmm': PROGRAM_IDS.raydiumCpmm, 'raydium-amm-v4': PROGRAM_IDS.raydiumAmmV4 }[program];
  return w.projection
    .markets()
    .filter((m) => m.routable && m.programId === id)
    .map((m) => ({ pool: m.address, mintA: m.mintA!, mintB: m.mintB! }));
}

/**
 * Another trader's swap executed on the real program first: `amount` of `inputMint` into `pool`
 * (the user's own direction moves the price against the user). Returns whether it landed.
 */
export function tradeFirst(w: SvmWorld, pool: Pool, inputMint: string, amount: bigint): boolean {
  const trader = Keypair.generate().publicKey.toBase58();
  const outputMint = inputMint === pool.mintA ? pool.mintB : pool.mintA;
  const route = evaluatePath({ pools: [pool], mints: [inputMint, outputMint] }, 'ExactIn', amount);
  const built = buildSwap({ route, userWallet: trader, slippageBps: 10_000, fee: null, computeUnitPriceMicroLamports: 0n }, w.projection);
  w.svm.airdrop(trader, WALLET_LAMPORTS);
  if (inputMint !== MINTS.SOL) w.svm.fundToken(trader, inputMint, amount);
  const tables = new LookupTableIndex({ lookupTableAddresses: () => w.projection.lookupTableAddresses(), account: (a) => w.projection.account(a) });
  const bytes = compileTransaction(trader, built.instructions, w.svm.svm.latestBlockhash(), tables.select(trader, built.instructions)).bytes;
  return w.svm.send(bytes).success;
}

/** the input that moves a pool's price by about `bps` (a constant-product estimate from its reserve) */
export function moveSize(pool: Pool, inputMint: string, bps: number): bigint {
  return BigInt(Math.max(1, Math.floor((pool.reserve(inputMint) * bps) / 20_000)));
}
