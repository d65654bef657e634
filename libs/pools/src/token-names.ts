/**
 * A mint's symbol and name from the accounts the projection holds: the Token-2022 TokenMetadata
 * extension of the mint itself when it has one, else the Metaplex Metadata account at the mint's
 * PDA (ingested through the log like any other account). Decoded once per account content (the
 * account views' memo); the PDA of each mint is derived once.
 */
import { decodeMetaplexMetadata, metadataAddress, mintTokenMetadata } from '@app/solana';
import { mintAccount } from './account-decoders';
import type { AccountView } from './program-registry';

export interface TokenName {
  symbol: string;
  name: string;
}

const NONE = { none: true } as const;

/** symbols and names over an account lookup (the projection's) */
export class TokenNames {
  /** each mint's Metadata account address, derived once */
  private readonly pdas = new Map<string, string>();

  constructor(private readonly account: (address: string) => AccountView | undefined) {}

  /** the mint's symbol and name; null when neither place holds them (or they do not decode) */
  of(mint: string): TokenName | null {
    const m = this.account(mint);
    if (m !== undefined) {
      const own = m.memo<TokenName | typeof NONE>('token:MetadataExtension', (v) => {
        try {
          const md = mintTokenMetadata(mintAccount(v));
          return md === null ? NONE : { symbol: md.symbol, name: md.name };
        } catch {
          return NONE;
        }
      });
      if (own !== NONE) return own as TokenName;
    }
    let pda = this.pdas.get(mint);
    if (pda === undefined) this.pdas.set(mint, (pda = metadataAddress(mint)));
    const md = this.account(pda);
    if (md === undefined) return null;
    const v = md.memo<TokenName | typeof NONE>('token:Metadata', (x) => {
      try {
        const d = decodeMetaplexMetadata(x.data, x.owner, x.address);
        return d.mint === mint ? { symbol: d.symbol, name: d.name } : NONE;
      } catch {
        return NONE;
      }
    });
    return v === NONE ? null : (v as TokenName);
  }
}
