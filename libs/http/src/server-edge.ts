import type { INestApplication } from '@nestjs/common';
import type { Server } from 'http';
import { APP_CONFIG } from '@app/config';
import type { AppConfig } from '@app/config';
import { accessLog } from '@app/observability';
import { answerClientErrors } from './client-error';
import { applyServerLimits, requireHost, securityHeaders } from './edge';

/**
 * The HTTP edge of any served app (the router, the stream app, the all-in-one), before its
 * routes, in this order: the request's context, access-log line and metrics (GET /metrics
 * answered here, before any limit), security headers and no X-Powered-By, HTTP/1.1 requests without Host
 * refused with the envelope, the server's timeouts and connection cap, and requests Node rejects
 * before any route (headers too large, a malformed request, a request timeout) answered with the
 * envelope too.
 */
export function configureServerEdge(app: INestApplication): AppConfig {
  const config = app.get<AppConfig>(APP_CONFIG, { strict: false });
  const express = app.getHttpAdapter().getInstance() as { disable(setting: string): void };
  express.disable('x-powered-by');
  app.use(accessLog);
  app.use(securityHeaders());
  app.use(requireHost);
  const server = app.getHttpServer() as Server | undefined;
  if (server) {
    applyServerLimits(server, config);
    answerClientErrors(server);
  }
  return config;
}
