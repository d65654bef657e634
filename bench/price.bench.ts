/**
 * Price oracle: lookup latency of a batch of 100 mints in process, and the cost of keeping
 * prices up to date per projected pool update.
 *
 *  - lookups: the router's PriceService over a simulated market projected by the real
 *    Projection; a batch of 100 mints (priced tokens, stablecoins, unknown mints, duplicates)
 *    (a) straight from the service and (b) through the endpoint's in-process path: the
 *    class-validator pipe on the query DTO, the list parser and the lookups (no HTTP socket);
 *  - reprice per pool update: slots of the simulated market applied to the projection, then the
 *    PriceService's per-batch handler timed (pool reads, decimals sync, oracle update, SOL cascade);
 *  - SOL cascade at scale: a synthetic oracle with 10,000 tokens priced through SOL pools; one
 *    SOL/USDC pool update re-materialises all of them.
 */
import 'reflect-metadata';
import type { ArgumentMetadata } from '@nestjs/common';
import { SimMarket } from '@app/sim';
import { PriceController } from '../apps/router/src/price/price.controller';
import { PriceBatchQueryDto, createPriceValidationPipe } from '../apps/router/src/price/price.dto';
import { PriceService } from '../apps/router/src/price/price.service';
import { Projection } from '@app/pools';
import type { PoolsChangedListener, ProjectionService } from '../apps/router/src/projection/projection.service';
import type { HopQuote, Pool } from '@app/amm';
import { PriceOracle } from '@app/amm';
import { loadConfig } from '@app/config';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { base58Encode } from '@app/solana';
import { MINTS } from '@app/solana';
import { fmtMs, summarize, verdict, type BenchRow, type BenchSection } from './harness';

class BenchProjectionService {
  readonly projection = new Projection();
  private offset = 0;
  onPoolsChanged(_l: PoolsChangedListener): void {
    // the bench calls PriceService.apply itself, to time it
  }
  apply(updates: PoolUpdate[]): Set<string> {
    for (const u of updates) this.projection.apply({ partition: 0, offset: String(this.offset++), value: encodePoolUpdate(u) });
    return this.projection.drainChanged();
  }
}

function msSince(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function standIn(address: string, mintA: string, mintB: string, ra: number, rb: number, slot: number): Pool {
  const unused = (): HopQuote => {
    throw new Error('not used');
  };
  return {
    address,
    programId: 'bench',
    kind: 'constant-product',
    label: 'bench',
    mintA,
    mintB,
    feeBps: 25,
    slot,
    quoteExactIn: unused,
    quoteExactOut: unused,
    approxOut: () => 0,
    approxIn: () => Infinity,
    spotPrice: (m) => (m === mintA ? rb / ra : ra / rb),
    reserve: (m) => (m === mintA ? ra : rb),
  };
}

export async function bench(): Promise<BenchSection[]> {
  const rows: BenchRow[] = [];
  const POOLS = 2_000;
  const TOKENS = 500;
  const SLOTS = 600;

  // ---- market, projection, service ----
  const market = new SimMarket({ seed: 11, pools: POOLS, tokens: TOKENS, swapsPerSlot: 64 });
  const fake = new BenchProjectionService();
  const service = new PriceService(fake as unknown as ProjectionService, loadConfig({}), Date.now);
  service.attach();
  service.apply(fake.apply(market.genesis()));
  const steps: PoolUpdate[][] = [];
  for (let i = 0; i < SLOTS; i++) steps.push(market.step());

  // ---- reprice per pool update (sim slots, batches of one slot) ----
  const perBatch: number[] = [];
  let poolUpdates = 0;
  let total = 0;
  for (const [i, step] of steps.entries()) {
    const changed = fake.apply(step);
    const t0 = process.hrtime.bigint();
    service.apply(changed);
    const ms = msSince(t0);
    if (i >= 100) {
      // after a warm-up
      perBatch.push(ms);
      poolUpdates += changed.size;
      total += ms;
    }
  }
  const batchStats = summarize(perBatch);
  const perUpdate = total / poolUpdates;
  rows.push({
    metric: 'reprice per pool update (sim market)',
    value: fmtMs(perUpdate),
    notes:
      `mean over ${poolUpdates.toLocaleString('en-US')} pool updates in ${perBatch.length} slots of a ${POOLS.toLocaleString('en-US')}-pool, ` +
      `${TOKENS}-token market (64 swaps/slot); per slot batch p50 ${fmtMs(batchStats.p50)}, p99 ${fmtMs(batchStats.p99)}, ` +
      'including the SOL cascade when a SOL/stable pool moved',
  });

  // ---- lookups: 100 mints ----
  const known = market.tokens.map((t) => t.mint);
  const unknown = Array.from({ length: 10 }, (_, i) => base58Encode(Buffer.alloc(32, 200 + i)));
  const mints: string[] = [];
  for (let i = 0; mints.length < 100; i++) {
    if (i % 10 === 9) mints.push(unknown[Math.floor(i / 10) % unknown.length]);
    else if (i % 25 === 24) mints.push(mints[0]); // a duplicate
    else mints.push(known[(i * 7) % known.length]);
  }
  const query = { mints: mints.join(',') };
  const controller = new PriceController(service);
  const pipe = createPriceValidationPipe();
  const meta: ArgumentMetadata = { type: 'query', metatype: PriceBatchQueryDto };
  const direct: number[] = [];
  const endpoint: number[] = [];
  let sink = 0;
  const N = 20_000;
  for (let i = 0; i < N + 2_000; i++) {
    const t0 = process.hrtime.bigint();
    const recs = service.prices(mints);
    const a = msSince(t0);
    const t1 = process.hrtime.bigint();
    const dto = (await pipe.transform({ ...query }, meta)) as PriceBatchQueryDto;
    const res = controller.batch(dto);
    const b = msSince(t1);
    sink += recs.length + res.data.prices.length;
    if (i >= 2_000) {
      direct.push(a);
      endpoint.push(b);
    }
  }
  if (sink === 0) throw new Error('no lookups');
  const d = summarize(direct);
  const e = summarize(endpoint);
  rows.push({
    metric: 'batch of 100 mints, lookups (PriceService)',
    value: `p99 ${fmtMs(d.p99)}`,
    target: 'p99 ≤ 1 ms',
    verdict: verdict(d.p99 <= 1),
    notes: `p50 ${fmtMs(d.p50)}, max ${fmtMs(d.max)}; ${d.n.toLocaleString('en-US')} batches after a warm-up`,
  });
  rows.push({
    metric: 'batch of 100 mints, endpoint in process (DTO validation + parse + lookups)',
    value: `p99 ${fmtMs(e.p99)}`,
    target: 'p99 ≤ 1 ms',
    verdict: verdict(e.p99 <= 1),
    notes: `p50 ${fmtMs(e.p50)}, max ${fmtMs(e.max)}; 90 priced or stable mints, 10 unknown, duplicates; no HTTP socket`,
  });

  // ---- SOL cascade at scale (synthetic) ----
  const CASCADE = 10_000;
  const tokenMints = Array.from({ length: CASCADE }, (_, i) => {
    const b = Buffer.alloc(32, 1);
    b.writeUInt32BE(i, 0);
    return base58Encode(b);
  });
  const o = new PriceOracle([MINTS.USDC, MINTS.USDT], MINTS.SOL);
  o.setDecimals(MINTS.SOL, 9);
  o.setDecimals(MINTS.USDC, 6);
  o.batch(() => {
    o.poolChanged({ pool: standIn('sol-usdc', MINTS.SOL, MINTS.USDC, 100_000e9, 15_000_000e6, 1), updatedAt: 1 });
    for (let i = 0; i < CASCADE; i++) {
      const mint = tokenMints[i];
      o.setDecimals(mint, 6);
      o.poolChanged({ pool: standIn(`p${i}`, mint, MINTS.SOL, 1e12 + i, 1e11, 1), updatedAt: 1 });
    }
  });
  const cascade: number[] = [];
  const single: number[] = [];
  for (let k = 0; k < 60; k++) {
    const solPool = standIn('sol-usdc', MINTS.SOL, MINTS.USDC, 100_000e9, (15_000_000 + k) * 1e6, 2 + k);
    const t0 = process.hrtime.bigint();
    o.poolChanged({ pool: solPool, updatedAt: 2 + k });
    const ms = msSince(t0);
    if (k >= 10) cascade.push(ms);
    for (let j = 0; j < 100; j++) {
      const i = (k * 100 + j) % CASCADE;
      const pool = standIn(`p${i}`, tokenMints[i], MINTS.SOL, 1e12 + i + k, 1e11, 2 + k);
      const t1 = process.hrtime.bigint();
      o.poolChanged({ pool, updatedAt: 2 + k });
      if (k >= 10) single.push(msSince(t1));
    }
  }
  const c = summarize(cascade);
  const s = summarize(single);
  rows.push({
    metric: `SOL price move, ${CASCADE.toLocaleString('en-US')} tokens priced through SOL pools`,
    value: fmtMs(c.p50),
    notes: `p50 per SOL/USDC update (${fmtMs((c.p50 / CASCADE))} per dependent token), p99 ${fmtMs(c.p99)}; every dependent record re-materialised eagerly`,
  });
  rows.push({
    metric: 'token pool update (synthetic, outside a batch)',
    value: fmtMs(s.p50),
    notes: `p50, p99 ${fmtMs(s.p99)}; 10,000-token oracle; incremental best pool + record (no rescan of the token's pools)`,
  });

  return [
    {
      title: 'Price oracle',
      description:
        'Spot prices of `GET /api/v1/price` (`bench/price.bench.ts`): lookup latency of a batch of 100 mints in process (the records are maintained as pool updates are projected, so a request is a lookup), and the cost of keeping them up to date per projected pool update.',
      rows,
    },
  ];
}
