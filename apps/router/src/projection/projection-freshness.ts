/**
 * Whether a caught-up projection is fit to answer: the part of the router's health that looks at
 * the projection itself (ProjectionService.health() checks the log, the subscription, catching up
 * and stalling first). Pure: the caller measures, this decides.
 */
export interface Freshness {
  /** routable pools in the projection */
  routablePools: number;
  /** records the projection is behind the log's end (summed over partitions) */
  behind: bigint;
  /** the bound (HEALTH_MAX_LAG_RECORDS) */
  maxBehind: bigint;
}

/** the reason the projection is not healthy, or null when it is */
export function freshnessProblem(f: Freshness): string | null {
  if (f.routablePools === 0) return 'projection empty: no routable pool';
  if (f.behind > f.maxBehind) return `projection lags the log by ${f.behind} records (more than ${f.maxBehind}, HEALTH_MAX_LAG_RECORDS)`;
  return null;
}
