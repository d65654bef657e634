/**
 * SimMarket: a seeded, deterministic simulated market written as real on-chain accounts.
 *
 * Tokens: SPL Token `Mint` accounts for SOL, USDC, USDT (their real mainnet mints) and generated
 * tokens (32 seeded random bytes → base58); with several programs, a few generated tokens are
 * Token-2022 mints, some with a transfer fee (TransferFeeConfig extension), and every pump.fun
 * curve brings its own coin. Each token has a latent USD price that drifts every slot (bounded by
 * its decimals so that one smallest unit is worth 1e-13..1e-3 USD), and every pool starts at it.
 *
 * Programs (one module each in ./programs, composed here): Raydium CPMM, Orca Whirlpool, Raydium
 * CLMM, Raydium AMM v4, PumpSwap and pump.fun, each writing its real account layouts at their real
 * addresses (PDAs) — see the modules for what each writes. `programs` picks which programs get
 * pools; the default is Raydium CPMM only (the original market, unchanged for the same seed), and
 * 'all' spreads the pools over the six (the ingestor's market).
 *
 * Each slot a few seeded swaps (round robin over the programs with pools, a random pool each)
 * move pools through the programs' own math, leaning towards the latent prices so that pools stay
 * consistent with each other; `step()` returns exactly the accounts the slot's swaps changed,
 * stamped with the slot.
 *
 * Deterministic: no Math.random, no clock. The same options give a byte-identical sequence of
 * updates, and `advance(n)` reaches the same state as n steps without building bytes.
 */
import type { PoolUpdate } from '@app/contracts';
import { buildLookupTables } from '@app/solana';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { EXTENSION_TYPE, encodeMint, type TokenExtension } from '@app/solana';
import { TOKEN_METADATA_PROGRAM_ID, encodeMetaplexMetadata, metadataAddress } from '@app/solana';
import { DEFAULT_START_SLOT, SimContext, U64_MAX, randomKey, raw, type SimToken, type SwapDraw } from './context';
import { planPools } from './plan';
import { Prng } from './prng';
import { OrcaWhirlpoolSim } from './programs/orca-whirlpool';
import { SIM_PROGRAMS, type SimPoolInfo, type SimProgram, type SimProgramName, type SimSwap } from './programs/program';
import { PumpSwapSim } from './programs/pump-amm';
import { PumpFunSim } from './programs/pump-fun';
import { RaydiumAmmV4Sim } from './programs/raydium-amm-v4';
import { RaydiumClmmSim } from './programs/raydium-clmm';
import { RaydiumCpmmSim, type SimFeeTier, type SimPool } from './programs/raydium-cpmm';

/** the update authority of the tokens' Metadata accounts (a fixed key: it takes no draw from the market's generator) */
const METADATA_AUTHORITY = 'Simmeta111111111111111111111111111111111111';
/** the names mainnet's Metadata accounts give the well-known mints */
const WELL_KNOWN_NAMES: Record<string, string> = { [MINTS.SOL]: 'Wrapped SOL', [MINTS.USDC]: 'USD Coin', [MINTS.USDT]: 'USDT' };

export { DEFAULT_START_SLOT, GENESIS_UNIX_TIME, SIM_SOURCE, SLOTS_PER_EPOCH, rentExemptLamports } from './context';
export type { SimToken } from './context';
export type { SimFeeTier, SimPool } from './programs/raydium-cpmm';
export { SIM_PROGRAMS } from './programs/program';
export type { SimPoolInfo, SimProgramName, SimSwap } from './programs/program';

export interface SimMarketOptions {
  seed: number;
  /** total pools (of every program; pump.fun curves count as pools) */
  pools: number;
  /** general tokens including SOL, USDC and USDT (at least 3); pump.fun coins come on top, one per curve */
  tokens: number;
  swapsPerSlot: number;
  /** slot of the genesis snapshot; default DEFAULT_START_SLOT */
  startSlot?: number;
  /** programs with pools: a list, or 'all' (the six); default ['raydium-cpmm'] (the original market) */
  programs?: readonly SimProgramName[] | 'all';
  /**
   * also write address lookup tables covering every pool's accounts (grouped per pool) and the
   * programs and mints a swap uses, as on chain, so swap transactions can be compressed: every
   * address a swap instruction through a pool lists except the user's own (its wallet, token
   * accounts and volume accumulator); default false
   */
  lookupTables?: boolean;
}

export interface SimStats {
  slot: number;
  swapsApplied: number;
  swapsSkipped: number;
  /** swaps applied per program since genesis */
  swapsByProgram: Partial<Record<SimProgramName, number>>;
}

/** share of all pools that are pump.fun curves when pump.fun is enabled */
const CURVE_SHARE = 0.16;
/** largest relative move of a latent price in one drift event */
const LATENT_DRIFT = 0.0025;
/** share of generated tokens minted by Token-2022 (with several programs) */
const TOKEN_2022_SHARE = 0.04;
/** realistic decimals of SPL tokens, common ones repeated */
const DECIMALS = [6, 6, 6, 9, 9, 9, 5, 8, 8, 4, 2, 0];

/** authority of the simulated market's lookup tables (a fixed key: no private key exists) */
export const SIM_LOOKUP_TABLE_AUTHORITY = 'SimLookupTab1eAuthority11111111111111111111';

/** rent-exempt lamports of an account of `size` bytes (the runtime's formula) */
function rentForTable(size: number): bigint {
  return BigInt((128 + size) * 3480 * 2);
}

export class SimMarket {
  readonly startSlot: number;
  /** swaps applied by the last step() / advance() */
  lastSwaps: SimSwap[] = [];

  readonly cpmm = new RaydiumCpmmSim();
  readonly whirlpool = new OrcaWhirlpoolSim();
  readonly clmm = new RaydiumClmmSim();
  readonly ammV4 = new RaydiumAmmV4Sim();
  readonly pumpSwap = new PumpSwapSim();
  readonly pumpFun = new PumpFunSim();
  /** the enabled programs, in genesis order */
  readonly programs: readonly SimProgram[];

  private readonly ctx: SimContext;
  private readonly swapsPerSlot: number;
  private readonly rng: Prng;
  private readonly active: SimProgram[];
  private touched: [SimProgram, number][] = [];
  private swapsApplied = 0;
  private swapsSkipped = 0;
  private readonly swapsByProgram: Partial<Record<SimProgramName, number>> = {};
  private readonly lookupTables: boolean;

  constructor(opts: SimMarketOptions) {
    const { seed, pools, tokens, swapsPerSlot } = opts;
    if (!Number.isSafeInteger(pools) || pools < 1) throw new RangeError(`pools must be a positive integer, got ${pools}`);
    if (!Number.isSafeInteger(tokens) || tokens < 3) throw new RangeError(`tokens must be an integer >= 3, got ${tokens}`);
    if (!Number.isSafeInteger(swapsPerSlot) || swapsPerSlot < 0) throw new RangeError(`swapsPerSlot must be >= 0, got ${swapsPerSlot}`);
    this.startSlot = opts.startSlot ?? DEFAULT_START_SLOT;
    if (!Number.isSafeInteger(this.startSlot) || this.startSlot < 0) throw new RangeError(`bad startSlot ${opts.startSlot}`);
    const names = resolvePrograms(opts.programs);
    this.ctx = new SimContext(this.startSlot);
    this.swapsPerSlot = swapsPerSlot;
    this.lookupTables = opts.lookupTables ?? false;
    const all: Record<SimProgramName, SimProgram> = {
      'raydium-cpmm': this.cpmm,
      'orca-whirlpool': this.whirlpool,
      'raydium-clmm': this.clmm,
      'raydium-amm-v4': this.ammV4,
      'pump-amm': this.pumpSwap,
      'pump-fun': this.pumpFun,
    };
    this.programs = SIM_PROGRAMS.filter((n) => names.has(n)).map((n) => all[n]);

    const root = new Prng(seed);
    const gen = root.fork();
    this.rng = root.fork();
    const general = this.programs.filter((p) => p.name !== 'pump-fun');
    const curves = names.has('pump-fun') ? (general.length === 0 ? pools : Math.min(pools - 1, Math.round(pools * CURVE_SHARE))) : 0;
    // curve stages first: the curves that completed get a canonical PumpSwap pool, counted in `pools`
    const pumpRng = curves > 0 ? gen.fork() : null;
    const stages = pumpRng ? this.pumpFun.planStages(pumpRng, curves) : [];
    const migrations = names.has('pump-amm') ? stages.filter((s) => s === 'complete').length : 0;
    const generalPools = general.length > 0 ? Math.max(1, pools - curves - migrations) : 0;
    this.buildTokens(gen, tokens, generalPools, general.length > 1);
    if (general.length > 0) {
      const plans = planPools(this.ctx, gen, generalPools, general);
      for (const p of general) p.build(this.ctx, gen, plans.filter((x) => x.program === p.name));
    }
    if (pumpRng) {
      this.pumpFun.buildCurves(this.ctx, pumpRng, stages);
      if (names.has('pump-amm')) this.pumpSwap.buildMigrated(this.ctx, gen, this.pumpFun.migrations);
    }
    this.active = this.programs.filter((p) => p.pools.length > 0);
    this.fillSupplies(gen);
  }

  /** the slot of the latest state (genesis: startSlot; +1 per step) */
  get slot(): number {
    return this.ctx.slot;
  }

  /** every token: SOL, USDC, USDT, the generated ones, then the pump.fun coins */
  get tokens(): SimToken[] {
    return this.ctx.tokens;
  }

  /** the Raydium CPMM pools (the original market's pools) */
  get pools(): SimPool[] {
    return this.cpmm.cpmmPools;
  }

  /** the Raydium CPMM fee tiers (AmmConfig accounts) */
  get feeTiers(): SimFeeTier[] {
    return this.cpmm.feeTiers;
  }

  /** every pool of every program */
  allPools(): SimPoolInfo[] {
    return this.programs.flatMap((p) => p.pools);
  }

  /** unix time (seconds) of the current slot, as the simulated programs see it */
  get unixTime(): bigint {
    return this.ctx.unixTime;
  }

  stats(): SimStats {
    return { slot: this.ctx.slot, swapsApplied: this.swapsApplied, swapsSkipped: this.swapsSkipped, swapsByProgram: { ...this.swapsByProgram } };
  }

  /** Every account of the market at the first slot. Only valid before the first step. */
  genesis(): PoolUpdate[] {
    if (this.ctx.slot !== this.startSlot) {
      throw new Error(`genesis() is the state at slot ${this.startSlot}; the market is already at slot ${this.ctx.slot} (use snapshot())`);
    }
    return this.snapshot();
  }

  /** Every account of the market in its current state, stamped with the current slot. */
  snapshot(): PoolUpdate[] {
    const out: PoolUpdate[] = [];
    for (const p of this.programs) p.sharedAccounts(this.ctx, out);
    for (let i = 0; i < this.ctx.tokens.length; i++) out.push(this.mintUpdate(i));
    const sharedEnd = out.length;
    const poolSlices: Array<{ program: SimProgram; i: number; from: number; to: number }> = [];
    for (const p of this.programs) {
      for (let i = 0; i < p.pools.length; i++) {
        const from = out.length;
        p.poolAccounts(this.ctx, i, out);
        poolSlices.push({ program: p, i, from, to: out.length });
      }
    }
    if (this.lookupTables) {
      const addrs: string[] = [PROGRAM_IDS.token, PROGRAM_IDS.token2022, PROGRAM_IDS.system, PROGRAM_IDS.associatedToken, MINTS.SOL, MINTS.USDC, MINTS.USDT];
      for (let k = 0; k < sharedEnd; k++) if (!this.isMintIndex(k, out)) addrs.push(out[k].address, out[k].owner);
      for (const p of this.programs) if (p.lookupShared) addrs.push(...p.lookupShared(this.ctx));
      for (const { program, i, from, to } of poolSlices) {
        for (let k = from; k < to; k++) addrs.push(out[k].address, out[k].owner);
        const info = program.pools[i];
        addrs.push(this.ctx.tokens[info.tokenA].mint, this.ctx.tokens[info.tokenB].mint);
        if (program.lookupExtras) addrs.push(...program.lookupExtras(i, this.ctx));
      }
      out.push(...this.lookupTableUpdates(addrs));
    }
    for (const t of this.ctx.tokens) out.push(this.metadataUpdate(t));
    return out;
  }

  /**
   * A token's Metaplex Metadata account (its symbol without the simulation's Token-2022 labels,
   * at most 10 bytes as the program allows; the mainnet names of SOL, USDC and USDT). It never
   * changes after genesis.
   */
  private metadataUpdate(t: SimToken): PoolUpdate {
    const symbol = t.symbol.replace(/-T22(FEE)?$/u, '').slice(0, 10);
    const name = WELL_KNOWN_NAMES[t.mint] ?? `Simulated ${symbol}`;
    const data = encodeMetaplexMetadata({ updateAuthority: METADATA_AUTHORITY, mint: t.mint, name, symbol, uri: '' });
    return this.ctx.record(metadataAddress(t.mint), TOKEN_METADATA_PROGRAM_ID, data);
  }

  /** true when out[k] is one of the market's mint accounts (written between shared and pools) */
  private isMintIndex(k: number, out: PoolUpdate[]): boolean {
    return out[k].owner === PROGRAM_IDS.token || out[k].owner === PROGRAM_IDS.token2022;
  }

  /**
   * Address lookup tables (static: created before genesis, never extended): first the programs
   * and mints every swap may touch and each program's shared addresses (authorities, event and
   * fee accounts), then each pool's accounts, its mints, its program and the addresses its swaps
   * derive (observation, oracle, open orders, creator vault, bonding-curve-v2 / pool-v2) side by
   * side, so a route needs few tables. The authority is a fixed key, not drawn from the seeded
   * generator (tables do not change the market's draws).
   */
  private lookupTableUpdates(addrs: string[]): PoolUpdate[] {
    const authority = SIM_LOOKUP_TABLE_AUTHORITY;
    return buildLookupTables(authority, BigInt(this.startSlot - 1000), addrs).map((t) => ({
      slot: this.ctx.slot,
      address: t.address,
      owner: t.owner,
      lamports: rentForTable(t.data.length),
      data: t.data,
      source: 'sim',
    }));
  }

  /** Advance one slot; returns the accounts the slot's swaps changed (per pool in first-touch order). */
  step(): PoolUpdate[] {
    this.simulateSlot();
    const out: PoolUpdate[] = [];
    for (const [p, i] of this.touched) p.changedAccounts(this.ctx, i, out);
    return out;
  }

  /** Advance `slots` slots without building account bytes (fast replay). */
  advance(slots: number): void {
    for (let i = 0; i < slots; i++) this.simulateSlot();
  }

  // ---- swaps ----

  private simulateSlot(): void {
    const rng = this.rng;
    const ctx = this.ctx;
    // what the previous slot changed was written (step) or skipped (advance): start afresh
    for (const [p, i] of this.touched) p.forget(i);
    ctx.slot += 1;
    // latent prices drift: a few tokens move by up to ±0.25% each slot (pump.fun coins follow their
    // pools); small enough that pools a swap has not touched for a while stay within their fees
    const drifts = Math.max(1, Math.ceil(this.swapsPerSlot / 2));
    for (let k = 0; k < drifts; k++) {
      const t = ctx.tokens[rng.int(0, ctx.tokens.length - 1)];
      const move = 1 + rng.range(-LATENT_DRIFT, LATENT_DRIFT);
      if (!t.stable && !t.pump) t.priceUsd *= move;
    }
    const touched: [SimProgram, number][] = [];
    const seen = new Set<string>();
    const swaps: SimSwap[] = [];
    const n = this.active.length;
    for (let k = 0; k < this.swapsPerSlot && n > 0; k++) {
      // round robin over the programs (every kind moves every slot when swapsPerSlot >= their number)
      const prog = n === 1 ? this.active[0] : this.active[(k + ctx.slot) % n];
      const index = rng.int(0, prog.pools.length - 1);
      // always draw the same number of values, whatever happens to the swap
      const draw: SwapDraw = { u: rng.next(), exactIn: rng.chance(0.5), fraction: rng.logUniform(1e-7, 0.03) };
      const s = prog.swap(ctx, index, draw);
      if (s === null) {
        this.swapsSkipped++;
        continue;
      }
      swaps.push(s);
      this.swapsApplied++;
      this.swapsByProgram[prog.name] = (this.swapsByProgram[prog.name] ?? 0) + 1;
      const key = `${prog.name}:${index}`;
      if (!seen.has(key)) {
        seen.add(key);
        touched.push([prog, index]);
      }
    }
    this.touched = touched;
    this.lastSwaps = swaps;
  }

  // ---- tokens ----

  private mintUpdate(i: number): PoolUpdate {
    const t = this.ctx.tokens[i];
    const extensions: TokenExtension[] | undefined = t.transferFee ? [transferFeeConfigExtension(t)] : undefined;
    return this.ctx.record(
      t.mint,
      t.program,
      encodeMint({
        mintAuthority: t.mintAuthority,
        supply: t.supply,
        decimals: t.decimals,
        isInitialized: true,
        freezeAuthority: t.freezeAuthority,
        ...(extensions ? { extensions } : {}),
      }),
    );
  }

  private buildTokens(rng: Prng, count: number, pools: number, token2022: boolean): void {
    const ctx = this.ctx;
    const add = (mint: string, symbol: string, decimals: number, priceUsd: number, stable: boolean, auth: boolean): void => {
      ctx.addToken({
        mint,
        symbol,
        decimals,
        priceUsd,
        stable,
        mintAuthority: auth ? randomKey(rng) : null,
        freezeAuthority: auth && stable ? randomKey(rng) : null,
        supply: 0n,
        program: PROGRAM_IDS.token,
        transferFee: null,
        pump: false,
      });
    };
    add(MINTS.SOL, 'SOL', 9, 150 * rng.range(0.95, 1.05), false, false);
    add(MINTS.USDC, 'USDC', 6, 1, true, true);
    add(MINTS.USDT, 'USDT', 6, 1, true, true);
    // each generated token needs an anchor pool; with few pools, generate fewer tokens
    const generated = Math.min(count - 3, Math.max(0, pools - 4));
    const used = new Set(ctx.tokens.map((t) => t.mint));
    for (let i = 0; i < generated; i++) {
      let mint = randomKey(rng);
      while (used.has(mint)) mint = randomKey(rng);
      used.add(mint);
      // the price range depends on the decimals so that one smallest unit is worth between
      // 1e-13 and 1e-3 USD, as on chain: every pool side then fits u64 and keeps its price
      const decimals = rng.pick(DECIMALS);
      const low = Math.max(1e-6, 1e-13 * 10 ** decimals);
      const high = Math.min(5e4, 1e-3 * 10 ** decimals);
      add(mint, `SIM${i + 1}`, decimals, rng.logUniform(low, high), false, rng.chance(0.4));
    }
    // a few Token-2022 mints, two in three with a transfer fee (at least one)
    if (token2022 && generated > 0) {
      const k = Math.max(1, Math.round(generated * TOKEN_2022_SHARE));
      for (let j = 0; j < k; j++) {
        const t = ctx.tokens[3 + rng.int(0, generated - 1)];
        if (t.program === PROGRAM_IDS.token2022) continue;
        t.program = PROGRAM_IDS.token2022;
        if (j === 0 || rng.chance(2 / 3)) {
          t.transferFee = { bps: rng.int(10, 500), maximumFee: 10n ** BigInt(t.decimals) * BigInt(rng.int(1_000, 1_000_000)) };
          t.symbol += '-T22FEE';
        } else t.symbol += '-T22';
      }
    }
  }

  private fillSupplies(rng: Prng): void {
    const held = this.ctx.tokens.map(() => 0n);
    for (const p of this.programs) p.holdings(held);
    this.ctx.tokens.forEach((t, i) => {
      if (t.pump) return; // fixed supply, set at creation
      const factor = BigInt(rng.int(3, 20));
      // the native mint's supply field is not used on chain (it stays 0)
      const supply = t.mint === MINTS.SOL ? 0n : held[i] * factor;
      t.supply = supply > U64_MAX ? U64_MAX : supply === 0n && t.mint !== MINTS.SOL ? 1_000_000n * 10n ** BigInt(t.decimals) : supply;
    });
  }
}

function resolvePrograms(p: SimMarketOptions['programs']): Set<SimProgramName> {
  if (p === undefined) return new Set(['raydium-cpmm']);
  if (p === 'all') return new Set(SIM_PROGRAMS);
  if (p.length === 0) throw new RangeError('programs must name at least one program');
  for (const n of p) if (!(SIM_PROGRAMS as readonly string[]).includes(n)) throw new RangeError(`unknown program ${n}; expected one of ${SIM_PROGRAMS.join(', ')}`);
  return new Set(p);
}

/** The Token-2022 TransferFeeConfig extension (type 1, 108 bytes): the same fee for older and newer epochs. */
function transferFeeConfigExtension(t: SimToken): TokenExtension {
  const b = Buffer.alloc(108);
  const authority = t.mintAuthority ?? PROGRAM_IDS.system;
  raw(authority).copy(b, 0);
  raw(authority).copy(b, 32);
  b.writeBigUInt64LE(0n, 64); // withheld on the mint
  for (const o of [72, 90]) {
    b.writeBigUInt64LE(0n, o);
    b.writeBigUInt64LE(t.transferFee!.maximumFee, o + 8);
    b.writeUInt16LE(t.transferFee!.bps, o + 16);
  }
  return { type: EXTENSION_TYPE.transferFeeConfig, data: b };
}
