import type { INestApplication } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { IncomingMessage } from 'http';
import { APP_CONFIG } from '../../../libs/config/src/config.module';
import type { AppConfig } from '../../../libs/config/src/config';
import { clientOf, RATE_LIMITED_BODY, rateLimiterFor, retryAfterSeconds } from '../../../libs/http/src/rate-limit';
import type { RateLimiter } from '../../../libs/http/src/rate-limiter';
import { parseFrame, type RawFrame } from './protocol';
import { metrics } from '../../../libs/observability/src/metrics';

/** the code of the ws library's error for a message over the server's maxPayload (it then closes with 1009) */
const MESSAGE_TOO_BIG = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';

interface EventSource {
  on(event: string, listener: (arg: unknown) => void): unknown;
}

type VerifyClient = (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void) => void;

/**
 * The ws adapter with the stream's frame parser (raw `{op, pairs}` frames, no {event, data}
 * wrapper). The upgrade request counts against the API's rate limit (API.md §8: the upgrade
 * only; the process's limiter, shared with the REST API when both are served): over it, the
 * upgrade is refused with 429, `Retry-After` and the JSON envelope. A client frame over
 * maxPayload is the client's doing and is answered on the wire (close 1009 by the ws library):
 * it is not logged as a server error. Every other socket or server error is logged as before.
 */
export class StreamWsAdapter extends WsAdapter {
  constructor(
    app: INestApplication,
    private readonly limiter: RateLimiter,
  ) {
    super(app, { messageParser: (data: RawFrame) => parseFrame(data) });
  }

  override create(port: number, options: Record<string, unknown> & { path?: string }): unknown {
    if (this.limiter.unlimited) return super.create(port, options);
    const verifyClient: VerifyClient = ({ req }, done) => {
      const d = this.limiter.take(clientOf(req));
      if (d.allowed) return done(true);
      metrics.rateLimited('stream');
      done(false, 429, RATE_LIMITED_BODY, { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': retryAfterSeconds(d) });
    };
    return super.create(port, { ...options, verifyClient });
  }

  override bindErrorHandler(server: EventSource): EventSource {
    server.on('connection', (socket) =>
      (socket as EventSource).on('error', (err) => {
        if ((err as { code?: unknown }).code !== MESSAGE_TOO_BIG) this.logger.error(err);
      }),
    );
    server.on('error', (err) => this.logger.error(err));
    return server;
  }
}

export function useStreamWsAdapter(app: INestApplication): void {
  app.useWebSocketAdapter(new StreamWsAdapter(app, rateLimiterFor(app.get<AppConfig>(APP_CONFIG, { strict: false }))));
}
