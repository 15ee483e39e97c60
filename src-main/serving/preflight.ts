import type { SpokenBackendApi } from '../../shared';
import type { LlmBackend, ModelFacts } from '../llm/backend-port';
import { percentile } from './stats';

/**
 * What the serving job checks and measures before its first level (design §13b): whether the
 * longest prompt fits the model's context (refused before any load, with the numbers), the Ollama
 * `num_ctx` to send, and the network's round trip to the server.
 */

export class PromptTooLongError extends Error {
  override name = 'PromptTooLongError';
  readonly code = 'prompt_too_long';
}

/** Room for the chat template's tokens around a prompt, and for the estimate (4 characters a token) being short. */
export function contextMargin(tokens: number): number {
  return Math.max(64, Math.ceil(tokens * 0.1));
}

/**
 * The context a run needs and what to send as Ollama's `num_ctx`: the longest prompt plus the
 * tokens asked plus a margin, rounded up to 256 (one value for the whole run: Ollama reloads a
 * model whose num_ctx changes). Throws PromptTooLongError when the model (or the num_ctx given)
 * cannot hold it.
 */
export function planContext(input: {
  api: SpokenBackendApi;
  model: string;
  longest: { promptTokens: number; outputTokens: number; total: number };
  contextLength: number | null;
  numCtx: number | undefined;
}): { numCtx: number | null; needed: number } {
  const { longest } = input;
  const needed = longest.total + contextMargin(longest.total);
  const what = `the longest prompt (about ${longest.promptTokens} tokens) and its ${longest.outputTokens} output tokens need a context of about ${needed} tokens`;
  if (input.api === 'ollama' && input.numCtx !== undefined && input.numCtx < needed) {
    throw new PromptTooLongError(`${what}, but num_ctx is ${input.numCtx}: raise num_ctx, or ask for shorter prompts or fewer output tokens`);
  }
  if (input.contextLength !== null && needed > input.contextLength) {
    const where = input.api === 'ollama' ? `its context length (/api/show)` : `the server's max_model_len (/v1/models)`;
    throw new PromptTooLongError(`${what}; model ${input.model} holds at most ${input.contextLength} (${where}): ask for shorter prompts or fewer output tokens`);
  }
  if (input.api !== 'ollama') return { numCtx: null, needed };
  if (input.numCtx !== undefined) return { numCtx: input.numCtx, needed };
  const rounded = Math.ceil(needed / 256) * 256;
  return { numCtx: input.contextLength !== null ? Math.min(rounded, input.contextLength) : rounded, needed };
}

/** The model's facts, or nulls when the server will not say (the run goes on without the check). */
export async function modelFacts(backend: LlmBackend, model: string, signal: AbortSignal): Promise<{ facts: ModelFacts; warning: string | null }> {
  try {
    return { facts: await backend.describeModel(model, { signal, timeoutMs: 30_000 }), warning: null };
  } catch (error) {
    if (signal.aborted) throw error;
    const facts: ModelFacts = { context_length: null, digest: null, supports_tools: null, engine: null };
    return { facts, warning: `could not read the model's context length (${error instanceof Error ? error.message : String(error)}): prompts were not checked against it` };
  }
}

export const RTT_SAMPLES = 10;
const RTT_TIMEOUT_MS = 10_000;

/** Median of 10 small requests, one after another (the network's share of TTFT); null with a warning when the server did not answer them. */
export async function measureRtt(backend: LlmBackend, signal: AbortSignal, samples = RTT_SAMPLES): Promise<{ rttMs: number | null; warning: string | null }> {
  const times: number[] = [];
  let lastError: unknown = null;
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    try {
      await backend.ping({ signal, timeoutMs: RTT_TIMEOUT_MS });
      times.push(performance.now() - t0);
    } catch (error) {
      if (signal.aborted) throw error;
      lastError = error;
      // A server that does not answer small requests is not worth 10 timeouts.
      if (times.length === 0 && i >= 1) break;
    }
  }
  if (times.length === 0) {
    return { rttMs: null, warning: `the network round trip could not be measured: ${lastError instanceof Error ? lastError.message : String(lastError)}` };
  }
  const sorted = times.sort((a, b) => a - b);
  return { rttMs: Math.round(percentile(sorted, 50) * 1000) / 1000, warning: null };
}
