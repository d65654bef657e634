/**
 * The gate as an Express (connect) middleware, registered before any route: /health and the
 * docs pass, every other request is admitted (with its X-RateLimit-* headers) or answered with
 * the gate's refusal (401, 403, 429 with Retry-After, 503), as the JSON envelope.
 */
import type { IncomingMessage, ServerResponse } from 'http';
import { metrics } from '@app/observability';
import { setRequestKeyId } from '@app/observability';
import type { AccessGate } from './access-gate';

export function gateMiddleware(gate: AccessGate): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void {
  return (req, res, next) => {
    if (gate.isOpen(req)) return next();
    gate.admit(req, 'rest').then((a) => {
      for (const [k, v] of Object.entries(a.headers)) res.setHeader(k, v);
      if (a.ok) {
        // the access log line (and later lines of the request) name the key by its id
        if (a.keyId !== null) setRequestKeyId(req, a.keyId);
        return next();
      }
      if (a.status === 429) metrics.rateLimited('rest');
      res.statusCode = a.status;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(a.body);
    }, next);
  };
}
