/**
 * The compute-unit limits of /swap on the real programs (LiteSVM): a size sweep of direct swaps
 * through every pool, both directions and modes, up to 20% price impact, with the limit the
 * service sets after the sim gateway's simulation (the compute-unit model): no swap fails for
 * compute, and for ordinary sizes (under 1% impact) the limit is at most 30% above what the
 * programs consumed.
 */
import { MINTS } from '@app/solana';
import { landSwap, poolPairs, REAL_PROGRAM_NAMES, svmWorld, type SvmWorld } from './svm-world';

jest.setTimeout(300_000);

const FRACTIONS = [1e-6, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.06, 0.12];

describe.each(REAL_PROGRAM_NAMES)('%s: compute-unit limits', (program) => {
  let w: SvmWorld;
  beforeAll(() => {
    w = svmWorld({ seed: 21, pools: 20, tokens: 8, programs: [program] });
  });

  it('no compute failure up to 20% price impact; ordinary sizes within 30% of the consumption', async () => {
    const computeFailures: string[] = [];
    const loose: string[] = [];
    let swaps = 0;
    let ordinary = 0;
    for (const p of poolPairs(w, program).slice(0, 6)) {
      const pool = w.projection.pool(p.pool)!;
      for (const [a, b] of [[p.mintA, p.mintB], [p.mintB, p.mintA]]) {
        for (const f of FRACTIONS) {
          for (const swapMode of ['ExactIn', 'ExactOut'] as const) {
            const amount = BigInt(Math.max(1000, Math.floor(pool.reserve(swapMode === 'ExactIn' ? a : b) * f)));
            let r;
            try {
              r = await landSwap(w, { inputMint: a, outputMint: b, amount, swapMode, slippageBps: 50, controls: { onlyDirectRoutes: true } });
            } catch {
              continue; // no route at this size
            }
            if (r.result.pools.length !== 1) continue;
            const spot = pool.spotPrice(a);
            const impact = 1 - Number(r.result.amountOut) / Number(r.result.amountIn) / spot;
            if (impact > 0.2) continue;
            swaps++;
            const label = `${p.pool} ${a === MINTS.SOL ? 'SOL' : a.slice(0, 6)}→ ${swapMode} ${amount} (impact ${(impact * 100).toFixed(2)}%)`;
            const used = r.outcome.computeUnitsConsumed;
            const limit = r.result.computeUnitsEstimate;
            if (!r.outcome.success) {
              if (r.outcome.logs.some((l) => /exceeded CUs meter|ComputationalBudgetExceeded/.test(l)) || /ComputationalBudgetExceeded/.test(r.outcome.error)) computeFailures.push(`${label}: limit ${limit}`);
              continue;
            }
            expect(r.result.simulation?.computeUnitsConsumed).toBe(limit);
            if (impact < 0.01) {
              ordinary++;
              if (limit > used * 1.3) loose.push(`${label}: limit ${limit}, consumed ${used}`);
            }
          }
        }
      }
    }
    expect(computeFailures).toEqual([]);
    expect(loose).toEqual([]);
    expect(swaps).toBeGreaterThanOrEqual(40);
    expect(ordinary).toBeGreaterThanOrEqual(20);
  });
});
