/**
 * The four properties, on one pool of every program through the one Pool interface, with and
 * without Token-2022 transfer fees where the program can hold Token-2022 mints:
 *  - monotonic in the amount (ExactIn: more in never gives less out; ExactOut: more out never costs less);
 *  - no value created (a round trip A -> B -> A never returns more A than it took);
 *  - ExactOut asks at least the input ExactIn needs for that output (that input buys it);
 *  - fees never negative.
 * And the float guides (approxOut / approxIn, what the route search and the stream's checks rank
 * paths by) follow the exact quotes, transfer fees included.
 * Amounts where a quote fails (PoolQuoteError) are skipped; anything else thrown fails the test.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { PoolQuoteError, otherMint, type HopQuote, type Pool } from '../pool';
import type { EpochTransferFee } from '../transfer-fee';
import { MINTS } from '@app/solana';
import { decodeTickArray, decodeWhirlpool } from '@app/solana';
import { DEFAULT_PUBKEY, decodePumpBondingCurve, decodePumpGlobal, type PumpFeeConfig } from '@app/solana';
import { decodeAmmV4Info } from '@app/solana';
import { decodeCpmmAmmConfig, decodeCpmmPoolState } from '@app/solana';
import { decodeTokenAccount } from '@app/solana';
import { WhirlpoolPool } from './orca-whirlpool/pool';
import { PumpAmmPool } from './pump-amm/pool';
import { PumpFunCurve } from './pump-fun/pool';
import { AmmV4Pool } from './raydium-amm-v4/pool';
import { ClmmPool } from './raydium-clmm/pool';
import { buildSyntheticClmm } from './raydium-clmm/synthetic';
import { CpmmPool } from './raydium-cpmm/pool';

const FIXTURES = path.resolve(__dirname, '../../../..', '..', 'shared', 'fixtures');
function acc(rel: string): { data: Buffer; owner: string; pubkey: string } {
  const j = JSON.parse(fs.readFileSync(path.join(FIXTURES, rel), 'utf8'));
  const a = j.account ?? j;
  return { data: Buffer.from(Array.isArray(a.data) ? a.data[0] : a.data, 'base64'), owner: a.owner, pubkey: j.pubkey };
}

const TF_A: EpochTransferFee = { bps: 150, maximumFee: 3_000_000_000n };
const TF_B: EpochTransferFee = { bps: 40, maximumFee: 50_000n };
type Fees = { a: EpochTransferFee | null; b: EpochTransferFee | null };
const NONE: Fees = { a: null, b: null };
const BOTH: Fees = { a: TF_A, b: TF_B };

function cpmm(f: Fees): Pool {
  const p = acc('raydium-cpmm/unattributed/pool_state.FmNz8z2oN4CheHj4EUXVXC6doFN4RRmhGwxFQgrJVJFs.json');
  const c = acc('raydium-cpmm/unattributed/amm_config.2fGXL8uhqxJ4tpgtosHZXT4zcQap6j62z3bMDxdkMvy5.json');
  const state = decodeCpmmPoolState(p.data, p.owner, p.pubkey);
  const owed0 = state.protocolFeesToken0 + state.fundFeesToken0 + state.creatorFeesToken0;
  const owed1 = state.protocolFeesToken1 + state.fundFeesToken1 + state.creatorFeesToken1;
  return new CpmmPool({
    address: p.pubkey,
    state,
    config: decodeCpmmAmmConfig(c.data, c.owner, c.pubkey),
    vault0Amount: owed0 + 85_000_000_000n,
    vault1Amount: owed1 + 1_234_567_890_000_000n,
    slot: 1,
    transferFee0: f.a,
    transferFee1: f.b,
  });
}

function ammV4(): Pool {
  const dir = 'raydium-amm-v4/unattributed';
  const i = acc(`${dir}/amm_info.58oQChx4yWmvKdwLLZzBi4ChoCc2fqCUWBkwMihLYQo2.captured2026-08-06.json`);
  const c = acc(`${dir}/coin_vault.DQyrAcCrDXQ7NeoqGgDCZwBvWDcYmFCjSb9JtteuvPpz.captured2026-08-06.json`);
  const p = acc(`${dir}/pc_vault.HLmqeL62xR1QoZ1HKKbXRrdN1p3phKpxRMb2VVopvBBz.captured2026-08-06.json`);
  return new AmmV4Pool({
    address: i.pubkey,
    info: decodeAmmV4Info(i.data, i.owner, i.pubkey),
    coinVaultAmount: decodeTokenAccount(c.data, c.owner).amount,
    pcVaultAmount: decodeTokenAccount(p.data, p.owner).amount,
    slot: 1,
  });
}

function whirlpool(f: Fees): Pool {
  const dir = path.join(FIXTURES, 'orca-whirlpool/whirlpool-essentials');
  const addr = '9vqYJjDUFecLL2xPUC4Rc7hyCtZ6iJ4mDiVZX7aFXoAe';
  const w = acc(`orca-whirlpool/whirlpool-essentials/samo_usdc_wp_whirlpool.${addr}.json`);
  const arrays = fs
    .readdirSync(dir)
    .filter((n) => n.startsWith('samo_usdc_wp_ta_'))
    .map((n) => {
      const t = acc(`orca-whirlpool/whirlpool-essentials/${n}`);
      return decodeTickArray(t.data, t.owner, t.pubkey);
    });
  return new WhirlpoolPool({ address: addr, whirlpool: decodeWhirlpool(w.data, w.owner, addr), tickArrays: arrays, slot: 1, transferFeeA: f.a, transferFeeB: f.b });
}

function clmm(f: Fees): Pool {
  const s = buildSyntheticClmm({
    address: 'CLMMPoo11111111111111111111111111111111111',
    mint0: 'Mint0111111111111111111111111111111111111111',
    mint1: 'Mint1111111111111111111111111111111111111111',
    ammConfig: 'Cfg11111111111111111111111111111111111111111',
    tickSpacing: 10,
    tickCurrent: 3,
    positions: [
      { tickLower: -2000, tickUpper: 2000, liquidity: 9_000_000_000n },
      { tickLower: -150, tickUpper: 90, liquidity: 20_000_000_000n },
      { tickLower: 300, tickUpper: 1200, liquidity: 4_000_000_000n },
    ],
    tradeFeeRate: 3000,
  });
  return new ClmmPool({ address: s.state.ammConfig === '' ? '' : 'CLMMPoo11111111111111111111111111111111111', state: s.state, config: s.config, extension: s.extension, tickArrays: s.tickArrays, slot: 1, transferFeeA: f.a, transferFeeB: f.b });
}

const FEE_CONFIG: PumpFeeConfig = {
  bump: 255,
  admin: DEFAULT_PUBKEY,
  flatFees: { lpFeeBps: 25n, protocolFeeBps: 5n, creatorFeeBps: 0n },
  feeTiers: [
    { marketCapLamportsThreshold: 0n, fees: { lpFeeBps: 20n, protocolFeeBps: 93n, creatorFeeBps: 30n } },
    { marketCapLamportsThreshold: 10n ** 14n, fees: { lpFeeBps: 20n, protocolFeeBps: 5n, creatorFeeBps: 5n } },
  ],
  stableFeeTiers: [],
};

function pumpAmm(f: Fees): Pool {
  return new PumpAmmPool({
    address: 'PumpPoo1111111111111111111111111111111111111',
    pool: {
      poolBump: 254,
      index: 0,
      creator: 'Creator111111111111111111111111111111111111',
      baseMint: 'Base1111111111111111111111111111111111111111',
      quoteMint: MINTS.SOL,
      lpMint: DEFAULT_PUBKEY,
      poolBaseTokenAccount: DEFAULT_PUBKEY,
      poolQuoteTokenAccount: DEFAULT_PUBKEY,
      lpSupply: 1n,
      coinCreator: 'Coin1111111111111111111111111111111111111111',
      isMayhemMode: false,
      isCashbackCoin: false,
    },
    globalConfig: {
      admin: DEFAULT_PUBKEY,
      lpFeeBasisPoints: 20n,
      protocolFeeBasisPoints: 5n,
      disableFlags: 0,
      protocolFeeRecipients: [],
      coinCreatorFeeBasisPoints: 5n,
      adminSetCoinCreatorAuthority: DEFAULT_PUBKEY,
      whitelistPda: DEFAULT_PUBKEY,
      reservedFeeRecipient: DEFAULT_PUBKEY,
      mayhemModeEnabled: false,
      reservedFeeRecipients: [],
      isCashbackEnabled: false,
      buybackFeeRecipients: [],
      buybackBasisPoints: 0n,
    },
    feeConfig: FEE_CONFIG,
    baseVaultAmount: 206_900_000_000_000n,
    quoteVaultAmount: 84_990_359_393n,
    baseMintSupply: 1_000_000_000_000_000n,
    slot: 1,
    canonical: true,
    transferFeeA: f.a,
    transferFeeB: f.b,
  });
}

function pumpFun(): Pool {
  const c = acc('pumpfun/carbon_bonding_curve_account.json');
  const g = acc('pumpfun/carbon_global_account.json');
  const curve = decodePumpBondingCurve(c.data, c.owner);
  return new PumpFunCurve({
    address: 'HWxwYxr4AV5ytUyT8pvjCEiUrXhwpbx365VpvQ6Bd6MZ',
    mint: 'Token11111111111111111111111111111111111111',
    curve: { ...curve, complete: false, realTokenReserves: curve.realTokenReserves || 500_000_000_000_000n, realQuoteReserves: curve.realQuoteReserves + 10n ** 11n },
    global: decodePumpGlobal(g.data, g.owner),
    feeConfig: FEE_CONFIG,
    slot: 1,
  });
}

/** one pool of every program, and a twin with `fees` on both mints where the program can hold Token-2022 mints */
function everyProgram(fees: Fees): [string, Pool][] {
  return [
    ['Raydium CPMM', cpmm(NONE)],
    ['Raydium CPMM + transfer fees', cpmm(fees)],
    ['Raydium AMM v4', ammV4()],
    ['Raydium CLMM', clmm(NONE)],
    ['Raydium CLMM + transfer fees', clmm(fees)],
    ['Orca Whirlpool', whirlpool(NONE)],
    ['Orca Whirlpool + transfer fees', whirlpool(fees)],
    ['PumpSwap', pumpAmm(NONE)],
    ['PumpSwap + transfer fees', pumpAmm(fees)],
    ['pump.fun', pumpFun()],
  ];
}

const POOLS = everyProgram(BOTH);

function tryQuote(f: () => HopQuote): HopQuote | null {
  try {
    return f();
  } catch (e) {
    if (e instanceof PoolQuoteError) return null;
    throw e;
  }
}

/** amounts from 1 unit up to about the pool's reach (log-uniform) */
function amounts(pool: Pool, mint: string): fc.Arbitrary<bigint> {
  const cap = Math.max(10, Math.min(1e18, pool.reserve(mint) || 1e12));
  return fc.double({ min: 0, max: Math.log10(cap), noNaN: true }).map((e) => BigInt(Math.max(1, Math.floor(10 ** e))));
}

describe.each(POOLS)('%s: the four properties', (_name, pool) => {
  const sides = [pool.mintA, pool.mintB];
  const runs = { numRuns: 150 };

  it('has quotes to test in both directions and modes', () => {
    for (const m of sides) {
      expect(tryQuote(() => pool.quoteExactIn(m, 10n ** 6n)) ?? tryQuote(() => pool.quoteExactIn(m, 10n ** 9n))).not.toBeNull();
    }
  });

  it('monotonic in the amount, both modes', () => {
    for (const m of sides) {
      const out = otherMint(pool, m);
      fc.assert(
        fc.property(amounts(pool, m), amounts(pool, m), (x, y) => {
          const [lo, hi] = x <= y ? [x, y] : [y, x];
          const a = tryQuote(() => pool.quoteExactIn(m, lo));
          const b = tryQuote(() => pool.quoteExactIn(m, hi));
          if (a && b) expect(b.amountOut).toBeGreaterThanOrEqual(a.amountOut);
        }),
        runs,
      );
      fc.assert(
        fc.property(amounts(pool, out), amounts(pool, out), (x, y) => {
          const [lo, hi] = x <= y ? [x, y] : [y, x];
          const a = tryQuote(() => pool.quoteExactOut(m, lo));
          const b = tryQuote(() => pool.quoteExactOut(m, hi));
          if (a && b) expect(b.amountIn).toBeGreaterThanOrEqual(a.amountIn);
        }),
        runs,
      );
    }
  });

  it('no value created: a round trip never returns more than it took', () => {
    for (const m of sides) {
      fc.assert(
        fc.property(amounts(pool, m), (x) => {
          const there = tryQuote(() => pool.quoteExactIn(m, x));
          if (!there) return;
          const back = tryQuote(() => pool.quoteExactIn(otherMint(pool, m), there.amountOut));
          if (back) expect(back.amountOut).toBeLessThanOrEqual(there.amountIn);
        }),
        runs,
      );
    }
  });

  it('ExactOut asks at least the input ExactIn needs for that output (and that input buys it)', () => {
    for (const m of sides) {
      // pump buys: ExactIn is buy_exact_quote_in / buy_exact_sol_in, whose budget keeps one unit
      // back (tokens = f(net - 1)); the exact-token buy is its upper inverse. There the property
      // reads the other way round: the exact-token buy of what a budget bought never costs more
      // than that budget.
      const pumpBuy = (pool.label === 'PumpSwap' || pool.label === 'pump.fun') && m === pool.mintB;
      if (pumpBuy) {
        fc.assert(
          fc.property(amounts(pool, m), (budget) => {
            const q = tryQuote(() => pool.quoteExactIn(m, budget));
            if (!q) return;
            const exact = tryQuote(() => pool.quoteExactOut(m, q.amountOut));
            expect(exact).not.toBeNull();
            expect(exact!.amountIn).toBeLessThanOrEqual(budget);
            expect(exact!.amountIn).toBeGreaterThanOrEqual(q.amountIn - 1n);
          }),
          runs,
        );
        continue;
      }
      fc.assert(
        fc.property(amounts(pool, otherMint(pool, m)), (want) => {
          const q = tryQuote(() => pool.quoteExactOut(m, want));
          if (!q) return;
          const check = tryQuote(() => pool.quoteExactIn(m, q.amountIn));
          expect(check).not.toBeNull();
          expect(check!.amountOut).toBeGreaterThanOrEqual(q.amountOut);
          expect(q.amountOut).toBeGreaterThanOrEqual(want - (pool.label === 'PumpSwap' || pool.label === 'pump.fun' ? 0n : 1n));
        }),
        runs,
      );
    }
  });

  it('fees are never negative, in both modes', () => {
    for (const m of sides) {
      fc.assert(
        fc.property(amounts(pool, m), (x) => {
          const a = tryQuote(() => pool.quoteExactIn(m, x));
          if (a) expect(a.feeAmount).toBeGreaterThanOrEqual(0n);
          const b = tryQuote(() => pool.quoteExactOut(m, x));
          if (b) expect(b.feeAmount).toBeGreaterThanOrEqual(0n);
        }),
        runs,
      );
    }
  });
});

// transfer fees whose maximum never binds (the guides ignore the maximum)
const WIDE: Fees = { a: { bps: 150, maximumFee: 2n ** 64n - 1n }, b: { bps: 40, maximumFee: 2n ** 64n - 1n } };
const GUIDED = everyProgram(WIDE);

describe.each(GUIDED)('%s: the float guides', (_name, pool) => {
  it('follow the exact quotes, transfer fees included (what the route search and the checks rank paths by)', () => {
    let compared = 0;
    for (const m of [pool.mintA, pool.mintB]) {
      const out = otherMint(pool, m);
      // away from unit rounding, and from the end of the pool's reach where the curve is steep
      const top = Math.log10(Math.min(pool.reserve(m), 1e18) / 200);
      if (!(top > 5)) continue;
      fc.assert(
        fc.property(fc.double({ min: 5, max: top, noNaN: true }), (e) => {
          const q = tryQuote(() => pool.quoteExactIn(m, BigInt(Math.floor(10 ** e))));
          if (!q || q.amountOut < 100_000n || Number(q.amountOut) > pool.reserve(out) / 100) return;
          compared++;
          // far closer than the smallest transfer fee here (40 bps): a guide that missed one fails
          expect(Math.abs(pool.approxOut(m, Number(q.amountIn)) / Number(q.amountOut) - 1)).toBeLessThan(0.002);
          expect(Math.abs(pool.approxIn(m, Number(q.amountOut)) / Number(q.amountIn) - 1)).toBeLessThan(0.002);
        }),
        { numRuns: 300 },
      );
    }
    expect(compared).toBeGreaterThan(50);
  });
});
