import type { INestApplication } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { IncomingMessage } from 'http';
import type { AccessGate } from '@app/auth';
import { AccessService } from '@app/auth';
import { parseFrame, type RawFrame } from './protocol';
import { metrics } from '@app/observability';

/** the code of the ws library's error for a message over the server's maxPayload (it then closes with 1009) */
const MESSAGE_TOO_BIG = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';

interface EventSource {
  on(event: string, listener: (arg: unknown) => void): unknown;
}

type VerifyClient = (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void) => void;

/**
 * The ws adapter with the stream's frame parser (raw `{op, pairs}` frames, no {event, data}
 * wrapper). The upgrade request passes the access gate (API.md §5, §8: the key check, and the
 * rate limit on the upgrade only, shared with the REST API): refused, the upgrade is answered
 * with the gate's status (401, 403, 429 with `Retry-After`, 503) and the JSON envelope. A client frame over
 * maxPayload is the client's doing and is answered on the wire (close 1009 by the ws library):
 * it is not logged as a server error. Every other socket or server error is logged as before.
 */
export class StreamWsAdapter extends WsAdapter {
  constructor(
    app: INestApplication,
    private readonly gate: AccessGate,
  ) {
    super(app, { messageParser: (data: RawFrame) => parseFrame(data) });
  }

  override create(port: number, options: Record<string, unknown> & { path?: string }): unknown {
    const verifyClient: VerifyClient = ({ req }, done) => {
      this.gate.admit(req, 'stream').then(
        (a) => {
          if (a.ok) return done(true);
          if (a.status === 429) metrics.rateLimited('stream');
          done(false, a.status, a.body, { ...a.headers, 'Content-Type': 'application/json; charset=utf-8' });
        },
        (e: Error) => {
          this.logger.error(e);
          done(false, 500, JSON.stringify({ success: false, error: 'internal error' }), { 'Content-Type': 'application/json; charset=utf-8' });
        },
      );
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
  app.useWebSocketAdapter(new StreamWsAdapter(app, app.get(AccessService, { strict: false }).gate));
}
