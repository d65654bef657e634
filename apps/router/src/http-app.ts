import type { INestApplication } from '@nestjs/common';
import type { Server } from 'http';
import type { Duplex } from 'stream';
import { APP_CONFIG } from '../../../libs/config/src/config.module';
import type { AppConfig } from '../../../libs/config/src/config';
import { rateLimiterFor, rateLimitMiddleware } from '../../../libs/http/src/rate-limit';
import { ApiExceptionFilter } from './http/api-error';
import { setupOpenApi } from './openapi';

export { createApiValidationPipe } from './http/api-error';

/**
 * The HTTP setup every app serving the router's controllers applies (the router alone and the
 * all-in-one): the request rate limit of /api/v1 (before any route), the envelope exception
 * filter for every HTTP error, requests Node rejects before any route (headers too large, a
 * malformed request line) answered with the envelope too, and the OpenAPI document.
 * Validation: each API controller binds its pipe (`createApiValidationPipe`) on its parameters,
 * so the quote DTO is validated the same way whether or not this is called; no global pipe is
 * installed (it would also reach the WebSocket gateway of the all-in-one).
 */
export function configureHttpApp(app: INestApplication): void {
  app.use(rateLimitMiddleware(rateLimiterFor(app.get<AppConfig>(APP_CONFIG, { strict: false }))));
  app.useGlobalFilters(new ApiExceptionFilter());
  const server = app.getHttpServer() as Server | undefined;
  server?.on('clientError', answerClientError);
  setupOpenApi(app);
}

/** a request Node's HTTP parser refused: 431 (headers too large) or 400, as the envelope, then close */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, text, error] = err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large', 'request headers too large'] : [400, 'Bad Request', 'bad request'];
  const body = JSON.stringify({ success: false, error });
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
