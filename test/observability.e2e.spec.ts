/**
 * What an operator watches, over real requests to the all-in-one: /metrics as Prometheus text
 * that moves when requests are served, one JSON access-log line per request with its request id
 * (taken from X-Request-Id or made, and echoed), and /ready with the projection's lag.
 */
import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { SimMarket } from '@app/sim';
import { RouterModule } from '../apps/router/src/router.module';
import { StreamModule } from '../apps/stream/src/stream.module';
import type { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { configureLogging } from '@app/observability/logger';
import { MINTS } from '@app/solana';
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { appendUpdates, closeApp, poolLog, serveOn } from './support/app';

@Module({ imports: [RouterModule, StreamModule] })
class AllInOne {}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format 0.0.4: every line a comment (HELP/TYPE) or a sample of a declared family */
function parsePrometheus(text: string): { samples: Sample[]; types: Map<string, string> } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  // values as Prometheus's parser reads them (Go's ParseFloat: NaN and Inf in any case; prom-client writes an empty summary's mean as `Nan`)
  const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (-?[0-9.e+-]+|nan|[+-]?inf)( -?\d+)?$/i;
  const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const t = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (t) {
      types.set(t[1], t[2]);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) continue;
    const m = sampleLine.exec(line);
    if (!m) throw new Error(`not Prometheus text: ${JSON.stringify(line)}`);
    const family = m[1].replace(/_(bucket|sum|count|total|created)$/, '');
    if (!types.has(m[1]) && !types.has(family) && !types.has(m[1].replace(/_(bucket|sum|count)$/, ''))) throw new Error(`sample of an undeclared family: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(label)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return { samples, types };
}

describe('observability e2e', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  const lines: string[] = [];

  beforeAll(async () => {
    configureLogging({ app: 'all-in-one', level: 'info', format: 'json', destination: { write: (l: string) => void lines.push(l) } });
    ({ dir, log } = await poolLog('observability-e2e-'));
    const market = new SimMarket({ seed: 4, pools: 40, tokens: 12, swapsPerSlot: 2 });
    await appendUpdates(log, market.genesis());
    ({ app, base } = await serveOn(AllInOne, dir, {}, { stream: true }));
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
    configureLogging({ app: 'all-in-one', level: 'silent', format: 'json', destination: { write: () => undefined } });
  });

  const scrape = async (): Promise<{ samples: Sample[]; types: Map<string, string>; contentType: string | null }> => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    return { ...parsePrometheus(await res.text()), contentType: res.headers.get('content-type') };
  };
  const value = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

  it('/metrics is Prometheus text with the service families, and its request counters move with requests served', async () => {
    const before = await scrape();
    expect(before.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const [name, type] of [
      ['http_requests_total', 'counter'],
      ['http_request_duration_seconds', 'histogram'],
      ['quote_duration_seconds', 'histogram'],
      ['projection_lag_records', 'gauge'],
      ['projection_lag_slots', 'gauge'],
      ['log_append_duration_seconds', 'histogram'],
      ['ingest_records_total', 'counter'],
      ['stream_connections', 'gauge'],
      ['stream_subscriptions', 'gauge'],
      ['stream_pushes_total', 'counter'],
      ['stream_drops_total', 'counter'],
      ['stream_push_latency_seconds', 'histogram'],
      ['rate_limit_refusals_total', 'counter'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
      ['nodejs_gc_duration_seconds', 'histogram'],
    ] as const) {
      expect([name, before.types.get(name)]).toEqual([name, type]);
    }
    const tokens = { method: 'GET', route: '/api/v1/tokens', status: '200' };
    const quoteRoute = { method: 'GET', route: '/api/v1/quote' };
    const n0 = value(before.samples, 'http_requests_total', tokens);
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/api/v1/tokens`)).status).toBe(200);
    const q = new URLSearchParams({ inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1000000', swapMode: 'ExactIn' });
    const quoted = await fetch(`${base}/api/v1/quote?${q.toString()}`);
    expect(quoted.status).toBe(200);
    const after = await scrape();
    expect(value(after.samples, 'http_requests_total', tokens)).toBe(n0 + 3);
    expect(value(after.samples, 'http_request_duration_seconds_count', tokens)).toBe(n0 + 3);
    expect(value(after.samples, 'http_requests_total', { ...quoteRoute, status: '200' })).toBe(value(before.samples, 'http_requests_total', { ...quoteRoute, status: '200' }) + 1);
    expect(value(after.samples, 'quote_duration_seconds_count', { endpoint: 'quote', outcome: 'ok' })).toBe(value(before.samples, 'quote_duration_seconds_count', { endpoint: 'quote', outcome: 'ok' }) + 1);
    expect(value(after.samples, 'projection_lag_records')).toBe(0);
    // the pool-updates appends of the set-up were timed
    expect(value(after.samples, 'log_append_duration_seconds_count', { driver: 'embedded', topic: 'pool-updates' })).toBeGreaterThan(0);
    // bounded labels: route patterns, never a mint
    const price = await fetch(`${base}/api/v1/price/${MINTS.SOL}`);
    expect(price.status).toBe(200);
    const labels = (await scrape()).samples.filter((s) => s.name === 'http_requests_total').map((s) => s.labels.route);
    expect(labels).toContain('/api/v1/price/:mint');
    expect(labels.some((r) => r.includes(MINTS.SOL))).toBe(false);
  });

  it('one access-log line per request, with its request id: the client one when sane, else a new one, echoed', async () => {
    const from = lines.length;
    const given = await fetch(`${base}/api/v1/markets`, { headers: { 'x-request-id': 'trace-42.a' } });
    expect(given.headers.get('x-request-id')).toBe('trace-42.a');
    const made = await fetch(`${base}/api/v1/quote?inputMint=nope`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.status).toBe(400);
    const madeId = made.headers.get('x-request-id')!;
    expect(madeId).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((r) => setTimeout(r, 50));
    const written = lines.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = written.filter((l) => l.msg === 'request');
    expect(access).toHaveLength(2);
    expect(access[0]).toMatchObject({ level: 'info', app: 'all-in-one', reqId: 'trace-42.a', method: 'GET', route: '/api/v1/markets', path: '/api/v1/markets', status: 200 });
    expect(access[1]).toMatchObject({ level: 'info', reqId: madeId, method: 'GET', route: '/api/v1/quote', path: '/api/v1/quote', status: 400 });
    for (const a of access) {
      expect(typeof a.durationMs).toBe('number');
      expect(Date.parse(a.time as string)).toBeGreaterThan(0);
    }
  });

  it('a WebSocket upgrade has its request id in the handshake and one access-log line: 101 accepted', async () => {
    const from = lines.length;
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/stream`, { headers: { 'x-request-id': 'ws-trace-7' } });
    const upgraded = new Promise<IncomingMessage>((resolve, reject) => {
      ws.once('upgrade', resolve);
      ws.once('error', reject);
    });
    const opened = new Promise((r) => ws.once('open', r));
    expect((await upgraded).headers['x-request-id']).toBe('ws-trace-7');
    await opened;
    ws.close();
    await new Promise((r) => setTimeout(r, 50));
    const access = lines
      .slice(from)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request');
    expect(access).toEqual([expect.objectContaining({ reqId: 'ws-trace-7', method: 'GET', route: '/api/v1/stream', path: '/api/v1/stream', status: 101, durationMs: expect.any(Number) })]);
  });

  it('/ready: 200 with the projection caught up, reporting its lag and the newest record age', async () => {
    const res = await fetch(`${base}/ready`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; projection: Record<string, number>; ingest: { newestRecordAgeSeconds: number } };
    expect(body.status).toBe('ready');
    expect(body.projection).toMatchObject({ lagRecords: 0, lagSlots: 0 });
    expect(body.projection.slot).toBe(body.projection.logSlot);
    expect(body.ingest.newestRecordAgeSeconds).toBeGreaterThanOrEqual(0);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});
