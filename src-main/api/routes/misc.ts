import type { FastifyInstance } from 'fastify';
import {
  API_PATHS,
  CATALOG_ALIASES,
  CatalogResponseSchema,
  CostEstimationRequestSchema,
  CostEstimationResponseSchema,
  HealthSchema,
  LLM_MODELS_ALIASES,
  LlmModelsQuerySchema,
  LlmModelsResponseSchema,
  MetricsSummaryQuerySchema,
  MetricsSummarySchema,
  ProblemSchema,
} from '../../../shared';
import type { BenchdeskService } from '../../app/service-types';

const problems = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 422: ProblemSchema };

function deprecate(reply: { header(name: string, value: string): unknown }, successor: string): void {
  reply.header('deprecation', 'true');
  reply.header('link', `<${successor}>; rel="successor-version"`);
}

export function registerMiscRoutes(app: FastifyInstance, service: BenchdeskService): void {
  app.get(API_PATHS.health, {
    schema: { summary: 'Liveness; always public', tags: ['meta'], response: { 200: HealthSchema } },
    handler: async () => service.health(),
  });

  app.post(API_PATHS.estimates, {
    schema: {
      summary: 'Estimate what renting marketplace GPUs will cost',
      tags: ['marketplace'],
      body: CostEstimationRequestSchema,
      response: { 200: CostEstimationResponseSchema, ...problems, 413: ProblemSchema, 415: ProblemSchema },
    },
    handler: async (request) => service.estimate(request.body),
  });

  for (const path of [API_PATHS.catalog, ...CATALOG_ALIASES]) {
    const alias = path !== API_PATHS.catalog;
    app.get(path, {
      schema: { summary: alias ? `Deprecated alias of ${API_PATHS.catalog}` : 'Marketplace model catalog', tags: ['marketplace'], deprecated: alias, response: { 200: CatalogResponseSchema, ...problems } },
      handler: async (_request, reply) => {
        if (alias) deprecate(reply, API_PATHS.catalog);
        return service.listCatalog();
      },
    });
  }

  for (const path of [API_PATHS.llmModels, ...LLM_MODELS_ALIASES]) {
    const alias = path !== API_PATHS.llmModels;
    app.get(path, {
      schema: {
        summary: alias ? `Deprecated alias of ${API_PATHS.llmModels}` : 'Models of an existing llmserver backend',
        tags: ['llmserver'],
        deprecated: alias,
        querystring: LlmModelsQuerySchema,
        response: { 200: LlmModelsResponseSchema, ...problems, 502: ProblemSchema },
      },
      handler: async (request, reply) => {
        if (alias) deprecate(reply, API_PATHS.llmModels);
        return service.listLlmModels(request.query);
      },
    });
  }

  app.get(API_PATHS.metricsSummary, {
    schema: { summary: 'Event metrics of the tenant (or one job)', tags: ['jobs'], querystring: MetricsSummaryQuerySchema, response: { 200: MetricsSummarySchema, ...problems } },
    handler: async (request) => service.metricsSummary(request.tenantId, request.query),
  });
}
