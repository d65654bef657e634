import { PublicKey } from '@solana/web3.js';
import { base58Encode } from './base58';
import { decodeSerumMarketAccounts } from './instructions/programs';
import { encodeSerumMarket, SERUM_MARKET_SIZE, serumVaultSignerNonce } from './serum-market';

const OPENBOOK = 'srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX';
const key = (n: number): string => base58Encode(Buffer.alloc(32, n));

describe('Serum / OpenBook market account', () => {
  it('encodes the layout the AMM v4 swap builder reads, with a valid vault signer', () => {
    const address = key(1);
    const nonce = serumVaultSignerNonce(address, OPENBOOK);
    const data = encodeSerumMarket({
      address,
      vaultSignerNonce: nonce,
      coinMint: key(2),
      pcMint: key(3),
      coinVault: key(4),
      pcVault: key(5),
      requestQueue: key(6),
      eventQueue: key(7),
      bids: key(8),
      asks: key(9),
      coinLotSize: 1000n,
      pcLotSize: 10n,
      feeRateBps: 0n,
    });
    expect(data.length).toBe(SERUM_MARKET_SIZE);
    expect(data.subarray(381).toString('latin1')).toBe('padding');
    const m = decodeSerumMarketAccounts(address, OPENBOOK, data);
    const nonceLe = Buffer.alloc(8);
    nonceLe.writeBigUInt64LE(nonce, 0);
    expect(m).toEqual({
      coinVault: key(4),
      pcVault: key(5),
      eventQueue: key(7),
      bids: key(8),
      asks: key(9),
      vaultSigner: PublicKey.createProgramAddressSync([new PublicKey(address).toBuffer(), nonceLe], new PublicKey(OPENBOOK)).toBase58(),
    });
  });

  it('finds the smallest nonce that gives an off-curve vault signer', () => {
    for (let i = 10; i < 20; i++) {
      const market = key(i);
      const n = serumVaultSignerNonce(market, OPENBOOK);
      for (let k = 0n; k < n; k++) {
        const le = Buffer.alloc(8);
        le.writeBigUInt64LE(k, 0);
        expect(() => PublicKey.createProgramAddressSync([new PublicKey(market).toBuffer(), le], new PublicKey(OPENBOOK))).toThrow();
      }
    }
  });
});
