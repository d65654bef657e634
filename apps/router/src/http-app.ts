import type { INestApplication } from '@nestjs/common';
import { compressLargeAnswers, corsOptions, jsonBodyParser } from '@app/http';
import { configureServerEdge } from '@app/http';
import { AccessService } from '@app/auth';
import { gateMiddleware } from '@app/auth';
import { ApiExceptionFilter } from './http/api-error';
import { setupOpenApi } from './openapi';

export { createApiValidationPipe } from './http/api-error';

/**
 * The HTTP setup every app serving the router's controllers applies (the router alone and the
 * all-in-one): the server edge (configureServerEdge), CORS with preflights answered (before the rate limit: a
 * preflight is not a call), compression of large answers, the access gate (API keys and
 * rate limits, before any route), the JSON body parser with its nesting limit, the envelope exception filter
 * for every HTTP error, and the OpenAPI document.
 * Validation: each API controller binds its pipe (`createApiValidationPipe`) on its parameters,
 * so the quote DTO is validated the same way whether or not this is called; no global pipe is
 * installed (it would also reach the WebSocket gateway of the all-in-one).
 */
export function configureHttpApp(app: INestApplication): void {
  const config = configureServerEdge(app);
  app.enableCors(corsOptions(config));
  app.use(compressLargeAnswers());
  app.use(gateMiddleware(app.get(AccessService, { strict: false }).gate));
  app.use(jsonBodyParser());
  app.useGlobalFilters(new ApiExceptionFilter());
  setupOpenApi(app);
}
