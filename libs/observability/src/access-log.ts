/**
 * The first middleware of every served app: opens the request's context (X-Request-Id taken or
 * made, and echoed), serves GET /metrics, and when the answer is done writes one access-log line
 * (method, route pattern, path, status, duration, key id when keys are on) and records the
 * request in the HTTP metrics. The query string is never logged (the stream's `?key=` holds a key).
 * A WebSocket upgrade, which no middleware sees, gets the same line and metric from the stream's
 * adapter (upgradeAccess), with status 101 when it is accepted.
 */
import type { IncomingMessage, ServerResponse } from 'http';
import { logger } from './logger';
import { registry, metrics, secondsSince } from './metrics';
import { requestContextOf, requestIdFor, runInRequestContext } from './request-context';

export const METRICS_PATH = '/metrics';

type Req = IncomingMessage & { route?: { path?: unknown }; baseUrl?: string; originalUrl?: string };

function pathOf(req: Req): string {
  const url = req.originalUrl ?? req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** the route pattern that answered (a bounded label), `/metrics`, or `unmatched` */
export function routeOf(req: Req, path: string): string {
  const pattern = req.route?.path;
  if (typeof pattern === 'string') return (req.baseUrl ?? '') + pattern;
  return path === METRICS_PATH ? METRICS_PATH : 'unmatched';
}

export async function serveMetrics(res: ServerResponse): Promise<void> {
  const text = await registry.metrics();
  res.statusCode = 200;
  res.setHeader('Content-Type', registry.contentType);
  res.end(text);
}

export function accessLog(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const start = process.hrtime.bigint();
  const id = requestIdFor(req.headers['x-request-id']);
  res.setHeader('X-Request-Id', id);
  const done = (): void => {
    res.removeListener('finish', done);
    res.removeListener('close', done);
    const r = req as Req;
    const path = pathOf(r);
    const route = routeOf(r, path);
    const seconds = secondsSince(start);
    const status = res.writableFinished ? res.statusCode : 499;
    metrics.httpRequest(req.method ?? 'GET', route, status, seconds);
    const keyId = requestContextOf(req)?.keyId;
    logger().info({ reqId: id, method: req.method, route, path, status, durationMs: Math.round(seconds * 1e4) / 10, ...(keyId === undefined ? {} : { keyId }) }, 'request');
  };
  res.once('finish', done);
  res.once('close', done);
  runInRequestContext(req, id, () => {
    if (req.method === 'GET' && pathOf(req as Req) === METRICS_PATH) {
      serveMetrics(res).catch(() => {
        res.statusCode = 500;
        res.end();
      });
      return;
    }
    next();
  });
}

/**
 * A WebSocket upgrade request's context, opened as accessLog opens a request's: its id (taken
 * or made; the adapter echoes it in the handshake) and `finish(status)`, which writes the
 * upgrade's one access-log line (route: the path, a fixed endpoint) and records its metric.
 */
export function upgradeAccess(req: IncomingMessage): { id: string; finish: (status: number) => void } {
  const start = process.hrtime.bigint();
  const id = requestIdFor(req.headers['x-request-id']);
  runInRequestContext(req, id, () => undefined);
  let done = false;
  return {
    id,
    finish: (status) => {
      if (done) return;
      done = true;
      const path = pathOf(req as Req);
      const seconds = secondsSince(start);
      metrics.httpRequest('GET', path, status, seconds);
      const keyId = requestContextOf(req)?.keyId;
      logger().info({ reqId: id, method: req.method, route: path, path, status, durationMs: Math.round(seconds * 1e4) / 10, ...(keyId === undefined ? {} : { keyId }) }, 'request');
    },
  };
}
