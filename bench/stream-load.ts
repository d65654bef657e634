/**
 * The load side of the stream benchmark (bench/stream.bench.ts), run as its own process, as the
 * ingestor and the WebSocket clients would be: it opens the connections, subscribes the pairs,
 * then appends the simulated market's pool updates to the shared embedded data directory at a
 * fixed rate and records, per quote received, the receipt time against the append time of the
 * first record of the quote's slot. Talks to the benchmark over the IPC channel.
 */
import * as http from 'http';
import WebSocket from 'ws';
import { SimMarket, type SimMarketOptions } from '@app/sim/market';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';

export interface LoadJob {
  url: string;
  dataDir: string;
  market: SimMarketOptions;
  /** pairs per connection */
  pairs: object[][];
  updatesPerSecond: number;
  runSeconds: number;
  tickMs: number;
  /** a REST quote (full URL) asked every restEveryMs while the market moves, one at a time */
  restQuote: string;
  restEveryMs: number;
}

export interface LoadResult {
  subscribeSeconds: number;
  answered: number;
  noRoute: number;
  records: number;
  runSeconds: number;
  lagMaxMs: number;
  pushes: number;
  /**
   * append → receipt, ms, one per push whose slot was appended during the run, received while
   * the market moved (up to MOVING_TAIL_MS after the last append: its window's replays)
   */
  latencies: number[];
  /**
   * every quote received during the run and the drain: [pair index (connection × pairs per
   * connection + position), slot, receipt time (ms)], flattened; the benchmark matches them to
   * the pool changes they answer
   */
  receipts: number[];
  /** REST quote latencies (request sent → response read, ms) while the market moved, and the non-200 answers */
  rest: number[];
  restFailed: number;
}

const send = (m: object): void => void process.send!(m);

/** pushes received up to this long after the last append count as the moving market's (slot-age figure) */
export const MOVING_TAIL_MS = 250;

interface PairFields {
  in: string;
  out: string;
  amount: string;
  exactIn: boolean;
}

/** the same key for a subscribed pair and a quote message about it */
export function pairKey(p: PairFields): string {
  return `${p.in}:${p.out}:${p.amount}:${p.exactIn ? 'in' : 'out'}`;
}

async function run(job: LoadJob): Promise<LoadResult> {
  // the market's moves, generated up front: the same seed as the genesis the benchmark appended
  const market = new SimMarket(job.market);
  market.genesis();
  const updates: PoolUpdate[] = [];
  while (updates.length < job.updatesPerSecond * job.runSeconds) updates.push(...market.step());
  // encoded up front too: the load's own work during the run takes CPU from the server it measures (one machine)
  const messages = updates.map((u) => ({ key: u.address, value: encodePoolUpdate(u) }));
  const log = new EmbeddedLog({ dataDir: job.dataDir });

  const sockets: WebSocket[] = [];
  for (let c = 0; c < job.pairs.length; c++) {
    const ws = new WebSocket(job.url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    sockets.push(ws);
  }
  const received: Array<{ at: number; slot: number; pair: number }> = [];
  // a received quote's pair, by its tuple fields
  const pairIndex = new Map<string, number>();
  job.pairs.forEach((ps, c) => ps.forEach((pr, j) => pairIndex.set(pairKey(pr as PairFields), c * ps.length + j)));
  let noRoute = 0;
  let acked = 0;
  const onMessage = (m: PairFields & { type: string; slot: number; count: number }, at: number): void => {
    if (m.type === 'quote') received.push({ at, slot: m.slot, pair: pairIndex.get(pairKey(m)) ?? -1 });
    else if (m.type === 'subscribed') acked += m.count;
    else if (m.type === 'error' && m.in) noRoute++;
  };
  // while the market moves, frames are kept as they arrive with their receipt time and read after
  // the run (the same figures; less of the load's work on the CPU the server runs on)
  let frames: Array<{ at: number; data: Buffer }> | null = null;
  for (const ws of sockets) {
    ws.on('message', (d: Buffer) => {
      if (frames !== null) frames.push({ at: Date.now(), data: d });
      else onMessage(JSON.parse(d.toString()), Date.now());
    });
  }
  const total = job.pairs.reduce((a, p) => a + p.length, 0);
  const t0 = Date.now();
  sockets.forEach((ws, i) => ws.send(JSON.stringify({ op: 'subscribe', pairs: job.pairs[i] })));
  while ((received.length + noRoute < total || acked < total) && Date.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 20));
  const subscribeSeconds = (Date.now() - t0) / 1000;
  const answered = received.length + noRoute;
  send({ type: 'subscribed' });
  await new Promise<void>((resolve) => process.once('message', () => resolve())); // the benchmark took its memory figure

  const appendedAt = new Map<number, number>();
  received.length = 0;
  frames = [];
  let records = 0;
  let lagMaxMs = 0;
  const perTick = Math.round((job.updatesPerSecond * job.tickMs) / 1000);
  // REST users meanwhile: one quote at a time, every restEveryMs
  const rest: number[] = [];
  let restFailed = 0;
  let moving = true;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const restLoop = (async () => {
    while (moving) {
      const t = performance.now();
      const status = await new Promise<number>((resolve) => {
        http
          .get(job.restQuote, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', () => resolve(0));
      });
      const took = performance.now() - t;
      if (status === 200) rest.push(took);
      else restFailed++;
      await new Promise((r) => setTimeout(r, Math.max(0, job.restEveryMs - took)));
    }
  })();
  const runStart = Date.now();
  for (let tick = 0; records < updates.length; tick++) {
    const wait = runStart + tick * job.tickMs - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    else lagMaxMs = Math.max(lagMaxMs, -wait);
    const now = Date.now();
    const upto = Math.min(updates.length, records + perTick);
    for (let i = records; i < upto; i++) if (!appendedAt.has(updates[i].slot)) appendedAt.set(updates[i].slot, now);
    await log.append(TOPICS.poolUpdates, messages.slice(records, upto));
    records = upto;
  }
  const lastAppendAt = Date.now();
  moving = false;
  await restLoop;
  agent.destroy();
  const runSeconds = (lastAppendAt - runStart) / 1000;
  await new Promise((r) => setTimeout(r, 1000)); // drain
  // the benchmark takes its figures of the router now, while the subscriptions still hold
  send({ type: 'drained' });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const kept = frames;
  frames = null;
  for (const f of kept) onMessage(JSON.parse(f.data.toString()), f.at);
  const pushes = received.length;
  const latencies: number[] = [];
  const receipts: number[] = [];
  for (const r of received) {
    const at = appendedAt.get(r.slot);
    if (at !== undefined && r.at <= lastAppendAt + MOVING_TAIL_MS) latencies.push(r.at - at);
    receipts.push(r.pair, r.slot, r.at);
  }
  for (const ws of sockets) ws.close();
  await log.close();
  return { subscribeSeconds, answered, noRoute, records, runSeconds, lagMaxMs, pushes, latencies, receipts, rest, restFailed };
}

/** the last message: disconnect once it is handed over (a large result takes a while) */
const finish = (m: object): void => void process.send!(m, undefined, {}, () => process.disconnect());

process.once('message', (job: LoadJob) => {
  run(job).then(
    (result) => finish({ type: 'result', result }),
    (e: unknown) => finish({ type: 'error', message: (e as Error).stack ?? String(e) }),
  );
});
