/**
 * Suite `programs`: the cost of one exact quote per program (Pool.quoteExactIn, one core), simple
 * case and, for concentrated liquidity, a hop crossing at least 10 initialized ticks.
 * Pools: real captures where the fixtures have them (CPMM, AMM v4, Whirlpool SAMO/USDC, the
 * pump.fun curve), synthetic accounts otherwise (CLMM, PumpSwap).
 */
import * as fs from 'fs';
import * as path from 'path';
import { fmtMs, verdict, type BenchSection } from './harness';
import type { Pool } from '@app/amm';
import { WhirlpoolPool } from '@app/amm';
import { PumpAmmPool } from '@app/amm';
import { PumpFunCurve } from '@app/amm';
import { AmmV4Pool } from '@app/amm';
import { ClmmPool } from '@app/amm';
import { getTickAtSqrtPrice } from '@app/amm';
import { buildSyntheticClmm } from '@app/amm';
import { CpmmPool } from '@app/amm';
import { MINTS } from '@app/solana';
import { decodeTickArray, decodeWhirlpool } from '@app/solana';
import { DEFAULT_PUBKEY, decodePumpBondingCurve, decodePumpGlobal } from '@app/solana';
import { decodeAmmV4Info } from '@app/solana';
import { decodeCpmmAmmConfig, decodeCpmmPoolState } from '@app/solana';
import { decodeTokenAccount } from '@app/solana';

const FIXTURES = path.resolve(__dirname, '..', '..', 'shared', 'fixtures');
function acc(rel: string): { data: Buffer; owner: string; pubkey: string } {
  const j = JSON.parse(fs.readFileSync(path.join(FIXTURES, rel), 'utf8'));
  const a = j.account ?? j;
  return { data: Buffer.from(Array.isArray(a.data) ? a.data[0] : a.data, 'base64'), owner: a.owner, pubkey: j.pubkey };
}

/** median ns per call over several timed batches */
function perCall(fn: () => unknown, batch = 2_000, batches = 15): number {
  for (let i = 0; i < batch; i++) fn(); // warm-up
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn();
    samples.push(Number(process.hrtime.bigint() - t0) / batch);
  }
  samples.sort((x, y) => x - y);
  return samples[samples.length >> 1];
}

function pools(): Record<string, Pool> {
  const p = acc('raydium-cpmm/unattributed/pool_state.FmNz8z2oN4CheHj4EUXVXC6doFN4RRmhGwxFQgrJVJFs.json');
  const c = acc('raydium-cpmm/unattributed/amm_config.2fGXL8uhqxJ4tpgtosHZXT4zcQap6j62z3bMDxdkMvy5.json');
  const state = decodeCpmmPoolState(p.data, p.owner, p.pubkey);
  const cpmm = new CpmmPool({
    address: p.pubkey,
    state,
    config: decodeCpmmAmmConfig(c.data, c.owner, c.pubkey),
    vault0Amount: state.protocolFeesToken0 + state.fundFeesToken0 + state.creatorFeesToken0 + 85_000_000_000n,
    vault1Amount: state.protocolFeesToken1 + state.fundFeesToken1 + state.creatorFeesToken1 + 1_234_567_890_000_000n,
    slot: 1,
  });
  const v4 = 'raydium-amm-v4/unattributed';
  const i = acc(`${v4}/amm_info.58oQChx4yWmvKdwLLZzBi4ChoCc2fqCUWBkwMihLYQo2.captured2026-08-06.json`);
  const cv = acc(`${v4}/coin_vault.DQyrAcCrDXQ7NeoqGgDCZwBvWDcYmFCjSb9JtteuvPpz.captured2026-08-06.json`);
  const pv = acc(`${v4}/pc_vault.HLmqeL62xR1QoZ1HKKbXRrdN1p3phKpxRMb2VVopvBBz.captured2026-08-06.json`);
  const ammV4 = new AmmV4Pool({
    address: i.pubkey,
    info: decodeAmmV4Info(i.data, i.owner, i.pubkey),
    coinVaultAmount: decodeTokenAccount(cv.data, cv.owner).amount,
    pcVaultAmount: decodeTokenAccount(pv.data, pv.owner).amount,
    slot: 1,
  });
  const ess = 'orca-whirlpool/whirlpool-essentials';
  const waddr = '9vqYJjDUFecLL2xPUC4Rc7hyCtZ6iJ4mDiVZX7aFXoAe';
  const w = acc(`${ess}/samo_usdc_wp_whirlpool.${waddr}.json`);
  const arrays = fs
    .readdirSync(path.join(FIXTURES, ess))
    .filter((n) => n.startsWith('samo_usdc_wp_ta_'))
    .map((n) => {
      const t = acc(`${ess}/${n}`);
      return decodeTickArray(t.data, t.owner, t.pubkey);
    });
  const whirlpool = new WhirlpoolPool({ address: waddr, whirlpool: decodeWhirlpool(w.data, w.owner, waddr), tickArrays: arrays, slot: 1 });
  const positions = [];
  for (let k = 1; k <= 40; k++) positions.push({ tickLower: -10 * k, tickUpper: 10 * k, liquidity: 1_000_000_000n });
  const s = buildSyntheticClmm({
    address: 'CLMMPoo11111111111111111111111111111111111',
    mint0: 'Mint0111111111111111111111111111111111111111',
    mint1: 'Mint1111111111111111111111111111111111111111',
    ammConfig: 'Cfg11111111111111111111111111111111111111111',
    tickSpacing: 10,
    tickCurrent: 5,
    positions,
    tradeFeeRate: 2500,
  });
  const clmm = new ClmmPool({ address: 'CLMMPoo11111111111111111111111111111111111', state: s.state, config: s.config, extension: s.extension, tickArrays: s.tickArrays, slot: 1 });
  const pumpAmm = new PumpAmmPool({
    address: 'PumpPoo1111111111111111111111111111111111111',
    pool: {
      poolBump: 254, index: 0, creator: 'Creator111111111111111111111111111111111111', baseMint: 'Base1111111111111111111111111111111111111111',
      quoteMint: MINTS.SOL, lpMint: DEFAULT_PUBKEY, poolBaseTokenAccount: DEFAULT_PUBKEY, poolQuoteTokenAccount: DEFAULT_PUBKEY, lpSupply: 1n,
      coinCreator: DEFAULT_PUBKEY, isMayhemMode: false, isCashbackCoin: false,
    },
    globalConfig: {
      admin: DEFAULT_PUBKEY, lpFeeBasisPoints: 20n, protocolFeeBasisPoints: 5n, disableFlags: 0, protocolFeeRecipients: [], coinCreatorFeeBasisPoints: 5n,
      adminSetCoinCreatorAuthority: DEFAULT_PUBKEY, whitelistPda: DEFAULT_PUBKEY, reservedFeeRecipient: DEFAULT_PUBKEY, mayhemModeEnabled: false,
      reservedFeeRecipients: [], isCashbackEnabled: false, buybackFeeRecipients: [], buybackBasisPoints: 0n,
    },
    feeConfig: null,
    baseVaultAmount: 206_900_000_000_000n,
    quoteVaultAmount: 84_990_359_393n,
    baseMintSupply: 1_000_000_000_000_000n,
    slot: 1,
    canonical: false,
  });
  const bc = acc('pumpfun/carbon_bonding_curve_account.json');
  const g = acc('pumpfun/carbon_global_account.json');
  const curve = decodePumpBondingCurve(bc.data, bc.owner);
  const pumpFun = new PumpFunCurve({
    address: 'HWxwYxr4AV5ytUyT8pvjCEiUrXhwpbx365VpvQ6Bd6MZ',
    mint: 'Token11111111111111111111111111111111111111',
    curve: { ...curve, complete: false, realTokenReserves: curve.realTokenReserves || 500_000_000_000_000n },
    global: decodePumpGlobal(g.data, g.owner),
    feeConfig: null,
    slot: 1,
  });
  return { cpmm, ammV4, whirlpool, clmm, pumpAmm, pumpFun };
}

/** the smallest power-of-two multiple of `start` whose quote crosses at least `n` ticks */
function amountCrossing(start: bigint, crossed: (amount: bigint) => number, n: number): { amount: bigint; ticks: number } {
  let a = start;
  for (let i = 0; i < 80; i++, a *= 2n) {
    const t = crossed(a);
    if (t >= n) return { amount: a, ticks: t };
  }
  throw new Error('no amount crosses enough ticks');
}

export async function bench(): Promise<BenchSection[]> {
  const p = pools();
  const CP_TARGET_NS = 2_000;
  const CL_TARGET_NS = 50_000;
  const rows: BenchSection['rows'] = [];
  const row = (metric: string, ns: number, targetNs: number | null, notes: string): void => {
    rows.push({
      metric,
      value: fmtMs(ns / 1e6),
      target: targetNs === null ? '' : `< ${fmtMs(targetNs / 1e6)}`,
      verdict: targetNs === null ? '' : verdict(ns < targetNs),
      notes,
    });
  };
  const cp = (name: string, pool: Pool, mint: string, amount: bigint, notes: string): void =>
    row(name, perCall(() => pool.quoteExactIn(mint, amount)), CP_TARGET_NS, notes);

  cp('Raydium CPMM, ExactIn', p.cpmm, p.cpmm.mintA, 1_000_000_000n, 'real pool FmNz8z2 (SOL side), 1 SOL');
  row('Raydium CPMM, ExactOut', perCall(() => p.cpmm.quoteExactOut(p.cpmm.mintA, 1_000_000_000n)), CP_TARGET_NS, 'same pool');
  cp('Raydium AMM v4, ExactIn', p.ammV4, p.ammV4.mintA, 1_000_000_000n, 'real SOL/USDC pool 58oQChx4, 1 SOL');
  row('Raydium AMM v4, ExactOut', perCall(() => p.ammV4.quoteExactOut(p.ammV4.mintA, 100_000_000n)), CP_TARGET_NS, '100 USDC out');
  cp('PumpSwap, ExactIn sell', p.pumpAmm, p.pumpAmm.mintA, 1_000_000_000n, 'synthetic pool');
  cp('PumpSwap, ExactIn buy (buy_exact_quote_in)', p.pumpAmm, MINTS.SOL, 1_000_000_000n, 'synthetic pool');
  row('PumpSwap, ExactOut sell-for-quote (search)', perCall(() => p.pumpAmm.quoteExactOut(p.pumpAmm.mintA, 100_000_000n), 500), null, 'fewest base paying at least the quote asked');
  cp('pump.fun, ExactIn buy (buy_exact_sol_in)', p.pumpFun, MINTS.SOL, 100_000_000n, 'real curve HWxwYxr4, 0.1 SOL');
  cp('pump.fun, ExactIn sell', p.pumpFun, p.pumpFun.mintA, 1_000_000_000n, 'real curve');

  const w = p.whirlpool as WhirlpoolPool;
  row('Orca Whirlpool, ExactIn, no tick crossed', perCall(() => w.quoteExactIn(w.mintB, 1_000n), 1_000), null, 'SAMO/USDC capture, 0.001 USDC in');
  const wc = amountCrossing(1_000_000n, (a) => w.swap(w.mintA, 'ExactIn', a).crossedTicks.length, 10);
  row(`Orca Whirlpool, ExactIn crossing ${wc.ticks} ticks`, perCall(() => w.quoteExactIn(w.mintA, wc.amount), 200), CL_TARGET_NS, `SAMO/USDC capture, ${wc.amount} SAMO units in`);

  const c = p.clmm as ClmmPool;
  row('Raydium CLMM, ExactIn, no tick crossed', perCall(() => c.quoteExactIn(c.mintA, 1_000n), 1_000), null, 'synthetic pool, 40 positions, tick spacing 10');
  const start = c.state.tickCurrent;
  const cc = amountCrossing(1_000n, (a) => Math.floor((start - getTickAtSqrtPrice(c.swap(c.mintA, 'ExactIn', a).sqrtPriceX64)) / 10), 10);
  row(`Raydium CLMM, ExactIn crossing ${cc.ticks} ticks`, perCall(() => c.quoteExactIn(c.mintA, cc.amount), 200), CL_TARGET_NS, `synthetic pool, an initialized tick every 10`);

  return [
    {
      title: 'programs: one exact quote per program',
      description:
        'Median cost of one Pool quote (exact integer math, one core, batches after warm-up). Targets: a constant-product hop under 2 µs; a concentrated-liquidity hop crossing 10 ticks under 50 µs.',
      rows,
    },
  ];
}
