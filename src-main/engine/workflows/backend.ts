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
