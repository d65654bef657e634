import type { INestApplication } from '@nestjs/common';
import type { Server } from 'http';
import { APP_CONFIG } from '../../../libs/config/src/config.module';
import type { AppConfig } from '../../../libs/config/src/config';
import { answerClientErrors } from '../../../libs/http/src/client-error';
import { applyServerLimits, compressLargeAnswers, corsOptions, jsonBodyParser, requireHost, securityHeaders } from '../../../libs/http/src/edge';
import { rateLimiterFor, rateLimitMiddleware } from '../../../libs/http/src/rate-limit';
import { ApiExceptionFilter } from './http/api-error';
import { setupOpenApi } from './openapi';

export { createApiValidationPipe } from './http/api-error';

/**
 * The HTTP edge of any served app (the router, the stream app, the all-in-one), before its
 * routes, in this order: security headers and no X-Powered-By, HTTP/1.1 requests without Host
 * refused with the envelope, the server's timeouts and connection cap, and requests Node rejects
 * before any route (headers too large, a malformed request, a request timeout) answered with the
 * envelope too.
 */
export function configureServerEdge(app: INestApplication): AppConfig {
  const config = app.get<AppConfig>(APP_CONFIG, { strict: false });
  const express = app.getHttpAdapter().getInstance() as { disable(setting: string): void };
  express.disable('x-powered-by');
  app.use(securityHeaders());
  app.use(requireHost);
  const server = app.getHttpServer() as Server | undefined;
  if (server) {
    applyServerLimits(server, config);
    answerClientErrors(server);
  }
  return config;
}

/**
 * The HTTP setup every app serving the router's controllers applies (the router alone and the
 * all-in-one): the server edge (above), CORS with preflights answered (before the rate limit: a
 * preflight is not a call), compression of large answers, the request rate limit of /api/v1
 * (before any route), the JSON body parser with its nesting limit, the envelope exception filter
 * for every HTTP error, and the OpenAPI document.
 * Validation: each API controller binds its pipe (`createApiValidationPipe`) on its parameters,
 * so the quote DTO is validated the same way whether or not this is called; no global pipe is
 * installed (it would also reach the WebSocket gateway of the all-in-one).
 */
export function configureHttpApp(app: INestApplication): void {
  const config = configureServerEdge(app);
  app.enableCors(corsOptions(config));
  app.use(compressLargeAnswers());
  app.use(rateLimitMiddleware(rateLimiterFor(config)));
  app.use(jsonBodyParser());
  app.useGlobalFilters(new ApiExceptionFilter());
  setupOpenApi(app);
}
