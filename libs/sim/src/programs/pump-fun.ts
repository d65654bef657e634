/**
 * pump.fun in the simulated market: the Global account (mainnet launch parameters: 1,073,000,000
 * virtual tokens, 30 virtual SOL, 793,100,000 real tokens of a 1,000,000,000 supply, 6 decimals),
 * pump.fun's FeeConfig (fees tiered by market cap, pump fees program), and one BondingCurve per
 * pump coin at its PDA with the curve's associated token account (which reveals the coin's mint)
 * and the coin's mint. Curves start at various stages: early, mid, near completion (a few SOL
 * from the end) and complete (migrated: real reserves moved to a canonical PumpSwap pool that
 * PumpSwapSim creates). Trades go through the program's math (buy, buy_exact_sol_in, sell) and
 * `pumpFunApplyBuy` / `pumpFunApplySell`; a curve that sells its last real token completes and
 * stops trading.
 */
import type { PoolUpdate } from '@app/contracts';
import { PoolQuoteError } from '@app/amm';
import {
  pumpFunApplyBuy,
  pumpFunApplySell,
  pumpFunBuyExactSolIn,
  pumpFunBuyExactTokens,
  pumpFunFeeBps,
  pumpFunSellExactTokens,
  pumpFunSellForSol,
  type PumpFunBuy,
  type PumpFunSell,
} from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import {
  PUMP_BUYBACK_FEE_RECIPIENTS,
  pumpFunBondingCurveV2,
  pumpFunBuybackFeeRecipient,
  pumpFunEventAuthority,
  pumpFunGlobalVolumeAccumulator,
} from '@app/solana';
import {
  DEFAULT_PUBKEY,
  PUMP_FEES_PROGRAM_ID,
  encodePumpBondingCurve,
  encodePumpFeeConfig,
  encodePumpGlobal,
  pumpCreatorVaultAddress,
  type PumpBondingCurve,
  type PumpFeeConfig,
  type PumpGlobal,
} from '@app/solana';
import { associatedTokenAddress, pda, randomKey, raw, rentExemptLamports, type SimContext, type SimVault, type SwapDraw } from '../context';
import type { Prng } from '../prng';
import type { SimPoolInfo, SimProgram, SimSwap } from './program';

const PROGRAM = PROGRAM_IDS.pumpFun;
export const PUMP_DECIMALS = 6;
export const PUMP_TOTAL_SUPPLY = 1_000_000_000_000_000n;
export const PUMP_INITIAL_VIRTUAL_TOKENS = 1_073_000_000_000_000n;
export const PUMP_INITIAL_VIRTUAL_SOL = 30_000_000_000n;
export const PUMP_INITIAL_REAL_TOKENS = 793_100_000_000_000n;
/** tokens kept on the curve's account for the migration (supply - initial real tokens) */
const RESERVED_TOKENS = PUMP_TOTAL_SUPPLY - PUMP_INITIAL_REAL_TOKENS;

export type CurveStage = 'early' | 'mid' | 'near-complete' | 'complete';

export interface SimCurve {
  address: string;
  /** index into the market's tokens (the coin) */
  token: number;
  curve: PumpBondingCurve;
  /** the curve's associated token account of the coin */
  tokenAccount: SimVault;
  stage: CurveStage;
}

/** What PumpSwapSim needs to create the canonical pool of a curve that completed before genesis. */
export interface Migration {
  token: number;
  creator: string;
  baseAmount: bigint;
  quoteAmount: bigint;
}

function fees(lp: number, protocol: number, creator: number) {
  return { lpFeeBps: BigInt(lp), protocolFeeBps: BigInt(protocol), creatorFeeBps: BigInt(creator) };
}

/** pump.fun's fee tiers by market cap (lamports) */
const CURVE_FEE_TIERS = [
  { marketCapLamportsThreshold: 0n, fees: fees(0, 95, 30) },
  { marketCapLamportsThreshold: 420_000_000_000n, fees: fees(0, 93, 95) },
  { marketCapLamportsThreshold: 1_470_000_000_000n, fees: fees(0, 90, 75) },
  { marketCapLamportsThreshold: 2_460_000_000_000n, fees: fees(0, 85, 50) },
];

function keys(rng: Prng, n: number): string[] {
  return Array.from({ length: n }, () => randomKey(rng));
}

export class PumpFunSim implements SimProgram {
  readonly name = 'pump-fun' as const;
  readonly tierWeights = [1];
  readonly curves: SimCurve[] = [];
  readonly pools: SimPoolInfo[] = [];
  readonly migrations: Migration[] = [];
  global!: PumpGlobal;
  feeConfig!: PumpFeeConfig;
  globalAddress = '';
  feeConfigAddress = '';

  pickTier(): number {
    return 0;
  }

  accepts(): boolean {
    return false; // curves come with their own coins, never from the general planner
  }

  build(): void {
    throw new Error('pump.fun curves are built with buildCurves()');
  }

  /** the stage of each of `count` curves: 45% early, 30% mid, 15% near completion, 10% complete */
  planStages(rng: Prng, count: number): CurveStage[] {
    return Array.from({ length: count }, () => {
      const r = rng.next();
      return r < 0.45 ? 'early' : r < 0.75 ? 'mid' : r < 0.9 ? 'near-complete' : 'complete';
    });
  }

  /** one curve per stage, each with a new coin (added to the market's tokens) */
  buildCurves(ctx: SimContext, rng: Prng, stages: readonly CurveStage[]): void {
    this.globalAddress = pda(PROGRAM, ['global'])[0];
    const [feeConfigAddress, feeBump] = pda(PUMP_FEES_PROGRAM_ID, ['fee_config', raw(PROGRAM)]);
    this.feeConfigAddress = feeConfigAddress;
    this.global = {
      initialized: true,
      authority: randomKey(rng),
      feeRecipient: randomKey(rng),
      initialVirtualTokenReserves: PUMP_INITIAL_VIRTUAL_TOKENS,
      initialVirtualSolReserves: PUMP_INITIAL_VIRTUAL_SOL,
      initialRealTokenReserves: PUMP_INITIAL_REAL_TOKENS,
      tokenTotalSupply: PUMP_TOTAL_SUPPLY,
      feeBasisPoints: 95n,
      withdrawAuthority: randomKey(rng),
      enableMigrate: true,
      poolMigrationFee: 15_000_001n,
      creatorFeeBasisPoints: 30n,
      feeRecipients: keys(rng, 7),
      setCreatorAuthority: randomKey(rng),
      adminSetCreatorAuthority: randomKey(rng),
      createV2Enabled: true,
      whitelistPda: DEFAULT_PUBKEY,
      reservedFeeRecipient: randomKey(rng),
      mayhemModeEnabled: false,
      reservedFeeRecipients: keys(rng, 7),
      isCashbackEnabled: false,
      // the 8 recipients the upgraded program's Global lists (a swap pays one of them)
      buybackFeeRecipients: [...PUMP_BUYBACK_FEE_RECIPIENTS],
      buybackBasisPoints: 0n,
      initialVirtualQuoteReserves: PUMP_INITIAL_VIRTUAL_SOL,
      whitelistedQuoteMints: [DEFAULT_PUBKEY],
    };
    this.feeConfig = {
      bump: feeBump,
      admin: randomKey(rng),
      flatFees: fees(0, 95, 30),
      feeTiers: CURVE_FEE_TIERS,
      stableFeeTiers: [],
    };
    const sol = ctx.tokens[0];
    for (let k = 0; k < stages.length; k++) {
      const mint = randomKey(rng);
      const stage = stages[k];
      const soldShare =
        stage === 'early' ? rng.range(0, 0.3) : stage === 'mid' ? rng.range(0.3, 0.9) : stage === 'near-complete' ? rng.range(0.985, 0.9995) : 1;
      const sold = stage === 'complete' ? PUMP_INITIAL_REAL_TOKENS : BigInt(Math.floor(Number(PUMP_INITIAL_REAL_TOKENS) * soldShare));
      const vT = PUMP_INITIAL_VIRTUAL_TOKENS - sold;
      const k0 = PUMP_INITIAL_VIRTUAL_TOKENS * PUMP_INITIAL_VIRTUAL_SOL;
      const vQ = (k0 + vT - 1n) / vT;
      const raised = vQ - PUMP_INITIAL_VIRTUAL_SOL;
      const creator = rng.chance(0.9) ? randomKey(rng) : DEFAULT_PUBKEY;
      const complete = stage === 'complete';
      const curve: PumpBondingCurve = {
        virtualTokenReserves: vT,
        virtualQuoteReserves: vQ,
        realTokenReserves: complete ? 0n : PUMP_INITIAL_REAL_TOKENS - sold,
        // a migrated curve hands its SOL and reserved tokens to the PumpSwap pool
        realQuoteReserves: complete ? 0n : raised,
        tokenTotalSupply: PUMP_TOTAL_SUPPLY,
        complete,
        creator,
        isMayhemMode: false,
        isCashbackCoin: false,
        quoteMint: DEFAULT_PUBKEY,
      };
      // whole-token price in SOL from the curve (lamports per raw unit × 10^(6-9))
      const priceSol = (Number(vQ) / Number(vT)) * 10 ** (PUMP_DECIMALS - 9);
      const token = ctx.addToken({
        mint,
        symbol: `PUMP${k + 1}`,
        decimals: PUMP_DECIMALS,
        priceUsd: priceSol * sol.priceUsd,
        stable: false,
        mintAuthority: null,
        freezeAuthority: null,
        supply: PUMP_TOTAL_SUPPLY,
        program: PROGRAM_IDS.token,
        transferFee: null,
        pump: true,
      });
      const address = pda(PROGRAM, ['bonding-curve', raw(mint)])[0];
      const ata = associatedTokenAddress(address, mint, PROGRAM_IDS.token);
      const held = complete ? 0n : curve.realTokenReserves + RESERVED_TOKENS;
      this.curves.push({ address, token, curve, tokenAccount: ctx.vault(ata, token, address, held), stage });
      this.pools.push({ program: this.name, address, tokenA: token, tokenB: 0, routable: !complete, tiny: false });
      if (complete) {
        // migrate: the pool gets the reserved tokens and the SOL raised, less the migration fee
        this.migrations.push({ token, creator, baseAmount: RESERVED_TOKENS, quoteAmount: raised - this.global.poolMigrationFee });
      }
    }
  }

  sharedAccounts(ctx: SimContext, out: PoolUpdate[]): void {
    if (!this.global) return;
    out.push(ctx.record(this.globalAddress, PROGRAM, encodePumpGlobal(this.global)));
    out.push(ctx.record(this.feeConfigAddress, PUMP_FEES_PROGRAM_ID, encodePumpFeeConfig(this.feeConfig)));
  }

  poolAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    const c = this.curves[i];
    out.push(ctx.vaultRecord(c.tokenAccount));
    const data = encodePumpBondingCurve(c.curve);
    // the curve account holds its SOL as lamports on top of its rent reserve
    out.push(ctx.record(c.address, PROGRAM, data, rentExemptLamports(data.length) + c.curve.realQuoteReserves));
  }

  changedAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    this.poolAccounts(ctx, i, out);
  }

  swap(ctx: SimContext, i: number, draw: SwapDraw): SimSwap | null {
    const c = this.curves[i];
    const curve = c.curve;
    const buy = draw.u < 0.5;
    const mode = draw.exactIn ? 'ExactIn' : 'ExactOut';
    try {
      const f = pumpFunFeeBps(this.global, this.feeConfig, curve);
      let amount: bigint;
      let result: PumpFunBuy | PumpFunSell;
      if (buy) {
        amount = draw.exactIn
          ? BigInt(Math.floor(Number(curve.virtualQuoteReserves) * draw.fraction))
          : BigInt(Math.floor(Number(curve.realTokenReserves) * draw.fraction));
        if (amount <= 0n) return null;
        result = draw.exactIn ? pumpFunBuyExactSolIn(curve, f, amount) : pumpFunBuyExactTokens(curve, f, amount);
        c.curve = pumpFunApplyBuy(curve, result as PumpFunBuy);
        ctx.debit(c.tokenAccount, (result as PumpFunBuy).tokensOut);
      } else {
        // sellers hold what was bought from the curve
        const sold = PUMP_INITIAL_REAL_TOKENS - curve.realTokenReserves;
        amount = draw.exactIn
          ? BigInt(Math.floor(Number(sold) * draw.fraction))
          : BigInt(Math.floor(Number(curve.realQuoteReserves) * draw.fraction));
        if (amount <= 0n) return null;
        result = draw.exactIn ? pumpFunSellExactTokens(curve, f, amount) : pumpFunSellForSol(curve, f, amount);
        if ((result as PumpFunSell).tokensIn > sold) return null;
        c.curve = pumpFunApplySell(curve, result as PumpFunSell);
        ctx.credit(c.tokenAccount, (result as PumpFunSell).tokensIn);
      }
      const t = ctx.tokens[c.token];
      t.priceUsd = (Number(c.curve.virtualQuoteReserves) / Number(c.curve.virtualTokenReserves)) * 10 ** (PUMP_DECIMALS - 9) * ctx.tokens[0].priceUsd;
      if (c.curve.complete) c.stage = 'complete';
      // token A is the coin, B is SOL: a buy is B → A
      return { program: this.name, pool: i, address: c.address, aToB: !buy, mode, amount, result };
    } catch (e) {
      if (e instanceof PoolQuoteError) return null;
      throw e;
    }
  }

  forget(): void {
    // every write of a curve is rebuilt from its state
  }

  /** what every buy and sell lists besides the Global and fee config: fee recipient, event authority, volume accumulator, buyback fee recipient */
  lookupShared(): string[] {
    if (!this.global) return [];
    return [this.global.feeRecipient, pumpFunEventAuthority(), pumpFunGlobalVolumeAccumulator(), pumpFunBuybackFeeRecipient(this.global)];
  }

  /** the curve's creator vault and bonding-curve-v2 (a swap lists them; the market does not write them) */
  lookupExtras(i: number, ctx: SimContext): string[] {
    const c = this.curves[i];
    return [pumpCreatorVaultAddress(c.curve.creator), pumpFunBondingCurveV2(ctx.tokens[c.token].mint)];
  }

  holdings(): void {
    // coins have a fixed supply (minted at creation)
  }
}
