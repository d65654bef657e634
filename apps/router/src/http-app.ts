import type { INestApplication } from '@nestjs/common';
import { ApiExceptionFilter } from './http/api-error';
import { setupOpenApi } from './openapi';

export { createApiValidationPipe } from './http/api-error';

/**
 * The HTTP setup every app serving the router's controllers applies (the router alone and the
 * all-in-one): the envelope exception filter for every HTTP error and the OpenAPI document.
 * Validation: each API controller binds its pipe (`createApiValidationPipe`) on its parameters,
 * so the quote DTO is validated the same way whether or not this is called; no global pipe is
 * installed (it would also reach the WebSocket gateway of the all-in-one).
 */
export function configureHttpApp(app: INestApplication): void {
  app.useGlobalFilters(new ApiExceptionFilter());
  setupOpenApi(app);
}
