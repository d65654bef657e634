/**
 * The OpenAPI error answers of an endpoint: for each status the error texts it can send, as the
 * envelope's schema (`error` one of the fixed texts, or matching a text with a placeholder such
 * as `simulation failed: <details>`) and listed in the description. The refusals every /api/v1
 * endpoint shares (keys, rate limit, oversized headers, a wrong method, an internal error) are
 * added to each, and a body's parser errors to each POST.
 */
import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { MISSING_HOST, TOO_DEEP } from '@app/http';
import { RATE_LIMITED } from '@app/http';

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 413 | 429 | 431 | 500;
export type ErrorTexts = Partial<Record<ErrorStatus, readonly string[]>>;

const STATUS_MEANING: Record<ErrorStatus, string> = {
  400: 'invalid request',
  401: 'no API key (AUTH_MODE=keys)',
  403: 'API key invalid, disabled or revoked (AUTH_MODE=keys)',
  404: 'not found',
  405: 'another method is routed for this path (see Allow)',
  408: 'request not received within HTTP_REQUEST_TIMEOUT_MS',
  409: 'conflict with the state the request names',
  413: 'body over 100 KB',
  429: 'rate limit exceeded: retry after Retry-After seconds',
  431: 'request headers (the URL included) over 16 KB',
  500: 'server error',
};

/** refusals of every /api/v1 request, whatever the endpoint */
export const COMMON_ERRORS: ErrorTexts = {
  400: ['bad request', MISSING_HOST],
  401: ['missing api key'],
  403: ['invalid api key'],
  405: ['method not allowed'],
  408: ['request timeout'],
  429: [RATE_LIMITED],
  431: ['request headers too large'],
  500: ['internal error'],
};

/** refusals of a JSON body */
export const BODY_ERRORS: ErrorTexts = { 400: [TOO_DEEP], 413: ['payload too large'] };

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** the schema of `error` for these texts: an enum of the fixed ones, a pattern per text with a `<placeholder>` */
export function errorTextSchema(texts: readonly string[]): object {
  const fixed = texts.filter((t) => !/<[^>]+>/.test(t));
  const patterns = texts.filter((t) => /<[^>]+>/.test(t)).map((t) => `^${t.split(/<[^>]+>/).map(escape).join('.+')}$`);
  const choices: object[] = [...(fixed.length > 0 ? [{ enum: fixed }] : []), ...patterns.map((pattern) => ({ pattern }))];
  return choices.length === 1 ? { type: 'string', ...choices[0] } : { type: 'string', anyOf: choices };
}

function merge(...all: ErrorTexts[]): ErrorTexts {
  const out: ErrorTexts = {};
  for (const t of all) for (const [s, texts] of Object.entries(t) as [string, string[]][]) out[Number(s) as ErrorStatus] = [...(out[Number(s) as ErrorStatus] ?? []), ...texts];
  return out;
}

/** the error answers of an endpoint: its own texts, with the shared refusals (and a body's, for a POST) */
export function ApiErrorTexts(own: ErrorTexts, opts: { body?: boolean } = {}): MethodDecorator {
  const all = merge(own, COMMON_ERRORS, opts.body ? BODY_ERRORS : {});
  return applyDecorators(
    ...(Object.entries(all) as [string, string[]][]).map(([status, texts]) =>
      ApiResponse({
        status: Number(status),
        description: `${STATUS_MEANING[Number(status) as ErrorStatus]}. Error texts: ${texts.map((t) => JSON.stringify(t)).join(', ')}`,
        schema: {
          type: 'object',
          required: ['success', 'error'],
          additionalProperties: false,
          properties: { success: { type: 'boolean', enum: [false] }, error: errorTextSchema(texts) },
        },
      }),
    ),
  );
}
