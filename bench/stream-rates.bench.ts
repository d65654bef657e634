/**
 * How the live stream's latency grows with the pool update rate: the all-in-one deployment with
 * a quote worker, exactly as bench/stream.bench.ts runs it (10,000 subscriptions on 100 real
 * WebSocket connections, the load in another process), at several rates of pool updates, a few
 * runs each (one run's tail moves a lot on a small machine). It shows up to what rate the p99
 * target holds there, and which pushes hold it up where it does not: the replays of the debounce
 * windows, or the route switches of the checks that run after them.
 */
import { fmtMs, fmtPct, summarize, verdict, type BenchSection } from './harness';
import { run, type StreamFigures } from './stream.bench';

/** pool updates per second (the stream suite's own rate is the last) */
const RATES = [250, 500, 1000];
/** runs per rate, interleaved (every rate once, then again): a drift of the machine's speed spreads over all */
const RUNS = 3;

const median = (l: number[]): number => summarize(l).p50;
/** whole percent (a function of one argument for map: fmtPct's second is its digits, not map's index) */
const pct = (x: number): string => fmtPct(x);
const list = (l: number[], f: (x: number) => string): string => l.map(f).join(', ');
const ms = (x: number): string => (Number.isNaN(x) ? '–' : `${Math.round(x)}`);

export async function bench(): Promise<BenchSection[]> {
  const runs = new Map<number, StreamFigures[]>(RATES.map((r) => [r, []]));
  for (let i = 0; i < RUNS; i++) for (const rate of RATES) runs.get(rate)!.push((await run('all-in-one', rate)).figures);
  const rows: BenchSection['rows'] = RATES.map((rate) => {
    const f = runs.get(rate)!;
    const p99 = median(f.map((x) => x.p99));
    return {
      metric: `${rate.toLocaleString('en-US')} pool updates/s: pool change → receipt p99, median of ${RUNS} runs`,
      value: fmtMs(p99),
      target: '≤ 150 ms',
      verdict: verdict(p99 <= 150),
      notes:
        `per run (ms): p50 ${list(f.map((x) => x.p50), ms)}; p99 ${list(f.map((x) => x.p99), ms)}; pushes over 150 ms ${list(f.map((x) => x.late), (x) => fmtPct(x, 1))}. ` +
        `Replays p99 ${list(f.map((x) => x.replays.p99), ms)}; route switches p50 ${list(f.map((x) => x.switches.p50), ms)}, p99 ${list(f.map((x) => x.switches.p99), ms)} ` +
        `(${Math.round(median(f.map((x) => x.switches.perSecond))).toLocaleString('en-US')}/s of ${Math.round(median(f.map((x) => x.pushesPerSecond))).toLocaleString('en-US')} pushes/s). ` +
        `Debounce windows ${median(f.map((x) => x.windowsPerSecond)).toFixed(1)}/s, replays per window p50 ${median(f.map((x) => x.replaysPerWindow.p50)).toLocaleString('en-US')}, max ${list(f.map((x) => x.replaysPerWindow.max), (x) => x.toLocaleString('en-US'))}. ` +
        `Busy: quote worker ${list(f.map((x) => x.workersBusy[0] ?? NaN), pct)}; main thread ${list(f.map((x) => x.mainBusy), pct)}` +
        `${f.some((x) => x.machine === null) ? '' : `; the machine ${list(f.map((x) => x.machine!.busy), pct)} (stolen ${list(f.map((x) => x.machine!.steal), pct)})`}`,
    };
  });
  return [
    {
      title: 'Live stream by pool update rate',
      description:
        '`bench/stream-rates.bench.ts`: the `Live stream (all-in-one)` run (one quote worker; 10,000 subscriptions on 100 connections; latency measured the same way, after the same warm-up) ' +
        `at ${RATES.map((r) => r.toLocaleString('en-US')).join(', ')} pool updates/s, ${RUNS} runs each, interleaved. ` +
        'A route switch is pushed by the check that runs after its window\'s replays, between windows: a window in which a pool on thousands of subscribed routes changed is followed by as many checks, and its switches wait for them, whatever the rate.',
      rows,
    },
  ];
}
