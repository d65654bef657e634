/**
 * A request's route controls (dexes, excludeDexes, onlyDirectRoutes, maxHops,
 * restrictIntermediateTokens, maxAccounts) turned into what the route search takes: a hop limit
 * and a pool filter. Plain functions, no Nest.
 *
 * - `dexes` / `excludeDexes` name programs by the label a route's `poolType` shows
 *   ("Raydium CPMM", case-insensitive) or by program id; `dexes` keeps only those programs,
 *   `excludeDexes` drops them (both: the programs of `dexes` not in `excludeDexes`).
 * - `onlyDirectRoutes`: one hop (parallel pools of the pair may still split the amount).
 * - `maxHops`: 1 to the configured MAX_HOPS.
 * - `restrictIntermediateTokens`: a pool is searched only when each of its tokens is the input,
 *   the output or one of the configured liquid tokens, so every intermediate token is liquid.
 * - `maxAccounts` is not a search filter: the transaction of the served route is measured (see
 *   swap/account-budget.ts).
 * - `platformFeeBps` is not one either: the integrator's fee, charged as aggregator-fee.ts says.
 */
import type { Pool } from '@app/amm';
import type { RouteSearchOptions } from '@app/amm';

export interface RouteControls {
  /** program ids the route may use (null: any) */
  dexes?: readonly string[];
  /** program ids the route must not use */
  excludeDexes?: readonly string[];
  onlyDirectRoutes?: boolean;
  maxHops?: number;
  restrictIntermediateTokens?: boolean;
  /** accounts the route's transaction may reference at most */
  maxAccounts?: number;
  /** the integrator's fee in bps (not a search filter: see aggregator-fee.ts) */
  platformFeeBps?: number;
}

export { DEXES, dexProgramId, parseDexList, type Dex } from '@app/contracts';

/** what the search of one request takes: its hop limit and the options carrying its pool filter */
export interface ControlledSearch {
  maxHops: number;
  options: RouteSearchOptions;
}

/**
 * The hop limit and pool filter of `controls` for a swap from `inputMint` to `outputMint`
 * (`configMaxHops`: MAX_HOPS; `liquid`: the intermediate tokens restrictIntermediateTokens allows).
 * The caller has checked maxHops against configMaxHops.
 */
export function controlledSearch(controls: RouteControls, configMaxHops: number, liquid: ReadonlySet<string>, inputMint: string, outputMint: string): ControlledSearch {
  let maxHops = Math.min(configMaxHops, controls.maxHops ?? configMaxHops);
  if (controls.onlyDirectRoutes) maxHops = 1;
  const tests: Array<(p: Pool) => boolean> = [];
  if (controls.dexes !== undefined) {
    const only = new Set(controls.dexes);
    tests.push((p) => only.has(p.programId));
  }
  if (controls.excludeDexes !== undefined && controls.excludeDexes.length > 0) {
    const except = new Set(controls.excludeDexes);
    tests.push((p) => !except.has(p.programId));
  }
  if (controls.restrictIntermediateTokens && maxHops > 1) {
    const ok = (m: string): boolean => m === inputMint || m === outputMint || liquid.has(m);
    tests.push((p) => ok(p.mintA) && ok(p.mintB));
  }
  if (tests.length === 0) return { maxHops, options: {} };
  return { maxHops, options: { poolFilter: (p) => tests.every((t) => t(p)) } };
}

/** true when the controls ask for anything beyond the plain search */
export function hasControls(c: RouteControls): boolean {
  return c.dexes !== undefined || c.excludeDexes !== undefined || c.onlyDirectRoutes === true || c.maxHops !== undefined || c.restrictIntermediateTokens === true || c.maxAccounts !== undefined;
}
