import type { BackendApi, SpokenBackendApi, ValidationIssue } from '../../../shared';
import { InvalidBackendUrlError } from '../../llm/errors';
import { normaliseBackendUrl } from '../../llm/backend-url';
import type { LlmBackend } from '../../llm/backend-port';
import { LlmServerClient } from '../../llm/llmserver-client';
import { backendClient, detectBackendApi, type BackendTarget } from '../../llm/open-backend';
import type { JobContext } from '../types';

export type { BackendTarget } from '../../llm/open-backend';

/** A submit-time check: the URL must normalise (scheme http/https, a host). */
export function backendUrlIssues(url: string | undefined): ValidationIssue[] {
  if (url === undefined) return [];
  try {
    normaliseBackendUrl(url);
    return [];
  } catch (err) {
    if (err instanceof InvalidBackendUrlError) return [{ path: 'backend_url', message: err.message }];
    throw err;
  }
}

/** The backend of a request that names an existing server: its URL, the API asked for and its key. */
export function requestTarget(request: { backend_url?: string | null | undefined; backend_api?: BackendApi | undefined; backend_api_key?: string | undefined }): BackendTarget {
  return { backendUrl: request.backend_url ?? '', api: request.backend_api, apiKey: request.backend_api_key };
}

/**
 * The llmserver URL an agent gets. A rented machine's Ollama sits behind Vast's proxy, which wants
 * the instance token: agents only take a URL, so the token travels as Basic `vastai:<token>`
 * userinfo (the proxy accepts it; our llm client turns it back into a header and never shows it).
 */
export function agentBackendUrl(target: BackendTarget): string {
  const auth = Object.entries(target.headers ?? {}).find(([k]) => k.toLowerCase() === 'authorization')?.[1];
  const token = auth ? /^Bearer\s+(\S+)$/i.exec(auth)?.[1] : undefined;
  const url = normaliseBackendUrl(target.backendUrl);
  if (!token) return url;
  const parsed = new URL(url);
  parsed.username = 'vastai';
  parsed.password = token;
  return normaliseBackendUrl(parsed.href);
}

/** An Ollama client for a target known to run Ollama (a rented machine: pulls, its own warm-up). */
export function llmClient(target: BackendTarget): LlmServerClient {
  return new LlmServerClient({ baseUrl: target.backendUrl, ...(target.headers ? { headers: target.headers } : {}) });
}

/**
 * The client for the job's backend, whatever API it speaks: with `auto` (the default) a timed
 * `llmserver.detect` step asks the server and says which API answered.
 */
export async function connectBackend(ctx: JobContext, target: BackendTarget): Promise<LlmBackend> {
  if (target.api === 'ollama' || target.api === 'openai') return backendClient(target, target.api);
  const api: SpokenBackendApi = await ctx.step('llmserver.detect', async () => {
    const found = await detectBackendApi(target, { signal: ctx.signal });
    await ctx.info('llmserver.api', `the server speaks ${found === 'ollama' ? "Ollama's API" : 'the OpenAI-compatible API'}`, { backend_api: found });
    return found;
  });
  return backendClient(target, api);
}

/** Loads the model and waits until the server serves it, as a timed job step. */
export async function warmupStep(ctx: JobContext, backend: LlmBackend, model: string, timeoutSeconds: number): Promise<void> {
  await ctx.setProgress('warmup', `loading ${model}`);
  await ctx.step('llmserver.warmup', () => backend.warmup(model, { timeoutMs: timeoutSeconds * 1000, signal: ctx.signal }), {
    model,
    backend_url: backend.baseUrl,
    backend_api: backend.api,
  });
}
