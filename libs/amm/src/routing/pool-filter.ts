/**
 * A pool filter over a token graph: the view of a graph the route search walks when a request
 * restricts the pools it may use (by program, by the tokens a pool trades). Pure.
 *
 * The view has no topology version, so the search compiles it afresh for each search instead of
 * reusing the unfiltered graph's compiled form: a filtered request pays for compiling the part of
 * the graph it touches, an unfiltered one pays nothing.
 */
import type { Pool } from '../pool';
import type { PoolFilter, TokenGraph } from './types';

/** `graph` restricted to the pools `keep` accepts (each mint's list filtered once per view) */
export function filteredGraph(graph: TokenGraph, keep: PoolFilter): TokenGraph {
  const lists = new Map<string, readonly Pool[]>();
  return {
    poolsOf(mint: string): readonly Pool[] {
      let l = lists.get(mint);
      if (l === undefined) {
        l = graph.poolsOf(mint).filter(keep);
        lists.set(mint, l);
      }
      return l;
    },
  };
}
