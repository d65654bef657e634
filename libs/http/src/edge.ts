/**
 * The HTTP edge every served app applies before its routes: security headers (helmet, no
 * X-Powered-By), CORS with preflights answered, compression of large answers (brotli or gzip),
 * HTTP/1.1 requests without a Host header refused with the envelope, the JSON body parser with a
 * nesting limit, and the server's timeouts and connection cap set from the configuration.
 */
import type { Server } from 'http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as express from 'express';
import compression from 'compression';
import helmet from 'helmet';
import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import type { AppConfig } from '@app/config';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth';

/** the largest JSON body accepted (body-parser's default, kept on purpose: the API's bodies are a few hundred bytes) */
export const JSON_BODY_LIMIT = '100kb';
/** answers smaller than this are sent uncompressed (compressing them costs more than it saves) */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** the error text of a body nested beyond MAX_JSON_DEPTH */
export const TOO_DEEP = `JSON body nested deeper than ${MAX_JSON_DEPTH} levels`;
export const MISSING_HOST = 'missing Host header';

/** helmet's headers for a JSON API (answers may be read cross-origin: CORS decides who may) */
export function securityHeaders(): RequestHandler {
  return helmet({ crossOriginResourcePolicy: { policy: 'cross-origin' } }) as RequestHandler;
}

/** CORS for the public API: CORS_ORIGINS (any origin by default); the headers a client reads are exposed */
export function corsOptions(config: Pick<AppConfig, 'corsOrigins'>): CorsOptions {
  return {
    origin: config.corsOrigins === '*' ? '*' : config.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposedHeaders: ['X-Request-Id', 'X-Quote-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
    maxAge: 600,
    optionsSuccessStatus: 204,
  };
}

export function compressLargeAnswers(): RequestHandler {
  return compression({ threshold: COMPRESSION_THRESHOLD_BYTES }) as unknown as RequestHandler;
}

/** an envelope refusal sent from a middleware */
export function refuse(res: Response, status: number, error: string): void {
  res.status(status).setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify({ success: false, error }));
}

/** HTTP/1.1 requires Host (RFC 9112 §3.2): 400 with the envelope (Node's own check answers a bare 400; it is turned off for this) */
export function requireHost(req: Request, res: Response, next: NextFunction): void {
  if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined) refuse(res, 400, MISSING_HOST);
  else next();
}

/** a client error the exception filter answers with its own text (see ApiExceptionFilter) */
export class EdgeError extends Error {
  readonly expose = true;
  constructor(
    readonly status: number,
    readonly error: string,
  ) {
    super(error);
  }
}

/** express.json with its default limit, refusing a body nested beyond MAX_JSON_DEPTH before it is parsed */
export function jsonBodyParser(): RequestHandler {
  return express.json({
    limit: JSON_BODY_LIMIT,
    verify: (_req, _res, buf) => {
      if (jsonDepthExceeds(buf)) throw new EdgeError(400, TOO_DEEP);
    },
  });
}

/** the server's timeouts and connection cap (the HTTP_* settings of the README) */
export function applyServerLimits(server: Server, config: Pick<AppConfig, 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs' | 'httpKeepAliveTimeoutMs' | 'httpMaxConnections'>): void {
  server.headersTimeout = config.httpHeadersTimeoutMs;
  server.requestTimeout = config.httpRequestTimeoutMs;
  server.keepAliveTimeout = config.httpKeepAliveTimeoutMs;
  if (config.httpMaxConnections > 0) server.maxConnections = config.httpMaxConnections;
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
}
