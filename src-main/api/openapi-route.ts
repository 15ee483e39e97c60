import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { API_PATHS } from '../../shared';
import { makeFinishOpenApi, openApiTransform } from './openapi';

/**
 * The OpenAPI 3.1 document of the server, built by @fastify/swagger from the routes' schemas and
 * served at GET /v1/openapi.json. Register it before the routes it describes.
 */
export async function registerOpenApiDocument(app: FastifyInstance, options: { version: string; agentNames?: () => readonly string[] }): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'benchdesk API', version: options.version, description: 'Local API of the benchdesk desktop app and headless server.' },
      // Relative: the server the document was fetched from. GET /v1/openapi.json names it exactly.
      servers: [{ url: '/', description: 'the server this document was fetched from' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
    },
    transform: openApiTransform,
    transformObject: makeFinishOpenApi(options.agentNames ? { agentNames: options.agentNames } : {}),
  });
}

/** GET /v1/openapi.json: the document, naming the address it was fetched from. */
export function registerOpenApiRoute(app: FastifyInstance): void {
  app.get(API_PATHS.openapi, { schema: { summary: 'This OpenAPI 3.1 document', tags: ['meta'] } }, async (request) => {
    // The Host was checked by the guard (a loopback name, or the address the server is bound to).
    const document = app.swagger() as Record<string, unknown>;
    return { ...document, servers: [{ url: `http://${request.headers.host ?? '127.0.0.1'}`, description: 'this server' }] };
  });
}
