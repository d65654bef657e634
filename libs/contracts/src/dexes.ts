/**
 * The programs the router routes through, by the label a route's `poolType` shows and by program
 * id, as GET /api/v1/dexes lists them and the route controls (`dexes`, `excludeDexes`) of a quote,
 * a swap or a stream pair name them.
 */
import { PROGRAM_IDS } from '@app/solana';

export interface Dex {
  /** the label RouteInfo.poolType shows */
  label: string;
  programId: string;
}

/** the programs the router routes through, as GET /api/v1/dexes lists them */
export const DEXES: readonly Dex[] = [
  { label: 'Orca Whirlpool', programId: PROGRAM_IDS.orcaWhirlpool },
  { label: 'Raydium CLMM', programId: PROGRAM_IDS.raydiumClmm },
  { label: 'Raydium CPMM', programId: PROGRAM_IDS.raydiumCpmm },
  { label: 'Raydium AMM v4', programId: PROGRAM_IDS.raydiumAmmV4 },
  { label: 'PumpSwap', programId: PROGRAM_IDS.pumpSwapAmm },
  { label: 'pump.fun', programId: PROGRAM_IDS.pumpFun },
];

/** the program id a dex name (label, any case, or program id) names; undefined when it names none */
export function dexProgramId(name: string): string | undefined {
  const n = name.trim();
  const lower = n.toLowerCase();
  return DEXES.find((d) => d.programId === n || d.label.toLowerCase() === lower)?.programId;
}

/**
 * A list of dex names (an array, or one comma-separated string) as program ids; null when it is
 * not a list of known names (empty entries, an unknown name).
 */
export function parseDexList(value: unknown): string[] | null {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : null;
  if (items === null || items.length === 0) return null;
  const ids = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'string') return null;
    const id = dexProgramId(item);
    if (id === undefined) return null;
    ids.add(id);
  }
  return [...ids];
}

