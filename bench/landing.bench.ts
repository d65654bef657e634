/**
 * Landing rate under adverse moves, on the real programs (LiteSVM with the Whirlpool, CPMM and
 * AMM v4 binaries of ../shared/programs): /swap's transactions (ExactIn, built and simulated by
 * the service on the sim gateway) executed after another trader's swap moved the route's first
 * pool against the user by about 10, 20 and 30 bp, with slippage 50 and 100 bp; per route shape
 * (direct, multi-hop single path, split) on a simulated market of the three programs.
 */
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { landSwap, moveSize, svmWorld, tradeFirst, type SvmWorld, type SwapAsk } from '../test/litesvm/svm-world';
import type { BenchRow, BenchSection } from './harness';

const PER_SHAPE = 8;
const DESCRIPTION = `Landing rate of /swap transactions (ExactIn) on the real Whirlpool, CPMM and AMM v4 programs (LiteSVM, ../shared/programs) when another trader's swap first moves the route's first pool against the user by about 10, 20 and 30 bp (input sized from the pool's reserve), on simulated markets of the three programs (seed 11, 30 pools) and of Whirlpools alone (24 pools; Whirlpools the binary predates left out); up to ${PER_SHAPE} requests per route shape that land with nothing moved. Two-hop Whirlpool paths go as one two_hop_swap_v2; other multi-hop and split routes bound their inner hops by the exact quoted amounts.`;
const MOVES_BPS = [10, 20, 30];
const SLIPPAGES_BPS = [50, 100];

type Shape = 'direct' | 'multi-hop' | 'split' | 'two-hop Whirlpool';

export async function bench(): Promise<BenchSection[]> {
  const rows: BenchRow[] = [];
  // the market of the three programs, then one of Whirlpools alone (its two-hop paths)
  rows.push(...(await shapeRows(svmWorld({ seed: 11, pools: 30, tokens: 8, programs: ['orca-whirlpool', 'raydium-cpmm', 'raydium-amm-v4'] }), ['direct', 'multi-hop', 'split'])));
  rows.push(...(await shapeRows(svmWorld({ seed: 11, pools: 24, tokens: 8, programs: ['orca-whirlpool'] }), ['two-hop Whirlpool'])));
  return [
    {
      title: 'landing',
      description: DESCRIPTION,
      rows,
    },
  ];
}

async function shapeRows(w: SvmWorld, shapes: Shape[]): Promise<BenchRow[]> {
  const mints = [...new Set(w.projection.markets().flatMap((m) => [m.mintA!, m.mintB!]))];
  const asks = new Map<Shape, SwapAsk[]>(shapes.map((x) => [x, []]));
  // the asks: pairs and sizes whose route has each shape and lands with nothing moved
  for (const a of mints) {
    for (const b of mints) {
      if (a === b) continue;
      if ([...asks.values()].every((l) => l.length >= PER_SHAPE)) break;
      for (const frac of [1e-3, 3e-2]) {
        const reserve = Math.max(...w.projection.poolsOf(a).map((p) => p.reserve(a)));
        const ask: SwapAsk = { inputMint: a, outputMint: b, amount: BigInt(Math.max(100, Math.floor(reserve * frac))), swapMode: 'ExactIn', slippageBps: 50 };
        let r;
        try {
          r = await landSwap(w, ask);
        } catch {
          continue;
        }
        if (!r.outcome.success) continue;
        const twoHop = !r.result.isSplitRoute && r.result.pools.length === 2 && r.result.pools.every((p) => w.projection.pool(p)?.programId === PROGRAM_IDS.orcaWhirlpool);
        const shape: Shape = r.result.isSplitRoute ? 'split' : twoHop && asks.has('two-hop Whirlpool') ? 'two-hop Whirlpool' : r.result.pools.length > 1 ? 'multi-hop' : 'direct';
        const list = asks.get(shape);
        if (list && list.length < PER_SHAPE) list.push(ask);
      }
    }
  }
  const rows: BenchRow[] = [];
  for (const [shape, list] of asks) {
    for (const slippageBps of SLIPPAGES_BPS) {
      let landed = 0;
      let total = 0;
      let belowThreshold = 0;
      const perMove: string[] = [];
      for (const move of MOVES_BPS) {
        let l = 0;
        for (const ask of list) {
          const r = await landSwap(w, { ...ask, slippageBps }, {
            before: (res) => {
              const pool = w.projection.pool(res.pools[0])!;
              const input = ask.inputMint === pool.mintA || ask.inputMint === pool.mintB ? ask.inputMint : MINTS.SOL;
              tradeFirst(w, pool, input, moveSize(pool, input, move));
            },
          });
          total++;
          if (r.outcome.success) {
            l++;
            if (r.received < BigInt(r.result.minAmountOut)) belowThreshold++;
          }
        }
        landed += l;
        perMove.push(`${move} bp: ${l}/${list.length}`);
      }
      rows.push({
        metric: `${shape}, slippage ${slippageBps} bp, first pool moved 10/20/30 bp`,
        value: `${landed}/${total} landed (${total ? ((100 * landed) / total).toFixed(0) : 0}%)`,
        target: '≥ 99% (every move within the slippage)',
        verdict: total === 0 ? '' : landed / total >= 0.99 ? 'met' : 'missed',
        notes: `${perMove.join(', ')}; received below minAmountOut: ${belowThreshold}`,
      });
    }
  }
  return rows;
}
