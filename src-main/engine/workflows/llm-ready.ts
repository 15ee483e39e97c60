import { LlmServerHttpError, LlmServerUnreachableError } from '../../llm/errors';
import { backoffDelay, sleep } from '../../marketplace/sleep';
import { llmClient, type BackendTarget } from './backend';

const TRANSIENT_HTTP = new Set([502, 503, 504]);

/**
 * The readiness check of a rented machine's Ollama (the lease's `ready` step). "running" with the
 * port mapped only means the container runs: Ollama inside may still be starting, and Vast's proxy
 * answers 502 (or the port refuses) meanwhile. Polls GET /api/version until it answers, within
 * `timeoutMs`; other errors (a 401: wrong token) fail at once.
 */
export async function waitForOllama(target: BackendTarget, opts: { signal: AbortSignal; timeoutMs?: number; pollIntervalMs?: number }): Promise<void> {
  const client = llmClient(target);
  const deadline = Date.now() + (opts.timeoutMs ?? 10 * 60_000);
  const delay = { initialMs: opts.pollIntervalMs ?? 2_000, factor: 1.5, maxMs: Math.max(opts.pollIntervalMs ?? 2_000, 10_000) };
  for (let attempt = 1; ; attempt++) {
    try {
      await client.version({ signal: opts.signal, timeoutMs: 10_000 });
      return;
    } catch (err) {
      const transient = err instanceof LlmServerUnreachableError || (err instanceof LlmServerHttpError && TRANSIENT_HTTP.has(err.status));
      if (!transient || opts.signal.aborted || Date.now() >= deadline) throw err;
    }
    await sleep(Math.min(backoffDelay(attempt, delay), Math.max(0, deadline - Date.now())), opts.signal);
  }
}
