import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  PUMP_AMM_GLOBAL_CONFIG_SIZE,
  PUMP_AMM_POOL_SIZE,
  decodePumpAmmGlobalConfig,
  decodePumpAmmPool,
  encodePumpAmmGlobalConfig,
  encodePumpAmmPool,
  isCanonicalPumpPool,
  pumpAmmCanonicalPoolAddress,
  pumpAmmGlobalConfigAddress,
  pumpAmmPoolAddress,
  type PumpAmmGlobalConfig,
  type PumpAmmPoolState,
} from './pump-amm';
import { DEFAULT_PUBKEY, PUMP_FEE_CONFIG_DISCRIMINATOR, pumpPoolAuthorityAddress } from './pump-fun';
import { AccountDecodeError } from './decode-error';
import { MINTS, PROGRAM_IDS } from './programs';

const IDL = path.resolve(__dirname, '../../..', '..', 'shared', 'fixtures', 'idl', 'pump_amm.pump-public-docs.json');

function reasonOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof AccountDecodeError) return e.reason;
    throw e;
  }
  return 'decoded';
}

// the example pool and config of PumpSwap's public docs (GseMAnNDvntR5uFePZ51yZBXzNSn7GdFPkfHwfr6d77J)
const DOC_POOL: PumpAmmPoolState = {
  poolBump: 254,
  index: 0,
  creator: '9XDYTfQKwW8sHPqnFdUreMmtmffmkHVPGTNV2e3LKxNW',
  baseMint: '7LSsEoJGhLeZzGvDofTdNg7M3JttxQqGWNLo6vWMpump',
  quoteMint: MINTS.SOL,
  lpMint: '6dpnPD6UWDw5hbJEuPQwnCCMba1JYwHANKuL6GQ6otAH',
  poolBaseTokenAccount: '5jMpkf4JF4noHftLgNKyPNh6roVfPSGSjuEk3U4eLKRa',
  poolQuoteTokenAccount: '43DVcZR4kQFjh4Xm2i3DcneRxNjZp7HMud8yDrJWrDr8',
  lpSupply: 4_193_388_284_800n,
  coinCreator: DEFAULT_PUBKEY,
  isMayhemMode: false,
  isCashbackCoin: false,
};

const RECIPIENTS = [
  '62qc2CNXwrYqQScmEdiZFFAnJR262PxWEuNQtxfafNgV',
  '7VtfL8fvgNfhz17qKRMjzQEXgbdpnHHHQRh54R9jP2RJ',
  '7hTckgnGnLQR6sdH7YkqFTAA7VwTfYFaZ6EhEsU3saCX',
  '9rPYyANsfQZw3DnDmKE3YCQF5E8oD89UXoHn9JFEhJUz',
  'AVmoTthdrX6tKt4nDjco2D775W2YK3sDhxPcMmzUAmTY',
  'FWsW1xNtWscwNmKv6wVsU1iTzRN6wmmk3MjxRP5tT7hz',
  'G5UZAVbAf46s7cKWoyKu8kYTip9DGTpbLZ2qa9Aq69dP',
  'JCRGumoE9Qi5BBgULTgdgTLjSgkCMSbF62ZZfGs84JeU',
];

const DOC_GLOBAL_CONFIG: PumpAmmGlobalConfig = {
  admin: 'FFWtrEQ4B4PKQoVuHYzZq8FabGkVatYzDpEVHsK5rrhF',
  lpFeeBasisPoints: 20n,
  protocolFeeBasisPoints: 5n,
  disableFlags: 0,
  protocolFeeRecipients: RECIPIENTS,
  coinCreatorFeeBasisPoints: 5n,
  adminSetCoinCreatorAuthority: DEFAULT_PUBKEY,
  whitelistPda: DEFAULT_PUBKEY,
  reservedFeeRecipient: DEFAULT_PUBKEY,
  mayhemModeEnabled: false,
  reservedFeeRecipients: Array(7).fill(DEFAULT_PUBKEY),
  isCashbackEnabled: false,
  buybackFeeRecipients: Array(8).fill(DEFAULT_PUBKEY),
  buybackBasisPoints: 0n,
};

describe('PumpSwap codecs', () => {
  it('discriminators match the IDL', () => {
    const idl = JSON.parse(fs.readFileSync(IDL, 'utf8')) as { accounts: { name: string; discriminator: number[] }[] };
    const disc = (n: string) => Buffer.from(idl.accounts.find((a) => a.name === n)!.discriminator);
    expect(encodePumpAmmPool(DOC_POOL).subarray(0, 8).equals(disc('Pool'))).toBe(true);
    expect(encodePumpAmmGlobalConfig(DOC_GLOBAL_CONFIG).subarray(0, 8).equals(disc('GlobalConfig'))).toBe(true);
    expect(PUMP_FEE_CONFIG_DISCRIMINATOR.equals(disc('FeeConfig'))).toBe(true);
  });

  it('Pool round trip (current 245 bytes, extended 300); an old 211-byte pool has no coin creator', () => {
    expect(PUMP_AMM_POOL_SIZE).toBe(245);
    const withCreator = { ...DOC_POOL, coinCreator: RECIPIENTS[3], isCashbackCoin: true, index: 513 };
    expect(decodePumpAmmPool(encodePumpAmmPool(withCreator), PROGRAM_IDS.pumpSwapAmm)).toEqual(withCreator);
    expect(decodePumpAmmPool(encodePumpAmmPool(withCreator, 300))).toEqual(withCreator);
    const old = decodePumpAmmPool(encodePumpAmmPool(withCreator, 211));
    expect(old.coinCreator).toBe(DEFAULT_PUBKEY);
    expect(old.lpSupply).toBe(DOC_POOL.lpSupply);
    expect(old.index).toBe(513);
  });

  it('GlobalConfig round trip (907 bytes), an old 313-byte config has no creator fee', () => {
    expect(PUMP_AMM_GLOBAL_CONFIG_SIZE).toBe(907);
    const full = { ...DOC_GLOBAL_CONFIG, disableFlags: 24, buybackBasisPoints: 10n, mayhemModeEnabled: true };
    expect(decodePumpAmmGlobalConfig(encodePumpAmmGlobalConfig(full), PROGRAM_IDS.pumpSwapAmm)).toEqual(full);
    const old = decodePumpAmmGlobalConfig(encodePumpAmmGlobalConfig(full, 313));
    expect(old.coinCreatorFeeBasisPoints).toBe(0n);
    expect(old.protocolFeeRecipients).toEqual(RECIPIENTS);
  });

  it('rejects wrong owner, discriminator, short data', () => {
    const pool = encodePumpAmmPool(DOC_POOL);
    expect(reasonOf(() => decodePumpAmmPool(pool, PROGRAM_IDS.pumpFun))).toMatch(/wrong owner/);
    expect(reasonOf(() => decodePumpAmmGlobalConfig(pool))).toMatch(/wrong discriminator/);
    expect(reasonOf(() => decodePumpAmmPool(pool.subarray(0, 210)))).toMatch(/too short/);
    expect(reasonOf(() => decodePumpAmmGlobalConfig(encodePumpAmmGlobalConfig(DOC_GLOBAL_CONFIG).subarray(0, 312)))).toMatch(/too short/);
  });

  it('PDAs: the GlobalConfig of the docs; canonical pools', () => {
    expect(pumpAmmGlobalConfigAddress()).toBe('ADyA8hdefvWN2dbGGWFotbzWxrAvLW83WG6QCVXvJKqw');
    const mint = DOC_POOL.baseMint;
    const authority = pumpPoolAuthorityAddress(mint);
    // the docs' example pool was created by pump.fun's migrate: its creator is the pool authority
    expect(authority).toBe(DOC_POOL.creator);
    expect(isCanonicalPumpPool(DOC_POOL)).toBe(true);
    expect(isCanonicalPumpPool({ ...DOC_POOL, creator: RECIPIENTS[0] })).toBe(false);
    expect(pumpAmmCanonicalPoolAddress(mint, MINTS.SOL)).toBe(pumpAmmPoolAddress(0, authority, mint, MINTS.SOL));
    // and the docs' pool sits at its PDA ["pool", 0, creator, base, quote]
    expect(pumpAmmCanonicalPoolAddress(mint, MINTS.SOL)).toBe('GseMAnNDvntR5uFePZ51yZBXzNSn7GdFPkfHwfr6d77J');
  });
});
