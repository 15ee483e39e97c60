import { CatalogResponseSchema, LlmModelsQuerySchema, LlmModelsResponseSchema } from '../models';
import { AnyObjectSchema, NoInputSchema, type OperationDef } from './common';

/** The models a job can run: the marketplace catalog and an llmserver's own models. */
export const MODEL_OPERATIONS = {
  listCatalog: {
    summary: 'Marketplace model catalog',
    description: 'The models benchdesk can run on a rented machine, with the VRAM and disk each needs (what sizes the GPU of an estimate or a job).',
    tags: ['marketplace'],
    method: 'GET',
    path: '/v1/catalog/marketplace-models',
    aliases: ['/v1/models/marketplace'],
    input: NoInputSchema,
    output: CatalogResponseSchema,
    status: 200,
  },
  listLlmModels: {
    summary: 'Models of an llmserver backend, with the running ones',
    description: 'Asks the llmserver (Ollama) at `backend_url` for its models and the ones loaded now. A backend that cannot be reached or answers an error is a 502 naming it.',
    tags: ['llmserver'],
    method: 'GET',
    path: '/v1/llm/models',
    aliases: ['/v1/llmserver/models', '/v1/models/llmserver'],
    input: AnyObjectSchema,
    docs: { querystring: LlmModelsQuerySchema.omit({ backend_api_key: true }) },
    output: LlmModelsResponseSchema,
    status: 200,
    query: ['backend_url', 'backend_type', 'backend_api'],
    // The key of an OpenAI-compatible server travels in a header, never in the URL (logs, history).
    headers: { backend_api_key: 'x-backend-api-key' },
    errors: { 502: 'The llmserver could not be reached (`upstream_unreachable`), refused the key (`upstream_error`) or answered an error (`upstream_error`)' },
  },
} as const satisfies Record<string, OperationDef>;
