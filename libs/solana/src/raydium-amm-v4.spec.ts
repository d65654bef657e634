import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  AMM_V4_INFO_SIZE,
  ammV4Authority,
  ammV4SwapPermitted,
  decodeAmmV4Info,
  encodeAmmV4Info,
} from './raydium-amm-v4';
import { AccountDecodeError } from './decode-error';
import { decodeTokenAccount } from './spl-token';
import { MINTS, PROGRAM_IDS } from './programs';

const FIXTURES = path.resolve(__dirname, '../../..', '..', 'shared', 'fixtures');
const DIR = path.join(FIXTURES, 'raydium-amm-v4', 'unattributed');
const POOL = '58oQChx4yWmvKdwLLZzBi4ChoCc2fqCUWBkwMihLYQo2';

function load(file: string): { pubkey: string; owner: string; data: Buffer } {
  const j = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'));
  return { pubkey: j.pubkey, owner: j.account.owner, data: Buffer.from(j.account.data[0], 'base64') };
}

const CAPTURED = `amm_info.${POOL}.captured2026-08-06.json`;
const AT_SLOT = `amm_info.${POOL}.slot453868631.json`;
const COIN_VAULT = 'coin_vault.DQyrAcCrDXQ7NeoqGgDCZwBvWDcYmFCjSb9JtteuvPpz.captured2026-08-06.json';
const PC_VAULT = 'pc_vault.HLmqeL62xR1QoZ1HKKbXRrdN1p3phKpxRMb2VVopvBBz.captured2026-08-06.json';

function reasonOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof AccountDecodeError) return e.reason;
    throw e;
  }
  return 'decoded';
}

describe('AmmInfo decoder on the SOL/USDC mainnet captures', () => {
  it('every AMM v4 fixture in the folder is covered here', () => {
    const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual([CAPTURED, AT_SLOT, COIN_VAULT, PC_VAULT].sort());
  });

  for (const file of [CAPTURED, AT_SLOT]) {
    it(`${file}: the known SOL/USDC pool figures`, () => {
      const f = load(file);
      expect(f.pubkey).toBe(POOL);
      expect(f.data.length).toBe(AMM_V4_INFO_SIZE);
      const a = decodeAmmV4Info(f.data, f.owner, f.pubkey);
      expect(a.status).toBe(6n); // SwapOnly
      expect(ammV4SwapPermitted(a.status)).toBe(true);
      expect(a.nonce).toBe(254n);
      expect(a.coinDecimals).toBe(9n);
      expect(a.pcDecimals).toBe(6n);
      expect(a.state).toBe(2n);
      expect(a.sysDecimalValue).toBe(1_000_000_000n);
      expect(a.fees).toEqual({
        minSeparateNumerator: 5n,
        minSeparateDenominator: 10_000n,
        tradeFeeNumerator: 25n,
        tradeFeeDenominator: 10_000n,
        pnlNumerator: 12n,
        pnlDenominator: 100n,
        swapFeeNumerator: 25n,
        swapFeeDenominator: 10_000n,
      });
      expect(a.coinVault).toBe('DQyrAcCrDXQ7NeoqGgDCZwBvWDcYmFCjSb9JtteuvPpz');
      expect(a.pcVault).toBe('HLmqeL62xR1QoZ1HKKbXRrdN1p3phKpxRMb2VVopvBBz');
      expect(a.coinVaultMint).toBe(MINTS.SOL);
      expect(a.pcVaultMint).toBe(MINTS.USDC);
      expect(a.lpMint).toBe('8HoQnePLqPj4M7PUDzfw8e3Ymdwgc7NLGnaTUapubyvu');
      expect(a.marketProgram).toBe('srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX'); // OpenBook
      // deprecated statistics, still in the account
      expect(a.stateData.totalPnlPc).toBe(4_042_287_200_334n);
      expect(a.stateData.totalPnlCoin).toBe(57_840_261_153_326n);
      expect(a.clientOrderId).toBe(7_395_662n);
      // encoder round trip, byte for byte
      expect(encodeAmmV4Info(a).equals(f.data)).toBe(true);
    });
  }

  it('the two captures differ where a live pool moves: pnl owed, LP supply, epoch', () => {
    const slot = decodeAmmV4Info(load(AT_SLOT).data, PROGRAM_IDS.raydiumAmmV4);
    const cap = decodeAmmV4Info(load(CAPTURED).data, PROGRAM_IDS.raydiumAmmV4);
    expect(slot.stateData.needTakePnlCoin).toBe(183_502_858n);
    expect(slot.stateData.needTakePnlPc).toBe(21_928_100n);
    expect(cap.stateData.needTakePnlCoin).toBe(0n);
    expect(cap.stateData.needTakePnlPc).toBe(0n);
    expect(slot.lpAmount).toBe(102_528_382_854_742n);
    expect(cap.lpAmount).toBe(55_045_858_087_306n);
    expect(slot.recentEpoch).toBe(1050n);
    expect(cap.recentEpoch).toBe(1013n);
  });

  it('the captured triple is consistent: vault mints, vault owner = pool authority, amounts >= pnl owed, plausible price', () => {
    const a = decodeAmmV4Info(load(CAPTURED).data, PROGRAM_IDS.raydiumAmmV4);
    const cv = load(COIN_VAULT);
    const pv = load(PC_VAULT);
    const coin = decodeTokenAccount(cv.data, cv.owner, cv.pubkey);
    const pc = decodeTokenAccount(pv.data, pv.owner, pv.pubkey);
    expect(cv.pubkey).toBe(a.coinVault);
    expect(pv.pubkey).toBe(a.pcVault);
    expect(coin.mint).toBe(a.coinVaultMint);
    expect(pc.mint).toBe(a.pcVaultMint);
    const authority = ammV4Authority(a.nonce);
    expect(authority).toBe('5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1');
    expect(coin.owner).toBe(authority);
    expect(pc.owner).toBe(authority);
    expect(coin.amount).toBe(67_661_004_799_950n);
    expect(pc.amount).toBe(4_936_181_262_839n);
    expect(coin.amount).toBeGreaterThanOrEqual(a.stateData.needTakePnlCoin);
    expect(pc.amount).toBeGreaterThanOrEqual(a.stateData.needTakePnlPc);
    // USDC per SOL implied by the reserves: 4.94M USDC / 67.7k SOL ~ 72.95
    const price = Number(pc.amount - a.stateData.needTakePnlPc) / 1e6 / (Number(coin.amount - a.stateData.needTakePnlCoin) / 1e9);
    expect(price).toBeGreaterThan(5);
    expect(price).toBeLessThan(2000);
    expect(price).toBeCloseTo(72.954, 2);
  });
});

describe('AmmInfo decoder rejects what the program rejects', () => {
  const good = load(CAPTURED).data;

  it('wrong owner', () => {
    expect(reasonOf(() => decodeAmmV4Info(good, PROGRAM_IDS.raydiumCpmm, POOL))).toMatch(/wrong owner/);
  });

  it('wrong size (751, 753, empty)', () => {
    expect(reasonOf(() => decodeAmmV4Info(good.subarray(0, 751)))).toMatch(/wrong size 751/);
    expect(reasonOf(() => decodeAmmV4Info(Buffer.concat([good, Buffer.alloc(1)])))).toMatch(/wrong size 753/);
    expect(reasonOf(() => decodeAmmV4Info(new Uint8Array(0)))).toMatch(/wrong size 0/);
  });

  it('uninitialized or out-of-range status, out-of-range state', () => {
    const b = Buffer.from(good);
    b.writeBigUInt64LE(0n, 0);
    expect(reasonOf(() => decodeAmmV4Info(b))).toMatch(/uninitialized/);
    b.writeBigUInt64LE(8n, 0);
    expect(reasonOf(() => decodeAmmV4Info(b))).toMatch(/invalid Raydium AMM v4 status 8/);
    b.writeBigUInt64LE(6n, 0);
    b.writeBigUInt64LE(7n, 48);
    expect(reasonOf(() => decodeAmmV4Info(b))).toMatch(/invalid Raydium AMM v4 state 7/);
  });

  it('the error names the account', () => {
    try {
      decodeAmmV4Info(good.subarray(1), undefined, 'SomeAccount');
      throw new Error('not thrown');
    } catch (e) {
      expect(e).toBeInstanceOf(AccountDecodeError);
      expect((e as AccountDecodeError).account).toBe('SomeAccount');
    }
  });

  it('accepts a sub-array view (byteOffset != 0)', () => {
    const padded = Buffer.concat([Buffer.alloc(5), good]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 5, AMM_V4_INFO_SIZE);
    expect(decodeAmmV4Info(view).nonce).toBe(254n);
  });
});

describe('encoder', () => {
  it('round-trips changed values, including u128 statistics', () => {
    const a = decodeAmmV4Info(load(CAPTURED).data);
    const changed = {
      ...a,
      status: 7n,
      stateData: { ...a.stateData, needTakePnlCoin: 12n, swapPcInAmount: (1n << 127n) + 5n, poolOpenTime: 1_700_000_000n },
      coinVault: PROGRAM_IDS.system,
    };
    expect(decodeAmmV4Info(encodeAmmV4Info(changed))).toEqual(changed);
  });

  it('refuses values that do not fit', () => {
    const a = decodeAmmV4Info(load(CAPTURED).data);
    expect(() => encodeAmmV4Info({ ...a, lpAmount: 1n << 64n })).toThrow(RangeError);
    expect(() => encodeAmmV4Info({ ...a, padding1: [] })).toThrow(RangeError);
  });
});
