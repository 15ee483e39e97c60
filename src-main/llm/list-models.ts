import type { LlmModelsResponse } from '../../shared/models';
import { normaliseBackendType } from './backend-url';
import type { FetchFn } from './call-fetch';
import { LlmServerClient } from './llmserver-client';

export interface ListBackendModelsOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  fetch?: FetchFn;
}

/**
 * GET /v1/llm/models: installed and running models of one llmserver. Throws
 * InvalidBackendUrlError / UnknownBackendTypeError (422), LlmServerUnreachableError (502),
 * LlmServerAuthError, LlmServerHttpError, LlmResponseShapeError.
 */
export async function listBackendModels(
  query: { backend_url: string; backend_type?: string | null },
  options: ListBackendModelsOptions = {},
): Promise<LlmModelsResponse> {
  const backend_type = normaliseBackendType(query.backend_type);
  const client = new LlmServerClient({
    baseUrl: query.backend_url,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const call = options.signal ? { signal: options.signal } : {};
  const [models, running_models] = await Promise.all([client.listModels(call), client.runningModels(call)]);
  return { backend_url: client.baseUrl, backend_type, models, running_models };
}
