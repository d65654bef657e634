/**
 * Projection apply rate: pool-updates records/s on one core, from the wire bytes (validated
 * decode of the record, raw account store, re-materialisation of the pools the writes touched,
 * token graph upkeep). Records come from the simulated market (genesis then slots of swaps),
 * encoded beforehand; they are applied in batches of 1,000 as the log delivers them, and the
 * projection is settled after each batch (as the router does when a consumer reads it).
 *
 * Run alone for one market size (prints the figures, leaves BENCHMARKS.md alone):
 *   node --expose-gc -r ./test/support/ts-register.js bench/projection.bench.ts [pools] [slots]
 */
import { encodePoolUpdate } from '@app/contracts';
import { Projection } from '@app/pools';
import { SimMarket } from '@app/sim';
import { fmtRate, verdict, type BenchRow, type BenchSection } from './harness';

interface Run {
  rate: number;
  records: number;
  genesis: number;
  heapPerPoolBytes: number;
}

function measure(pools: number, slots: number): Run {
  const market = new SimMarket({ seed: 7, pools, tokens: Math.max(64, Math.floor(pools / 4)), swapsPerSlot: 64 });
  const values: Buffer[] = market.genesis().map(encodePoolUpdate);
  const genesis = values.length;
  for (let i = 0; i < slots; i++) for (const u of market.step()) values.push(encodePoolUpdate(u));

  const once = (): { seconds: number; p: Projection } => {
    const p = new Projection();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < values.length; i += 1000) {
      const end = Math.min(values.length, i + 1000);
      for (let j = i; j < end; j++) p.apply({ partition: 0, offset: String(j), value: values[j] });
      p.drainChanged();
    }
    return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, p };
  };
  once(); // warm-up (JIT)
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const best = [once(), once()].sort((a, b) => a.seconds - b.seconds)[0];
  global.gc?.();
  const heap1 = process.memoryUsage().heapUsed;
  const routable = best.p.stats.routablePools;
  return { rate: values.length / best.seconds, records: values.length, genesis, heapPerPoolBytes: (heap1 - heap0) / Math.max(1, routable) };
}

export async function bench(): Promise<BenchSection[]> {
  const rows: BenchRow[] = [];
  for (const [pools, slots] of [
    [2_000, 1_500],
    [10_000, 1_500],
  ] as const) {
    const r = measure(pools, slots);
    rows.push({
      metric: `apply rate, ${pools.toLocaleString('en-US')}-pool market`,
      value: fmtRate(r.rate, 'updates'),
      target: '≥ 50,000 updates/s',
      verdict: verdict(r.rate >= 50_000),
      notes: `${r.records.toLocaleString('en-US')} records (${r.genesis.toLocaleString('en-US')} genesis + ${slots} slots of swaps), best of 2 after a warm-up`,
    });
  }
  return [
    {
      title: 'Projection',
      description:
        'Apply rate of `pool-updates` records into the router\'s in-memory projection on one core (`bench/projection.bench.ts`): JSON decode and validation of each record, account store, re-materialisation of the touched pools, token graph.',
      rows,
    },
  ];
}

if (require.main === module) {
  const pools = Number(process.argv[2] ?? 2_000);
  const slots = Number(process.argv[3] ?? 1_500);
  const r = measure(pools, slots);
  console.log(`records=${r.records} (genesis ${r.genesis}) apply+materialise rate=${Math.round(r.rate)} records/s, heap per routable pool ${Math.round(r.heapPerPoolBytes)} B`);
}
