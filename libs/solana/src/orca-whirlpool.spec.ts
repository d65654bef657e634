import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { base58Encode } from './base58';
import { AccountDecodeError } from './decode-error';
import { PROGRAM_IDS } from './programs';
import {
  DYNAMIC_TICK_ARRAY_MIN_SIZE,
  FIXED_TICK_ARRAY_SIZE,
  WHIRLPOOL_SIZE,
  decodeDynamicTickArray,
  decodeFeeTier,
  decodeFixedTickArray,
  decodeOracle,
  decodeTickArray,
  decodeWhirlpool,
  decodeWhirlpoolPosition,
  decodeWhirlpoolProgramAccount,
  decodeWhirlpoolTokenBadge,
  decodeWhirlpoolsConfig,
  encodeDynamicTickArray,
  encodeFixedTickArray,
  encodeOracle,
  encodeWhirlpool,
  isAdaptiveFeeWhirlpool,
  whirlpoolAccountType,
  whirlpoolOracleAddress,
  whirlpoolRewardAuthority,
  whirlpoolTickArrayAddress,
  type WhirlpoolOracle,
} from './orca-whirlpool';

const FIXTURES = path.resolve(__dirname, '../../..', '..', 'shared', 'fixtures');
const ORCA = path.join(FIXTURES, 'orca-whirlpool');
const ESS = path.join(ORCA, 'whirlpool-essentials');

interface Fixture {
  file: string;
  pubkey: string | null;
  owner: string;
  data: Buffer;
  decoded?: Record<string, unknown>;
}

function toKey(v: unknown): string {
  return Array.isArray(v) ? base58Encode(Uint8Array.from(v as number[])) : (v as string);
}

/** loads the three fixture shapes: {pubkey, account:{data:[b64]}}, carbon {data: b64, owner}, vixen {data: int[]} */
function load(file: string): Fixture {
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  const acc = j.account ?? j;
  const d = acc.data;
  const data = typeof d === 'string' ? Buffer.from(d, 'base64') : typeof d[0] === 'string' ? Buffer.from(d[0], 'base64') : Buffer.from(d);
  return { file, pubkey: j.pubkey === undefined ? null : toKey(j.pubkey), owner: toKey(acc.owner), data, decoded: j.data_decoded };
}

function listJson(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return listJson(p);
    return e.name.endsWith('.json') && !e.name.endsWith('.expected_decoded.json') && !e.name.startsWith('swap_test_cases')
      ? [p]
      : [];
  });
}

const all = listJson(ORCA).map(load);
const programOwned = all.filter((f) => f.owner === PROGRAM_IDS.orcaWhirlpool);

function data(v: unknown): unknown {
  return (v as { data: unknown }).data;
}

describe('Orca Whirlpool account decoders on fixtures', () => {
  it('finds the program-owned fixtures', () => {
    expect(programOwned.length).toBe(37);
  });

  it.each(programOwned.map((f) => [path.relative(ORCA, f.file), f] as const))('%s decodes by discriminator', (_n, f) => {
    const type = whirlpoolAccountType(f.data);
    expect(type).not.toBeNull();
    const d = decodeWhirlpoolProgramAccount(f.data, f.owner, f.pubkey ?? f.file);
    expect(d.type).toBe(type);
  });

  it('carbon whirlpool matches its decoded JSON (and the old "authority" name of the reward extension)', () => {
    const f = programOwned.find((x) => x.file.endsWith('carbon_whirlpool_account.json'))!;
    const w = decodeWhirlpool(f.data, f.owner);
    const e = f.decoded!;
    expect(w.whirlpoolsConfig).toBe(data(e.whirlpoolsConfig));
    expect(w.whirlpoolBump).toBe((data(e.whirlpoolBump) as number[])[0]);
    expect(w.tickSpacing).toBe(Number(data(e.tickSpacing)));
    const seed = data(e.tickSpacingSeed) as number[];
    expect(w.feeTierIndexSeed).toBe(seed[0] + 256 * seed[1]);
    expect(w.feeRate).toBe(Number(data(e.feeRate)));
    expect(w.protocolFeeRate).toBe(Number(data(e.protocolFeeRate)));
    expect(w.liquidity).toBe(BigInt(data(e.liquidity) as string));
    expect(w.sqrtPrice).toBe(BigInt(data(e.sqrtPrice) as string));
    expect(w.tickCurrentIndex).toBe(Number(data(e.tickCurrentIndex)));
    expect(w.tokenMintA).toBe(data(e.tokenMintA));
    expect(w.tokenVaultA).toBe(data(e.tokenVaultA));
    expect(w.tokenMintB).toBe(data(e.tokenMintB));
    expect(w.tokenVaultB).toBe(data(e.tokenVaultB));
    expect(w.rewardLastUpdatedTimestamp).toBe(BigInt(data(e.rewardLastUpdatedTimestamp) as string));
    const ri = data(e.rewardInfos) as { mint: string; vault: string; authority: string; growthGlobalX64: string }[];
    ri.forEach((r, i) => {
      expect(w.rewardInfos[i].mint).toBe(r.mint);
      expect(w.rewardInfos[i].vault).toBe(r.vault);
      expect(w.rewardInfos[i].growthGlobalX64).toBe(BigInt(r.growthGlobalX64));
    });
    expect(whirlpoolRewardAuthority(w)).toBe(ri[0].authority);
  });

  it('ipv4sq whirlpool matches the expected decoded JSON field by field', () => {
    const base = 'ipv4sq_src_dex_whirlpool_pool_data.HyA4ct7i4XvZsVrLyb5VJhcTP1EZVDZoF9fFGym16zcj';
    const f = load(path.join(ORCA, `${base}.json`));
    const e = JSON.parse(fs.readFileSync(path.join(ORCA, `${base}.expected_decoded.json`), 'utf8'));
    const w = decodeWhirlpool(f.data, f.owner, f.pubkey!);
    const w2 = w as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(e) as [string, { type: unknown; data: unknown }][]) {
      if (k === 'rewardInfos') continue;
      if (k === 'whirlpoolBump') expect(w.whirlpoolBump).toBe((v.data as number[])[0]);
      else if (k === 'feeTierIndexSeed') expect(w.feeTierIndexSeed).toBe((v.data as number[])[0] + 256 * (v.data as number[])[1]);
      else if (v.type === 'publicKey') expect(w2[k]).toBe(v.data);
      else if (typeof w2[k] === 'bigint') expect(w2[k]).toBe(BigInt(v.data as string));
      else expect(w2[k]).toBe(Number(v.data));
    }
    (e.rewardInfos.data as { mint: string; vault: string; emissionsPerSecondX64: string; growthGlobalX64: string }[]).forEach((r, i) => {
      expect(w.rewardInfos[i].mint).toBe(r.mint);
      expect(w.rewardInfos[i].vault).toBe(r.vault);
      expect(w.rewardInfos[i].emissionsPerSecondX64).toBe(BigInt(r.emissionsPerSecondX64));
      expect(w.rewardInfos[i].growthGlobalX64).toBe(BigInt(r.growthGlobalX64));
    });
    // fee tier index 1028 (seed [4, 4]) on tick spacing 4: a pool from an AdaptiveFeeTier
    expect(w.feeTierIndexSeed).toBe(1028);
    expect(isAdaptiveFeeWhirlpool(w)).toBe(true);
  });

  it('carbon tick array matches its decoded JSON', () => {
    const f = programOwned.find((x) => x.file.endsWith('carbon_tick_array_account.json'))!;
    const ta = decodeFixedTickArray(f.data, f.owner);
    const e = f.decoded!;
    expect(ta.kind).toBe('fixed');
    expect(ta.startTickIndex).toBe(Number(data(e.startTickIndex)));
    expect(ta.whirlpool).toBe(data(e.whirlpool));
    const ticks = data(e.ticks) as {
      initialized: boolean;
      liquidityNet: string;
      liquidityGross: string;
      feeGrowthOutsideA: string;
      feeGrowthOutsideB: string;
      rewardGrowthsOutside: string[];
    }[];
    expect(ticks).toHaveLength(88);
    ticks.forEach((t, i) => {
      expect(ta.ticks[i].initialized).toBe(t.initialized);
      expect(ta.ticks[i].liquidityNet).toBe(BigInt(t.liquidityNet));
      expect(ta.ticks[i].liquidityGross).toBe(BigInt(t.liquidityGross));
      expect(ta.ticks[i].feeGrowthOutsideA).toBe(BigInt(t.feeGrowthOutsideA));
      expect(ta.ticks[i].feeGrowthOutsideB).toBe(BigInt(t.feeGrowthOutsideB));
      expect(ta.ticks[i].rewardGrowthsOutside.map(String)).toEqual(t.rewardGrowthsOutside);
    });
    expect(encodeFixedTickArray(ta).equals(f.data)).toBe(true);
  });

  it('carbon position matches its decoded JSON', () => {
    const f = programOwned.find((x) => x.file.endsWith('carbon_position_account.json'))!;
    const p = decodeWhirlpoolPosition(f.data, f.owner);
    const e = f.decoded!;
    expect(p.whirlpool).toBe(data(e.whirlpool));
    expect(p.positionMint).toBe(data(e.positionMint));
    expect(p.liquidity).toBe(BigInt(data(e.liquidity) as string));
    expect(p.tickLowerIndex).toBe(Number(data(e.tickLowerIndex)));
    expect(p.tickUpperIndex).toBe(Number(data(e.tickUpperIndex)));
    expect(p.feeGrowthCheckpointA).toBe(BigInt(data(e.feeGrowthCheckpointA) as string));
    expect(p.feeGrowthCheckpointB).toBe(BigInt(data(e.feeGrowthCheckpointB) as string));
  });

  it('carbon dynamic tick array: one initialized tick, bitmap agrees, round-trips', () => {
    const f = programOwned.find((x) => x.file.endsWith('carbon_dynamic_tick_array_account0.json'))!;
    expect(f.data.length).toBe(DYNAMIC_TICK_ARRAY_MIN_SIZE + 112);
    const ta = decodeTickArray(f.data, f.owner);
    expect(ta.kind).toBe('dynamic');
    const init = ta.ticks.map((t, i) => (t.initialized ? i : -1)).filter((i) => i >= 0);
    expect(init).toHaveLength(1);
    expect(ta.tickBitmap).toBe(1n << BigInt(init[0]));
    const t = ta.ticks[init[0]];
    expect(t.liquidityGross).toBeGreaterThan(0n);
    expect(t.liquidityNet === t.liquidityGross || t.liquidityNet === -t.liquidityGross).toBe(true);
    expect(encodeDynamicTickArray(ta).equals(f.data)).toBe(true);
    // the start index is a valid start for some spacing and the whirlpool is a key
    expect(ta.startTickIndex % 88).toBe(0);
    expect(ta.whirlpool).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  });

  it('configs, fee tiers, token badges carry known figures', () => {
    const cfg = load(path.join(ESS, 'whirlpools_config.2LecshUwdy9xi7meFgHtFJQNSKk4KdTrcpvaB56dP2NQ.json'));
    const c = decodeWhirlpoolsConfig(cfg.data, cfg.owner);
    expect(c.defaultProtocolFeeRate).toBeGreaterThan(0);
    expect(c.defaultProtocolFeeRate).toBeLessThanOrEqual(2500);
    const ft1 = decodeFeeTier(load(path.join(ESS, 'whirlpools_config_feetier1.62dSkn5ktwY1PoKPNMArZA4bZsvyemuknWUnnQ2ATTuN.json')).data);
    expect(ft1.tickSpacing).toBe(1);
    expect(ft1.whirlpoolsConfig).toBe('2LecshUwdy9xi7meFgHtFJQNSKk4KdTrcpvaB56dP2NQ');
    const ft64 = decodeFeeTier(load(path.join(ESS, 'whirlpools_config_feetier64.HT55NVGVTjWmWLjV7BrSMPVZ7ppU8T2xE5nCAZ6YaGad.json')).data);
    expect(ft64.tickSpacing).toBe(64);
    expect(ft64.defaultFeeRate).toBe(2000); // 0.20% in the 2022 capture
    const badge = load(path.join(ESS, 'token_badge_pyusd.HX5iftnCxhtu11ys3ZuWbvUqo7cyPYaVNZBrLL67Hrbm.json'));
    const b = decodeWhirlpoolTokenBadge(badge.data, badge.owner);
    expect(b.whirlpoolsConfig).toBe('2LecshUwdy9xi7meFgHtFJQNSKk4KdTrcpvaB56dP2NQ');
    expect(b.tokenMint).toBe('2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo'); // PYUSD
  });

  it('SAMO/USDC: 7 tick arrays are the PDAs of the pool and the liquidity is consistent', () => {
    const wf = load(path.join(ESS, 'samo_usdc_wp_whirlpool.9vqYJjDUFecLL2xPUC4Rc7hyCtZ6iJ4mDiVZX7aFXoAe.json'));
    const w = decodeWhirlpool(wf.data, wf.owner, wf.pubkey!);
    expect(encodeWhirlpool(w).equals(wf.data)).toBe(true);
    const files = fs.readdirSync(ESS).filter((n) => n.startsWith('samo_usdc_wp_ta_'));
    expect(files).toHaveLength(7);
    let sumBelow = 0n;
    let sumAll = 0n;
    for (const n of files) {
      const f = load(path.join(ESS, n));
      const ta = decodeTickArray(f.data, f.owner, f.pubkey!);
      expect(ta.whirlpool).toBe(wf.pubkey);
      expect(ta.startTickIndex).toBe(-Number(/_n(\d+)\./.exec(n)![1]));
      expect(whirlpoolTickArrayAddress(wf.pubkey!, ta.startTickIndex)).toBe(f.pubkey);
      expect(encodeFixedTickArray(ta).equals(f.data)).toBe(true);
      ta.ticks.forEach((t, i) => {
        if (!t.initialized) return;
        sumAll += t.liquidityNet;
        if (ta.startTickIndex + i * w.tickSpacing <= w.tickCurrentIndex) sumBelow += t.liquidityNet;
      });
    }
    expect(sumAll).toBe(0n);
    expect(sumBelow).toBe(w.liquidity);
  });

  it('the whirlpool-tx-replayer snapshot: first 200 pools and 200 tick arrays decode', () => {
    const text = zlib.gunzipSync(fs.readFileSync(path.join(ORCA, 'whirlpool-tx-replayer', 'whirlpool-snapshot-185759999.csv.gz'))).toString('utf8');
    let pools = 0;
    let arrays = 0;
    let others = 0;
    for (const line of text.split('\n')) {
      if (pools >= 200 && arrays >= 200) break;
      const comma = line.indexOf(',');
      if (comma < 0) continue;
      const pubkey = line.slice(0, comma);
      const bytes = Buffer.from(line.slice(comma + 1), 'base64');
      const type = whirlpoolAccountType(bytes);
      if (type === 'Whirlpool' && pools < 200) {
        const w = decodeWhirlpool(bytes, PROGRAM_IDS.orcaWhirlpool, pubkey);
        expect(w.sqrtPrice).toBeGreaterThan(0n);
        expect(encodeWhirlpool(w).equals(bytes)).toBe(true);
        pools++;
      } else if (type === 'TickArray' && arrays < 200) {
        const ta = decodeFixedTickArray(bytes, PROGRAM_IDS.orcaWhirlpool, pubkey);
        expect(encodeFixedTickArray(ta).equals(bytes)).toBe(true);
        arrays++;
      } else if (type !== null) {
        decodeWhirlpoolProgramAccount(bytes, PROGRAM_IDS.orcaWhirlpool, pubkey);
        others++;
      } else {
        throw new Error(`unknown account ${pubkey}`);
      }
    }
    expect(pools).toBe(200);
    expect(arrays).toBe(200);
    expect(others).toBeGreaterThan(0);
  });
});

describe('Orca Whirlpool decoders reject bad input, never half-decode', () => {
  const wf = load(path.join(ESS, 'samo_usdc_wp_whirlpool.9vqYJjDUFecLL2xPUC4Rc7hyCtZ6iJ4mDiVZX7aFXoAe.json'));
  const taf = load(path.join(ESS, 'samo_usdc_wp_ta_n101376.HpuNjdx9vTLYTAsxH3N6HCkguEkG9mCEpkrRugqyCPwF.json'));

  it('wrong owner', () => {
    expect(() => decodeWhirlpool(wf.data, PROGRAM_IDS.raydiumClmm, 'x')).toThrow(AccountDecodeError);
    expect(() => decodeWhirlpool(wf.data, PROGRAM_IDS.raydiumClmm, 'x')).toThrow(/wrong owner/);
    expect(() => decodeTickArray(taf.data, PROGRAM_IDS.token)).toThrow(/wrong owner/);
  });

  it('wrong size', () => {
    expect(() => decodeWhirlpool(wf.data.subarray(0, WHIRLPOOL_SIZE - 1))).toThrow(/wrong size 652/);
    expect(() => decodeFixedTickArray(Buffer.concat([taf.data, Buffer.alloc(1)]))).toThrow(/wrong size 9989/);
    expect(() => decodeWhirlpool(Buffer.alloc(3))).toThrow(AccountDecodeError);
  });

  it('wrong discriminator', () => {
    expect(() => decodeWhirlpool(taf.data.subarray(0, WHIRLPOOL_SIZE))).toThrow(/wrong discriminator/);
    const bad = Buffer.from(taf.data);
    bad[0] ^= 1;
    expect(() => decodeTickArray(bad)).toThrow(AccountDecodeError);
    expect(() => decodeWhirlpoolProgramAccount(bad)).toThrow(/unknown Orca Whirlpool account discriminator/);
  });

  it('invalid bool in a fixed tick', () => {
    const bad = Buffer.from(taf.data);
    bad[12 + 113 * 5] = 2;
    expect(() => decodeFixedTickArray(bad)).toThrow(/invalid bool/);
    expect(bad.length).toBe(FIXED_TICK_ARRAY_SIZE);
  });

  it('dynamic tick array: tag/bitmap disagreement and size mismatch', () => {
    const ta = decodeFixedTickArray(taf.data);
    const dyn = encodeDynamicTickArray(ta);
    expect(decodeDynamicTickArray(dyn).ticks.map((t) => t.liquidityNet)).toEqual(ta.ticks.map((t) => t.liquidityNet));
    const bad = Buffer.from(dyn);
    bad[44] ^= 1; // flip bit 0 of the bitmap
    expect(() => decodeDynamicTickArray(bad)).toThrow(AccountDecodeError);
    expect(() => decodeDynamicTickArray(dyn.subarray(0, dyn.length - 1))).toThrow(/wrong size/);
  });

  it('oracle round-trips and its PDA is deterministic', () => {
    const o: WhirlpoolOracle = {
      whirlpool: '9vqYJjDUFecLL2xPUC4Rc7hyCtZ6iJ4mDiVZX7aFXoAe',
      tradeEnableTimestamp: 1700000000n,
      adaptiveFeeConstants: {
        filterPeriod: 30,
        decayPeriod: 600,
        reductionFactor: 5000,
        adaptiveFeeControlFactor: 4000,
        maxVolatilityAccumulator: 350000,
        tickGroupSize: 64,
        majorSwapThresholdTicks: 64,
      },
      adaptiveFeeVariables: {
        lastReferenceUpdateTimestamp: 1700000100n,
        lastMajorSwapTimestamp: 1700000050n,
        volatilityReference: 1234,
        tickGroupIndexReference: -77,
        volatilityAccumulator: 5678,
      },
    };
    const buf = encodeOracle(o);
    expect(decodeOracle(buf, PROGRAM_IDS.orcaWhirlpool)).toEqual(o);
    expect(whirlpoolOracleAddress(o.whirlpool)).toBe(whirlpoolOracleAddress(o.whirlpool));
  });
});
