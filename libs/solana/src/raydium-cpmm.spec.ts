import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import {
  CPMM_AMM_CONFIG_DISCRIMINATOR,
  CPMM_AMM_CONFIG_SIZE,
  CPMM_POOL_STATE_DISCRIMINATOR,
  CPMM_POOL_STATE_SIZE,
  cpmmAccountType,
  cpmmAmmConfigAddress,
  cpmmAuthority,
  cpmmObservationAddress,
  cpmmPoolAddress,
  cpmmVaultAddress,
  decodeCpmmAmmConfig,
  decodeCpmmPoolState,
  decodeCpmmPoolStateKeysFrom,
  encodeCpmmAmmConfig,
  encodeCpmmPoolState,
  type CpmmPoolState,
} from './raydium-cpmm';
import { AccountDecodeError } from './decode-error';
import { PROGRAM_IDS } from './programs';

const FIXTURES = path.resolve(__dirname, '../../..', '..', 'shared', 'fixtures');
const CPMM_DIR = path.join(FIXTURES, 'raydium-cpmm');

interface Fixture {
  file: string;
  pubkey: string | null;
  owner: string;
  data: Buffer;
}

function load(file: string): Fixture {
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  return { file, pubkey: j.pubkey, owner: j.account.owner, data: Buffer.from(j.account.data[0], 'base64') };
}

function listJson(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return listJson(p);
    return e.name.endsWith('.json') && !e.name.endsWith('.expected_decoded.json') ? [p] : [];
  });
}

const all = listJson(CPMM_DIR).map(load);
const pools = all.filter((f) => cpmmAccountType(f.data) === 'PoolState');
const configs = all.filter((f) => cpmmAccountType(f.data) === 'AmmConfig');

const camel = (s: string) => s.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase()).replace(/(\d)D/, '$1D');
const FIELD_NAME: Record<string, keyof CpmmPoolState> = {
  token_0_vault: 'token0Vault',
  token_1_vault: 'token1Vault',
  token_0_mint: 'token0Mint',
  token_1_mint: 'token1Mint',
  token_0_program: 'token0Program',
  token_1_program: 'token1Program',
  mint_0_decimals: 'mint0Decimals',
  mint_1_decimals: 'mint1Decimals',
  protocol_fees_token_0: 'protocolFeesToken0',
  protocol_fees_token_1: 'protocolFeesToken1',
  fund_fees_token_0: 'fundFeesToken0',
  fund_fees_token_1: 'fundFeesToken1',
  creator_fees_token_0: 'creatorFeesToken0',
  creator_fees_token_1: 'creatorFeesToken1',
};

describe('Raydium CPMM discriminators', () => {
  it('are sha256("account:<Name>")[0..8] and match the real accounts', () => {
    expect(CPMM_POOL_STATE_DISCRIMINATOR.toString('hex')).toBe(
      createHash('sha256').update('account:PoolState').digest('hex').slice(0, 16),
    );
    expect(CPMM_POOL_STATE_DISCRIMINATOR.toString('hex')).toBe('f7ede3f5d7c3de46');
    expect(CPMM_AMM_CONFIG_DISCRIMINATOR.toString('hex')).toBe('daf42168cbcb2b6f');
    expect(pools.length).toBe(3);
    expect(configs.length).toBe(1);
    expect(all.length).toBe(pools.length + configs.length);
  });
});

describe('decodeCpmmPoolState', () => {
  it.each(pools.map((p) => [path.basename(p.file), p] as const))('decodes and round-trips %s', (_n, f) => {
    expect(f.data.length).toBe(CPMM_POOL_STATE_SIZE);
    const s = decodeCpmmPoolState(f.data, f.owner, f.pubkey ?? undefined);
    expect(encodeCpmmPoolState(s).equals(f.data)).toBe(true);
    const expectedFile = f.file.replace(/\.json$/, '.expected_decoded.json');
    if (fs.existsSync(expectedFile)) {
      const expected = JSON.parse(fs.readFileSync(expectedFile, 'utf8')) as Record<string, { data: unknown }>;
      let checked = 0;
      for (const [k, v] of Object.entries(expected)) {
        if (k.startsWith('padding')) continue;
        const name = (FIELD_NAME[k] ?? camel(k)) as keyof CpmmPoolState;
        expect(name in s).toBe(true);
        const got = s[name];
        expect(typeof got === 'bigint' ? got.toString() : got).toEqual(v.data);
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(22);
    }
  });

  it('decodes the creator-fee fields of the current program version', () => {
    const f = pools.find((p) => p.file.includes('unknown-pubkey'))!;
    const s = decodeCpmmPoolState(f.data, f.owner);
    expect(s.creatorFeeOn).toBe(1);
    expect(s.enableCreatorFee).toBe(true);
    expect(s.creatorFeesToken0).toBe(59466681730n);
    expect(s.creatorFeesToken1).toBe(0n);
  });

  it('decodes the unattributed FmNz8z2 pool consistently with its PDAs', () => {
    const f = pools.find((p) => p.pubkey === 'FmNz8z2oN4CheHj4EUXVXC6doFN4RRmhGwxFQgrJVJFs')!;
    const s = decodeCpmmPoolState(f.data, f.owner, f.pubkey!);
    expect(s.ammConfig).toBe('2fGXL8uhqxJ4tpgtosHZXT4zcQap6j62z3bMDxdkMvy5');
    expect(s).toMatchObject({
      token0Mint: 'So11111111111111111111111111111111111111112',
      token1Mint: 'CLnsvL118rFABjjpGkR5jY8JeUib3SjEf4Eyu7ZVhbKu',
      authBump: 253,
      status: 0,
      mint0Decimals: 9,
      mint1Decimals: 9,
      lpSupply: 100n,
      protocolFeesToken0: 1164696n,
      fundFeesToken0: 388232n,
      openTime: 1738771820n,
      recentEpoch: 788n,
      creatorFeeOn: 0,
      enableCreatorFee: false,
    });
    // created at its canonical PDA ["pool", ammConfig, mint0, mint1]
    expect(cpmmPoolAddress(s.ammConfig, s.token0Mint, s.token1Mint)).toBe(f.pubkey);
  });

  it('rejects a wrong owner, size or discriminator', () => {
    const f = pools[0];
    expect(() => decodeCpmmPoolState(f.data, PROGRAM_IDS.token, 'X')).toThrow(AccountDecodeError);
    expect(() => decodeCpmmPoolState(f.data, PROGRAM_IDS.token, 'X')).toThrow(/wrong owner/);
    expect(() => decodeCpmmPoolState(f.data.subarray(0, 636), f.owner)).toThrow(/wrong size 636/);
    expect(() => decodeCpmmPoolState(Buffer.concat([f.data, Buffer.alloc(1)]), f.owner)).toThrow(/wrong size/);
    const bad = Buffer.from(f.data);
    bad[0] ^= 1;
    expect(() => decodeCpmmPoolState(bad, f.owner)).toThrow(/wrong discriminator/);
    // an AmmConfig is not a PoolState
    expect(() => decodeCpmmPoolState(configs[0].data, configs[0].owner)).toThrow(AccountDecodeError);
    try {
      decodeCpmmPoolState(bad, f.owner, 'Addr');
    } catch (e) {
      expect((e as AccountDecodeError).account).toBe('Addr');
      expect((e as AccountDecodeError).reason).toMatch(/discriminator/);
    }
  });

  it('rejects an invalid enableCreatorFee byte', () => {
    const bad = Buffer.from(pools[0].data);
    bad[390] = 2;
    expect(() => decodeCpmmPoolState(bad)).toThrow(/enableCreatorFee/);
  });
});

describe('decodeCpmmPoolStateKeysFrom (delta decode)', () => {
  it('equals the full decode, field for field and key order, whatever scalars changed', () => {
    for (const f of pools) {
      const prevData = Buffer.from(f.data);
      const prev = decodeCpmmPoolState(prevData, f.owner);
      let seed = 1;
      const rnd = (n: number): number => (seed = (seed * 48271) % 2147483647) % n;
      for (let i = 0; i < 300; i++) {
        const next = Buffer.from(prevData);
        // change a few bytes of the scalar tail (328..637), sometimes none, keep the bool valid
        for (let k = rnd(6); k > 0; k--) next[328 + rnd(CPMM_POOL_STATE_SIZE - 328)] = rnd(256);
        if (next[390] > 1) next[390] = rnd(2);
        const delta = decodeCpmmPoolStateKeysFrom(prev, prevData, next, 'X');
        const full = decodeCpmmPoolState(next, f.owner, 'X');
        expect(delta).toEqual(full);
        expect(Object.keys(delta)).toEqual(Object.keys(full));
      }
    }
  });

  it('rejects an invalid enableCreatorFee byte with the full decoder\'s error', () => {
    const prev = decodeCpmmPoolState(pools[0].data, pools[0].owner);
    const bad = Buffer.from(pools[0].data);
    bad[390] = 7;
    const message = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(AccountDecodeError);
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(message(() => decodeCpmmPoolStateKeysFrom(prev, pools[0].data, bad, 'Addr'))).toBe(message(() => decodeCpmmPoolState(bad, pools[0].owner, 'Addr')));
  });
});

describe('decodeCpmmAmmConfig', () => {
  it('decodes and round-trips the real config 2fGXL8u (index 2)', () => {
    const f = configs[0];
    expect(f.data.length).toBe(CPMM_AMM_CONFIG_SIZE);
    const c = decodeCpmmAmmConfig(f.data, f.owner, f.pubkey!);
    expect(c).toEqual({
      bump: 255,
      disableCreatePool: false,
      index: 2,
      tradeFeeRate: 20000n, // 2 %
      protocolFeeRate: 120000n, // 12 % of the trade fee
      fundFeeRate: 40000n, // 4 % of the trade fee
      createPoolFee: 150000000n, // 0.15 SOL
      protocolOwner: c.protocolOwner,
      fundOwner: c.fundOwner,
      creatorFeeRate: 500n,
    });
    expect(encodeCpmmAmmConfig(c).equals(f.data)).toBe(true);
    expect(cpmmAmmConfigAddress(c.index)).toBe(f.pubkey);
  });

  it('rejects a wrong owner, size or discriminator', () => {
    const f = configs[0];
    expect(() => decodeCpmmAmmConfig(f.data, PROGRAM_IDS.raydiumClmm)).toThrow(/wrong owner/);
    expect(() => decodeCpmmAmmConfig(f.data.subarray(0, 200))).toThrow(/wrong size 200/);
    expect(() => decodeCpmmAmmConfig(pools[0].data)).toThrow(/wrong size/);
    const bad = Buffer.from(f.data);
    bad[7] ^= 0xff;
    expect(() => decodeCpmmAmmConfig(bad)).toThrow(/wrong discriminator/);
  });
});

describe('cpmmAccountType', () => {
  it('classifies by discriminator', () => {
    expect(cpmmAccountType(pools[0].data)).toBe('PoolState');
    expect(cpmmAccountType(configs[0].data)).toBe('AmmConfig');
    const obs = Buffer.alloc(16);
    createHash('sha256').update('account:ObservationState').digest().copy(obs, 0, 0, 8);
    expect(cpmmAccountType(obs)).toBe('ObservationState');
    expect(cpmmAccountType(Buffer.alloc(637))).toBeNull();
    expect(cpmmAccountType(Buffer.alloc(3))).toBeNull();
  });
});

describe('CPMM PDAs', () => {
  it('authority is the well-known GpMZbSM2… address and matches the pools auth bump', () => {
    expect(cpmmAuthority()).toBe('GpMZbSM2GgvTKHJirzeGfMFoaZ8UR2X7F4v8vHTvxFbL');
    const [, bump] = PublicKey.findProgramAddressSync(
      [Buffer.from('vault_and_lp_mint_auth_seed')],
      new PublicKey(PROGRAM_IDS.raydiumCpmm),
    );
    for (const p of pools) expect(decodeCpmmPoolState(p.data).authBump).toBe(bump);
  });

  it('vault, observation and pool addresses of the real pools derive from their seeds', () => {
    for (const p of pools) {
      const s = decodeCpmmPoolState(p.data);
      const address = p.pubkey ?? null;
      if (address === null) continue;
      expect(cpmmVaultAddress(address, s.token0Mint)).toBe(s.token0Vault);
      expect(cpmmVaultAddress(address, s.token1Mint)).toBe(s.token1Vault);
      expect(cpmmObservationAddress(address)).toBe(s.observationKey);
    }
  });

  it('amm config index 0 is the well-known D4FPEruK… config', () => {
    expect(cpmmAmmConfigAddress(0)).toBe('D4FPEruKEHrG5TenZ2mpDGEfu1iUvTiqBxvpU8HLBvC2');
    expect(() => cpmmAmmConfigAddress(70000)).toThrow(RangeError);
  });
});
