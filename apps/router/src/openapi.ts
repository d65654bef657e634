import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

/** OpenAPI from the same DTO classes that validate: JSON at /api/docs-json, browsable at /api/docs. */
export function setupOpenApi(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Solana swap aggregator')
    .setDescription(
      'Non-custodial swap aggregator: routes, exact quotes, markets. All /api/v1 responses use the envelope ' +
        '{success:true, data} / {success:false, error}. /health is unversioned.',
    )
    .setVersion('1.0.0')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
}
