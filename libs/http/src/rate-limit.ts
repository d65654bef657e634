/**
 * The request rate limit of API.md §8 at the HTTP edge: REST requests under /api/v1 and the
 * stream's upgrade request count against the same per-client windows (one limiter per process,
 * shared by the REST API and the WebSocket stream when they are served together); a refused
 * request gets 429 `{success:false, error:"rate limit exceeded"}` with `Retry-After`. /health and
 * the OpenAPI docs are not limited. A client is its remote address.
 */
import type { IncomingMessage, ServerResponse } from 'http';
import type { AppConfig } from '../../config/src/config';
import { RateLimiter, type RateDecision, type RateWindow } from './rate-limiter';
import { metrics } from '../../observability/src/metrics';

export const RATE_LIMITED = 'rate limit exceeded';
export const RATE_LIMITED_BODY = JSON.stringify({ success: false, error: RATE_LIMITED });

/** the windows the configuration asks for (a 0 setting adds none) */
export function rateWindows(config: Pick<AppConfig, 'rateLimitPerMinute' | 'rateLimitPerSecond'>): RateWindow[] {
  const windows: RateWindow[] = [];
  if (config.rateLimitPerMinute > 0) windows.push({ max: config.rateLimitPerMinute, windowMs: 60_000 });
  if (config.rateLimitPerSecond > 0) windows.push({ max: config.rateLimitPerSecond, windowMs: 1_000 });
  return windows;
}

const limiters = new WeakMap<AppConfig, RateLimiter>();

/** the process's limiter for this configuration: the same one for every caller holding it */
export function rateLimiterFor(config: AppConfig): RateLimiter {
  let l = limiters.get(config);
  if (l === undefined) limiters.set(config, (l = new RateLimiter(rateWindows(config))));
  return l;
}

/** the requests the limit applies to: the API under /api/v1 (REST and the stream's upgrade), not /api/docs or /health */
export function isLimitedPath(url: string | undefined): boolean {
  if (url === undefined) return false;
  return url === '/api/v1' || url.startsWith('/api/v1/') || url.startsWith('/api/v1?');
}

export function clientOf(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/** `Retry-After` in whole seconds (at least 1) */
export function retryAfterSeconds(d: RateDecision): string {
  return String(Math.max(1, Math.ceil(d.retryAfterMs / 1000)));
}

/** an Express (connect) middleware: 429 for a request over the limit, next() otherwise */
export function rateLimitMiddleware(limiter: RateLimiter): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  return (req, res, next) => {
    if (limiter.unlimited || !isLimitedPath(req.url)) return next();
    const d = limiter.take(clientOf(req));
    if (d.allowed) return next();
    metrics.rateLimited('rest');
    res.statusCode = 429;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Retry-After', retryAfterSeconds(d));
    res.end(RATE_LIMITED_BODY);
  };
}
