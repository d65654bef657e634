/**
 * INGEST_SOURCE=rpc against the RPC stand-in (test/support/chain-stand-in: JSON-RPC over HTTP and
 * the PubSub WebSocket on 127.0.0.1, serving the simulated market as the chain), all in this one
 * process (the stand-in's encoding shares the core with the source):
 *  - bootstrap of a BOOT_POOLS-pool market (10,000): time and requests (getProgramAccounts per
 *    program, getMultipleAccounts of 100 keys, 4 in flight, getTokenAccountsByOwner per pump.fun
 *    curve); the simulated market is built before the clock starts;
 *  - steady ingest: the chain writes 20 slots at once (the stand-in queues their notifications on
 *    the socket); then, the thread free, how fast the source takes them: parsed, checked,
 *    stale-guarded, appended to pool-updates (an in-memory log); the stand-in's sending shares it;
 *  - notification to projection: from the chain's first write of a slot (the stand-in sends its
 *    notifications; the simulated market computing the slot's swaps before that is not counted)
 *    until a router projection fed by the log has applied every write of it;
 *    the log hop itself is in memory here (the embedded and Kafka logs' latency: the `log` suite).
 */
import { Projection } from '@app/pools';
import { RpcSource } from '../apps/ingestor/src/rpc/rpc-source';
import { INGEST_PROGRAMS } from '@app/config';
import { decodePoolUpdate } from '@app/contracts';
import type { LogMessage, LogPort } from '@app/log';
import { MarketChain } from '../test/support/chain-stand-in/market-chain';
import { RpcStandIn } from '../test/support/chain-stand-in/rpc-stand-in';
import { fmtMs, fmtRate, summarize, verdict, type BenchSection } from './harness';

const quiet = { log: (): void => undefined, warn: (): void => undefined, error: (): void => undefined };

/** an in-memory log; pool-updates also go to `onPoolUpdates` as they are appended */
function memoryLog(onPoolUpdates: (m: LogMessage[]) => void): LogPort {
  return {
    ensureTopic: async () => undefined,
    append: async (topic: string, messages: LogMessage[]) => {
      if (topic === 'pool-updates') onPoolUpdates(messages);
      return [];
    },
  } as unknown as LogPort;
}

/** a record's slot, read off the front of its canonical encoding (the bookkeeping costs no second decode of the record) */
function slotOf(value: Buffer): number {
  const m = /^\{"v":\d+,"slot":(\d+),/.exec(value.toString('latin1', 0, 48));
  return m ? Number(m[1]) : decodePoolUpdate(value).slot;
}

async function source(node: RpcStandIn, log: LogPort): Promise<RpcSource> {
  const s = new RpcSource(
    { rpcUrls: [node.url], rpcWsUrls: [node.wsUrl], rpcKey: null, rpcPollMs: 0, ingestPrograms: [...INGEST_PROGRAMS], ingestMints: null, ingestPools: null },
    log,
    quiet,
  );
  await s.start();
  while (!s.stats().live.live) await new Promise((r) => setTimeout(r, 20));
  await s.live.idle();
  return s;
}

const BOOT_POOLS = 10_000;

async function bootstrapMarket(): Promise<BenchSection> {
  const chain = new MarketChain({ seed: 11, pools: BOOT_POOLS, tokens: BOOT_POOLS / 5, swapsPerSlot: 0 });
  const node = await RpcStandIn.start(chain);
  let records = 0;
  const t0 = Date.now();
  const s = new RpcSource(
    { rpcUrls: [node.url], rpcWsUrls: [node.wsUrl], rpcKey: null, rpcPollMs: 0, ingestPrograms: [...INGEST_PROGRAMS], ingestMints: null, ingestPools: null },
    memoryLog((m) => (records += m.length)),
    quiet,
  );
  await s.start();
  const ms = Date.now() - t0;
  const st = s.stats();
  await s.stop();
  await node.close();
  const by = st.rpc.byMethod;
  return {
    title: `RPC ingest: bootstrap of a ${BOOT_POOLS.toLocaleString('en-US')}-pool market`,
    description:
      'INGEST_SOURCE=rpc, every program, no scope, against the RPC stand-in serving a simulated market of that many pools (all six programs) on 127.0.0.1; ' +
      'from start to the snapshot in the log (node check, subscriptions, getProgramAccounts, dependencies until none is missing).',
    rows: [
      { metric: 'bootstrap time', value: fmtMs(ms) },
      { metric: 'requests', value: String(st.bootstrap.requests), notes: Object.entries(by).map(([k, v]) => `${k} ${v}`).join(', ') },
      { metric: 'pools / accounts written', value: `${st.bootstrap.pools} / ${records}` },
    ],
  };
}

async function steady(): Promise<BenchSection[]> {
  const chain = new MarketChain({ seed: 12, pools: 1_000, tokens: 200, swapsPerSlot: 400 });
  const node = await RpcStandIn.start(chain);
  const router = new Projection();
  let offset = 0;
  /** slot -> when the chain wrote it; latency samples once the router applied all of it */
  const written = new Map<number, { at: bigint; left: number }>();
  const latencies: number[] = [];
  let appended = 0;
  const log = memoryLog((messages) => {
    for (const m of messages) router.apply({ partition: 0, offset: offset++, value: m.value });
    router.drainChanged();
    appended += messages.length;
    const now = process.hrtime.bigint();
    for (const m of messages) {
      const slot = slotOf(m.value);
      const w = written.get(slot);
      if (w && --w.left === 0) {
        latencies.push(Number(now - w.at) / 1e6);
        written.delete(slot);
      }
    }
  });
  const s = await source(node, log);

  // steady ingest: 20 slots written at once, then the time the source takes to append them
  const before = appended;
  let notified = 0;
  for (let i = 0; i < 20; i++) notified += chain.step().length;
  const t0 = process.hrtime.bigint();
  while (s.live.stats().ingestedSlot < chain.slot || appended - before < notified) await new Promise((r) => setTimeout(r, 2));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const taken = appended - before;
  const rate = taken / seconds;

  // latency: one slot every 400 ms (mainnet's slot time) at the same market
  latencies.length = 0;
  let at = 0n;
  const stamp = (): void => {
    at = process.hrtime.bigint();
  };
  for (let i = 0; i < 40; i++) {
    // before the stand-in's listener: the clock starts as the first notification of the slot is sent
    chain.prependOnceListener('account', stamp);
    const ups = chain.step();
    const changed = new Set(ups.map((u) => u.address)).size;
    written.set(chain.slot, { at, left: changed });
    await new Promise((r) => setTimeout(r, 400));
  }
  await s.live.idle();
  await new Promise((r) => setTimeout(r, 200));
  await s.stop();
  await node.close();
  const l = summarize(latencies);
  return [
    {
      title: 'RPC ingest: steady account updates into pool-updates',
      description:
        'The stand-in chain (1,000 pools, 400 swaps a slot) writes 20 slots at once; every account write reaches the rpc source as an ' +
        'accountNotification (base64, JSON over the WebSocket), is checked, stale-guarded and appended to pool-updates (in memory); timed from the ' +
        'last write to the last append. One process: the stand-in sending the queued notifications shares the core.',
      rows: [
        { metric: 'account updates appended per second', value: fmtRate(rate, 'updates'), target: '>= 5,000 updates/s', verdict: verdict(rate >= 5000), notes: `${taken} appended of ${notified} written by the chain, in ${seconds.toFixed(2)} s` },
      ],
    },
    {
      title: 'RPC ingest: notification to projection applied',
      description:
        'One slot every 400 ms (about 600 account writes a slot, 1,500 a second: mainnet DEX accounts write 300 to 3,000 a second); from the chain’s first write of the slot (the stand-in sends its notifications; the simulated market computing the slot beforehand is not counted) until a router ' +
        'Projection fed by the appended records has applied every write of the slot. The log hop is in memory.',
      rows: [
        { metric: 'p50 / p99 / max', value: `${fmtMs(l.p50)} / ${fmtMs(l.p99)} / ${fmtMs(l.max)}`, target: 'p99 <= 50 ms', verdict: verdict(l.p99 <= 50), notes: `${l.n} slots` },
      ],
    },
  ];
}

export async function bench(): Promise<BenchSection[]> {
  return [await bootstrapMarket(), ...(await steady())];
}
