import type { INestApplication } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { IncomingMessage } from 'http';
import type { AccessGate } from '@app/auth';
import { AccessService } from '@app/auth';
import { parseFrame, type RawFrame } from './protocol';
import { metrics, upgradeAccess } from '@app/observability';

/** the access context of each upgrade request under way (dropped with the request) */
const accesses = new WeakMap<IncomingMessage, ReturnType<typeof upgradeAccess>>();

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
 * with the gate's status (401, 403, 429 with `Retry-After`, 503) and the JSON envelope. Each upgrade,
 * accepted (101) or refused, has its X-Request-Id and one access-log line. A client frame over
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
      const access = upgradeAccess(req);
      accesses.set(req, access);
      const refuse = (status: number, body: string, headers: Record<string, string>): void => {
        access.finish(status);
        done(false, status, body, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': access.id });
      };
      this.gate.admit(req, 'stream').then(
        (a) => {
          if (a.ok) return done(true);
          if (a.status === 429) metrics.rateLimited('stream');
          refuse(a.status, a.body, a.headers);
        },
        (e: Error) => {
          this.logger.error(e);
          refuse(500, JSON.stringify({ success: false, error: 'internal error' }), {});
        },
      );
    };
    const server = super.create(port, { ...options, verifyClient }) as EventSource;
    // an accepted upgrade: its id in the handshake's answer, its access-log line with status 101
    server.on('headers', ((headers: string[], req: IncomingMessage) => {
      const access = accesses.get(req);
      if (access === undefined) return;
      headers.push(`X-Request-Id: ${access.id}`);
      access.finish(101);
    }) as (arg: unknown) => void);
    return server;
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
