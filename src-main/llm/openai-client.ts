import { createParser } from 'eventsource-parser';
import { z } from 'zod';
import type { ModelEntry } from '../../shared/models';
import { normaliseBackendUrl, splitBackendCredentials } from './backend-url';
import type { BackendCallOptions, BackendWire, LlmBackend, ModelFacts } from './backend-port';
import { createCallFetch, type FetchFn } from './call-fetch';
import type { ChatRequest, ChatResult } from './chat-types';
import { LlmAbortedError, LlmError, LlmResponseShapeError, LlmServerHttpError, LlmServerUnreachableError, LlmStreamError, WarmupTimeoutError } from './errors';
import { OpenAiChatAccumulator, openAiSampling, plainTextChunk, toOpenAiMessages } from './openai-chat-wire';
import { OpenAiChatChunkSchema, OpenAiChatCompletionSchema, OpenAiErrorMessage, OpenAiModelListSchema, OpenAiVersionSchema, type OpenAiModel } from './openai-wire';
import { DEFAULT_TURN_DEADLINE_MS, STREAM_LIMITS } from './stream-limits';
import type { WarmupOptions, WarmupResult } from './warmup';

/**
 * An OpenAI-compatible server (vLLM, SGLang, TGI, llama.cpp's server, LM Studio, Ollama's /v1):
 * plain fetch through createCallFetch (signal, timeouts, byte caps, typed errors), SSE read with
 * eventsource-parser, every answer validated with zod. `waitUntilServing` is the readiness check of
 * a server that loads its model at start (a rented vLLM: `GET /v1/models` lists the model).
 */

export const DEFAULT_OPENAI_CALL_TIMEOUT_MS = 30_000;
const STREAM_IDLE_MS = 300_000;

export interface OpenAiClientOptions {
  /** User-typed URL; a trailing `/v1` is dropped (every path adds it). Userinfo becomes Basic auth. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` (vLLM `--api-key`). */
  apiKey?: string | undefined;
  headers?: Record<string, string> | undefined;
  timeoutMs?: number | undefined;
  fetch?: FetchFn | undefined;
}

export class OpenAiClient implements LlmBackend {
  readonly api = 'openai' as const;
  readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly baseFetch: FetchFn;

  constructor(options: OpenAiClientOptions) {
    const { url, authorization } = splitBackendCredentials(normaliseBackendUrl(options.baseUrl).replace(/\/v1$/, ''));
    this.baseUrl = url;
    const auth = options.apiKey ? `Bearer ${options.apiKey}` : authorization;
    const explicit = Object.keys(options.headers ?? {}).some((k) => k.toLowerCase() === 'authorization');
    this.headers = { ...(auth && !explicit ? { Authorization: auth } : {}), ...options.headers };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_OPENAI_CALL_TIMEOUT_MS;
    this.baseFetch = options.fetch ?? globalThis.fetch;
  }

  wire(): BackendWire {
    const url = new URL(this.baseUrl);
    return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, ''), headers: { ...this.headers } };
  }

  /** vLLM's GET /version; null for engines without it. */
  async version(options: BackendCallOptions = {}): Promise<string | null> {
    try {
      return (await this.getJson('GET /version', '/version', OpenAiVersionSchema, options)).version;
    } catch (error) {
      if (error instanceof LlmServerHttpError || error instanceof LlmResponseShapeError) return null;
      throw error;
    }
  }

  /** GET /v1/models as the server lists them (vLLM adds max_model_len). */
  async models(options: BackendCallOptions = {}): Promise<OpenAiModel[]> {
    return (await this.getJson('GET /v1/models', '/v1/models', OpenAiModelListSchema, options)).data;
  }

  async listModels(options: BackendCallOptions = {}): Promise<ModelEntry[]> {
    return (await this.models(options)).map((m) => ({ name: m.id, context_length: m.max_model_len ?? null }));
  }

  runningModels(options: BackendCallOptions = {}): Promise<ModelEntry[]> {
    return this.listModels(options);
  }

  isModel(listed: string, asked: string): boolean {
    return listed === asked;
  }

  async describeModel(model: string, options: BackendCallOptions = {}): Promise<ModelFacts> {
    const found = (await this.models(options)).find((m) => m.id === model);
    return { context_length: found?.max_model_len ?? null, digest: null, supports_tools: null, engine: found?.owned_by ?? null };
  }

  async ping(options: BackendCallOptions = {}): Promise<void> {
    await this.models(options);
  }

  /**
   * Polls GET /v1/models until it lists `model` (a server that loads its model at start answers
   * 503 or refuses connections meanwhile), within `timeoutMs`. The readiness check of a rented
   * OpenAI server.
   */
  async waitUntilServing(model: string, options: { timeoutMs: number; signal?: AbortSignal; pollIntervalMs?: number }): Promise<ModelEntry> {
    const started = Date.now();
    for (;;) {
      if (options.signal?.aborted) throw new LlmAbortedError(this.baseUrl, { cause: options.signal.reason });
      try {
        const entry = (await this.listModels({ signal: options.signal, timeoutMs: Math.min(this.timeoutMs, options.timeoutMs) })).find((m) => m.name === model);
        if (entry) return entry;
      } catch (error) {
        // Loading: refused connections and 5xx are expected; anything else (a 401, a wrong model list) is the answer.
        const loading = error instanceof LlmServerUnreachableError || (error instanceof LlmServerHttpError && error.status >= 500);
        if (!loading) throw error;
      }
      if (Date.now() - started >= options.timeoutMs) throw new WarmupTimeoutError(this.baseUrl, model, options.timeoutMs);
      await delay(options.pollIntervalMs ?? 2000, options.signal);
    }
  }

  /** Waits until the model is served, then asks it for one token so the first measured request pays no first-use cost. */
  async warmup(model: string, options: WarmupOptions = {}): Promise<WarmupResult> {
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? 300_000;
    const running = await this.waitUntilServing(model, { timeoutMs, ...(options.signal ? { signal: options.signal } : {}), ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}) });
    await this.chat({ model, messages: [{ role: 'user', content: 'Hello' }], options: { num_predict: 1 }, stream: false, ...(options.signal ? { signal: options.signal } : {}), timeoutMs: Math.max(1000, timeoutMs - (Date.now() - started)) });
    return { model: running.name, running, duration_ms: Date.now() - started, polls: 1 };
  }

  /** POST /v1/chat/completions, streamed by default (see ChatRequest.stream). */
  async chat(request: ChatRequest): Promise<ChatResult> {
    const stream = request.stream ?? true;
    const endpoint = 'POST /v1/chat/completions';
    const body = {
      model: request.model,
      messages: toOpenAiMessages(request.messages),
      ...(request.tools?.length ? { tools: request.tools } : {}),
      ...openAiSampling(request.options),
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    };
    const acc = new OpenAiChatAccumulator();
    const call = {
      signal: request.signal,
      timeoutMs: request.timeoutMs ?? (stream ? STREAM_IDLE_MS : 600_000),
      timeoutMode: stream ? ('idle' as const) : ('deadline' as const),
      deadlineMs: request.deadlineMs ?? (stream ? DEFAULT_TURN_DEADLINE_MS : undefined),
      maxResponseBytes: STREAM_LIMITS.chatResponseBytes,
      onSend: request.onSend,
    };
    await this.withFetch(endpoint, call, async (fetch) => {
      const response = await fetch(this.url('/v1/chat/completions'), { method: 'POST', headers: this.jsonHeaders(stream), body: JSON.stringify(body) });
      if (!stream) {
        const parsed = this.parse(OpenAiChatCompletionSchema, await readJson(response), endpoint);
        const choice = parsed.choices[0];
        if (choice) acc.addMessage(choice.message, choice.finish_reason, parsed.usage, parsed.model);
        return;
      }
      let ended = false;
      await readSse(response, (data) => {
        if (data === '[DONE]') {
          ended = true;
          return;
        }
        const json = parseJson(data, this.baseUrl, endpoint);
        // An error event instead of a chunk (cheap test first: a failed parse per chunk costs an error object).
        if (json && typeof json === 'object' && ('error' in json || (json as { object?: unknown }).object === 'error')) {
          const error = OpenAiErrorMessage.safeParse(json);
          throw new LlmStreamError(this.baseUrl, endpoint, 'error_line', error.success ? error.data : 'an error event without a message');
        }
        const chunk = plainTextChunk(json) ?? this.parse(OpenAiChatChunkSchema, json, endpoint);
        const delta = acc.add(chunk);
        if (request.onDelta && (delta.content || delta.thinking)) request.onDelta(delta);
      });
      if (!ended && !acc.finished) throw new LlmStreamError(this.baseUrl, endpoint, 'incomplete', 'no [DONE] event');
    });
    return acc.result();
  }

  private url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  private jsonHeaders(stream: boolean): Record<string, string> {
    return { ...this.headers, 'Content-Type': 'application/json', Accept: stream ? 'text/event-stream' : 'application/json' };
  }

  private async getJson<S extends z.ZodType>(endpoint: string, path: string, schema: S, options: BackendCallOptions): Promise<z.output<S>> {
    return this.withFetch(endpoint, { signal: options.signal, timeoutMs: options.timeoutMs ?? this.timeoutMs, timeoutMode: 'deadline' }, async (fetch) => {
      const response = await fetch(this.url(path), { method: 'GET', headers: { ...this.headers, Accept: 'application/json' } });
      return this.parse(schema, await readJson(response), endpoint);
    });
  }

  private async withFetch<T>(
    endpoint: string,
    options: { signal?: AbortSignal | undefined; timeoutMs: number; timeoutMode: 'deadline' | 'idle'; deadlineMs?: number | undefined; maxResponseBytes?: number; onSend?: (() => void) | undefined },
    run: (fetch: FetchFn) => Promise<T>,
  ): Promise<T> {
    const { fetch, release } = createCallFetch({ baseFetch: this.baseFetch, serverUrl: this.baseUrl, api: 'openai', ...options });
    try {
      return await run(fetch);
    } catch (error) {
      if (error instanceof LlmError) throw error;
      if (error instanceof SyntaxError) throw new LlmResponseShapeError(this.baseUrl, endpoint, `not JSON (${error.message})`);
      throw error;
    } finally {
      release();
    }
  }

  private parse<S extends z.ZodType>(schema: S, data: unknown, endpoint: string): z.output<S> {
    const result = schema.safeParse(data);
    if (!result.success) throw new LlmResponseShapeError(this.baseUrl, endpoint, z.prettifyError(result.error));
    return result.data;
  }
}

async function readJson(response: Response): Promise<unknown> {
  return JSON.parse(await response.text()) as unknown;
}

function parseJson(data: string, url: string, endpoint: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    throw new LlmResponseShapeError(url, endpoint, 'an event is not JSON');
  }
}

/** Feeds each SSE event's data to `onData` as it arrives; an error event or body ends the read. */
async function readSse(response: Response, onData: (data: string) => void): Promise<void> {
  if (!response.body) return;
  let failure: unknown = null;
  const parser = createParser({
    onEvent: (event) => {
      if (failure !== null) return;
      try {
        onData(event.data);
      } catch (error) {
        failure = error;
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
    if (failure !== null) {
      await reader.cancel().catch(() => undefined);
      throw failure;
    }
  }
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
