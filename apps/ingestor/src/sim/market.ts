/**
 * SimMarket: a seeded, deterministic simulated market written as real on-chain accounts.
 *
 * Everything is a Raydium CPMM market over SPL Token mints, in the programs' own byte layouts:
 *  - SPL Token `Mint` accounts (82 bytes) for SOL, USDC, USDT (their real mainnet mints) and
 *    generated tokens (32 seeded random bytes → base58);
 *  - Raydium CPMM `AmmConfig` accounts for the real fee tiers (indices 0..3: 0.25%, 1%, 2%, 4%,
 *    protocol 12% / fund 4% of the trade fee), at their real PDA addresses;
 *  - CPMM `PoolState` accounts at the canonical pool PDA, with vault / LP-mint / observation PDAs,
 *    token0Mint < token1Mint bytewise as the program requires;
 *  - the pools' vault token accounts (owner field = the CPMM authority PDA, amount = reserve).
 *
 * Each slot a few seeded swaps move pools through `cpmmApplySwap` (the exact on-chain state
 * transition), so vault balances and fees owed evolve exactly as on chain. Latent USD prices
 * drift, and swap directions lean towards the latent price (arbitrage-like), so pools stay
 * consistent with each other.
 *
 * Deterministic: no Math.random, no clock. The same options give a byte-identical sequence of
 * updates. LP mint and observation accounts are referenced by the pools but not emitted (the
 * router needs neither to quote).
 */
import { PublicKey } from '@solana/web3.js';
import type { PoolUpdate } from '../../../../libs/contracts/src/pool-update';
import { PoolQuoteError } from '../../../../libs/amm/src/pool';
import { cpmmApplySwap, cpmmReserves, type CpmmSwapResult } from '../../../../libs/amm/src/programs/raydium-cpmm/math';
import { base58Decode, base58Encode } from '../../../../libs/solana/src/base58';
import { MINTS, PROGRAM_IDS } from '../../../../libs/solana/src/programs';
import {
  CPMM_AMM_CONFIG_SIZE,
  CPMM_POOL_STATE_SIZE,
  CPMM_SEEDS,
  cpmmAmmConfigAddress,
  cpmmAuthority,
  encodeCpmmAmmConfig,
  encodeCpmmPoolState,
  type CpmmAmmConfig,
  type CpmmPoolState,
} from '../../../../libs/solana/src/raydium-cpmm';
import { MINT_SIZE, TOKEN_ACCOUNT_SIZE, encodeMint, encodeTokenAccount } from '../../../../libs/solana/src/spl-token';
import { findProgramAddress } from './pda';
import { Prng } from './prng';

export const SIM_SOURCE = 'sim';
export const SLOTS_PER_EPOCH = 432_000;
/** a plausible mainnet slot for the first slot of the market */
export const DEFAULT_START_SLOT = 350_000_000;
const U64_MAX = 0xffffffffffffffffn;
/** largest raw reserve a pool side gets at genesis (keeps every vault and supply inside u64) */
const MAX_RAW_RESERVE = 1e17;

/** Rent-exempt minimum balance for an account of `size` bytes: (128 + size) * 3480 * 2. */
export function rentExemptLamports(size: number): bigint {
  return BigInt((128 + size) * 3480 * 2);
}

export interface SimMarketOptions {
  seed: number;
  pools: number;
  /** total tokens including SOL, USDC and USDT (at least 3) */
  tokens: number;
  swapsPerSlot: number;
  /** slot of the genesis snapshot; default DEFAULT_START_SLOT */
  startSlot?: number;
}

export interface SimToken {
  mint: string;
  /** simulation label (not on chain) */
  symbol: string;
  decimals: number;
  /** latent USD price per whole token (drifts every slot, except the stables) */
  priceUsd: number;
  stable: boolean;
  mintAuthority: string | null;
  freezeAuthority: string | null;
  supply: bigint;
}

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

/** One swap the simulator applied during the last step (for audits and tests). */
export interface SimSwap {
  pool: number;
  zeroForOne: boolean;
  mode: 'ExactIn' | 'ExactOut';
  amount: bigint;
  result: CpmmSwapResult;
}

export interface SimStats {
  slot: number;
  swapsApplied: number;
  swapsSkipped: number;
}

/** Real Raydium CPMM fee tiers (AmmConfig index → trade fee rate, millionths). */
const FEE_TIERS: readonly { index: number; tradeFeeRate: bigint }[] = [
  { index: 0, tradeFeeRate: 2500n },
  { index: 1, tradeFeeRate: 10000n },
  { index: 2, tradeFeeRate: 20000n },
  { index: 3, tradeFeeRate: 40000n },
];
const TIER_WEIGHTS = [0.5, 0.3, 0.12, 0.08];
const PROTOCOL_OWNER = 'ProCXqRcXJjoUd1RNoo28bSizAA6EEqt9wURZYPDc5u';
const FUND_OWNER = 'FUNDduJTA7XcckKHKfAoEnnhuSud2JUCUZv6opWEjrBU';
/** realistic decimals of SPL tokens, common ones repeated */
const DECIMALS = [6, 6, 6, 9, 9, 9, 5, 8, 8, 4, 2, 0];

const RENT_MINT = rentExemptLamports(MINT_SIZE);
const RENT_TOKEN_ACCOUNT = rentExemptLamports(TOKEN_ACCOUNT_SIZE);
const RENT_POOL = rentExemptLamports(CPMM_POOL_STATE_SIZE);
const RENT_CONFIG = rentExemptLamports(CPMM_AMM_CONFIG_SIZE);

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

function pdaBump(seeds: Buffer[]): number {
  return PublicKey.findProgramAddressSync(seeds, new PublicKey(PROGRAM_IDS.raydiumCpmm))[1];
}

/**
 * The CPMM PDAs a pool needs, derived with the fast search of ./pda (same addresses as
 * cpmmPoolAddress / cpmmVaultAddress / cpmmLpMintAddress / cpmmObservationAddress, about 4x
 * cheaper: genesis derives five per pool).
 */
const CPMM_PROGRAM_BYTES = Buffer.from(base58Decode(PROGRAM_IDS.raydiumCpmm) ?? []);
const SEED = {
  pool: Buffer.from(CPMM_SEEDS.pool, 'utf8'),
  vault: Buffer.from(CPMM_SEEDS.poolVault, 'utf8'),
  lpMint: Buffer.from(CPMM_SEEDS.poolLpMint, 'utf8'),
  observation: Buffer.from(CPMM_SEEDS.observation, 'utf8'),
};
function cpmmPda(seeds: Buffer[]): Buffer {
  return findProgramAddress(seeds, CPMM_PROGRAM_BYTES)[0];
}

/** the deepest USD depth a side of this token can take without passing MAX_RAW_RESERVE */
function maxDepthUsd(t: { priceUsd: number; decimals: number }): number {
  return (MAX_RAW_RESERVE / 10 ** t.decimals) * t.priceUsd;
}

/** the USD value of 10,000 smallest units of this token */
function minDepthUsd(t: { priceUsd: number; decimals: number }): number {
  return (10_000 / 10 ** t.decimals) * t.priceUsd;
}

function rawAmount(usd: number, priceUsd: number, decimals: number): bigint {
  const raw = Math.min(MAX_RAW_RESERVE, (usd / priceUsd) * 10 ** decimals);
  const floored = Math.floor(raw);
  return floored < 10 ? 10n : BigInt(floored);
}

interface PlannedPool {
  a: number;
  b: number;
  tier: number;
  depthUsd: number;
  tiny: boolean;
  creatorFee: boolean;
}

export class SimMarket {
  readonly tokens: SimToken[] = [];
  readonly feeTiers: SimFeeTier[] = [];
  readonly pools: SimPool[] = [];
  readonly startSlot: number;
  /** swaps applied by the last step() / advance() */
  lastSwaps: SimSwap[] = [];

  private currentSlot: number;
  private readonly swapsPerSlot: number;
  private readonly rng: Prng;
  private readonly authority: string;
  private readonly mintBytes: Buffer[] = [];
  private swapsApplied = 0;
  private swapsSkipped = 0;

  constructor(opts: SimMarketOptions) {
    const { seed, pools, tokens, swapsPerSlot } = opts;
    if (!Number.isSafeInteger(pools) || pools < 1) throw new RangeError(`pools must be a positive integer, got ${pools}`);
    if (!Number.isSafeInteger(tokens) || tokens < 3) throw new RangeError(`tokens must be an integer >= 3, got ${tokens}`);
    if (!Number.isSafeInteger(swapsPerSlot) || swapsPerSlot < 0) throw new RangeError(`swapsPerSlot must be >= 0, got ${swapsPerSlot}`);
    this.startSlot = opts.startSlot ?? DEFAULT_START_SLOT;
    if (!Number.isSafeInteger(this.startSlot) || this.startSlot < 0) throw new RangeError(`bad startSlot ${opts.startSlot}`);
    this.currentSlot = this.startSlot;
    this.swapsPerSlot = swapsPerSlot;
    const root = new Prng(seed);
    const gen = root.fork();
    this.rng = root.fork();
    this.authority = cpmmAuthority();
    this.buildTokens(gen, tokens, pools);
    this.buildFeeTiers();
    this.buildPools(gen, this.planPools(gen, pools));
    this.fillSupplies(gen);
  }

  /** the slot of the latest state (genesis: startSlot; +1 per step) */
  get slot(): number {
    return this.currentSlot;
  }

  stats(): SimStats {
    return { slot: this.currentSlot, swapsApplied: this.swapsApplied, swapsSkipped: this.swapsSkipped };
  }

  /** Every account of the market at the first slot. Only valid before the first step. */
  genesis(): PoolUpdate[] {
    if (this.currentSlot !== this.startSlot) {
      throw new Error(`genesis() is the state at slot ${this.startSlot}; the market is already at slot ${this.currentSlot} (use snapshot())`);
    }
    return this.snapshot();
  }

  /** Every account of the market in its current state, stamped with the current slot. */
  snapshot(): PoolUpdate[] {
    const out: PoolUpdate[] = [];
    for (const t of this.feeTiers) out.push(this.configUpdate(t));
    for (let i = 0; i < this.tokens.length; i++) out.push(this.mintUpdate(i));
    for (const p of this.pools) this.pushPoolUpdates(out, p);
    return out;
  }

  /** Advance one slot; returns the accounts the slot's swaps changed (vaults, then pool state). */
  step(): PoolUpdate[] {
    const touched = this.simulateSlot();
    const out: PoolUpdate[] = [];
    for (const i of touched) this.pushPoolUpdates(out, this.pools[i]);
    return out;
  }

  /** Advance `slots` slots without building account bytes (fast replay). */
  advance(slots: number): void {
    for (let i = 0; i < slots; i++) this.simulateSlot();
  }

  // ---- swaps ----

  private simulateSlot(): number[] {
    const rng = this.rng;
    this.currentSlot += 1;
    const epoch = BigInt(Math.floor(this.currentSlot / SLOTS_PER_EPOCH));
    // latent prices drift: a few tokens move by up to ±1% each slot
    const drifts = Math.max(1, Math.ceil(this.swapsPerSlot / 2));
    for (let k = 0; k < drifts; k++) {
      const t = this.tokens[rng.int(0, this.tokens.length - 1)];
      const move = 1 + rng.range(-0.01, 0.01);
      if (!t.stable) t.priceUsd *= move;
    }
    const touched: number[] = [];
    const seen = new Set<number>();
    const swaps: SimSwap[] = [];
    for (let k = 0; k < this.swapsPerSlot; k++) {
      const index = rng.int(0, this.pools.length - 1);
      const pool = this.pools[index];
      const t0 = this.tokens[pool.token0];
      const t1 = this.tokens[pool.token1];
      const tier = this.feeTiers[pool.tier].config;
      // always draw the same number of values, whatever happens to the swap
      const u = rng.next();
      const exactIn = rng.chance(0.5);
      const fraction = rng.logUniform(1e-7, 0.03);
      const mode = exactIn ? 'ExactIn' : 'ExactOut';
      try {
        const { reserve0, reserve1 } = cpmmReserves(pool.state, pool.vault0, pool.vault1);
        // pool price of token0 in token1 (whole tokens) vs the latent one
        const poolPrice = Number(reserve1) / 10 ** t1.decimals / (Number(reserve0) / 10 ** t0.decimals);
        const latent = t0.priceUsd / t1.priceUsd;
        // token0 cheap in the pool → most traders buy token0 (pay token1)
        const buyToken0 = poolPrice < latent ? u < 0.75 : u < 0.25;
        const zeroForOne = !buyToken0;
        const base = exactIn ? (zeroForOne ? reserve0 : reserve1) : zeroForOne ? reserve1 : reserve0;
        const amount = BigInt(Math.floor(Number(base) * fraction));
        if (amount <= 0n) {
          this.swapsSkipped++;
          continue;
        }
        const next = cpmmApplySwap(pool.state, tier, pool.vault0, pool.vault1, zeroForOne, mode, amount);
        pool.state = { ...next.state, recentEpoch: epoch };
        pool.vault0 = next.vault0;
        pool.vault1 = next.vault1;
        swaps.push({ pool: index, zeroForOne, mode, amount, result: next.result });
        this.swapsApplied++;
        if (!seen.has(index)) {
          seen.add(index);
          touched.push(index);
        }
      } catch (e) {
        if (!(e instanceof PoolQuoteError)) throw e;
        this.swapsSkipped++;
      }
    }
    this.lastSwaps = swaps;
    return touched;
  }

  // ---- account bytes ----

  private configUpdate(t: SimFeeTier): PoolUpdate {
    return {
      slot: this.currentSlot,
      address: t.address,
      owner: PROGRAM_IDS.raydiumCpmm,
      lamports: RENT_CONFIG,
      data: encodeCpmmAmmConfig(t.config),
      source: SIM_SOURCE,
    };
  }

  private mintUpdate(i: number): PoolUpdate {
    const t = this.tokens[i];
    return {
      slot: this.currentSlot,
      address: t.mint,
      owner: PROGRAM_IDS.token,
      lamports: RENT_MINT,
      data: encodeMint({
        mintAuthority: t.mintAuthority,
        supply: t.supply,
        decimals: t.decimals,
        isInitialized: true,
        freezeAuthority: t.freezeAuthority,
      }),
      source: SIM_SOURCE,
    };
  }

  private vaultUpdate(address: string, mint: string, amount: bigint): PoolUpdate {
    const native = mint === MINTS.SOL;
    return {
      slot: this.currentSlot,
      address,
      owner: PROGRAM_IDS.token,
      // a wrapped-SOL account holds its balance as lamports on top of the rent reserve
      lamports: native ? RENT_TOKEN_ACCOUNT + amount : RENT_TOKEN_ACCOUNT,
      data: encodeTokenAccount({
        mint,
        owner: this.authority,
        amount,
        delegate: null,
        state: 'initialized',
        isNative: native ? RENT_TOKEN_ACCOUNT : null,
        delegatedAmount: 0n,
        closeAuthority: null,
      }),
      source: SIM_SOURCE,
    };
  }

  private pushPoolUpdates(out: PoolUpdate[], p: SimPool): void {
    out.push(this.vaultUpdate(p.state.token0Vault, p.state.token0Mint, p.vault0));
    out.push(this.vaultUpdate(p.state.token1Vault, p.state.token1Mint, p.vault1));
    out.push({
      slot: this.currentSlot,
      address: p.address,
      owner: PROGRAM_IDS.raydiumCpmm,
      lamports: RENT_POOL,
      data: encodeCpmmPoolState(p.state),
      source: SIM_SOURCE,
    });
  }

  // ---- genesis ----

  private randomKey(rng: Prng): string {
    return base58Encode(rng.bytes(32));
  }

  private buildTokens(rng: Prng, count: number, pools: number): void {
    const add = (mint: string, symbol: string, decimals: number, priceUsd: number, stable: boolean, auth: boolean): void => {
      this.tokens.push({
        mint,
        symbol,
        decimals,
        priceUsd,
        stable,
        mintAuthority: auth ? this.randomKey(rng) : null,
        freezeAuthority: auth && stable ? this.randomKey(rng) : null,
        supply: 0n,
      });
      const bytes = base58Decode(mint);
      if (!bytes || bytes.length !== 32) throw new Error(`invalid mint ${mint}`);
      this.mintBytes.push(Buffer.from(bytes));
    };
    add(MINTS.SOL, 'SOL', 9, 150 * rng.range(0.95, 1.05), false, false);
    add(MINTS.USDC, 'USDC', 6, 1, true, true);
    add(MINTS.USDT, 'USDT', 6, 1, true, true);
    // each generated token needs an anchor pool; with few pools, generate fewer tokens
    const generated = Math.min(count - 3, Math.max(0, pools - 4));
    const used = new Set(this.tokens.map((t) => t.mint));
    for (let i = 0; i < generated; i++) {
      let mint = this.randomKey(rng);
      while (used.has(mint)) mint = this.randomKey(rng);
      used.add(mint);
      // the price range depends on the decimals so that one smallest unit is worth between
      // 1e-13 and 1e-3 USD, as on chain: every pool side then fits u64 and keeps its price
      const decimals = rng.pick(DECIMALS);
      const low = Math.max(1e-6, 1e-13 * 10 ** decimals);
      const high = Math.min(5e4, 1e-3 * 10 ** decimals);
      add(mint, `SIM${i + 1}`, decimals, rng.logUniform(low, high), false, rng.chance(0.4));
    }
  }

  private buildFeeTiers(): void {
    for (const { index, tradeFeeRate } of FEE_TIERS) {
      const be = Buffer.alloc(2);
      be.writeUInt16BE(index, 0);
      this.feeTiers.push({
        address: cpmmAmmConfigAddress(index),
        config: {
          bump: pdaBump([Buffer.from(CPMM_SEEDS.ammConfig, 'utf8'), be]),
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
  }

  private planPools(rng: Prng, count: number): PlannedPool[] {
    const SOL = 0;
    const USDC = 1;
    const USDT = 2;
    const plans: PlannedPool[] = [];
    const taken = new Set<string>();
    const pairsByKey = new Map<string, [number, number]>();
    const pairKey = (a: number, b: number): string => (a < b ? `${a}:${b}` : `${b}:${a}`);
    const tryAdd = (a: number, b: number, tier: number, depthUsd: number, creatorFee = false): boolean => {
      if (a === b || plans.length >= count) return false;
      const key = `${pairKey(a, b)}:${tier}`;
      if (taken.has(key)) return false;
      taken.add(key);
      pairsByKey.set(pairKey(a, b), [a, b]);
      plans.push({ a, b, tier, depthUsd, tiny: false, creatorFee });
      return true;
    };
    const pickTier = (): number => rng.weighted([0, 1, 2, 3], TIER_WEIGHTS);
    const depth = (): number => rng.logUniform(2_000, 20_000_000);
    const anchor = (): number => rng.weighted([SOL, USDC, USDT], [0.5, 0.35, 0.15]);
    // the core: deep SOL/stable and stable/stable pools
    tryAdd(SOL, USDC, 0, rng.logUniform(5_000_000, 20_000_000));
    tryAdd(SOL, USDT, 0, rng.logUniform(2_000_000, 10_000_000));
    tryAdd(USDC, USDT, 0, rng.logUniform(2_000_000, 10_000_000));
    tryAdd(SOL, USDC, 1, rng.logUniform(200_000, 2_000_000));
    const core = plans.length;
    // every generated token reaches SOL / USDC / USDT
    for (let t = 3; t < this.tokens.length; t++) tryAdd(t, anchor(), pickTier(), depth(), rng.chance(0.08));
    // then parallel pools, second anchors and token↔token pools until the count is reached
    const n = this.tokens.length;
    let misses = 0;
    while (plans.length < count && misses < 200) {
      const kind = rng.next();
      let ok: boolean;
      if (kind < 0.2 && pairsByKey.size > 0) {
        const pairs = [...pairsByKey.values()];
        const [a, b] = pairs[rng.int(0, pairs.length - 1)];
        ok = tryAdd(a, b, pickTier(), depth(), rng.chance(0.08));
      } else if (kind < 0.45 || n <= 3) {
        ok = tryAdd(rng.int(0, n - 1), anchor(), pickTier(), depth(), rng.chance(0.08));
      } else {
        ok = tryAdd(rng.int(3, n - 1), rng.int(3, n - 1), pickTier(), depth(), rng.chance(0.08));
      }
      misses = ok ? 0 : misses + 1;
    }
    // dense corner (few tokens, many pools): take what is left in a fixed order
    for (let a = 0; a < n && plans.length < count; a++) {
      for (let b = a + 1; b < n && plans.length < count; b++) {
        for (let tier = 0; tier < FEE_TIERS.length && plans.length < count; tier++) tryAdd(a, b, tier, depth());
      }
    }
    // a few deliberately tiny pools (never the core ones)
    const tinyCount = plans.length - core >= 20 ? Math.max(2, Math.floor((plans.length - core) * 0.02)) : 0;
    for (let k = 0; k < tinyCount; k++) {
      const p = plans[rng.int(core, plans.length - 1)];
      p.tiny = true;
      p.depthUsd = rng.logUniform(5, 200);
    }
    return plans;
  }

  private buildPools(rng: Prng, plans: PlannedPool[]): void {
    const authBump = pdaBump([Buffer.from(CPMM_SEEDS.authority, 'utf8')]);
    const epoch = BigInt(Math.floor(this.startSlot / SLOTS_PER_EPOCH));
    const tierKey = this.feeTiers.map((t) => Buffer.from(base58Decode(t.address) ?? []));
    for (const plan of plans) {
      const [i0, i1] = Buffer.compare(this.mintBytes[plan.a], this.mintBytes[plan.b]) < 0 ? [plan.a, plan.b] : [plan.b, plan.a];
      const t0 = this.tokens[i0];
      const t1 = this.tokens[i1];
      const tier = this.feeTiers[plan.tier];
      const poolKey = cpmmPda([SEED.pool, tierKey[plan.tier], this.mintBytes[i0], this.mintBytes[i1]]);
      const address = base58Encode(poolKey);
      // the pool price starts a little off the latent price (up to ±0.5%)
      // both sides are scaled together so that a capped side never skews the pool's price
      // (and never so shallow that a side rounds to a handful of units)
      const depthUsd = Math.max(
        Math.min(plan.depthUsd, maxDepthUsd(t0), maxDepthUsd(t1)),
        minDepthUsd(t0),
        minDepthUsd(t1),
      );
      const vault0 = rawAmount(depthUsd * rng.range(0.995, 1.005), t0.priceUsd, t0.decimals);
      const vault1 = rawAmount(depthUsd, t1.priceUsd, t1.decimals);
      const state: CpmmPoolState = {
        ammConfig: tier.address,
        poolCreator: this.randomKey(rng),
        token0Vault: base58Encode(cpmmPda([SEED.vault, poolKey, this.mintBytes[i0]])),
        token1Vault: base58Encode(cpmmPda([SEED.vault, poolKey, this.mintBytes[i1]])),
        lpMint: base58Encode(cpmmPda([SEED.lpMint, poolKey])),
        token0Mint: t0.mint,
        token1Mint: t1.mint,
        token0Program: PROGRAM_IDS.token,
        token1Program: PROGRAM_IDS.token,
        observationKey: base58Encode(cpmmPda([SEED.observation, poolKey])),
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
        creatorFeeOn: plan.creatorFee ? rng.int(0, 2) : 0,
        enableCreatorFee: plan.creatorFee,
        creatorFeesToken0: 0n,
        creatorFeesToken1: 0n,
      };
      this.pools.push({ address, tier: plan.tier, token0: i0, token1: i1, state, vault0, vault1, tiny: plan.tiny });
    }
  }

  private fillSupplies(rng: Prng): void {
    const held = this.tokens.map(() => 0n);
    for (const p of this.pools) {
      held[p.token0] += p.vault0;
      held[p.token1] += p.vault1;
    }
    this.tokens.forEach((t, i) => {
      const factor = BigInt(rng.int(3, 20));
      // the native mint's supply field is not used on chain (it stays 0)
      const supply = t.mint === MINTS.SOL ? 0n : held[i] * factor;
      t.supply = supply > U64_MAX ? U64_MAX : supply === 0n && t.mint !== MINTS.SOL ? 1_000_000n * 10n ** BigInt(t.decimals) : supply;
    });
  }
}
