import {
  ArgumentsHost,
  Catch,
  HttpException,
  HttpStatus,
  Logger,
  NotFoundException,
  ValidationPipe,
  type ExceptionFilter,
  type ValidationError,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { allowedMethods } from '@app/http';
import { EdgeError } from '@app/http';
import { InsufficientLiquidityError, NoPoolError, NoRouteError } from '@app/amm';
import { RATE_LIMITED } from '@app/http';

/** An error with the API's error text and HTTP status; rendered as {success:false, error}. */
export class ApiError extends HttpException {
  constructor(status: number, readonly error: string) {
    super({ success: false, error }, status);
  }
}

/** the error text for a same-mint quote (a choice of this service; documented in the OpenAPI) */
export const SAME_MINT_ERROR = 'inputMint and outputMint must differ';

/**
 * Validation pipe for API DTOs: a property the DTO does not declare → 400 `unknown parameter
 * <name>` when `forbidUnknown` (before any invalid one); else the first invalid property in
 * `order` (then any other) → 400 `invalid <property>`, or its text in `fieldErrors`.
 */
export function createApiValidationPipe(order: readonly string[] = [], opts: { forbidUnknown?: boolean; fieldErrors?: Record<string, string> } = {}): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: opts.forbidUnknown === true,
    forbidNonWhitelisted: opts.forbidUnknown === true,
    forbidUnknownValues: false,
    stopAtFirstError: true,
    exceptionFactory: (errors: ValidationError[]) => {
      const unknown = errors.find((e) => e.constraints?.whitelistValidation !== undefined);
      if (unknown) return new ApiError(HttpStatus.BAD_REQUEST, `${UNKNOWN_PARAMETER} ${unknown.property}`);
      const props = errors.map((e) => e.property);
      const first = order.find((p) => props.includes(p)) ?? props[0] ?? 'parameters';
      return new ApiError(HttpStatus.BAD_REQUEST, opts.fieldErrors?.[first] ?? `invalid ${first}`);
    },
  });
}

/** the error text before the name of a parameter the API does not know */
export const UNKNOWN_PARAMETER = 'unknown parameter';

/** route errors → API errors (API.md §7) */
export function toApiError(e: unknown): ApiError | null {
  if (e instanceof NoRouteError) return new ApiError(HttpStatus.NOT_FOUND, 'no route found');
  if (e instanceof NoPoolError) return new ApiError(HttpStatus.NOT_FOUND, 'no pool found');
  if (e instanceof InsufficientLiquidityError) return new ApiError(HttpStatus.BAD_REQUEST, 'insufficient liquidity');
  return null;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'bad request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not found',
  405: 'method not allowed',
  413: 'payload too large',
  415: 'unsupported media type',
  429: RATE_LIMITED,
};

/**
 * the 4xx status of an error raised before any controller by the body parser (a body over its
 * size limit: 413, an unsupported charset: 415, ...): such errors carry `status` and `expose`
 */
function clientErrorStatus(e: unknown): number | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const { status, expose } = e as { status?: unknown; expose?: unknown };
  return expose === true && typeof status === 'number' && Number.isInteger(status) && status >= 400 && status < 500 ? status : undefined;
}

/** the methods routed for the request's path when Nest found no route for its method (empty: the path is unknown) */
function otherMethods(exception: unknown, req: Request): string[] {
  if (!(exception instanceof NotFoundException) || !exception.message.startsWith('Cannot ') || req.app === undefined) return [];
  return allowedMethods(req.app, req.path);
}

/**
 * Every HTTP error as the envelope {success:false, error}: ApiErrors and the edge's refusals keep
 * their text, a known path asked with another method is 405 with `Allow`, other HttpExceptions
 * and the body parser's client errors get a short lower-case text for their status, anything
 * else is 500 `internal error` (logged once, with its stack). Never Nest's default error body.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    const mapped = exception instanceof ApiError ? exception : toApiError(exception);
    if (mapped) {
      res.status(mapped.getStatus()).json({ success: false, error: mapped.error });
      return;
    }
    if (exception instanceof EdgeError) {
      res.status(exception.status).json({ success: false, error: exception.error });
      return;
    }
    const allow = otherMethods(exception, host.switchToHttp().getRequest<Request>());
    if (allow.length > 0) {
      res.status(HttpStatus.METHOD_NOT_ALLOWED).setHeader('Allow', allow.join(', '));
      res.json({ success: false, error: STATUS_TEXT[405] });
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status >= 500) this.logger.error(exception.message, exception.stack);
      res.status(status).json({ success: false, error: status >= 500 ? 'internal error' : (STATUS_TEXT[status] ?? 'bad request') });
      return;
    }
    const clientStatus = clientErrorStatus(exception);
    if (clientStatus !== undefined) {
      res.status(clientStatus).json({ success: false, error: STATUS_TEXT[clientStatus] ?? 'bad request' });
      return;
    }
    if (exception instanceof Error) this.logger.error(exception.message, exception.stack);
    else this.logger.error(String(exception));
    res.status(HttpStatus.INTERNAL_SERVER_ERROR).json({ success: false, error: 'internal error' });
  }
}
