/**
 * PumpSwap AMM in the simulated market: the GlobalConfig (PDA ["global_config"]), PumpSwap's
 * FeeConfig (pump fees program: market-cap tiers for canonical pools, flat fees for the others),
 * Pool accounts at their PDA ["pool", index, creator, base, quote] and the pool token accounts
 * (associated token accounts of the pool). Two kinds of pools:
 *  - canonical pools of pump.fun coins whose curve completed (creator = pump.fun's pool authority
 *    of the coin, quote = wrapped SOL): tiered fees;
 *  - other pools (random creator) of a general token against SOL or USDC: flat fees. Base mints may
 *    be Token-2022 (transfer fees included).
 * Trades go through the program's math (buy, buy_exact_quote_in, sell) and `pumpAmmApplyTrade`.
 */
import type { PoolUpdate } from '@app/contracts';
import { PoolQuoteError } from '@app/amm';
import {
  pumpAmmApplyTrade,
  pumpAmmBuyExactBase,
  pumpAmmBuyExactQuoteIn,
  pumpAmmFeeBps,
  pumpAmmSellExactBase,
  pumpAmmSellForQuote,
  type PumpAmmBuy,
  type PumpAmmSell,
} from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import {
  encodePumpAmmGlobalConfig,
  encodePumpAmmPool,
  pumpAmmCoinCreatorVaultAuthority,
  type PumpAmmGlobalConfig,
  type PumpAmmPoolState,
} from '@app/solana';
import {
  PUMP_BUYBACK_FEE_RECIPIENTS,
  pumpAmmBuybackFeeRecipient,
  pumpAmmEventAuthority,
  pumpAmmGlobalVolumeAccumulator,
  pumpAmmPoolV2,
  pumpAmmProtocolFeeRecipient,
} from '@app/solana';
import { DEFAULT_PUBKEY, PUMP_FEES_PROGRAM_ID, encodePumpFeeConfig, type PumpFeeConfig } from '@app/solana';
import { associatedTokenAddress, buyA, cpGap, pda, sized, towards, randomKey, raw, type SimContext, type SimVault, type SwapDraw } from '../context';
import type { Prng } from '../prng';
import type { PlannedPool, SimPoolInfo, SimProgram, SimSwap } from './program';
import type { Migration } from './pump-fun';
import { clampDepth } from './raydium-cpmm';

const PROGRAM = PROGRAM_IDS.pumpSwapAmm;

export interface SimPumpPool {
  address: string;
  state: PumpAmmPoolState;
  base: SimVault;
  quote: SimVault;
  canonical: boolean;
  tiny: boolean;
}

function fees(lp: number, protocol: number, creator: number) {
  return { lpFeeBps: BigInt(lp), protocolFeeBps: BigInt(protocol), creatorFeeBps: BigInt(creator) };
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

export class PumpSwapSim implements SimProgram {
  readonly name = 'pump-amm' as const;
  readonly tierWeights = [1];
  readonly pumpPools: SimPumpPool[] = [];
  readonly pools: SimPoolInfo[] = [];
  globalConfig!: PumpAmmGlobalConfig;
  feeConfig!: PumpFeeConfig;
  globalConfigAddress = '';
  feeConfigAddress = '';
  private shared = false;

  pickTier(): number {
    return 0;
  }

  /** a general token against SOL or USDC (the quote side) */
  accepts(ctx: SimContext, a: number, b: number): boolean {
    const quoteOk = (q: number, base: number) => (q === 0 || q === 1) && base > 2 && !ctx.tokens[base].pump;
    return quoteOk(a, b) || quoteOk(b, a);
  }

  private buildShared(rng: Prng): void {
    if (this.shared) return;
    this.shared = true;
    this.globalConfigAddress = pda(PROGRAM, ['global_config'])[0];
    const [feeConfigAddress, bump] = pda(PUMP_FEES_PROGRAM_ID, ['fee_config', raw(PROGRAM)]);
    this.feeConfigAddress = feeConfigAddress;
    this.globalConfig = {
      admin: randomKey(rng),
      lpFeeBasisPoints: 20n,
      protocolFeeBasisPoints: 5n,
      disableFlags: 0,
      protocolFeeRecipients: Array.from({ length: 8 }, () => randomKey(rng)),
      coinCreatorFeeBasisPoints: 5n,
      adminSetCoinCreatorAuthority: randomKey(rng),
      whitelistPda: DEFAULT_PUBKEY,
      reservedFeeRecipient: randomKey(rng),
      mayhemModeEnabled: false,
      reservedFeeRecipients: Array.from({ length: 7 }, () => randomKey(rng)),
      isCashbackEnabled: false,
      // the 8 recipients the upgraded program's GlobalConfig lists (a swap pays one of them)
      buybackFeeRecipients: [...PUMP_BUYBACK_FEE_RECIPIENTS],
      buybackBasisPoints: 0n,
    };
    this.feeConfig = {
      bump,
      admin: randomKey(rng),
      flatFees: fees(25, 5, 0),
      feeTiers: [
        { marketCapLamportsThreshold: 0n, fees: fees(2, 93, 30) },
        { marketCapLamportsThreshold: 420_000_000_000n, fees: fees(20, 5, 95) },
        { marketCapLamportsThreshold: 1_470_000_000_000n, fees: fees(20, 5, 85) },
        { marketCapLamportsThreshold: 98_240_000_000_000n, fees: fees(20, 5, 5) },
      ],
      stableFeeTiers: [],
    };
  }

  build(ctx: SimContext, rng: Prng, plans: PlannedPool[]): void {
    this.buildShared(rng);
    for (const plan of plans) {
      const [quote, base] = plan.a === 0 || plan.a === 1 ? [plan.a, plan.b] : [plan.b, plan.a];
      const depthUsd = clampDepth(ctx, base, quote, plan.depthUsd);
      this.add(ctx, rng, base, quote, randomKey(rng), ctx.raw(base, depthUsd * rng.range(0.9975, 1.0025)), ctx.raw(quote, depthUsd), false, plan.tiny, rng.chance(0.5) ? randomKey(rng) : DEFAULT_PUBKEY);
    }
  }

  /** canonical pools of curves that completed (pump.fun migrate) */
  buildMigrated(ctx: SimContext, rng: Prng, migrations: readonly Migration[]): void {
    this.buildShared(rng);
    for (const m of migrations) {
      const authority = pda(PROGRAM_IDS.pumpFun, ['pool-authority', raw(ctx.tokens[m.token].mint)])[0];
      this.add(ctx, rng, m.token, 0, authority, m.baseAmount, m.quoteAmount, true, false, m.creator);
    }
  }

  private add(
    ctx: SimContext,
    rng: Prng,
    base: number,
    quote: number,
    creator: string,
    baseAmount: bigint,
    quoteAmount: bigint,
    canonical: boolean,
    tiny: boolean,
    coinCreator: string,
  ): void {
    const tb = ctx.tokens[base];
    const tq = ctx.tokens[quote];
    const le = Buffer.alloc(2);
    const [address, poolBump] = pda(PROGRAM, ['pool', le, raw(creator), raw(tb.mint), raw(tq.mint)]);
    const state: PumpAmmPoolState = {
      poolBump,
      index: 0,
      creator,
      baseMint: tb.mint,
      quoteMint: tq.mint,
      lpMint: pda(PROGRAM, ['pool_lp_mint', raw(address)])[0],
      poolBaseTokenAccount: associatedTokenAddress(address, tb.mint, tb.program),
      poolQuoteTokenAccount: associatedTokenAddress(address, tq.mint, tq.program),
      lpSupply: isqrt(baseAmount * quoteAmount),
      coinCreator,
      isMayhemMode: false,
      isCashbackCoin: false,
    };
    this.pumpPools.push({
      address,
      state,
      base: ctx.vault(state.poolBaseTokenAccount, base, address, baseAmount),
      quote: ctx.vault(state.poolQuoteTokenAccount, quote, address, quoteAmount),
      canonical,
      tiny,
    });
    this.pools.push({ program: this.name, address, tokenA: base, tokenB: quote, routable: true, tiny });
    void rng;
  }

  sharedAccounts(ctx: SimContext, out: PoolUpdate[]): void {
    if (!this.shared) return;
    out.push(ctx.record(this.globalConfigAddress, PROGRAM, encodePumpAmmGlobalConfig(this.globalConfig)));
    out.push(ctx.record(this.feeConfigAddress, PUMP_FEES_PROGRAM_ID, encodePumpFeeConfig(this.feeConfig)));
  }

  poolAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    const p = this.pumpPools[i];
    out.push(ctx.vaultRecord(p.base));
    out.push(ctx.vaultRecord(p.quote));
    out.push(ctx.record(p.address, PROGRAM, encodePumpAmmPool(p.state)));
  }

  /** a trade changes the two pool token accounts only (the Pool account stays as it is) */
  changedAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    const p = this.pumpPools[i];
    out.push(ctx.vaultRecord(p.base));
    out.push(ctx.vaultRecord(p.quote));
  }

  swap(ctx: SimContext, i: number, draw: SwapDraw): SimSwap | null {
    const p = this.pumpPools[i];
    const mode = draw.exactIn ? 'ExactIn' : 'ExactOut';
    const baseReserve = p.base.amount;
    const quoteReserve = p.quote.amount;
    try {
      const tb = ctx.tokens[p.base.token];
      const tq = ctx.tokens[p.quote.token];
      const f = pumpAmmFeeBps({
        globalConfig: this.globalConfig,
        feeConfig: this.feeConfig,
        pool: p.state,
        canonical: p.canonical,
        baseMintSupply: tb.supply,
        baseReserve,
        quoteReserve,
      });
      const poolPrice = Number(quoteReserve) / 10 ** tq.decimals / (Number(baseReserve) / 10 ** tb.decimals);
      // pump coins follow their own pool (no latent drift): trade both ways evenly
      const latent = ctx.latent(p.base.token, p.quote.token);
      const buy = tb.pump ? draw.u < 0.5 : buyA(poolPrice, latent, draw.u);
      const rawLatent = ctx.latentRaw(p.base.token, p.quote.token);
      // pump coins trade freely; others stop at the latent price (noise trades are small)
      const cap = (amount: bigint, gap: bigint): bigint => (tb.pump ? amount : sized(amount, towards(poolPrice, latent, buy), gap));
      let amount: bigint;
      let t: PumpAmmBuy | PumpAmmSell;
      if (buy) {
        amount = cap(
          BigInt(Math.floor(Number(draw.exactIn ? quoteReserve : baseReserve) * draw.fraction)),
          cpGap(quoteReserve, baseReserve, 1 / rawLatent, draw.exactIn),
        );
        if (amount <= 0n) return null;
        t = draw.exactIn ? pumpAmmBuyExactQuoteIn(baseReserve, quoteReserve, f, amount) : pumpAmmBuyExactBase(baseReserve, quoteReserve, f, amount);
      } else {
        amount = cap(
          BigInt(Math.floor(Number(draw.exactIn ? baseReserve : quoteReserve) * draw.fraction)),
          cpGap(baseReserve, quoteReserve, rawLatent, draw.exactIn),
        );
        if (amount <= 0n) return null;
        t = draw.exactIn ? pumpAmmSellExactBase(baseReserve, quoteReserve, f, amount) : pumpAmmSellForQuote(baseReserve, quoteReserve, f, amount);
      }
      const next = pumpAmmApplyTrade(baseReserve, quoteReserve, t);
      if (next.baseVault > baseReserve) ctx.credit(p.base, next.baseVault - baseReserve);
      else p.base.amount = next.baseVault;
      if (next.quoteVault > quoteReserve) ctx.credit(p.quote, next.quoteVault - quoteReserve);
      else p.quote.amount = next.quoteVault;
      if (tb.pump) tb.priceUsd = (Number(p.quote.amount) / Number(p.base.amount)) * 10 ** (tb.decimals - tq.decimals) * tq.priceUsd;
      // token A is the base: a sell is A → B
      return { program: this.name, pool: i, address: p.address, aToB: !buy, mode, amount, result: t };
    } catch (e) {
      if (e instanceof PoolQuoteError) return null;
      throw e;
    }
  }

  forget(): void {
    // every write of a pool is rebuilt from its state
  }

  /**
   * what every buy and sell lists besides the GlobalConfig and fee config: event authority, volume
   * accumulator, and per quote mint the protocol fee recipient (the reserved one too when a pool
   * is in mayhem mode) and the buyback fee recipient with their quote token accounts
   */
  lookupShared(ctx: SimContext): string[] {
    if (!this.shared) return [];
    const gc = this.globalConfig;
    const out = [pumpAmmEventAuthority(), pumpAmmGlobalVolumeAccumulator()];
    const seen = new Set<string>();
    for (const p of this.pumpPools) {
      const q = ctx.tokens[p.quote.token];
      const key = `${q.mint}:${p.state.isMayhemMode}`;
      if (seen.has(key)) continue;
      seen.add(key);
      for (const r of [pumpAmmProtocolFeeRecipient(gc, p.state.isMayhemMode), pumpAmmBuybackFeeRecipient(gc)]) {
        if (r !== undefined) out.push(r, associatedTokenAddress(r, q.mint, q.program));
      }
    }
    return out;
  }

  /** the coin creator's vault authority and its quote token account, and pool-v2 of a pool with a coin creator (a swap lists them) */
  lookupExtras(i: number, ctx: SimContext): string[] {
    const p = this.pumpPools[i];
    const q = ctx.tokens[p.quote.token];
    const authority = pumpAmmCoinCreatorVaultAuthority(p.state.coinCreator);
    const out = [associatedTokenAddress(authority, q.mint, q.program), authority];
    if (p.state.coinCreator !== DEFAULT_PUBKEY) out.push(pumpAmmPoolV2(p.state.baseMint));
    return out;
  }

  holdings(held: bigint[]): void {
    for (const p of this.pumpPools) {
      held[p.base.token] += p.base.amount;
      held[p.quote.token] += p.quote.amount;
    }
  }
}
