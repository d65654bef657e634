/**
 * The request a piece of work belongs to: its id (taken from `X-Request-Id` when the client sent
 * a sane one, else made) and, when API keys are on, the id of the key it was made with. Carried
 * through the request's asynchronous work (AsyncLocalStorage) so every log line written while
 * serving it names the request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'http';

export interface RequestContext {
  readonly id: string;
  /** the API key's id (never the key), once the key check has accepted it */
  keyId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();
const byRequest = new WeakMap<IncomingMessage, RequestContext>();

/** a client's request id is kept when it is 1–128 characters of letters, digits and `._:-` */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** the client's X-Request-Id when sane, else a new UUID */
export function requestIdFor(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given !== undefined && SANE_ID.test(given) ? given : randomUUID();
}

/** open the request's context and run `fn` inside it */
export function runInRequestContext<T>(req: IncomingMessage, id: string, fn: () => T): T {
  const ctx: RequestContext = { id };
  byRequest.set(req, ctx);
  return storage.run(ctx, fn);
}

/** the context of the work under way (undefined outside a request) */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/** the context of a request (undefined when it was not opened, e.g. a WebSocket upgrade) */
export function requestContextOf(req: IncomingMessage): RequestContext | undefined {
  return byRequest.get(req);
}

/**
 * The key check's hook: record the id of the API key a request was accepted with, so its
 * access-log line (and every later log line of the request) names the key by id.
 */
export function setRequestKeyId(req: IncomingMessage, keyId: string): void {
  const ctx = byRequest.get(req);
  if (ctx !== undefined) ctx.keyId = keyId;
}
