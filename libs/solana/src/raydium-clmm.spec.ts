import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import {
  CLMM_AMM_CONFIG_SIZE,
  CLMM_POOL_STATE_DISCRIMINATOR,
  CLMM_POOL_STATE_SIZE,
  CLMM_TICK_ARRAY_SIZE,
  CLMM_TICK_STATE_SIZE,
  clmmAccountType,
  clmmAmmConfigAddress,
  clmmBitmapExtensionAddress,
  clmmDynamicFeeEnabled,
  clmmEmptyDynamicFeeInfo,
  clmmEmptyTick,
  clmmObservationAddress,
  clmmPoolAddress,
  clmmTickArrayAddress,
  decodeClmmAmmConfig,
  decodeClmmObservationState,
  decodeClmmPoolState,
  decodeClmmProtocolPositionState,
  decodeClmmTickArrayBitmapExtension,
  decodeClmmTickArrayState,
  encodeClmmAmmConfig,
  encodeClmmObservationState,
  encodeClmmPoolState,
  encodeClmmTickArrayBitmapExtension,
  encodeClmmTickArrayState,
  type ClmmTickArrayBitmapExtension,
  type ClmmTickArrayState,
} from './raydium-clmm';
import { AccountDecodeError } from './decode-error';
import { PROGRAM_IDS } from './programs';

const FIXTURES = path.resolve(__dirname, '../../..', '..', 'shared', 'fixtures');
const DIR = path.join(FIXTURES, 'raydium-clmm');
const CLMM = PROGRAM_IDS.raydiumClmm;

interface Fixture {
  name: string;
  pubkey: string | null;
  owner: string;
  data: Buffer;
  decoded: Record<string, { data: unknown }> | null;
}

/** The fixtures come in three shapes: carbon (flat, base64), RPC-style (account.data[0]) and vixen (byte arrays). */
function load(name: string): Fixture {
  const j = JSON.parse(fs.readFileSync(path.join(DIR, name), 'utf8'));
  const acct = j.account ?? j;
  const d = acct.data;
  const data = Array.isArray(d) ? (typeof d[0] === 'string' ? Buffer.from(d[0], 'base64') : Buffer.from(d)) : Buffer.from(d, 'base64');
  const toKey = (v: unknown): string | null =>
    v === undefined ? null : Array.isArray(v) ? new PublicKey(Uint8Array.from(v as number[])).toBase58() : (v as string);
  return { name, pubkey: toKey(j.pubkey), owner: toKey(acct.owner)!, data, decoded: j.data_decoded ?? null };
}

const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json') && !f.endsWith('.expected_decoded.json'));
const all = files.map(load);
const byName = (prefix: string) => {
  const f = all.find((x) => x.name.startsWith(prefix));
  if (!f) throw new Error(`fixture ${prefix} missing`);
  return f;
};

describe('Raydium CLMM codecs: fixtures', () => {
  it('every CLMM fixture is a known account type owned by the program, and decodes', () => {
    expect(all.length).toBeGreaterThanOrEqual(8);
    for (const f of all) {
      expect(f.owner).toBe(CLMM);
      const type = clmmAccountType(f.data);
      expect({ name: f.name, type }).toEqual({ name: f.name, type: expect.any(String) });
      const decode = {
        PoolState: decodeClmmPoolState,
        AmmConfig: decodeClmmAmmConfig,
        TickArrayState: decodeClmmTickArrayState,
        TickArrayBitmapExtension: decodeClmmTickArrayBitmapExtension,
        ObservationState: decodeClmmObservationState,
        ProtocolPositionState: decodeClmmProtocolPositionState,
      }[type!];
      expect(() => decode(f.data, f.owner, f.pubkey ?? f.name)).not.toThrow();
    }
  });

  it('anchor discriminators are sha256("account:<Name>")[0..8]', () => {
    const d = createHash('sha256').update('account:PoolState').digest().subarray(0, 8);
    expect(CLMM_POOL_STATE_DISCRIMINATOR.equals(d)).toBe(true);
  });

  it('PoolState 3ucNos4… matches its expected_decoded.json field by field (legacy fields in padding5/6)', () => {
    const f = byName('ipv4sq_src_dex_raydium_clmm_pool_data.3ucNos4');
    const expected = JSON.parse(
      fs.readFileSync(path.join(DIR, f.name.replace(/\.json$/, '.expected_decoded.json')), 'utf8'),
    ) as Record<string, { data: unknown }>;
    const e = (k: string) => expected[k].data as string;
    const p = decodeClmmPoolState(f.data, f.owner, f.pubkey!);
    expect(p.bump).toBe((expected.bump.data as number[])[0]);
    expect(p.ammConfig).toBe(e('amm_config'));
    expect(p.owner).toBe(e('owner'));
    expect(p.tokenMint0).toBe(e('token_mint_0'));
    expect(p.tokenMint1).toBe(e('token_mint_1'));
    expect(p.tokenVault0).toBe(e('token_vault_0'));
    expect(p.tokenVault1).toBe(e('token_vault_1'));
    expect(p.observationKey).toBe(e('observation_key'));
    expect(p.mintDecimals0).toBe(expected.mint_decimals_0.data);
    expect(p.mintDecimals1).toBe(expected.mint_decimals_1.data);
    expect(p.tickSpacing).toBe(Number(e('tick_spacing')));
    expect(p.liquidity).toBe(BigInt(e('liquidity')));
    expect(p.sqrtPriceX64).toBe(BigInt(e('sqrt_price_x64')));
    expect(p.tickCurrent).toBe(Number(e('tick_current')));
    expect(p.feeGrowthGlobal0X64).toBe(BigInt(e('fee_growth_global_0_x64')));
    expect(p.feeGrowthGlobal1X64).toBe(BigInt(e('fee_growth_global_1_x64')));
    expect(p.protocolFeesToken0).toBe(BigInt(e('protocol_fees_token_0')));
    expect(p.protocolFeesToken1).toBe(BigInt(e('protocol_fees_token_1')));
    expect(p.padding5).toEqual(
      ['swap_in_amount_token_0', 'swap_out_amount_token_1', 'swap_in_amount_token_1', 'swap_out_amount_token_0'].map((k) =>
        BigInt(e(k)),
      ),
    );
    expect(p.status).toBe(expected.status.data);
    expect(p.feeOn).toBe(0);
    const rewards = expected.reward_infos.data as Record<string, string | number>[];
    p.rewardInfos.forEach((r, i) => {
      const x = rewards[i];
      expect(r.rewardState).toBe(x.reward_state);
      expect(r.openTime).toBe(BigInt(x.open_time));
      expect(r.endTime).toBe(BigInt(x.end_time));
      expect(r.lastUpdateTime).toBe(BigInt(x.last_update_time));
      expect(r.emissionsPerSecondX64).toBe(BigInt(x.emissions_per_second_x64));
      expect(r.rewardTotalEmitted).toBe(BigInt(x.reward_total_emissioned));
      expect(r.rewardClaimed).toBe(BigInt(x.reward_claimed));
      expect(r.tokenMint).toBe(x.token_mint);
      expect(r.tokenVault).toBe(x.token_vault);
      expect(r.authority).toBe(x.authority);
      expect(r.rewardGrowthGlobalX64).toBe(BigInt(x.reward_growth_global_x64));
    });
    expect(p.tickArrayBitmap).toEqual((expected.tick_array_bitmap.data as string[]).map(BigInt));
    expect(p.padding6).toEqual(
      ['total_fees_token_0', 'total_fees_claimed_token_0', 'total_fees_token_1', 'total_fees_claimed_token_1'].map((k) =>
        BigInt(e(k)),
      ),
    );
    expect(p.fundFeesToken0).toBe(BigInt(e('fund_fees_token_0')));
    expect(p.fundFeesToken1).toBe(BigInt(e('fund_fees_token_1')));
    expect(p.openTime).toBe(BigInt(e('open_time')));
    expect(p.recentEpoch).toBe(BigInt(e('recent_epoch')));
    // the old padding1 was all zero: the dynamic fee carved from it is disabled
    expect(p.dynamicFeeInfo).toEqual(clmmEmptyDynamicFeeInfo());
    expect(clmmDynamicFeeEnabled(p.dynamicFeeInfo)).toBe(false);
    // the pool address is the canonical PDA of its config and mints
    expect(clmmPoolAddress(p.ammConfig, p.tokenMint0, p.tokenMint1)).toBe(f.pubkey);
    expect(clmmObservationAddress(f.pubkey!)).toBe(p.observationKey);
  });

  it('carbon PoolState AcPS8… (SOL-side tick 71168, spacing 1) references AmmConfig 9iFER…, which decodes', () => {
    const f = byName('carbon_pool_state');
    const p = decodeClmmPoolState(f.data, f.owner, 'AcPS8SrzXDwPxk6LLz2tykwFEsSeD5LtctMLVeh2shq8');
    expect(p.ammConfig).toBe('9iFER3bpjf1PTTCQCfTRu17EJgvsxo9pVyA9QWwEuX4x');
    expect(p.tickSpacing).toBe(1);
    expect(p.tickCurrent).toBe(71168);
    expect(p.liquidity).toBe(3464101788356n);
    expect(p.sqrtPriceX64).toBe(647525941329892376628n);
    expect(p.mintDecimals0).toBe(9);
    expect(p.mintDecimals1).toBe(6);
    expect(p.protocolFeesToken0).toBe(7425061n);
    expect(p.protocolFeesToken1).toBe(7407817781n);
    expect(p.fundFeesToken0).toBe(2474997n);
    expect(p.fundFeesToken1).toBe(2469272531n);
    expect(p.recentEpoch).toBe(786n);
    // tick 71168 lies beyond the default bitmap (±30720 for spacing 1): its arrays live in the extension
    expect(p.tickArrayBitmap.every((w) => w === 0n)).toBe(true);
    expect(clmmPoolAddress(p.ammConfig, p.tokenMint0, p.tokenMint1)).toBe('AcPS8SrzXDwPxk6LLz2tykwFEsSeD5LtctMLVeh2shq8');

    const cfgFixture = all.find((x) => x.pubkey === p.ammConfig)!;
    const c = decodeClmmAmmConfig(cfgFixture.data, cfgFixture.owner, cfgFixture.pubkey!);
    expect(c).toEqual({
      bump: 249,
      index: 4,
      owner: c.owner,
      protocolFeeRate: 120000,
      tradeFeeRate: 100,
      tickSpacing: 1,
      fundFeeRate: 40000,
      paddingU32: 0,
      fundOwner: c.fundOwner,
    });
    expect(clmmAmmConfigAddress(c.index)).toBe(p.ammConfig);
    // the carbon copy of the same config is identical
    expect(byName('carbon_amm_config').data.equals(cfgFixture.data)).toBe(true);
  });

  it('AmmConfig A1BBt… (vixen) is index 3 at its PDA', () => {
    const f = byName('vixen_A1BBt');
    const c = decodeClmmAmmConfig(f.data, f.owner, f.pubkey!);
    expect(c.index).toBe(3);
    expect(c.tickSpacing).toBe(120);
    expect(c.tradeFeeRate).toBe(10000);
    expect(c.protocolFeeRate).toBe(120000);
    expect(c.fundFeeRate).toBe(40000);
    expect(clmmAmmConfigAddress(3)).toBe(f.pubkey);
  });

  it('carbon TickArrayState and ObservationState match their data_decoded', () => {
    const t = byName('carbon_tick_array_state');
    const ta = decodeClmmTickArrayState(t.data, t.owner, 'HBytvMypGaPRENK9w9HmtFeNLr9xCHvPamcCiiYsYvqY');
    const td = t.decoded!;
    expect(ta.poolId).toBe(td.poolId.data);
    expect(ta.startTickIndex).toBe(Number(td.startTickIndex.data));
    expect(ta.initializedTickCount).toBe(td.initializedTickCount.data);
    expect(ta.recentEpoch).toBe(BigInt(td.recentEpoch.data as string));
    const ticks = td.ticks.data as Record<string, unknown>[];
    ta.ticks.forEach((k, i) => {
      expect(k.tick).toBe(ticks[i].tick);
      expect(k.liquidityNet).toBe(BigInt(ticks[i].liquidityNet as string));
      expect(k.liquidityGross).toBe(BigInt(ticks[i].liquidityGross as string));
    });
    expect(clmmTickArrayAddress(ta.poolId, ta.startTickIndex)).toBe('HBytvMypGaPRENK9w9HmtFeNLr9xCHvPamcCiiYsYvqY');
    expect(encodeClmmTickArrayState(ta).equals(t.data)).toBe(true);
    // the ticks never written (all their bytes zero; the ticks start at byte 44) are one shared frozen object; the others each their own
    const zero = ta.ticks.filter((_, i) => t.data.subarray(44 + CLMM_TICK_STATE_SIZE * i, 44 + CLMM_TICK_STATE_SIZE * (i + 1)).every((b) => b === 0));
    expect(zero.length).toBeGreaterThan(0);
    expect(zero.length).toBeLessThan(60);
    expect(new Set(zero).size).toBe(1);
    expect(Object.isFrozen(zero[0]) && Object.isFrozen(zero[0].rewardGrowthsOutsideX64)).toBe(true);
    expect(zero[0]).toEqual(clmmEmptyTick());
    const written = ta.ticks.filter((k) => !zero.includes(k));
    expect(new Set(written).size).toBe(60 - zero.length);

    const o = byName('carbon_observation_state');
    const ob = decodeClmmObservationState(o.data, o.owner);
    const od = o.decoded!;
    expect(ob.initialized).toBe(od.initialized.data);
    expect(ob.recentEpoch).toBe(BigInt(od.recentEpoch.data as string));
    expect(ob.poolId).toBe(od.poolId.data);
    // the fixture's data_decoded is one oracle update older than its bytes: the bytes hold index
    // 46 (written 27 s after index 45), the decoded copy still index 45 and the old slot 46
    expect(Number(od.observationIndex.data)).toBe(45);
    expect(ob.observationIndex).toBe(46);
    expect(ob.observations[46]).toEqual({ blockTimestamp: 1747129355, tickCumulative: 135430600720n });
    const obs = od.observations.data as { blockTimestamp: number; tickCumulative: string }[];
    const pairs = (xs: { blockTimestamp: number; tickCumulative: bigint }[]) =>
      xs.filter((_, i) => i !== 46).map((x) => [x.blockTimestamp, x.tickCumulative]);
    expect(pairs(ob.observations)).toEqual(
      pairs(obs.map((x) => ({ blockTimestamp: x.blockTimestamp, tickCumulative: BigInt(x.tickCumulative) }))),
    );
    // tick_cumulative advances by tick × seconds: the pool sat at tick -20288 over those 27 s
    expect((ob.observations[46].tickCumulative - ob.observations[45].tickCumulative) / 27n).toBe(-20288n);
    expect(encodeClmmObservationState(ob).equals(o.data)).toBe(true);
    expect(clmmObservationAddress(ob.poolId)).toBe(o.pubkey ?? clmmObservationAddress(ob.poolId));
  });

  it('ProtocolPositionState decodes', () => {
    const f = byName('carbon_protocol_position');
    const p = decodeClmmProtocolPositionState(f.data, f.owner);
    expect(p.tickLowerIndex).toBeLessThan(p.tickUpperIndex);
    expect(p.poolId).toBe(decodeClmmTickArrayState(byName('carbon_tick_array_state').data).poolId);
  });

  it('PoolState and AmmConfig re-encode to the same bytes', () => {
    for (const f of all) {
      const type = clmmAccountType(f.data);
      if (type === 'PoolState') expect(encodeClmmPoolState(decodeClmmPoolState(f.data)).equals(f.data)).toBe(true);
      if (type === 'AmmConfig') expect(encodeClmmAmmConfig(decodeClmmAmmConfig(f.data)).equals(f.data)).toBe(true);
    }
  });
});

describe('Raydium CLMM codecs: errors and round trips', () => {
  const pool = byName('ipv4sq_src_dex_raydium_clmm_pool_data.3ucNos4');

  it('rejects a wrong owner, size or discriminator with AccountDecodeError', () => {
    expect(() => decodeClmmPoolState(pool.data, PROGRAM_IDS.raydiumCpmm, 'X')).toThrow(AccountDecodeError);
    expect(() => decodeClmmPoolState(pool.data, PROGRAM_IDS.raydiumCpmm, 'X')).toThrow(/wrong owner/);
    expect(() => decodeClmmPoolState(pool.data.subarray(0, 1000), CLMM, 'X')).toThrow(/wrong size 1000 .* expected 1544/);
    const bad = Buffer.from(pool.data);
    bad[0] ^= 1;
    expect(() => decodeClmmPoolState(bad, CLMM, 'X')).toThrow(/wrong discriminator/);
    expect(() => decodeClmmTickArrayState(pool.data, CLMM, 'X')).toThrow(AccountDecodeError);
    expect(() => decodeClmmAmmConfig(Buffer.alloc(CLMM_AMM_CONFIG_SIZE), CLMM, 'X')).toThrow(/discriminator/);
    const badFeeOn = Buffer.from(pool.data);
    badFeeOn[390] = 7;
    expect(() => decodeClmmPoolState(badFeeOn, CLMM, 'X')).toThrow(/feeOn/);
    try {
      decodeClmmPoolState(bad, CLMM, 'Addr1');
    } catch (e) {
      expect((e as AccountDecodeError).account).toBe('Addr1');
    }
  });

  it('encodes the dynamic fee fields and fee_on where the program reads them', () => {
    const p = decodeClmmPoolState(pool.data);
    p.feeOn = 2;
    p.dynamicFeeInfo = {
      filterPeriod: 10,
      decayPeriod: 600,
      reductionFactor: 5000,
      dynamicFeeControl: 80000,
      maxVolatilityAccumulator: 350000,
      tickSpacingIndexReference: -14171,
      volatilityReference: 1234,
      volatilityAccumulator: 20000,
      lastUpdateTimestamp: 1_760_000_000n,
    };
    const buf = encodeClmmPoolState(p);
    expect(buf.length).toBe(CLMM_POOL_STATE_SIZE);
    expect(buf[390]).toBe(2);
    expect(buf.readUInt16LE(1096 + 2)).toBe(600);
    expect(buf.readUInt32LE(1096 + 6)).toBe(80000);
    expect(buf.readInt32LE(1096 + 14)).toBe(-14171);
    expect(buf.readBigUInt64LE(1096 + 26)).toBe(1_760_000_000n);
    const back = decodeClmmPoolState(buf);
    expect(back).toEqual(p);
    expect(clmmDynamicFeeEnabled(back.dynamicFeeInfo)).toBe(true);
  });

  it('tick arrays with limit-order fields and negative liquidityNet round trip', () => {
    const ticks = Array.from({ length: 60 }, () => clmmEmptyTick());
    ticks[3] = {
      ...clmmEmptyTick(),
      tick: -120 + 3 * 10,
      liquidityNet: -(1n << 100n) - 7n,
      liquidityGross: (1n << 100n) + 7n,
      feeGrowthOutside0X64: 5n,
      orderPhase: 3n,
      ordersAmount: 1000n,
      partFilledOrdersRemaining: 55n,
      unfilledRatioX64: 1n << 63n,
    };
    const t: ClmmTickArrayState = {
      poolId: pool.pubkey!,
      startTickIndex: -600,
      ticks,
      initializedTickCount: 1,
      recentEpoch: 9n,
    };
    const buf = encodeClmmTickArrayState(t);
    expect(buf.length).toBe(CLMM_TICK_ARRAY_SIZE);
    expect(decodeClmmTickArrayState(buf, CLMM)).toEqual(t);
  });

  it('bitmap extension round trips', () => {
    const e: ClmmTickArrayBitmapExtension = {
      poolId: pool.pubkey!,
      positiveTickArrayBitmap: Array.from({ length: 14 }, (_, i) => Array.from({ length: 8 }, (_, j) => BigInt(i * 8 + j))),
      negativeTickArrayBitmap: Array.from({ length: 14 }, () => Array.from({ length: 8 }, () => (1n << 64n) - 1n)),
    };
    const back = decodeClmmTickArrayBitmapExtension(encodeClmmTickArrayBitmapExtension(e), CLMM);
    expect(back).toEqual(e);
  });

  it('PDAs use the program seeds (tick arrays: start index as i32 big endian)', () => {
    const program = new PublicKey(CLMM);
    const poolKey = new PublicKey(pool.pubkey!);
    const be = Buffer.alloc(4);
    be.writeInt32BE(-14220, 0);
    const [expected] = PublicKey.findProgramAddressSync([Buffer.from('tick_array'), poolKey.toBuffer(), be], program);
    expect(clmmTickArrayAddress(pool.pubkey!, -14220)).toBe(expected.toBase58());
    const [ext] = PublicKey.findProgramAddressSync(
      [Buffer.from('pool_tick_array_bitmap_extension'), poolKey.toBuffer()],
      program,
    );
    expect(clmmBitmapExtensionAddress(pool.pubkey!)).toBe(ext.toBase58());
    expect(() => clmmTickArrayAddress(pool.pubkey!, 2 ** 31)).toThrow(RangeError);
  });
});
