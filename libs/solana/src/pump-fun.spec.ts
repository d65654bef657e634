import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  DEFAULT_PUBKEY,
  PUMP_BONDING_CURVE_DISCRIMINATOR,
  PUMP_FEES_PROGRAM_ID,
  PUMP_GLOBAL_DISCRIMINATOR,
  PUMP_GLOBAL_SIZE,
  decodePumpBondingCurve,
  decodePumpFeeConfig,
  decodePumpGlobal,
  encodePumpBondingCurve,
  encodePumpFeeConfig,
  encodePumpGlobal,
  pumpBondingCurveAddress,
  pumpFeeConfigAddress,
  pumpFunAccountType,
  pumpGlobalAddress,
  type PumpFeeConfig,
} from './pump-fun';
import { AccountDecodeError } from './decode-error';
import { PROGRAM_IDS } from './programs';

const FIXTURES = path.resolve(__dirname, '../../..', '..', 'shared', 'fixtures');
const DIR = path.join(FIXTURES, 'pumpfun');
const IDL = path.join(FIXTURES, 'idl');

function load(file: string): { owner: string; data: Buffer } {
  const j = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'));
  return { owner: j.owner, data: Buffer.from(j.data, 'base64') };
}

function reasonOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof AccountDecodeError) return e.reason;
    throw e;
  }
  return 'decoded';
}

describe('discriminators match the IDLs', () => {
  const idl = (f: string) => JSON.parse(fs.readFileSync(path.join(IDL, f), 'utf8')) as { accounts: { name: string; discriminator: number[] }[] };
  it.each([
    ['pump.pump-public-docs.json', 'BondingCurve'],
    ['pump.pump-public-docs.json', 'Global'],
    ['pump.pump-public-docs.json', 'FeeConfig'],
    ['pump_fees.pump-public-docs.json', 'FeeConfig'],
  ])('%s %s', (file, name) => {
    const d = idl(file).accounts.find((a) => a.name === name)!.discriminator;
    const expected = { BondingCurve: 'BondingCurve', Global: 'Global', FeeConfig: 'FeeConfig' }[name];
    expect(pumpFunAccountType(Buffer.from([...d, 0]))).toBe(expected);
  });
});

describe('BondingCurve fixture (HWxwYxr4AV5ytUyT8pvjCEiUrXhwpbx365VpvQ6Bd6MZ)', () => {
  const f = load('carbon_bonding_curve_account.json');
  const c = decodePumpBondingCurve(f.data, f.owner, 'HWxwYxr4AV5ytUyT8pvjCEiUrXhwpbx365VpvQ6Bd6MZ');

  it('decodes the known figures', () => {
    expect(f.data.length).toBe(150);
    expect(c).toEqual({
      virtualTokenReserves: 1_072_911_112_000_000n,
      virtualQuoteReserves: 30_002_485_430n,
      realTokenReserves: 793_011_112_000_000n,
      realQuoteReserves: 2_485_430n,
      tokenTotalSupply: 1_000_000_000_000_000n,
      complete: false,
      creator: 'CkdtUhQdH2sHXJYTJTNFbF1K5W33WVgVHG7zffaMkEmv',
      isMayhemMode: false,
      isCashbackCoin: false,
      quoteMint: DEFAULT_PUBKEY,
    });
  });

  it('is consistent with the Global initial parameters: virtual - real is constant, k never below the initial k', () => {
    const g = decodePumpGlobal(load('carbon_global_account.json').data);
    expect(c.virtualTokenReserves - c.realTokenReserves).toBe(g.initialVirtualTokenReserves - g.initialRealTokenReserves);
    expect(c.virtualQuoteReserves - c.realQuoteReserves).toBe(g.initialVirtualSolReserves);
    expect(c.tokenTotalSupply).toBe(g.tokenTotalSupply);
    expect(c.virtualQuoteReserves * c.virtualTokenReserves).toBeGreaterThanOrEqual(g.initialVirtualSolReserves * g.initialVirtualTokenReserves);
    // price ~ 28 lamports per token unit (0.000000028 SOL per token at 6 decimals)
    expect(Number(c.virtualQuoteReserves) / Number(c.virtualTokenReserves)).toBeCloseTo(2.7964e-5, 8);
  });

  it('round-trips byte for byte at 150 bytes', () => {
    expect(encodePumpBondingCurve(c).equals(f.data)).toBe(true);
  });

  it('an old 49-byte curve decodes with the appended fields zero; 81-byte one keeps its creator', () => {
    const old = decodePumpBondingCurve(f.data.subarray(0, 49));
    expect(old.creator).toBe(DEFAULT_PUBKEY);
    expect(old.virtualTokenReserves).toBe(c.virtualTokenReserves);
    expect(decodePumpBondingCurve(f.data.subarray(0, 81)).creator).toBe(c.creator);
    // a field cut in half is absent
    expect(decodePumpBondingCurve(f.data.subarray(0, 60)).creator).toBe(DEFAULT_PUBKEY);
  });

  it('rejects wrong owner, discriminator, short data, invalid bool', () => {
    expect(reasonOf(() => decodePumpBondingCurve(f.data, PROGRAM_IDS.pumpSwapAmm))).toMatch(/wrong owner/);
    expect(reasonOf(() => decodePumpBondingCurve(load('carbon_global_account.json').data))).toMatch(/wrong discriminator/);
    expect(reasonOf(() => decodePumpBondingCurve(f.data.subarray(0, 48)))).toMatch(/too short/);
    expect(reasonOf(() => decodePumpBondingCurve(f.data.subarray(0, 4)))).toMatch(/wrong discriminator/);
    const bad = Buffer.from(f.data);
    bad[48] = 2;
    expect(reasonOf(() => decodePumpBondingCurve(bad))).toMatch(/invalid bool byte 2/);
  });

  it('encoder round trip with the new fields set', () => {
    const v = { ...c, complete: true, isMayhemMode: true, isCashbackCoin: true, quoteMint: PROGRAM_IDS.token, realTokenReserves: 0n };
    expect(decodePumpBondingCurve(encodePumpBondingCurve(v))).toEqual(v);
    expect(() => encodePumpBondingCurve(v, 48)).toThrow(RangeError);
    expect(decodePumpBondingCurve(encodePumpBondingCurve(v, 81))).toEqual({ ...v, isMayhemMode: false, isCashbackCoin: false, quoteMint: DEFAULT_PUBKEY });
  });
});

describe('Global fixture (4wTV1YmiEkRvAtNtsSGPtUrqRYQMe5SKy2uB4Jjaxnjf)', () => {
  const f = load('carbon_global_account.json');
  const g = decodePumpGlobal(f.data, f.owner);

  it('decodes the known figures (the docs: 1073e12 / 30e9 / 793.1e12 / 1e15; fees 95 + 5 bps)', () => {
    expect(f.data.length).toBe(512);
    expect(g.initialized).toBe(true);
    expect(g.authority).toBe('FFWtrEQ4B4PKQoVuHYzZq8FabGkVatYzDpEVHsK5rrhF');
    expect(g.feeRecipient).toBe('62qc2CNXwrYqQScmEdiZFFAnJR262PxWEuNQtxfafNgV');
    expect(g.initialVirtualTokenReserves).toBe(1_073_000_000_000_000n);
    expect(g.initialVirtualSolReserves).toBe(30_000_000_000n);
    expect(g.initialRealTokenReserves).toBe(793_100_000_000_000n);
    expect(g.tokenTotalSupply).toBe(1_000_000_000_000_000n);
    expect(g.feeBasisPoints).toBe(95n);
    expect(g.creatorFeeBasisPoints).toBe(5n);
    expect(g.withdrawAuthority).toBe('39azUYFWPz3VHgKCf3VChUwbpURdCHRxjWVowf5jUJjg');
    expect(g.enableMigrate).toBe(true);
    expect(g.poolMigrationFee).toBe(15_000_001n);
    expect(g.feeRecipients).toEqual([
      '7VtfL8fvgNfhz17qKRMjzQEXgbdpnHHHQRh54R9jP2RJ',
      '7hTckgnGnLQR6sdH7YkqFTAA7VwTfYFaZ6EhEsU3saCX',
      '9rPYyANsfQZw3DnDmKE3YCQF5E8oD89UXoHn9JFEhJUz',
      'AVmoTthdrX6tKt4nDjco2D775W2YK3sDhxPcMmzUAmTY',
      'CebN5WGQ4jvEPvsVU4EoHEpgzq1VV7AbicfhtW4xC9iM',
      'FWsW1xNtWscwNmKv6wVsU1iTzRN6wmmk3MjxRP5tT7hz',
      'G5UZAVbAf46s7cKWoyKu8kYTip9DGTpbLZ2qa9Aq69dP',
    ]);
    expect(g.setCreatorAuthority).toBe('39azUYFWPz3VHgKCf3VChUwbpURdCHRxjWVowf5jUJjg');
    // fields past this 512-byte capture are zero
    expect(g.reservedFeeRecipient).toBe(DEFAULT_PUBKEY);
    expect(g.buybackBasisPoints).toBe(0n);
    expect(g.whitelistedQuoteMints).toEqual([DEFAULT_PUBKEY]);
  });

  it('is at the Global PDA; re-encodes to the same 512 bytes', () => {
    expect(pumpGlobalAddress()).toBe('4wTV1YmiEkRvAtNtsSGPtUrqRYQMe5SKy2uB4Jjaxnjf');
    expect(encodePumpGlobal(g, 512).equals(f.data)).toBe(true);
    expect(PUMP_GLOBAL_SIZE).toBe(1045);
    const full = { ...g, buybackBasisPoints: 50n, initialVirtualQuoteReserves: 7n, isCashbackEnabled: true };
    expect(decodePumpGlobal(encodePumpGlobal(full))).toEqual(full);
  });

  it('rejects a pre-migration-fee stub and a BondingCurve', () => {
    expect(reasonOf(() => decodePumpGlobal(f.data.subarray(0, 153)))).toMatch(/too short/);
    expect(reasonOf(() => decodePumpGlobal(Buffer.concat([PUMP_BONDING_CURVE_DISCRIMINATOR, f.data.subarray(8)])))).toMatch(/wrong discriminator/);
    expect(PUMP_GLOBAL_DISCRIMINATOR.equals(f.data.subarray(0, 8))).toBe(true);
  });
});

describe('FeeConfig', () => {
  const cfg: PumpFeeConfig = {
    bump: 254,
    admin: 'FFWtrEQ4B4PKQoVuHYzZq8FabGkVatYzDpEVHsK5rrhF',
    flatFees: { lpFeeBps: 25n, protocolFeeBps: 5n, creatorFeeBps: 0n },
    feeTiers: [
      { marketCapLamportsThreshold: 0n, fees: { lpFeeBps: 0n, protocolFeeBps: 95n, creatorFeeBps: 30n } },
      { marketCapLamportsThreshold: 420_000_000_000n, fees: { lpFeeBps: 20n, protocolFeeBps: 5n, creatorFeeBps: 95n } },
      { marketCapLamportsThreshold: (1n << 100n) + 3n, fees: { lpFeeBps: 20n, protocolFeeBps: 5n, creatorFeeBps: 5n } },
    ],
    stableFeeTiers: [{ marketCapLamportsThreshold: 1n, fees: { lpFeeBps: 1n, protocolFeeBps: 2n, creatorFeeBps: 3n } }],
  };

  it('round-trips (borsh vectors, u128 thresholds), with and without trailing space', () => {
    const bytes = encodePumpFeeConfig(cfg);
    expect(bytes.length).toBe(65 + 4 + 3 * 40 + 4 + 40);
    expect(decodePumpFeeConfig(bytes, PUMP_FEES_PROGRAM_ID)).toEqual(cfg);
    expect(decodePumpFeeConfig(encodePumpFeeConfig(cfg, 1000))).toEqual(cfg);
  });

  it('an account that ends after feeTiers has no stable tiers', () => {
    const bytes = encodePumpFeeConfig({ ...cfg, stableFeeTiers: [] });
    expect(decodePumpFeeConfig(bytes.subarray(0, bytes.length - 4)).stableFeeTiers).toEqual([]);
  });

  it('rejects a wrong owner, discriminator, and a vector that overruns the data', () => {
    const bytes = encodePumpFeeConfig(cfg);
    expect(reasonOf(() => decodePumpFeeConfig(bytes, PROGRAM_IDS.pumpFun))).toMatch(/wrong owner/);
    expect(reasonOf(() => decodePumpFeeConfig(load('carbon_global_account.json').data))).toMatch(/wrong discriminator/);
    const bad = Buffer.from(bytes);
    bad.writeUInt32LE(100, 65);
    expect(reasonOf(() => decodePumpFeeConfig(bad))).toMatch(/do not fit/);
    expect(reasonOf(() => decodePumpFeeConfig(bytes.subarray(0, 68)))).toMatch(/too short/);
  });

  it('PDAs', () => {
    expect(pumpFeeConfigAddress(PROGRAM_IDS.pumpFun)).not.toBe(pumpFeeConfigAddress(PROGRAM_IDS.pumpSwapAmm));
    expect(pumpBondingCurveAddress('So11111111111111111111111111111111111111112')).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  });
});
