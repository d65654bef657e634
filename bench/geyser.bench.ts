/**
 * INGEST_SOURCE=geyser: steady ingest through the Yellowstone stream into pool-updates, and the
 * time from the Geyser stand-in's update to the router's projection applying it.
 *
 * The chain is the simulated market (MarketChain) served by the RPC stand-in (the bootstrap) and
 * the Geyser stand-in (the stream, a gRPC server on the package's own codecs, 127.0.0.1); the log
 * is the embedded log on local disk; the GeyserSource runs whole (bootstrap, stream, AccountSink).
 *  - steady ingest: slots of swaps are made beforehand, then published to the stand-in as fast as
 *    it takes them; writes/s = the stream's account writes / the time until the last is appended.
 *  - latency: slots published at a paced rate (about 1,000 writes/s, the middle of mainnet's DEX
 *    range); a Projection subscribed to pool-updates (as the router consumes it) notes when each
 *    write is applied; per write, applied minus published.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { INGEST_PROGRAMS } from '@app/config';
import { decodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { PROGRAM_IDS } from '@app/solana';
import { Projection } from '@app/pools';
import { GeyserSource } from '../apps/ingestor/src/geyser/geyser-source';
import { GeyserStandIn, type StandInAccount } from '../test/support/chain-stand-in/geyser-stand-in';
import { MarketChain } from '../test/support/chain-stand-in/market-chain';
import { RpcStandIn } from '../test/support/chain-stand-in/rpc-stand-in';
import { fmtRate, percentile, verdict, type BenchSection } from './harness';

const quiet = { log: (): void => undefined, warn: (): void => undefined, error: (): void => undefined };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function asStandIn(u: PoolUpdate): StandInAccount {
  return u.data === null
    ? { pubkey: u.address, owner: PROGRAM_IDS.system, lamports: 0n, data: Buffer.alloc(0), slot: u.slot }
    : { pubkey: u.address, owner: u.owner, lamports: u.lamports, data: u.data, slot: u.slot };
}

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`geyser bench: timed out waiting for ${what}`);
    await sleep(2);
  }
}

export async function bench(): Promise<BenchSection[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'geyser-bench-'));
  const chain = new MarketChain({ seed: 3, pools: 300, tokens: 80, swapsPerSlot: 120 });
  const node = await RpcStandIn.start(chain);
  const geyser = new GeyserStandIn({ retentionSlots: 100_000 });
  await geyser.start();
  const log = new EmbeddedLog({ dataDir: dir });
  const source = new GeyserSource(
    {
      rpcUrls: [node.url],
      rpcWsUrls: [node.wsUrl],
      rpcKey: null,
      ingestPrograms: [...INGEST_PROGRAMS],
      ingestMints: null,
      ingestPools: null,
      geyserUrl: geyser.url,
      geyserXToken: null,
      geyserCommitment: 'processed',
      geyserPingMs: 10_000,
    },
    log,
    quiet,
  );
  // the router's side: a projection fed by a subscription to pool-updates
  const projection = new Projection();
  const published = new Map<string, bigint>();
  const latencies: number[] = [];
  let measuring = false;
  try {
    await source.start();
    // the call open and its first request (the filters) in: the stand-in sends nothing before
    await until(() => geyser.openCalls === 1 && geyser.stats.requests > 0, 10_000, 'the subscription');
    const sub = await log.subscribe(TOPICS.poolUpdates, { from: 'beginning', maxBatch: 5000 }, (records) => {
      const now = process.hrtime.bigint();
      for (const r of records) {
        projection.apply(r);
        if (!measuring) continue;
        const u = decodePoolUpdate(r.value);
        const t = published.get(`${u.address}:${u.slot}`);
        if (t !== undefined) latencies.push(Number(now - t) / 1e6);
      }
      projection.drainChanged();
    });
    const stream = source.stream!;

    // steady ingest: 60 slots of swaps made beforehand, then published at once
    const slots: PoolUpdate[][] = [];
    for (let i = 0; i < 60; i++) slots.push(chain.step());
    const before = stream.stats().written;
    const sent0 = geyser.stats.accountsSent;
    const t0 = process.hrtime.bigint();
    for (const s of slots) {
      for (const u of s) geyser.publishAccount(asStandIn(u));
      geyser.publishSlot(s[0].slot);
    }
    // the writes the filters pass (the market also writes accounts no pool in scope depends on)
    const total = geyser.stats.accountsSent - sent0;
    await until(() => stream.stats().written - before >= total, 120_000, `the steady writes (${total})`);
    await stream.idle();
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const rate = total / seconds;

    // latency: one slot every second (about 190 writes/s: below what this machine ingests), for 20 s
    const paced: PoolUpdate[][] = [];
    for (let i = 0; i < 20; i++) paced.push(chain.step());
    measuring = true;
    const before2 = stream.stats().written;
    const sent1 = geyser.stats.accountsSent;
    const start = Date.now();
    for (let i = 0; i < paced.length; i++) {
      await sleep(start + i * 1_000 - Date.now());
      const now = process.hrtime.bigint();
      for (const u of paced[i]) {
        published.set(`${u.address}:${u.slot}`, now);
        geyser.publishAccount(asStandIn(u));
      }
      geyser.publishSlot(paced[i][0].slot);
    }
    const pacedWrites = geyser.stats.accountsSent - sent1;
    await until(() => stream.stats().written - before2 >= pacedWrites, 30_000, 'the paced writes');
    await stream.idle();
    await sleep(1_000); // the subscriber reads the last appends
    await sub.close();
    latencies.sort((a, b) => a - b);
    const p99 = percentile(latencies, 99);
    const s = stream.stats();
    return [
      {
        title: 'geyser ingest',
        description:
          'INGEST_SOURCE=geyser end to end on this machine: the simulated market (300 pools, all six programs) served as the chain by the RPC stand-in (bootstrap) and the Geyser stand-in ' +
          '(a gRPC server on 127.0.0.1 speaking the package’s own protobuf; the stream through @triton-one/yellowstone-grpc’s native client), written to pool-updates on the embedded log. ' +
          'Steady ingest: 60 slots of swaps made beforehand and published at once; writes/s until the last one was appended. Latency: 20 slots published one a second; per write, from the ' +
          'stand-in’s publish to a Projection subscribed to pool-updates (as the router consumes it) applying it.',
        rows: [
          { metric: 'steady ingest through geyser into pool-updates', value: fmtRate(rate, 'writes'), target: '>= 5,000 account updates/s', verdict: verdict(rate >= 5000), notes: `${total} writes in ${seconds.toFixed(2)} s` },
          {
            metric: 'stand-in update -> projection applied, p99',
            value: `${p99.toFixed(1)} ms`,
            target: '<= 50 ms',
            verdict: verdict(p99 <= 50),
            notes: `p50 ${percentile(latencies, 50).toFixed(1)} ms, max ${latencies[latencies.length - 1].toFixed(1)} ms over ${latencies.length} of ${pacedWrites} writes (${((pacedWrites / 20) | 0)} writes/s); ${s.rejected} refused, ${s.reconnects} reconnects`,
          },
        ],
      },
    ];
  } finally {
    await source.stop();
    await geyser.close();
    await node.close();
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
