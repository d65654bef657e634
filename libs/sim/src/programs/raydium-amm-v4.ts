/**
 * Raydium AMM v4 in the simulated market: 752-byte AmmInfo accounts (SwapOnly, as mainnet pools
 * are since the order book was switched off; the program's 0.25% swap fee) and their coin / pc
 * vaults owned by the program authority (nonce 254). "pc" is the quote side: SOL, USDC or USDT
 * when the pair has one. Swaps go through `ammV4ApplySwap` (the program's exact transition) and
 * update the AmmInfo swap statistics and recent epoch as the program does. Legacy SPL Token
 * mints only (AMM v4 does not support Token-2022).
 */
import type { PoolUpdate } from '@app/contracts';
import { PoolQuoteError } from '@app/amm';
import { ammV4ApplySwap, ammV4Reserves, type AmmV4SwapResult } from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import { AMM_V4_STATUS, ammV4Authority, encodeAmmV4Info, type AmmV4Info } from '@app/solana';
import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { base58Encode } from '@app/solana';
import { encodeSerumMarket, serumVaultSignerNonce } from '@app/solana';
import { buyA, cpGap, randomKey, sized, towards, type SimContext, type SimVault, type SwapDraw, isqrt } from '../context';
import type { Prng } from '../prng';
import type { PlannedPool, SimPoolInfo, SimProgram, SimSwap } from './program';
import { clampDepth } from './raydium-cpmm';

const PROGRAM = PROGRAM_IDS.raydiumAmmV4;
const NONCE = 254n;
const OPENBOOK = 'srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX';
const AMM_OWNER = 'GThUX1Atko4tqhN2NaiTazWSeFWMuiUvfFnyJyUghFMJ';

export interface SimAmmV4Pool {
  address: string;
  info: AmmV4Info;
  coin: SimVault;
  pc: SimVault;
  tiny: boolean;
}

/** a key of the simulated market's order-book side, derived from the market address */
function marketKey(market: string, label: string): string {
  return base58Encode(createHash('sha256').update(`${market}/${label}`).digest());
}

export class RaydiumAmmV4Sim implements SimProgram {
  readonly name = 'raydium-amm-v4' as const;
  readonly tierWeights = [1];
  readonly ammPools: SimAmmV4Pool[] = [];
  readonly pools: SimPoolInfo[] = [];

  pickTier(): number {
    return 0;
  }

  accepts(ctx: SimContext, a: number, b: number): boolean {
    return ctx.tokens[a].program === PROGRAM_IDS.token && ctx.tokens[b].program === PROGRAM_IDS.token && !ctx.tokens[a].pump && !ctx.tokens[b].pump;
  }

  build(ctx: SimContext, rng: Prng, plans: PlannedPool[]): void {
    const authority = ammV4Authority(NONCE);
    for (const plan of plans) {
      // pc (quote) = the anchor side when there is one
      const anchorA = plan.a <= 2;
      const anchorB = plan.b <= 2;
      let [coin, pc] = anchorB && !anchorA ? [plan.a, plan.b] : anchorA && !anchorB ? [plan.b, plan.a] : ctx.ordered(plan.a, plan.b);
      if (anchorA && anchorB) [coin, pc] = plan.a < plan.b ? [plan.a, plan.b] : [plan.b, plan.a]; // SOL/USDC: coin SOL
      const depthUsd = clampDepth(ctx, coin, pc, plan.depthUsd);
      const coinAmount = ctx.raw(coin, depthUsd * rng.range(0.9975, 1.0025));
      const pcAmount = ctx.raw(pc, depthUsd);
      const tc = ctx.tokens[coin];
      const tp = ctx.tokens[pc];
      const address = randomKey(rng);
      const info: AmmV4Info = {
        status: BigInt(AMM_V4_STATUS.swapOnly),
        nonce: NONCE,
        orderNum: 7n,
        depth: 3n,
        coinDecimals: BigInt(tc.decimals),
        pcDecimals: BigInt(tp.decimals),
        state: 2n,
        resetFlag: 0n,
        minSize: 10n ** BigInt(Math.max(0, tc.decimals - 3)),
        volMaxCutRatio: 500n,
        amountWave: 500_000n,
        coinLotSize: 10n ** BigInt(Math.max(0, tc.decimals - 4)),
        pcLotSize: 10n ** BigInt(Math.max(0, tp.decimals - 4)),
        minPriceMultiplier: 1n,
        maxPriceMultiplier: 1_000_000_000n,
        sysDecimalValue: 10n ** BigInt(tc.decimals),
        fees: {
          minSeparateNumerator: 5n,
          minSeparateDenominator: 10_000n,
          tradeFeeNumerator: 25n,
          tradeFeeDenominator: 10_000n,
          pnlNumerator: 12n,
          pnlDenominator: 100n,
          swapFeeNumerator: 25n,
          swapFeeDenominator: 10_000n,
        },
        stateData: {
          needTakePnlCoin: 0n,
          needTakePnlPc: 0n,
          totalPnlPc: 0n,
          totalPnlCoin: 0n,
          poolOpenTime: BigInt(1_650_000_000 + rng.int(0, 90_000_000)),
          padding: [0n, 0n],
          orderbookToInitTime: 0n,
          swapCoinInAmount: 0n,
          swapPcOutAmount: 0n,
          swapAccPcFee: 0n,
          swapPcInAmount: 0n,
          swapCoinOutAmount: 0n,
          swapAccCoinFee: 0n,
        },
        coinVault: randomKey(rng),
        pcVault: randomKey(rng),
        coinVaultMint: tc.mint,
        pcVaultMint: tp.mint,
        lpMint: randomKey(rng),
        openOrders: randomKey(rng),
        market: randomKey(rng),
        marketProgram: OPENBOOK,
        targetOrders: randomKey(rng),
        padding1: [0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n],
        ammOwner: AMM_OWNER,
        lpAmount: isqrt(coinAmount * pcAmount),
        clientOrderId: 0n,
        recentEpoch: ctx.epoch,
        padding2: 0n,
      };
      this.ammPools.push({
        address,
        info,
        coin: ctx.vault(info.coinVault, coin, authority, coinAmount),
        pc: ctx.vault(info.pcVault, pc, authority, pcAmount),
        tiny: plan.tiny,
      });
      this.pools.push({ program: this.name, address, tokenA: coin, tokenB: pc, routable: true, tiny: plan.tiny });
    }
  }

  sharedAccounts(): void {
    // AMM v4 has no config account a swap reads
  }

  poolAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    this.changedAccounts(ctx, i, out);
    out.push(ctx.record(this.ammPools[i].info.market, OPENBOOK, this.marketData(i)));
  }

  changedAccounts(ctx: SimContext, i: number, out: PoolUpdate[]): void {
    const p = this.ammPools[i];
    out.push(ctx.vaultRecord(p.coin));
    out.push(ctx.vaultRecord(p.pc));
    out.push(ctx.record(p.address, PROGRAM, encodeAmmV4Info(p.info)));
  }

  /**
   * The pool's OpenBook market account (never changes: the book is switched off). Its queue,
   * book and vault keys are derived from the market address (not drawn from the generator, so
   * the market's draws stay as they were); the vault-signer nonce is searched as the DEX does.
   */
  private marketData(i: number): Buffer {
    const p = this.ammPools[i];
    const derive = (label: string): string => marketKey(p.info.market, label);
    return encodeSerumMarket({
      address: p.info.market,
      vaultSignerNonce: serumVaultSignerNonce(p.info.market, OPENBOOK),
      coinMint: p.info.coinVaultMint,
      pcMint: p.info.pcVaultMint,
      coinVault: derive('coin-vault'),
      pcVault: derive('pc-vault'),
      requestQueue: derive('request-queue'),
      eventQueue: derive('event-queue'),
      bids: derive('bids'),
      asks: derive('asks'),
      coinLotSize: 1n,
      pcLotSize: 1n,
      feeRateBps: 0n,
    });
  }

  swap(ctx: SimContext, i: number, draw: SwapDraw): SimSwap | null {
    const p = this.ammPools[i];
    const mode = draw.exactIn ? 'ExactIn' : 'ExactOut';
    try {
      const { coin, pc } = ammV4Reserves(p.info, p.coin.amount, p.pc.amount);
      const tc = ctx.tokens[p.coin.token];
      const tp = ctx.tokens[p.pc.token];
      const poolPrice = Number(pc) / 10 ** tp.decimals / (Number(coin) / 10 ** tc.decimals);
      const latent = ctx.latent(p.coin.token, p.pc.token);
      const coinToPc = !buyA(poolPrice, latent, draw.u);
      const base = draw.exactIn ? (coinToPc ? coin : pc) : coinToPc ? pc : coin;
      const rawLatent = ctx.latentRaw(p.coin.token, p.pc.token);
      const gap = coinToPc ? cpGap(coin, pc, rawLatent, draw.exactIn) : cpGap(pc, coin, 1 / rawLatent, draw.exactIn);
      const amount = sized(BigInt(Math.floor(Number(base) * draw.fraction)), towards(poolPrice, latent, !coinToPc), gap);
      if (amount <= 0n) return null;
      const next = ammV4ApplySwap(p.info, p.coin.amount, p.pc.amount, coinToPc, mode, amount);
      const r: AmmV4SwapResult = next.result;
      const sd = { ...p.info.stateData };
      if (coinToPc) {
        sd.swapCoinInAmount += r.amountIn;
        sd.swapPcOutAmount += r.amountOut;
        sd.swapAccCoinFee += r.fee;
      } else {
        sd.swapPcInAmount += r.amountIn;
        sd.swapCoinOutAmount += r.amountOut;
        sd.swapAccPcFee += r.fee;
      }
      p.info = { ...p.info, stateData: sd, recentEpoch: ctx.epoch };
      p.coin.amount = next.coinVault;
      p.pc.amount = next.pcVault;
      return { program: this.name, pool: i, address: p.address, aToB: coinToPc, mode, amount, result: r };
    } catch (e) {
      if (e instanceof PoolQuoteError) return null;
      throw e;
    }
  }

  /**
   * the pool's authority, open orders and target orders, the market's book, queue and vault keys
   * and its vault signer: a swap lists them too
   */
  lookupExtras(i: number): string[] {
    const info = this.ammPools[i].info;
    const m = info.market;
    const nonce = Buffer.alloc(8);
    nonce.writeBigUInt64LE(serumVaultSignerNonce(m, OPENBOOK), 0);
    const signer = PublicKey.createProgramAddressSync([new PublicKey(m).toBuffer(), nonce], new PublicKey(OPENBOOK)).toBase58();
    return [ammV4Authority(info.nonce), info.openOrders, info.targetOrders, ...['coin-vault', 'pc-vault', 'event-queue', 'bids', 'asks'].map((l) => marketKey(m, l)), signer, OPENBOOK];
  }

  forget(): void {
    // every write of a pool is rebuilt from its state
  }

  holdings(held: bigint[]): void {
    for (const p of this.ammPools) {
      held[p.coin.token] += p.coin.amount;
      held[p.pc.token] += p.pc.amount;
    }
  }
}
