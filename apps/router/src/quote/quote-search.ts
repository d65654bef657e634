/**
 * The route search every served answer runs: REST quotes, /swap and /instructions, the audit's
 * recomputation and the live stream's searches. One constant, so that a swap builds the route its
 * quote served and a stream push reports what the REST quote does on the same state. The whole hop
 * limit is searched (paths up to MAX_HOPS, pruned by bounds; see libs/amm/src/routing/candidate-paths.ts). findBestNetRoute
 * applies it, under what a caller adds (route controls, the transaction ladder's shapes).
 */
import type { RouteSearchOptions } from '@app/amm';

export const QUOTE_SEARCH: Readonly<RouteSearchOptions> = Object.freeze({ fullHopLimit: true });
