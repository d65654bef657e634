/**
 * The projection's listings: every pool account seen, routable or not, with the reason
 * (MarketInfo), and every mint of the token graph with its decimals, pool count, symbol and name (TokenInfo).
 */
import type { Pool } from '@app/amm';
import type { PoolEntry } from './account-slots';
import { isUnroutable } from './program-registry';
import type { TokenNames } from './token-names';

export interface MarketInfo {
  address: string;
  programId: string;
  kind: string;
  label: string;
  mintA: string | null;
  mintB: string | null;
  /** newest slot among the pool's accounts */
  lastSlot: number;
  routable: boolean;
  reason?: string;
}

export interface TokenInfo {
  mint: string;
  /** from the Mint account; null while the mint account is unknown */
  decimals: number | null;
  /** routable pools that trade this mint */
  pools: number;
  /** from the mint's Token-2022 metadata extension or its Metaplex Metadata account; null when neither is known */
  symbol: string | null;
  name: string | null;
}

/** the pools' listings, by address */
export function listMarkets(pools: Iterable<PoolEntry>): MarketInfo[] {
  const out: MarketInfo[] = [];
  for (const e of pools) {
    const r = e.result;
    const base = { address: e.address, programId: e.venue.programId, lastSlot: e.slot };
    if (isUnroutable(r)) {
      out.push({ ...base, kind: e.venue.kind, label: e.venue.label, mintA: r.mintA ?? null, mintB: r.mintB ?? null, routable: false, reason: r.unroutable });
    } else {
      out.push({ ...base, kind: r.kind, label: r.label, mintA: r.mintA, mintB: r.mintB, routable: true });
    }
  }
  return out.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/** the mints of the token graph (`adjacency`: routable pools per mint), most pools first */
export function listTokens(adjacency: ReadonlyMap<string, readonly Pool[]>, decimalsByMint: ReadonlyMap<string, number>, names: TokenNames): TokenInfo[] {
  const out: TokenInfo[] = [];
  for (const [mint, pools] of adjacency) {
    const n = names.of(mint);
    out.push({ mint, decimals: decimalsByMint.get(mint) ?? null, pools: pools.length, symbol: n?.symbol ?? null, name: n?.name ?? null });
  }
  return out.sort((a, b) => b.pools - a.pools || (a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : 0));
}
