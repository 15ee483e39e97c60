import type { ValidationIssue } from '../../../shared';
import { InvalidBackendUrlError } from '../../llm/errors';
import { normaliseBackendUrl } from '../../llm/backend-url';
import { LlmServerClient } from '../../llm/llmserver-client';
import type { JobContext } from '../types';

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

export type BackendTarget = { backendUrl: string; headers?: Record<string, string> };

export function llmClient(target: BackendTarget): LlmServerClient {
  return new LlmServerClient({ baseUrl: target.backendUrl, ...(target.headers ? { headers: target.headers } : {}) });
}

/** Loads the model on the llmserver and waits until /api/ps lists it, as a timed job step. */
export async function warmupStep(
  ctx: JobContext,
  client: LlmServerClient,
  model: string,
  timeoutSeconds: number,
): Promise<void> {
  await ctx.setProgress('warmup', `loading ${model}`);
  await ctx.step(
    'llmserver.warmup',
    () => client.warmup(model, { timeoutMs: timeoutSeconds * 1000, signal: ctx.signal }),
    { model, backend_url: client.baseUrl },
  );
}
