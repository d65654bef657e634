/**
 * Candidate paths: the float search for the distinct token and pool paths from the input mint to
 * the output mint within the hop limit, best estimate first (the layered DP of
 * layered-search.ts, run near the pair's shortest hop count and, on request, deeper), and the
 * shortest hop count of a pair. Floating point, a guide only: the exact prices come from
 * path-evaluation.ts. Pure.
 */
import type { Pool } from '../pool';
import { at, compiled, type Compiled } from './compiled-graph';
import { layered, type Node } from './layered-search';
import { filteredGraph } from './pool-filter';
import { MAX_HOPS_LIMIT, type CandidatePath, type RouteRequest, type RouteSearchOptions, type TokenGraph } from './types';

const UNREACHABLE = 127;

/**
 * Hops of the shortest path from `start` to the DP target (UNREACHABLE beyond MAX_HOPS_LIMIT):
 * the rate tables answer up to their depth; beyond, breadth-first from the start side until a
 * token the deepest table reaches is met.
 */
export function shortestHops(c: Compiled, start: number, tables: Float64Array[]): number {
  const depth = tables.length - 1;
  for (let j = 0; j <= depth; j++) if (at(tables[j], start) > 0) return j;
  const deepest = tables[depth];
  const seen = new Set<number>([start]);
  let frontier = [start];
  for (let d = 1; d + depth <= MAX_HOPS_LIMIT && frontier.length > 0; d++) {
    const next: number[] = [];
    for (const t of frontier) {
      const o = c.adj(t).others;
      for (let j = 0; j < o.length; j++) {
        const u = o[j];
        if (seen.has(u)) continue;
        if (at(deepest, u) > 0) return d + depth;
        seen.add(u);
        next.push(u);
      }
    }
    frontier = next;
  }
  return UNREACHABLE;
}

/**
 * Float-guided candidate paths from inputMint to outputMint, best estimate first. ExactIn walks
 * forwards with approxOut; ExactOut walks backwards from the output with approxIn.
 *
 * Layered DP: layer h holds, per token, the best few partial paths of exactly h hops from the
 * start token (ExactIn: forwards from the input mint, most output first; ExactOut: backwards
 * from the output mint, least input first). A path never repeats a token.
 *
 * Rate tables: for every token within two hops of the target, the best product of zero-size
 * rates (spot price after fees, which no trade size beats) to the target in one and in two hops.
 * They tell which tokens can still reach the target in the hops left, and bound the best
 * completion of a partial path: its float amount times the token's rate.
 *
 * Pruning, when the search goes beyond the pair's shortest hop count: the shortest paths are
 * searched first and the best of them bounds the rest; a partial path whose completion bound
 * falls short of the best complete estimate so far is not extended, and a hub's pools are
 * checked against the same bound before their curves are evaluated. Beam: where the tables rank
 * tokens (within two hops of the target), a layer passes on at most `beamWidth` tokens, the
 * ones with the best completion bounds, and a hub evaluates at most that many of its pools.
 * This cuts the fan-out through hubs (a hub → a minor token → another hub rarely beats the hubs'
 * own pools).
 *
 * Hop counts: the search above covers paths up to `hopSlack` (1) hops longer than the pair's
 * shortest; with `fullHopLimit`, a second, narrower one (deepBeamWidth tokens a layer, deepCandidatesPerToken paths per token)
 * covers the longer ones up to the hop limit, bounded by the best path found and by rate tables
 * of three hops (and four, around the start token), so no path is left out by its length alone.
 */
export function findCandidatePaths(graph: TokenGraph, req: RouteRequest, opts: RouteSearchOptions = {}): CandidatePath[] {
  if (opts.poolFilter) graph = filteredGraph(graph, opts.poolFilter);
  return searchCandidates(compiled(graph), req, opts);
}

/**
 * `floor`: a fixed pruning bound in score units (output, or minus the input) instead of the best
 * complete estimate: the split's searches keep every path that could carry a part of the amount.
 * `deepOnly` (with a floor and fullHopLimit): only the paths longer than the near search's, down
 * to the floor (a split's search for a part of the amount: a long road of shallow pools can carry
 * a part well and never the whole); empty when the near search already reaches the hop limit.
 */
export function searchCandidates(c: Compiled, req: RouteRequest, opts: RouteSearchOptions, floor?: number, deepOnly = false): CandidatePath[] {
  const k = opts.candidatesPerToken ?? 4;
  const beam = opts.beamWidth ?? 1024;
  const maxHops = Math.max(1, Math.min(MAX_HOPS_LIMIT, Math.floor(req.maxHops)));
  const exactIn = req.mode === 'ExactIn';
  const start = c.id(exactIn ? req.inputMint : req.outputMint);
  const target = c.id(exactIn ? req.outputMint : req.inputMint);
  let tables = c.nearRates(target, exactIn);
  const shortest = shortestHops(c, start, tables);
  if (shortest > maxHops) return [];
  // the near search: paths up to `hopSlack` hops longer than the shortest, wide; the deep search
  // (fullHopLimit): every hop count up to the limit, pruned by the deep rate tables' bounds, narrow
  const near = Math.min(maxHops, shortest + Math.max(0, opts.hopSlack ?? 1));
  // (the split's searches for parts of the amount stay near: the main search's deep candidates
  // join their flow graph)
  const deep = maxHops > near && (floor === undefined || deepOnly) && opts.fullHopLimit === true;
  if (deepOnly && (!deep || floor === undefined)) return [];
  if (deep) {
    tables = c.nearRates(target, exactIn, maxHops - 1);
    if (maxHops - 1 >= tables.length) tables = c.deeperAround(tables, start, exactIn);
  }
  const root: Node = { token: start, amount: Number(req.amount), score: 0, hops: 0, pool: null, prev: null };
  const complete: Node[] = [];
  let bound = floor ?? -Infinity;
  if (floor === undefined && near > shortest && !deepOnly) {
    // the shortest paths first (the strict hop limit keeps their search narrow): their best
    // estimate bounds the longer ones
    layered(c, root, target, shortest, k, exactIn, tables, complete, -Infinity, false, beam, 1);
    for (const x of complete) if (x.score > bound) bound = x.score;
  }
  if (!deepOnly) layered(c, root, target, near, k, exactIn, tables, complete, bound, floor === undefined, beam, 1);
  if (deep) {
    if (floor === undefined) for (const x of complete) if (x.score > bound) bound = x.score;
    // only the paths longer than the near search's are completed (it found the shorter ones)
    layered(c, root, target, maxHops, Math.min(k, opts.deepCandidatesPerToken ?? 2), exactIn, tables, complete, bound, true, opts.deepBeamWidth ?? 32, near + 1);
  }

  complete.sort((a, b) => (a.score === b.score ? a.hops - b.hops : b.score - a.score));
  const out: CandidatePath[] = [];
  const seen = new Set<string>();
  // the best few are what the exact evaluations and the flow graph take: the long tail of a wide
  // search is not materialised
  const cap = opts.candidatePaths ?? 64;
  for (const done of complete) {
    if (out.length >= cap) break;
    const pools: Pool[] = [];
    const path: string[] = [];
    for (let x: Node | null = done; x !== null; x = x.prev) {
      path.push(c.mints[x.token]);
      if (x.pool) pools.push(x.pool);
    }
    // the list runs target → start; trade order is input → output
    if (exactIn) {
      pools.reverse();
      path.reverse();
    }
    const key = pools.map((p) => p.address).join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pools, mints: path, estimate: done.amount });
  }
  return out;
}
