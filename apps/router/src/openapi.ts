import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { COMMON_ERRORS, errorTextSchema } from './http/api-errors';
import { STREAM_MESSAGE_MODELS } from './http/stream-messages.dto';

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

/** the stream's upgrade as a path: its messages are the Stream*MessageDto components */
function addStream(document: OpenAPIObject): void {
  document.paths['/api/v1/stream'] = {
    get: {
      tags: ['stream'],
      summary: 'Live quotes over a WebSocket (upgrade request)',
      description:
        'A standard WebSocket of raw JSON text frames. The client sends StreamClientMessageDto frames; the server answers with ' +
        'StreamQuoteMessageDto (the first quote of each accepted pair, then only when amountOut, priceImpactBps or hops change, ' +
        'debounced about 50 ms), StreamAckMessageDto (after each subscribe / unsubscribe) and StreamErrorMessageDto. The upgrade ' +
        'counts against the rate limit; a connection whose outbound queue passes STREAM_MAX_BUFFERED_BYTES is closed (1008): reconnect and resubscribe. ' +
        'With AUTH_MODE=keys the key goes in ?key=.',
      parameters: [{ name: 'key', in: 'query', required: false, description: 'API key (AUTH_MODE=keys)', schema: { type: 'string' } }],
      responses: {
        '101': {
          description: 'switched to the WebSocket protocol',
          content: { 'application/json': { schema: { oneOf: [ref('StreamQuoteMessageDto'), ref('StreamAckMessageDto'), ref('StreamErrorMessageDto')] } } },
        },
        ...Object.fromEntries(
          ([401, 403, 429] as const).map((s) => [
            String(s),
            { description: 'upgrade refused', content: { 'application/json': { schema: { type: 'object', properties: { success: { type: 'boolean', enum: [false] }, error: errorTextSchema(COMMON_ERRORS[s]!) } } } } },
          ]),
        ),
      },
    },
  };
}

/**
 * OpenAPI from the same DTO classes that validate: JSON at /api/docs-json, browsable at /api/docs.
 * Every answer has its schema, every error status its texts (see ApiErrorTexts); the stream's
 * messages are components, named by its path.
 */
export function setupOpenApi(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Solana swap aggregator')
    .setDescription(
      'Non-custodial swap aggregator: routes, exact quotes, transactions and instructions, prices, markets, live quotes. All /api/v1 ' +
        'responses use the envelope {success:true, data} / {success:false, error}; each operation lists its error texts per status. ' +
        '/health, /ready and /metrics are unversioned. Every answer carries X-Request-Id.',
    )
    .setVersion('1.0.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key, when the service runs with AUTH_MODE=keys' })
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: STREAM_MESSAGE_MODELS });
  addStream(document);
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
}
