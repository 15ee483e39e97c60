import type { SpokenBackendApi } from '../../shared';
import type { PromptItem } from './dataset';
import type { WorkerTarget } from './worker/protocol';

/**
 * The body of one serving request, by API (design §13b):
 * - Ollama: streamed `POST /api/chat` with `options.num_predict` (and `num_ctx`, so a long prompt
 *   is not cut at the server's default context);
 * - OpenAI-compatible: streamed `POST /v1/chat/completions` (or `/v1/completions`) with `max_tokens`
 *   and `stream_options.include_usage` (the usage chunk gives the output tokens), plus vLLM's and
 *   SGLang's `ignore_eos` / `min_tokens` on the engines that honour them (others may refuse
 *   fields they do not know).
 */

export type BodyOptions = {
  api: SpokenBackendApi;
  endpoint: 'chat' | 'completions';
  model: string;
  numCtx: number | null;
  ignoreEos: boolean;
  minTokens: number | undefined;
  temperature: number | undefined;
  seed: number | undefined;
  /** The engine (ModelFacts.engine): decides whether ignore_eos and min_tokens are sent. */
  engine: string | null;
};

/** Engines known to honour vLLM's sampling extras (`owned_by` of their /v1/models). */
const IGNORE_EOS_ENGINES = new Set(['vllm', 'sglang', 'llamacpp']);
const MIN_TOKENS_ENGINES = new Set(['vllm', 'sglang']);

export function honoursIgnoreEos(api: SpokenBackendApi, engine: string | null): boolean {
  return api === 'openai' && engine !== null && IGNORE_EOS_ENGINES.has(engine);
}

export function honoursMinTokens(api: SpokenBackendApi, engine: string | null): boolean {
  return api === 'openai' && engine !== null && MIN_TOKENS_ENGINES.has(engine);
}

export function requestBody(options: BodyOptions, item: PromptItem): string {
  if (options.api === 'ollama') {
    const sampling = {
      num_predict: item.outputTokens,
      ...(options.numCtx !== null ? { num_ctx: options.numCtx } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    };
    return JSON.stringify({ model: options.model, messages: [{ role: 'user', content: item.prompt }], stream: true, options: sampling });
  }
  const input = options.endpoint === 'completions' ? { prompt: item.prompt } : { messages: [{ role: 'user', content: item.prompt }] };
  return JSON.stringify({
    model: options.model,
    ...input,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: item.outputTokens,
    ...(options.ignoreEos && honoursIgnoreEos(options.api, options.engine) ? { ignore_eos: true } : {}),
    ...(options.minTokens !== undefined && honoursMinTokens(options.api, options.engine) ? { min_tokens: Math.min(options.minTokens, item.outputTokens) } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
  });
}

/** Where the worker sends the requests and how it reads their answers. */
export function workerRoute(api: SpokenBackendApi, endpoint: 'chat' | 'completions'): Pick<WorkerTarget, 'path' | 'stream'> {
  if (api === 'ollama') return { path: '/api/chat', stream: 'ndjson' };
  return endpoint === 'completions' ? { path: '/v1/completions', stream: 'sse-completions' } : { path: '/v1/chat/completions', stream: 'sse-chat' };
}
