/**
 * The projection's listings: every pool account seen, routable or not, with the reason
 * (MarketInfo), and every mint of the token graph with its decimals and pool count (TokenInfo).
 */
import type { Pool } from '@app/amm';
import type { PoolEntry } from './account-slots';
import { isUnroutable } from './program-registry';

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
export function listTokens(adjacency: ReadonlyMap<string, readonly Pool[]>, decimalsByMint: ReadonlyMap<string, number>): TokenInfo[] {
  const out: TokenInfo[] = [];
  for (const [mint, pools] of adjacency) out.push({ mint, decimals: decimalsByMint.get(mint) ?? null, pools: pools.length });
  return out.sort((a, b) => b.pools - a.pools || (a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : 0));
}
