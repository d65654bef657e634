/**
 * The ingestor's market: all six programs at the default size (1,000 pools, 200 tokens). Every
 * account decodes with the libs/solana decoders, every pool is routable through the router's
 * Projection (except the deliberately complete pump.fun curves) and quotes, prices are consistent
 * with the latent prices (no arbitrage loops), and the run is deterministic.
 */
import { TOKEN_METADATA_PROGRAM_ID, decodeMetaplexMetadata } from '@app/solana';
import { decodeSerumMarketAccounts } from '@app/solana/instructions/programs';
import { findBestRoute } from '@app/amm';
import { PoolQuoteError } from '@app/amm';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { decodeWhirlpoolProgramAccount } from '@app/solana';
import { PUMP_AMM_GLOBAL_CONFIG_DISCRIMINATOR, PUMP_AMM_POOL_DISCRIMINATOR, decodePumpAmmGlobalConfig, decodePumpAmmPool } from '@app/solana';
import { PUMP_FEES_PROGRAM_ID, decodePumpBondingCurve, decodePumpFeeConfig, decodePumpGlobal, pumpFunAccountType } from '@app/solana';
import { decodeAmmV4Info } from '@app/solana';
import {
  clmmAccountType,
  clmmBitmapExtensionAddress,
  clmmPoolAddress,
  clmmTickArrayAddress,
  decodeClmmAmmConfig,
  decodeClmmPoolState,
  decodeClmmTickArrayBitmapExtension,
  decodeClmmTickArrayState,
} from '@app/solana';
import { cpmmAccountType, decodeCpmmAmmConfig, decodeCpmmPoolState } from '@app/solana';
import { ACCOUNT_TYPE_MINT, ACCOUNT_TYPE_OFFSET, decodeMint, decodeTokenAccount, mintTransferFeeConfig } from '@app/solana';
import { whirlpoolAddress, whirlpoolOracleAddress, whirlpoolTickArrayAddress } from '@app/solana';
import { pumpAmmPoolAddress, isCanonicalPumpPool } from '@app/solana';
import { pumpBondingCurveAddress } from '@app/solana';
import { Projection, type ProjectionRecord } from '@app/pools/projection';
import { SimMarket, SIM_PROGRAMS, type SimMarketOptions } from './market';

const DEFAULT: SimMarketOptions = { seed: 1, pools: 1000, tokens: 200, swapsPerSlot: 8, programs: 'all' };

/** decode any account the sim writes with the libs/solana decoder of its owner and type */
/** the OpenBook (Serum v3) DEX program AMM v4 pools' markets belong to */
const OPENBOOK_PROGRAM_ID = 'srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX';

function decodeAny(u: PoolUpdate): { kind: string; value: unknown } {
  const d = u.data!;
  switch (u.owner) {
    case PROGRAM_IDS.token:
    case PROGRAM_IDS.token2022: {
      const mint = d.length === 82 || (d.length > ACCOUNT_TYPE_OFFSET && d[ACCOUNT_TYPE_OFFSET] === ACCOUNT_TYPE_MINT);
      return mint ? { kind: 'Mint', value: decodeMint(d, u.owner, u.address) } : { kind: 'TokenAccount', value: decodeTokenAccount(d, u.owner, u.address) };
    }
    case PROGRAM_IDS.raydiumCpmm: {
      const t = cpmmAccountType(d);
      if (t === 'PoolState') return { kind: 'cpmm:PoolState', value: decodeCpmmPoolState(d, u.owner, u.address) };
      if (t === 'AmmConfig') return { kind: 'cpmm:AmmConfig', value: decodeCpmmAmmConfig(d, u.owner, u.address) };
      break;
    }
    case PROGRAM_IDS.orcaWhirlpool: {
      const v = decodeWhirlpoolProgramAccount(d, u.owner, u.address);
      return { kind: `orca:${(v as { type: string }).type}`, value: v };
    }
    case PROGRAM_IDS.raydiumClmm: {
      const t = clmmAccountType(d);
      if (t === 'PoolState') return { kind: 'clmm:PoolState', value: decodeClmmPoolState(d, u.owner, u.address) };
      if (t === 'AmmConfig') return { kind: 'clmm:AmmConfig', value: decodeClmmAmmConfig(d, u.owner, u.address) };
      if (t === 'TickArrayState') return { kind: 'clmm:TickArrayState', value: decodeClmmTickArrayState(d, u.owner, u.address) };
      if (t === 'TickArrayBitmapExtension') return { kind: 'clmm:TickArrayBitmapExtension', value: decodeClmmTickArrayBitmapExtension(d, u.owner, u.address) };
      break;
    }
    case PROGRAM_IDS.raydiumAmmV4:
      return { kind: 'ammv4:AmmInfo', value: decodeAmmV4Info(d, u.owner, u.address) };
    case TOKEN_METADATA_PROGRAM_ID:
      return { kind: 'metaplex:Metadata', value: decodeMetaplexMetadata(d, u.owner, u.address) };
    case PROGRAM_IDS.pumpSwapAmm:
      if (d.subarray(0, 8).equals(PUMP_AMM_POOL_DISCRIMINATOR)) return { kind: 'pumpswap:Pool', value: decodePumpAmmPool(d, u.owner, u.address) };
      if (d.subarray(0, 8).equals(PUMP_AMM_GLOBAL_CONFIG_DISCRIMINATOR)) return { kind: 'pumpswap:GlobalConfig', value: decodePumpAmmGlobalConfig(d, u.owner, u.address) };
      break;
    case PROGRAM_IDS.pumpFun: {
      const t = pumpFunAccountType(d);
      if (t === 'BondingCurve') return { kind: 'pump:BondingCurve', value: decodePumpBondingCurve(d, u.owner, u.address) };
      if (t === 'Global') return { kind: 'pump:Global', value: decodePumpGlobal(d, u.owner, u.address) };
      break;
    }
    case PUMP_FEES_PROGRAM_ID:
      return { kind: 'pump:FeeConfig', value: decodePumpFeeConfig(d, u.owner, u.address) };
    case OPENBOOK_PROGRAM_ID:
      return { kind: 'openbook:Market', value: decodeSerumMarketAccounts(u.address, u.owner, d) };
  }
  throw new Error(`account ${u.address} of ${u.owner} is of no known type`);
}

function records(updates: PoolUpdate[], from: number): ProjectionRecord[] {
  return updates.map((u, i) => ({ partition: 0, offset: String(from + i), value: encodePoolUpdate(u) }));
}

function wire(updates: PoolUpdate[]): string[] {
  return updates.map((u) => encodePoolUpdate(u).toString('base64'));
}

describe('SimMarket with all six programs (the ingestor\'s default market)', () => {
  const t0 = process.hrtime.bigint();
  const market = new SimMarket(DEFAULT);
  const genesis = market.genesis();
  const genesisMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const projection = new Projection();
  projection.applyBatch(records(genesis, 0));
  let offset = genesis.length;

  it('builds the default genesis: 1,000 pools over the six programs', () => {
    // eslint-disable-next-line no-console
    console.log(`genesis of the default market (1000 pools, 6 programs): ${genesisMs.toFixed(0)} ms, ${genesis.length} accounts`);
    const all = market.allPools();
    expect(all.length).toBe(1000);
    const per = new Map<string, number>();
    for (const p of all) per.set(p.program, (per.get(p.program) ?? 0) + 1);
    for (const name of SIM_PROGRAMS) expect(per.get(name) ?? 0).toBeGreaterThanOrEqual(40);
    expect(new Set(all.map((p) => p.address)).size).toBe(all.length);
    expect(new Set(genesis.map((u) => u.address)).size).toBe(genesis.length);
  });

  it('has realistic shapes: CL liquidity over many ticks and arrays, adaptive-fee oracles, the bitmap extension in use, curves at every stage, Token-2022 transfer fees paired in pools', () => {
    const w = market.whirlpool.whirlpools;
    const initialized = (p: (typeof w)[number]) => [...p.arrays.values()].reduce((n, a) => n + a.filter((t) => t.initialized).length, 0);
    const wTicks = w.map(initialized).sort((a, b) => a - b);
    expect(wTicks[wTicks.length >> 1]).toBeGreaterThanOrEqual(10);
    expect(w.filter((p) => new Set([...p.arrays.entries()].filter(([, a]) => a.some((t) => t.initialized)).map(([s]) => s)).size >= 3).length).toBeGreaterThan(w.length / 2);
    expect(w.some((p) => p.oracle !== null)).toBe(true);
    expect(w.some((p) => p.dynamicArrays) && w.some((p) => !p.dynamicArrays)).toBe(true);
    const c = market.clmm.clmmPools;
    const cTicks = c.map((p) => [...p.arrays.values()].reduce((n, a) => n + a.initializedTickCount, 0)).sort((a, b) => a - b);
    expect(cTicks[cTicks.length >> 1]).toBeGreaterThanOrEqual(10);
    expect(c.filter((p) => p.arrays.size >= 3).length).toBeGreaterThan(c.length / 2);
    // pools whose arrays lie beyond the pool bitmap: their extension account holds bits
    const extUsed = c.filter((p) => p.hasExtension && [...p.extension.positiveTickArrayBitmap, ...p.extension.negativeTickArrayBitmap].some((ws) => ws.some((x) => x !== 0n)));
    expect(extUsed.length).toBeGreaterThanOrEqual(1);
    const stages = new Set(market.pumpFun.curves.map((x) => x.stage));
    expect(stages).toEqual(new Set(['early', 'mid', 'near-complete', 'complete']));
    expect(market.pumpSwap.pumpPools.filter((p) => p.canonical).length).toBe(market.pumpFun.migrations.length);
    const feeMints = market.tokens.filter((t) => t.transferFee !== null);
    expect(feeMints.length).toBeGreaterThanOrEqual(1);
    const feeIdx = new Set(feeMints.map((t) => market.tokens.indexOf(t)));
    expect(market.allPools().some((p) => feeIdx.has(p.tokenA) || feeIdx.has(p.tokenB))).toBe(true);
    // AMM v4 and pump.fun never hold Token-2022 mints
    for (const p of market.allPools()) {
      if (p.program === 'raydium-amm-v4' || p.program === 'pump-fun') {
        expect(market.tokens[p.tokenA].program).toBe(PROGRAM_IDS.token);
        expect(market.tokens[p.tokenB].program).toBe(PROGRAM_IDS.token);
      }
    }
    // depths from tiny to millions of USD
    expect(market.allPools().filter((p) => p.tiny).length).toBeGreaterThanOrEqual(2);
  });

  it('every genesis account decodes with the libs/solana decoders, at the programs\' addresses', () => {
    const kinds = new Map<string, number>();
    for (const u of genesis) {
      expect(u.slot).toBe(market.startSlot);
      expect(u.source).toBe('sim');
      const { kind } = decodeAny(u);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    for (const k of ['Mint', 'TokenAccount', 'cpmm:PoolState', 'cpmm:AmmConfig', 'orca:Whirlpool', 'orca:TickArray', 'orca:DynamicTickArray', 'orca:Oracle', 'clmm:PoolState', 'clmm:AmmConfig', 'clmm:TickArrayState', 'clmm:TickArrayBitmapExtension', 'ammv4:AmmInfo', 'pumpswap:Pool', 'pumpswap:GlobalConfig', 'pump:BondingCurve', 'pump:Global', 'pump:FeeConfig', 'metaplex:Metadata']) {
      expect([k, kinds.get(k) ?? 0]).toEqual([k, expect.any(Number)]);
      expect(kinds.get(k)).toBeGreaterThan(0);
    }
    const t22 = genesis.filter((u) => u.owner === PROGRAM_IDS.token2022 && decodeAny(u).kind === 'Mint');
    expect(t22.some((u) => mintTransferFeeConfig(decodeMint(u.data!, u.owner)) !== null)).toBe(true);
    // PDAs checked against the libs/solana helpers (a sample: the search is slow)
    const w = market.whirlpool.whirlpools[0];
    expect(w.address).toBe(whirlpoolAddress(w.whirlpool.whirlpoolsConfig, w.whirlpool.tokenMintA, w.whirlpool.tokenMintB, w.whirlpool.feeTierIndexSeed));
    for (const [s, a] of [...w.arrayAddress].slice(0, 2)) expect(a).toBe(whirlpoolTickArrayAddress(w.address, s));
    const wo = market.whirlpool.whirlpools.find((x) => x.oracle)!;
    expect(wo.oracleAddress).toBe(whirlpoolOracleAddress(wo.address));
    const c = market.clmm.clmmPools.find((x) => x.hasExtension)!;
    expect(c.address).toBe(clmmPoolAddress(c.state.ammConfig, c.state.tokenMint0, c.state.tokenMint1));
    expect(c.extensionAddress).toBe(clmmBitmapExtensionAddress(c.address));
    const [s0, a0] = [...c.arrayAddress][0];
    expect(a0).toBe(clmmTickArrayAddress(c.address, s0));
    const ps = market.pumpSwap.pumpPools.find((x) => x.canonical)!;
    expect(ps.address).toBe(pumpAmmPoolAddress(0, ps.state.creator, ps.state.baseMint, ps.state.quoteMint));
    expect(isCanonicalPumpPool(ps.state)).toBe(true);
    const curve = market.pumpFun.curves[0];
    expect(curve.address).toBe(pumpBondingCurveAddress(market.tokens[curve.token].mint));
  });

  it('every pool is routable through the router\'s Projection except the complete curves, and quotes', () => {
    const complete = new Set(market.pumpFun.curves.filter((c) => c.curve.complete).map((c) => c.address));
    expect(complete.size).toBeGreaterThan(0);
    expect(projection.stats.rejected).toBe(0);
    const markets = projection.markets();
    expect(markets.length).toBe(1000);
    for (const m of markets) {
      if (complete.has(m.address)) {
        expect(m.routable).toBe(false);
        expect(m.reason).toMatch(/complete/);
      } else expect([m.address, m.routable, m.reason]).toEqual([m.address, true, undefined]);
    }
    // each routable pool quotes both ways (a small amount of its own depth); only tiny pools may give nothing
    const tiny = new Set(market.allPools().filter((p) => p.tiny).map((p) => p.address));
    for (const info of market.allPools()) {
      if (complete.has(info.address)) continue;
      const pool = projection.pool(info.address)!;
      for (const mint of [pool.mintA, pool.mintB]) {
        const amount = BigInt(Math.max(1, Math.floor(pool.reserve(mint) * 1e-4)));
        try {
          const q = pool.quoteExactIn(mint, amount);
          expect(q.amountOut).toBeGreaterThan(0n);
        } catch (e) {
          if (!(e instanceof PoolQuoteError) || !tiny.has(info.address)) throw new Error(`${info.program} pool ${info.address}: ${(e as Error).message}`);
        }
      }
    }
  });

  const solUsdc = (p: Projection): number => {
    const r = findBestRoute(p, { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: 1_000_000_000n, mode: 'ExactIn', maxHops: 4 });
    return Number(r.amountOut) / 1e6;
  };

  it('prices are consistent: 1 SOL → USDC is within 1% of the latent SOL price, at genesis and after 150 slots', () => {
    const at0 = solUsdc(projection);
    expect(Math.abs(at0 / market.tokens[0].priceUsd - 1)).toBeLessThan(0.01);
    const perSlot = new Map<string, number>();
    for (let i = 0; i < 150; i++) {
      const step = market.step();
      for (const u of step) {
        expect(u.slot).toBe(market.slot);
        decodeAny(u);
      }
      for (const name of new Set(market.lastSwaps.map((s) => s.program))) perSlot.set(name, (perSlot.get(name) ?? 0) + 1);
      projection.applyBatch(records(step, offset));
      offset += step.length;
    }
    expect(projection.stats.rejected).toBe(0);
    const after = solUsdc(projection);
    expect(Math.abs(after / market.tokens[0].priceUsd - 1)).toBeLessThan(0.01);
    // every kind moves (nearly) every slot
    for (const name of SIM_PROGRAMS) expect([name, perSlot.get(name) ?? 0]).toEqual([name, expect.any(Number)]);
    for (const name of SIM_PROGRAMS) expect(perSlot.get(name)!).toBeGreaterThan(150 * 0.8);
    // pools stay routable (a curve that sold out meanwhile is complete and leaves)
    const complete = market.pumpFun.curves.filter((c) => c.curve.complete).length;
    expect(projection.stats.routablePools).toBeGreaterThanOrEqual(1000 - complete - 2);
  });
});

describe('SimMarket with all six programs: determinism and replay', () => {
  const SMALL: SimMarketOptions = { seed: 42, pools: 150, tokens: 40, swapsPerSlot: 8, programs: 'all' };

  it('same seed ⇒ byte-identical genesis and steps; another seed ⇒ another market', () => {
    const a = new SimMarket(SMALL);
    const b = new SimMarket(SMALL);
    expect(wire(a.genesis())).toEqual(wire(b.genesis()));
    for (let i = 0; i < 40; i++) expect(wire(a.step())).toEqual(wire(b.step()));
    expect(wire(new SimMarket({ ...SMALL, seed: 43 }).genesis())).not.toEqual(wire(new SimMarket(SMALL).genesis()));
  });

  it('advance(n) reaches the state of n steps (the ingestor\'s deterministic resume)', () => {
    const a = new SimMarket(SMALL);
    const b = new SimMarket(SMALL);
    let last: PoolUpdate[] = [];
    for (let i = 0; i < 40; i++) last = a.step();
    b.advance(39);
    expect(wire(b.step())).toEqual(wire(last));
    expect(wire(a.snapshot())).toEqual(wire(b.snapshot()));
  });

  it('validates the program list', () => {
    expect(() => new SimMarket({ ...SMALL, programs: [] })).toThrow(RangeError);
    expect(() => new SimMarket({ ...SMALL, programs: ['nope' as never] })).toThrow(/unknown program nope/);
    const only = new SimMarket({ ...SMALL, programs: ['orca-whirlpool', 'pump-fun'] });
    expect(new Set(only.allPools().map((p) => p.program))).toEqual(new Set(['orca-whirlpool', 'pump-fun']));
    expect(only.allPools().length).toBe(150);
  });
});
