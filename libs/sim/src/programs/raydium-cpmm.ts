/**
 * Raydium CPMM in the simulated market: AmmConfig accounts for the real fee tiers (indices 0..3:
 * 0.25%, 1%, 2%, 4%; protocol 12% / fund 4% of the trade fee) at their PDAs, PoolState accounts at
 * the canonical pool PDA (token0Mint < token1Mint bytewise), vault / LP-mint / observation PDAs,
 * and the vault token accounts (owner field = the CPMM authority PDA). Swaps go through
 * `cpmmApplySwap`, the program's exact state transition. LP mint and observation accounts are
 * referenced but not written (the router needs neither).
 */
import type { PoolUpdate } from '@app/contracts';
import { PoolQuoteError } from '@app/amm';
import { cpmmApplySwap, cpmmReserves, type CpmmSwapResult } from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import {
  CPMM_SEEDS,
  cpmmAuthority,
  encodeCpmmAmmConfig,
  encodeCpmmPoolState,
  type CpmmAmmConfig,
  type CpmmPoolState,
} from '@app/solana';
import { buyA, cpGap, pda, sized, towards, randomKey, raw, type SimContext, type SimVault, type SwapDraw, isqrt } from '../context';
import type { Prng } from '../prng';
import type { PlannedPool, SimPoolInfo, SimProgram, SimSwap } from './program';

const PROGRAM = PROGRAM_IDS.raydiumCpmm;
/** Real Raydium CPMM fee tiers (AmmConfig index → trade fee rate, millionths). */
const FEE_TIERS: readonly { index: number; tradeFeeRate: bigint }[] = [
  { index: 0, tradeFeeRate: 2500n },
  { index: 1, tradeFeeRate: 10000n },
  { index: 2, tradeFeeRate: 20000n },
  { index: 3, tradeFeeRate: 40000n },
];
const PROTOCOL_OWNER = 'ProCXqRcXJjoUd1RNoo28bSizAA6EEqt9wURZYPDc5u';
const FUND_OWNER = 'FUNDduJTA7XcckKHKfAoEnnhuSud2JUCUZv6opWEjrBU';

export interface SimFeeTier {
  address: string;
  config: CpmmAmmConfig;
}

export interface SimPool {
  address: string;
  /** index into `feeTiers` */
  tier: number;
  /** indices into `tokens` (token0 sorts first bytewise) */
  token0: number;
  token1: number;
  state: CpmmPoolState;
  vault0: bigint;
  vault1: bigint;
  /** deliberately tiny liquidity */
  tiny: boolean;
}

/** the deepest USD depth a side of this token can take without passing 1e17 raw */
export function maxDepthUsd(t: { priceUsd: number; decimals: number }): number {
  return (1e17 / 10 ** t.decimals) * t.priceUsd;
}

/** the USD value of 10,000 smallest units of this token */
export function minDepthUsd(t: { priceUsd: number; decimals: number }): number {
  return (10_000 / 10 ** t.decimals) * t.priceUsd;
}

/** a pool's depth clamped so that both sides fit (and neither rounds to a handful of units) */
export function clampDepth(ctx: SimContext, a: number, b: number, depthUsd: number): number {
  const ta = ctx.tokens[a];
  const tb = ctx.tokens[b];
  return Math.max(Math.min(depthUsd, maxDepthUsd(ta), maxDepthUsd(tb)), minDepthUsd(ta), minDepthUsd(tb));
}

export class RaydiumCpmmSim implements SimProgram {
  readonly name = 'raydium-cpmm' as const;
  readonly tierWeights = [0.5, 0.3, 0.12, 0.08];
  readonly feeTiers: SimFeeTier[] = [];
  readonly cpmmPools: SimPool[] = [];
  readonly pools: SimPoolInfo[] = [];
  private authority = '';
  private withheld: [bigint, bigint][] = [];

  pickTier(rng: Prng): number {
    return rng.weighted([0, 1, 2, 3], this.tierWeights);
  }

  accepts(): boolean {
    return true;
  }

  build(ctx: SimContext, rng: Prng, plans: PlannedPool[]): void {
    const [authority, authBump] = pda(PROGRAM, [CPMM_SEEDS.authority]);
    this.authority = authority;
    for (const { index, tradeFeeRate } of FEE_TIERS) {
      const be = Buffer.alloc(2);
      be.writeUInt16BE(index, 0);
      const [address, bump] = pda(PROGRAM, [CPMM_SEEDS.ammConfig, be]);
      this.feeTiers.push({
        address,
        config: {
          bump,
          disableCreatePool: false,
          index,
          tradeFeeRate,
          protocolFeeRate: 120000n,
          fundFeeRate: 40000n,
          createPoolFee: 150_000_000n,
          protocolOwner: PROTOCOL_OWNER,
          fundOwner: FUND_OWNER,
          creatorFeeRate: 500n,
        },
      });
    }
    const epoch = ctx.epoch;
    const tierKey = this.feeTiers.map((t) => raw(t.address));
    for (const plan of plans) {
      const [i0, i1] = ctx.ordered(plan.a, plan.b);
      const t0 = ctx.tokens[i0];
      const t1 = ctx.tokens[i1];
      const tier = this.feeTiers[plan.tier];
      const [address] = pda(PROGRAM, [CPMM_SEEDS.pool, tierKey[plan.tier], ctx.mintBytes[i0], ctx.mintBytes[i1]]);
      const poolKey = raw(address);
      // the pool price starts a little off the latent price (up to ±0.5%); both sides are scaled
      // together so that a capped side never skews the pool's price
      const depthUsd = clampDepth(ctx, i0, i1, plan.depthUsd);
      const vault0 = ctx.raw(i0, depthUsd * rng.range(0.9975, 1.0025));
      const vault1 = ctx.raw(i1, depthUsd);
      const state: CpmmPoolState = {
        ammConfig: tier.address,
        poolCreator: randomKey(rng),
        token0Vault: pda(PROGRAM, [CPMM_SEEDS.poolVault, poolKey, ctx.mintBytes[i0]])[0],
        token1Vault: pda(PROGRAM, [CPMM_SEEDS.poolVault, poolKey, ctx.mintBytes[i1]])[0],
        lpMint: pda(PROGRAM, [CPMM_SEEDS.poolLpMint, poolKey])[0],
        token0Mint: t0.mint,
        token1Mint: t1.mint,
        token0Program: t0.program,
        token1Program: t1.program,
        observationKey: pda(PROGRAM, [CPMM_SEEDS.observation, poolKey])[0],
        authBump,
        status: 0,
        lpMintDecimals: 9,
        mint0Decimals: t0.decimals,
        mint1Decimals: t1.decimals,
        lpSupply: isqrt(vault0 * vault1),
        protocolFeesToken0: 0n,
        protocolFeesToken1: 0n,
        fundFeesToken0: 0n,
        fundFeesToken1: 0n,
        openTime: BigInt(1_700_000_000 + rng.int(0, 30_000_000)),
        recentEpoch: epoch,
        creatorFeeOn: plan.variant ? rng.int(0, 2) : 0,
        enableCreatorFee: plan.variant,
        creatorFeesToken0: 0n,
        creatorFeesToken1: 0n,
      };
      this.cpmmPools.push({ address, tier: plan.tier, token0: i0, token1: i1, state, vault0, vault1, tiny: plan.tiny });
      this.pools.push({ program: this.name, address, tokenA: i0, tokenB: i1, routable: true, tiny: plan.tiny });
      this.withheld.push([0n, 0n]);
    }
  }

  sharedAccounts(ctx: SimContext, out: PoolUpdate[]): void {
    for (const t of this.feeTiers) out.push(ctx.record(t.address, PROGRAM, encodeCpmmAmmConfig(t.config)));
  }

  poolAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    const p = this.cpmmPools[i];
    const [w0, w1] = this.withheld[i];
    out.push(ctx.vaultRecord(this.vaultOf(p.state.token0Vault, p.token0, p.vault0, w0)));
    out.push(ctx.vaultRecord(this.vaultOf(p.state.token1Vault, p.token1, p.vault1, w1)));
    out.push(ctx.record(p.address, PROGRAM, encodeCpmmPoolState(p.state)));
  }

  changedAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    this.poolAccounts(ctx, i, out);
  }

  swap(ctx: SimContext, i: number, draw: SwapDraw): SimSwap | null {
    const pool = this.cpmmPools[i];
    const tier = this.feeTiers[pool.tier].config;
    const mode = draw.exactIn ? 'ExactIn' : 'ExactOut';
    try {
      const { reserve0, reserve1 } = cpmmReserves(pool.state, pool.vault0, pool.vault1);
      const t0 = ctx.tokens[pool.token0];
      const t1 = ctx.tokens[pool.token1];
      // pool price of token0 in token1 (whole tokens) vs the latent one
      const poolPrice = Number(reserve1) / 10 ** t1.decimals / (Number(reserve0) / 10 ** t0.decimals);
      const latent = ctx.latent(pool.token0, pool.token1);
      const zeroForOne = !buyA(poolPrice, latent, draw.u);
      const base = draw.exactIn ? (zeroForOne ? reserve0 : reserve1) : zeroForOne ? reserve1 : reserve0;
      const rawLatent = ctx.latentRaw(pool.token0, pool.token1);
      const gap = zeroForOne ? cpGap(reserve0, reserve1, rawLatent, draw.exactIn) : cpGap(reserve1, reserve0, 1 / rawLatent, draw.exactIn);
      const amount = sized(BigInt(Math.floor(Number(base) * draw.fraction)), towards(poolPrice, latent, !zeroForOne), gap);
      if (amount <= 0n) return null;
      const next = cpmmApplySwap(pool.state, tier, pool.vault0, pool.vault1, zeroForOne, mode, amount);
      pool.state = { ...next.state, recentEpoch: ctx.epoch };
      // a transfer-fee mint withholds its fee in the receiving vault on top of what the pool takes in
      const w = this.withheld[i];
      if (zeroForOne) w[0] += withheldOn(ctx, pool.token0, next.vault0 - pool.vault0);
      else w[1] += withheldOn(ctx, pool.token1, next.vault1 - pool.vault1);
      pool.vault0 = next.vault0;
      pool.vault1 = next.vault1;
      return { program: this.name, pool: i, address: pool.address, aToB: zeroForOne, mode, amount, result: next.result as CpmmSwapResult };
    } catch (e) {
      if (e instanceof PoolQuoteError) return null;
      throw e;
    }
  }

  forget(): void {
    // every write of a pool is rebuilt from its state
  }

  /** the vault and LP mint authority: every swap lists it */
  lookupShared(): string[] {
    return [cpmmAuthority()];
  }

  /** the pool's observation account (a swap lists and writes it; the market does not write it) */
  lookupExtras(i: number): string[] {
    return [this.cpmmPools[i].state.observationKey];
  }

  holdings(held: bigint[]): void {
    for (const p of this.cpmmPools) {
      held[p.token0] += p.vault0;
      held[p.token1] += p.vault1;
    }
  }

  private vaultOf(address: string, token: number, amount: bigint, withheld: bigint): SimVault {
    return { address, token, authority: this.authority, amount, withheld };
  }
}

function withheldOn(ctx: SimContext, token: number, net: bigint): bigint {
  const v: SimVault = { address: '', token, authority: '', amount: 0n, withheld: 0n };
  ctx.credit(v, net);
  return v.withheld;
}
