/**
 * Apply rate of the projection on a simulated market (not a test; prints figures).
 *   node -r ./test/support/ts-register.js apps/router/src/projection/projection.bench.ts [pools] [steps]
 */
import { SimMarket } from '@app/sim';
import { encodePoolUpdate } from '@app/contracts';
import { findBestRoute } from '@app/amm';
import { MINTS } from '@app/solana';
import { Projection } from '@app/pools';

const POOLS = Number(process.argv[2] ?? 2000);
const STEPS = Number(process.argv[3] ?? 2000);
const market = new SimMarket({ seed: 3, pools: POOLS, tokens: Math.max(3, Math.floor(POOLS / 4)), swapsPerSlot: 32 });
const values: Buffer[] = market.genesis().map(encodePoolUpdate);
const genesisCount = values.length;
for (let i = 0; i < STEPS; i++) for (const u of market.step()) values.push(encodePoolUpdate(u));

function run(): { rate: number; settleMs: number; total: number } {
  const p = new Projection();
  const t0 = process.hrtime.bigint();
  // batches of 1000 as the log delivers them; read the graph after each batch (settles)
  for (let i = 0; i < values.length; i += 1000) {
    const end = Math.min(values.length, i + 1000);
    for (let j = i; j < end; j++) p.apply({ partition: 0, offset: j, value: values[j] });
    p.poolsOf(MINTS.USDC);
  }
  const t1 = process.hrtime.bigint();
  const s = Number(t1 - t0) / 1e9;
  findBestRoute(p, { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: 1_000_000_000n, mode: 'ExactIn', maxHops: 3 });
  return { rate: values.length / s, settleMs: 0, total: values.length };
}
run();
const r = run();
console.log(`records=${r.total} (genesis ${genesisCount}) apply+materialise rate=${Math.round(r.rate)} records/s`);
