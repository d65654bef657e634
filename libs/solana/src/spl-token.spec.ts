import * as fs from 'node:fs';
import * as path from 'node:path';
import { base58Encode } from './base58';
import { AccountDecodeError } from './decode-error';
import { PROGRAM_IDS } from './programs';
import {
  EXTENSION_TYPE,
  MINT_SIZE,
  TOKEN_ACCOUNT_SIZE,
  decodeMint,
  decodeTokenAccount,
  encodeMint,
  encodeTokenAccount,
  mintTransferFeeConfig,
  transferFeeForEpoch,
} from './spl-token';

const FIXTURES = path.resolve(__dirname, '../../..', '..', 'shared', 'fixtures');
const ESSENTIALS = path.join(FIXTURES, 'spl-token', 'whirlpool-essentials');
const VIXEN = path.join(FIXTURES, 'spl-token', 'vixen');
const WP_ESSENTIALS = path.join(FIXTURES, 'orca-whirlpool', 'whirlpool-essentials');

interface Fixture {
  name: string;
  pubkey: string;
  owner: string;
  data: Buffer;
}

/** Both fixture formats: RPC JSON (base64) and vixen (byte arrays). */
function load(file: string): Fixture {
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (j.account) {
    return { name: path.basename(file), pubkey: j.pubkey, owner: j.account.owner, data: Buffer.from(j.account.data[0], 'base64') };
  }
  return {
    name: path.basename(file),
    pubkey: base58Encode(Uint8Array.from(j.pubkey)),
    owner: base58Encode(Uint8Array.from(j.owner)),
    data: Buffer.from(j.data),
  };
}

const essentials = fs.readdirSync(ESSENTIALS).map((f) => load(path.join(ESSENTIALS, f)));
const mints = essentials.filter((f) => f.name.startsWith('token_'));
const tokenAccounts = [
  ...essentials.filter((f) => f.name.startsWith('user_ata_')),
  ...fs
    .readdirSync(WP_ESSENTIALS)
    .filter((f) => f.includes('vault'))
    .map((f) => load(path.join(WP_ESSENTIALS, f))),
];
const vixen = fs.readdirSync(VIXEN).map((f) => load(path.join(VIXEN, f)));

/**
 * encode(decode(bytes)) === bytes, except that the program leaves the 32 key bytes of an option
 * set to None untouched (a revoked authority stays in the account): the encoder writes zeros there.
 */
function expectRoundTrip(original: Buffer, encoded: Buffer, mintAuthNone: boolean, freezeAuthNone: boolean): void {
  const a = Buffer.from(original);
  if (mintAuthNone) a.fill(0, 4, 36);
  if (freezeAuthNone) a.fill(0, 50, 82);
  expect(encoded.equals(a)).toBe(true);
}

const byName = (list: Fixture[], prefix: string) => list.find((f) => f.name.startsWith(prefix))!;

describe('decodeMint', () => {
  it.each(mints.map((m) => [m.name, m] as const))('decodes and round-trips %s', (_n, f) => {
    const m = decodeMint(f.data, f.owner, f.pubkey);
    expect(m.isInitialized).toBe(true);
    expectRoundTrip(f.data, encodeMint(m), m.mintAuthority === null, m.freezeAuthority === null);
    if (f.owner === PROGRAM_IDS.token) {
      expect(f.data.length).toBe(MINT_SIZE);
      expect(m.extensions).toBeUndefined();
    } else {
      expect(m.extensions!.length).toBeGreaterThan(0);
    }
  });

  it('decodes USDC and wrapped SOL with known values', () => {
    const usdc = decodeMint(byName(mints, 'token_usdc').data, PROGRAM_IDS.token);
    expect(usdc.decimals).toBe(6);
    expect(usdc.mintAuthority).toBe('2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9');
    expect(usdc.freezeAuthority).toBe('3sNBr7kMccME5D55xNgsmYpZnzPgP2g12CixAajXypn6');
    expect(usdc.supply).toBeGreaterThan(10n ** 15n);
    const sol = decodeMint(byName(mints, 'token_native').data, PROGRAM_IDS.token);
    expect(sol).toEqual({ mintAuthority: null, supply: 0n, decimals: 9, isInitialized: true, freezeAuthority: null });
  });

  it('decodes the Token-2022 PYUSD mint and its transfer-fee extension', () => {
    const f = byName(mints, 'token_2022_pyusd');
    expect(f.owner).toBe(PROGRAM_IDS.token2022);
    const m = decodeMint(f.data, f.owner, f.pubkey);
    expect(m.decimals).toBe(6);
    const types = m.extensions!.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining([EXTENSION_TYPE.transferFeeConfig, EXTENSION_TYPE.metadataPointer]));
    const fee = mintTransferFeeConfig(m, f.pubkey)!;
    expect(fee).not.toBeNull();
    expect(fee.olderTransferFee.transferFeeBasisPoints).toBe(0);
    expect(fee.newerTransferFee.transferFeeBasisPoints).toBe(0);
    expect(transferFeeForEpoch(fee, 10_000n)).toBe(fee.newerTransferFee);
    // sUSD (also Token-2022) has no transfer-fee extension
    const susd = decodeMint(byName(mints, 'token_2022_susd').data, PROGRAM_IDS.token2022);
    expect(mintTransferFeeConfig(susd)).toBeNull();
  });

  it('decodes the vixen Token-2022 fixtures (plain 82-byte mint; mint with extensions)', () => {
    const plain = vixen.find((f) => f.pubkey.startsWith('3SmPYP'))!;
    const m = decodeMint(plain.data, plain.owner, plain.pubkey);
    expect(m).toMatchObject({ decimals: 10, isInitialized: true, supply: 0n, freezeAuthority: null });
    expect(m.mintAuthority).not.toBeNull();
    expect(encodeMint(m).equals(plain.data)).toBe(true);

    // 410 bytes: base, padding, account type 1, TLV (MetadataPointer + TokenMetadata)
    const ext = vixen.find((f) => f.pubkey.startsWith('BtSLwA'))!;
    expect(ext.data.length).toBe(410);
    expect(ext.owner).toBe(PROGRAM_IDS.token2022);
    // only the Token-2022 program can own an extended mint
    expect(() => decodeMint(ext.data, PROGRAM_IDS.token, ext.pubkey)).toThrow(/wrong size 410/);
    const m2 = decodeMint(ext.data, ext.owner, ext.pubkey);
    expect(m2.decimals).toBe(9);
    expect(m2.extensions!.map((e) => e.type)).toEqual(
      expect.arrayContaining([EXTENSION_TYPE.metadataPointer, EXTENSION_TYPE.tokenMetadata]),
    );
    expect(encodeMint(m2).equals(ext.data)).toBe(true);
  });

  it('rejects a wrong owner, size, account type or option tag', () => {
    const usdc = byName(mints, 'token_usdc').data;
    expect(() => decodeMint(usdc, PROGRAM_IDS.system, 'M')).toThrow(AccountDecodeError);
    expect(() => decodeMint(usdc, PROGRAM_IDS.system, 'M')).toThrow(/wrong owner/);
    expect(() => decodeMint(usdc.subarray(0, 81), PROGRAM_IDS.token)).toThrow(/wrong size 81/);
    expect(() => decodeMint(byName(tokenAccounts, 'user_ata_usdc').data, PROGRAM_IDS.token)).toThrow(/wrong size 165/);
    // a Token-2022 token account is not a mint
    const ata2022 = byName(tokenAccounts, 'user_ata_2022_pyusd');
    expect(() => decodeMint(ata2022.data, ata2022.owner)).toThrow(/account type byte is 2/);
    const badTag = Buffer.from(usdc);
    badTag[0] = 7;
    expect(() => decodeMint(badTag, PROGRAM_IDS.token)).toThrow(/COption tag 7/);
    const pyusd = byName(mints, 'token_2022_pyusd').data;
    const truncated = pyusd.subarray(0, pyusd.length - 3);
    expect(() => decodeMint(truncated, PROGRAM_IDS.token2022)).toThrow(/beyond the account end/);
  });
});

describe('decodeTokenAccount', () => {
  it.each(tokenAccounts.map((a) => [a.name, a] as const))('decodes and round-trips %s', (_n, f) => {
    const a = decodeTokenAccount(f.data, f.owner, f.pubkey);
    expect(a.state).toBe('initialized');
    expect(encodeTokenAccount(a).equals(f.data)).toBe(true);
    if (f.owner === PROGRAM_IDS.token) expect(f.data.length).toBe(TOKEN_ACCOUNT_SIZE);
  });

  it('decodes the SOL/USDC whirlpool vaults: mint and pool authority', () => {
    const a = decodeTokenAccount(byName(tokenAccounts, 'sol_usdc_wp_vault_a').data, PROGRAM_IDS.token);
    const b = decodeTokenAccount(byName(tokenAccounts, 'sol_usdc_wp_vault_b').data, PROGRAM_IDS.token);
    expect(a.mint).toBe('So11111111111111111111111111111111111111112');
    expect(b.mint).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    expect(a.owner).toBe('HJPjoWUrhoZzkNfRpHuieeFk9WcZWjwy6PBjZ81ngndJ'); // the whirlpool
    expect(b.owner).toBe(a.owner);
    expect(a.isNative).toBe(2039280n); // wrapped-SOL account: rent-exempt reserve
    expect(b.isNative).toBeNull();
    expect(a.amount).toBeGreaterThan(0n);
    expect(a.delegate).toBeNull();
    expect(a.closeAuthority).toBeNull();
  });

  it('decodes Token-2022 accounts with extensions (ImmutableOwner, TransferFeeAmount)', () => {
    const f = byName(tokenAccounts, 'user_ata_2022_pyusd');
    const a = decodeTokenAccount(f.data, f.owner, f.pubkey);
    expect(a.mint).toBe('2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo');
    expect(a.owner).toBe('r21Gamwd9DtyjHeGywsneoQYR39C1VDwrw7tWxHAwh6');
    expect(a.extensions!.map((e) => e.type)).toEqual(
      expect.arrayContaining([EXTENSION_TYPE.immutableOwner, EXTENSION_TYPE.transferFeeAmount]),
    );
  });

  it('rejects a wrong owner, size, account type or state', () => {
    const f = byName(tokenAccounts, 'user_ata_usdc');
    expect(() => decodeTokenAccount(f.data, PROGRAM_IDS.raydiumCpmm)).toThrow(/wrong owner/);
    expect(() => decodeTokenAccount(f.data.subarray(0, 164), PROGRAM_IDS.token)).toThrow(/wrong size 164/);
    expect(() => decodeTokenAccount(byName(mints, 'token_usdc').data, PROGRAM_IDS.token)).toThrow(/wrong size 82/);
    const pyusdMint = byName(mints, 'token_2022_pyusd');
    expect(() => decodeTokenAccount(pyusdMint.data, pyusdMint.owner)).toThrow(/account type byte is 1/);
    const badState = Buffer.from(f.data);
    badState[108] = 3;
    expect(() => decodeTokenAccount(badState, PROGRAM_IDS.token)).toThrow(/state byte 3/);
    try {
      decodeTokenAccount(badState, PROGRAM_IDS.token, 'Acc');
      throw new Error('not thrown');
    } catch (e) {
      expect(e).toBeInstanceOf(AccountDecodeError);
      expect((e as AccountDecodeError).account).toBe('Acc');
    }
  });

  it('encodes frozen accounts, delegates and close authorities', () => {
    const f = byName(tokenAccounts, 'user_ata_usdc');
    const a = decodeTokenAccount(f.data, PROGRAM_IDS.token);
    const b = {
      ...a,
      state: 'frozen' as const,
      delegate: 'BJE5MMbqXjVwjAF7oxwPYXnTXDyspzZyt4vwenNw5ruG',
      delegatedAmount: 5n,
      closeAuthority: PROGRAM_IDS.system,
      isNative: 7n,
    };
    expect(decodeTokenAccount(encodeTokenAccount(b), PROGRAM_IDS.token)).toEqual(b);
    expect(() => encodeTokenAccount({ ...a, amount: -1n })).toThrow(RangeError);
  });
});
