import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { AccountDecodeError } from './decode-error';
import { MINTS, PROGRAM_IDS } from './programs';
import { decodeMint, encodeMint, EXTENSION_TYPE } from './spl-token';
import { TOKEN_METADATA_PROGRAM_ID, decodeMetaplexMetadata, encodeMetaplexMetadata, encodeTokenMetadataExtension, metadataAddress, mintTokenMetadata } from './token-metadata';

const FIXTURES = path.resolve(__dirname, '../../..', '..', 'shared', 'fixtures');
const AUTHORITY = 'r21Gamwd9DtyjHeGywsneoQYR39C1VDwrw7tWxHAwh6';

describe('token metadata', () => {
  it("derives a mint's Metadata account (USDC's, as mainnet has it)", () => {
    expect(metadataAddress(MINTS.USDC)).toBe('5x38Kp4hvdomTCnCrAny4UtMUt5rQBdB6px2K1Ui45Wq');
  });

  it("reads a real Token-2022 mint's TokenMetadata extension", () => {
    const j = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'spl-token/vixen/BtSLwAFDsMX4bhamtyggn2xsdFKQvpaSzw9jEL7BNuyu_account.json'), 'utf8'));
    const mint = decodeMint(Uint8Array.from(j.data), PROGRAM_IDS.token2022);
    expect(mintTokenMetadata(mint)).toEqual({ name: 'vixen_test', symbol: 'VIX', uri: 'https://token-metadata.paxos.com/pyusd_metadata/prod/solana/pyusd_metadata.json' });
    const plain = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'spl-token/vixen/3SmPYPvZfEmroktLiJsgaNENuPEud3Z52zSfLQ1zJdkK_account.json'), 'utf8'));
    expect(mintTokenMetadata(decodeMint(Uint8Array.from(plain.data), PROGRAM_IDS.token))).toBeNull();
  });

  it('Metaplex Metadata and the Token-2022 extension round-trip any name and symbol within their maxima (NUL padding stripped)', () => {
    const text = (max: number) => fc.string({ minLength: 0, maxLength: max }).filter((s) => !s.includes('\0') && Buffer.byteLength(s) <= max);
    fc.assert(
      fc.property(text(32), text(10), text(200), (name, symbol, uri) => {
        const md = encodeMetaplexMetadata({ updateAuthority: AUTHORITY, mint: MINTS.USDC, name, symbol, uri });
        expect(decodeMetaplexMetadata(md, TOKEN_METADATA_PROGRAM_ID)).toEqual({ mint: MINTS.USDC, name, symbol, uri });
        const mint = encodeMint({ mintAuthority: null, supply: 1n, decimals: 6, isInitialized: true, freezeAuthority: null, extensions: [{ type: EXTENSION_TYPE.tokenMetadata, data: encodeTokenMetadataExtension({ mint: MINTS.USDC, name, symbol, uri }) }]});
        expect(mintTokenMetadata(decodeMint(mint, PROGRAM_IDS.token2022))).toEqual({ name, symbol, uri });
      }),
      { numRuns: 200 },
    );
  });

  it('refuses what is not a Metadata account: another owner, another key, strings past the end', () => {
    const md = encodeMetaplexMetadata({ updateAuthority: AUTHORITY, mint: MINTS.USDC, name: 'USD Coin', symbol: 'USDC', uri: '' });
    expect(() => decodeMetaplexMetadata(md, PROGRAM_IDS.token)).toThrow(AccountDecodeError);
    const other = Buffer.from(md);
    other[0] = 6;
    expect(() => decodeMetaplexMetadata(other, TOKEN_METADATA_PROGRAM_ID)).toThrow(/not a Metadata account/);
    expect(() => decodeMetaplexMetadata(md.subarray(0, 100), TOKEN_METADATA_PROGRAM_ID)).toThrow(/run past/);
    const long = Buffer.from(md);
    long.writeUInt32LE(33, 65);
    expect(() => decodeMetaplexMetadata(long, TOKEN_METADATA_PROGRAM_ID)).toThrow(/over their maximum/);
  });
});
