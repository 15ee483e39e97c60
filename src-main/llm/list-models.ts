import type { BackendApi } from '../../shared/backend-api';
import type { LlmModelsResponse } from '../../shared/models';
import { normaliseBackendType } from './backend-url';
import type { FetchFn } from './call-fetch';
import { openBackend } from './open-backend';

export interface ListBackendModelsOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  fetch?: FetchFn;
}

/**
 * GET /v1/llm/models: installed and running models of one llmserver (an OpenAI-compatible one:
 * the models it serves, all "running"), its API detected when `auto`. Throws
 * InvalidBackendUrlError / UnknownBackendTypeError (422), LlmServerUnreachableError (502),
 * LlmServerAuthError, LlmServerHttpError, LlmResponseShapeError.
 */
export async function listBackendModels(
  query: { backend_url: string; backend_type?: string | null; backend_api?: BackendApi | undefined; backend_api_key?: string | undefined },
  options: ListBackendModelsOptions = {},
): Promise<LlmModelsResponse> {
  const backend_type = normaliseBackendType(query.backend_type);
  const client = await openBackend(
    { backendUrl: query.backend_url, api: query.backend_api, apiKey: query.backend_api_key, ...(options.headers ? { headers: options.headers } : {}) },
    { signal: options.signal, fetch: options.fetch, timeoutMs: options.timeoutMs },
  );
  const call = { signal: options.signal, timeoutMs: options.timeoutMs };
  const [models, running_models] = await Promise.all([client.listModels(call), client.runningModels(call)]);
  return { backend_url: client.baseUrl, backend_type, backend_api: client.api, models, running_models };
}
