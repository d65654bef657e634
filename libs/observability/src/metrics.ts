/**
 * The process's Prometheus metrics (prom-client): one registry per process with Node's default
 * metrics (CPU, memory, event-loop delay, GC pauses by kind) and the service's own, named and
 * labelled in Prometheus's conventions (base units, `_total` counters, bounded label sets: a
 * route pattern, a status, a topic, a source; never a mint, an address or a key). Each area of
 * the code records through the small functions below, one line at its own point.
 */
import { isMainThread } from 'node:worker_threads';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
// the process's defaults once, from its main thread (a quote worker importing this reports nothing: no one scrapes it)
if (isMainThread) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10, gcDurationBuckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1] });

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const httpRequests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by method, route pattern and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
const httpDuration = new Histogram({ name: 'http_request_duration_seconds', help: 'time from a request received to its answer sent, by method, route pattern and status', labelNames: ['method', 'route', 'status'], buckets: LATENCY_BUCKETS, registers: [registry] });
const quoteDuration = new Histogram({ name: 'quote_duration_seconds', help: 'time to compute a quote (route search and exact amounts; each route /swap and /instructions try), by endpoint and outcome (error: no route, no pool, insufficient liquidity)', labelNames: ['endpoint', 'outcome'], buckets: LATENCY_BUCKETS, registers: [registry] });
const logAppend = new Histogram({ name: 'log_append_duration_seconds', help: 'time for an append to the log to be acknowledged, by driver and topic', labelNames: ['driver', 'topic'], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1], registers: [registry] });
const ingestRecords = new Counter({ name: 'ingest_records_total', help: 'account writes the ingestor appended to pool-updates, by source', labelNames: ['source'], registers: [registry] });
const ingestSlot = new Gauge({ name: 'ingest_slot', help: 'newest slot the ingestor has appended, by source', labelNames: ['source'], registers: [registry] });
const ingestLag = new Gauge({ name: 'ingest_lag_slots', help: "slots between the chain's newest slot and the newest ingested, by source (0 for the simulated market and a recording)", labelNames: ['source'], registers: [registry] });
const rateLimited = new Counter({ name: 'rate_limit_refusals_total', help: 'requests refused by the rate limit (429), by surface: rest or stream (upgrade)', labelNames: ['surface'], registers: [registry] });
const streamPushes = new Counter({ name: 'stream_pushes_total', help: 'quote messages pushed to stream connections', registers: [registry] });
const streamDrops = new Counter({ name: 'stream_drops_total', help: 'stream connections dropped as slow readers', registers: [registry] });
const streamPushLatency = new Histogram({ name: 'stream_push_latency_seconds', help: "time from a quote's quotes-changed append (the router's) to its delivery to the connections holding its tuple", buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5], registers: [registry] });

/** the projection's distance from the end of pool-updates */
export interface ProjectionLag {
  /** records written to the log not yet applied */
  records: number;
  /** newest slot in the log minus the projection's slot (0 when caught up) */
  slots: number;
  /** the projection's slot */
  slot: number;
}

type Source<T> = (() => T | Promise<T>) | null;
let projectionSource: Source<ProjectionLag> = null;
let streamSource: Source<{ connections: number; subscriptions: number }> = null;

/** read at each scrape; a failed read leaves the gauges out of that scrape */
function gauge<T>(name: string, help: string, read: () => Source<T>, pick: (v: T) => number): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      const source = read();
      if (source === null) return;
      try {
        this.set(pick(await source()));
      } catch {
        this.reset();
      }
    },
  });
}
gauge('projection_lag_records', 'pool-updates records not yet applied to the projection', () => projectionSource, (l) => l.records);
gauge('projection_lag_slots', "slots between the log's newest record and the projection", () => projectionSource, (l) => l.slots);
gauge('projection_slot', 'newest slot of the state the projection holds', () => projectionSource, (l) => l.slot);
gauge('stream_connections', 'open stream (WebSocket) connections', () => streamSource, (s) => s.connections);
gauge('stream_subscriptions', 'subscriptions held by open stream connections', () => streamSource, (s) => s.subscriptions);

export const metrics = {
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, seconds);
  },
  /** run a quote's computation (route search and exact amounts), observing its duration and outcome */
  timeQuote<T>(endpoint: 'quote' | 'swap' | 'instructions', compute: () => T): T {
    const started = process.hrtime.bigint();
    let outcome: 'ok' | 'error' = 'error';
    try {
      const result = compute();
      outcome = 'ok';
      return result;
    } finally {
      quoteDuration.observe({ endpoint, outcome }, secondsSince(started));
    }
  },
  logAppend(driver: string, topic: string, seconds: number): void {
    logAppend.observe({ driver, topic }, seconds);
  },
  ingested(source: string, records: number, slot: number): void {
    ingestRecords.inc({ source }, records);
    ingestSlot.set({ source }, slot);
  },
  ingestLag(source: string, slots: number): void {
    ingestLag.set({ source }, slots);
  },
  rateLimited(surface: 'rest' | 'stream'): void {
    rateLimited.inc({ surface });
  },
  streamPushed(): void {
    streamPushes.inc();
  },
  /** a quote of a held tuple handed to its connections, `seconds` after the router appended it */
  streamQuoteDelivered(seconds: number): void {
    streamPushLatency.observe(Math.max(0, seconds));
  },
  streamDropped(): void {
    streamDrops.inc();
  },
  /** the projection whose lag the gauges report (the router's); returns the call that stops it */
  projectionLagFrom(source: () => ProjectionLag | Promise<ProjectionLag>): () => void {
    projectionSource = source;
    return () => {
      if (projectionSource === source) projectionSource = null;
    };
  },
  /** the stream hub whose connections the gauges report; returns the call that stops it */
  streamStatsFrom(source: () => { connections: number; subscriptions: number }): () => void {
    streamSource = source;
    return () => {
      if (streamSource === source) streamSource = null;
    };
  },
};

/** seconds elapsed since a `process.hrtime.bigint()` reading */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}
