// We build on the official `ollama` npm client (ollama-js) rather than hand-rolled fetch calls:
// it is maintained by the Ollama team alongside the server, follows API changes, and already does
// the streaming NDJSON parsing and the request shapes. What it lacks we add around it:
// cancellation and timeouts for every call (call-fetch.ts), typed errors, and runtime validation
// of every answer (its TypeScript types claim Date objects where the wire has strings).
import { Ollama } from 'ollama';
import { z } from 'zod';
import type { ModelEntry } from '../../shared/models';
import { OllamaChatResponseSchema, OllamaGenerateResponseSchema, OllamaProgressSchema, OllamaPsResponseSchema, OllamaShowResponseSchema, OllamaTagsResponseSchema, OllamaVersionSchema, type OllamaGenerateResponse } from './ollama-wire';
import { normaliseBackendUrl, splitBackendCredentials } from './backend-url';
import { createCallFetch, transportError, type FetchFn } from './call-fetch';
import type { ChatRequest, ChatResult, LlmChat } from './chat-types';
import { ChatAccumulator, toWireMessage } from './chat-wire';
import { LlmError, LlmResponseShapeError, LlmStreamError } from './errors';
import { psModelToEntry, tagsModelToEntry } from './model-entry';
import { warmupModel, type WarmupOptions, type WarmupResult } from './warmup';
import type { BackendCallOptions, BackendWire, LlmBackend, ModelFacts } from './backend-port';
import { sameModel } from './model-name';
import { DEFAULT_TURN_DEADLINE_MS, STREAM_LIMITS } from './stream-limits';

/** Default bound of one non-streamed call (list, ps, show, version, unload). */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** Streams: the longest silence tolerated between chunks (a big pull verifies for a while). */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;
/** Non-streamed chat and model loads can legitimately take minutes. */
export const DEFAULT_LONG_CALL_TIMEOUT_MS = 600_000;

export interface LlmServerClientOptions {
  /** User-typed URL; normalised here (throws InvalidBackendUrlError). Userinfo becomes Basic auth. */
  baseUrl: string;
  /** Sent on every call, e.g. `{Authorization: 'Bearer <OPEN_BUTTON_TOKEN>'}` for Vast's proxy. */
  headers?: Record<string, string>;
  /** Default timeout of short calls, in ms. */
  timeoutMs?: number;
  /** Injected fetch (tests, custom undici dispatcher). */
  fetch?: FetchFn;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ModelShowInfo {
  model: string;
  capabilities: string[];
  supports_tools: boolean;
  /** `<arch>.context_length` from model_info: the trained maximum, not the loaded window. */
  context_length: number | null;
  architecture: string | null;
  family: string | null;
  parameter_size: string | null;
  quantization: string | null;
}

export interface PullProgress {
  status: string;
  digest?: string;
  completed?: number;
  total?: number;
  /** 0–100, when the line has both `total` and `completed`. */
  percent?: number;
}

export interface LoadOptions extends CallOptions {
  keepAlive?: string | number;
}

interface InternalCall extends CallOptions {
  timeoutMode?: 'deadline' | 'idle';
  onSend?: (() => void) | undefined;
  deadlineMs?: number | undefined;
  maxResponseBytes?: number | undefined;
}

export class LlmServerClient implements LlmChat, LlmBackend {
  readonly api = 'ollama' as const;
  /** Normalised URL without credentials: safe to show, log and store. */
  readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly baseFetch: FetchFn;

  constructor(options: LlmServerClientOptions) {
    const { url, authorization } = splitBackendCredentials(normaliseBackendUrl(options.baseUrl));
    this.baseUrl = url;
    const explicitAuth = Object.keys(options.headers ?? {}).some((k) => k.toLowerCase() === 'authorization');
    this.headers = { ...(authorization && !explicitAuth ? { Authorization: authorization } : {}), ...options.headers };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.baseFetch = options.fetch ?? globalThis.fetch;
  }

  wire(): BackendWire {
    const url = new URL(this.baseUrl);
    return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, ''), headers: { ...this.headers } };
  }

  isModel(listed: string, asked: string): boolean {
    return sameModel(listed, asked);
  }

  /** A small request (GET /api/version): the network's round trip. */
  async ping(options: BackendCallOptions = {}): Promise<void> {
    await this.version(options);
  }

  /** The model's context (/api/show), tool support and digest (/api/tags). */
  async describeModel(model: string, options: BackendCallOptions = {}): Promise<ModelFacts> {
    const [info, models] = await Promise.all([this.show(model, options), this.listModels(options)]);
    const digest = models.find((m) => sameModel(m.name, model))?.digest ?? null;
    return { context_length: info.context_length, digest, supports_tools: info.supports_tools, engine: 'ollama' };
  }

  /** GET /api/version → "0.15.2". Also a cheap reachability probe. */
  async version(options: CallOptions = {}): Promise<string> {
    const data = await this.call('GET /api/version', options, (o) => o.version());
    return this.parse(OllamaVersionSchema, data, 'GET /api/version').version;
  }

  /** GET /api/tags → installed models, sorted by name. */
  async listModels(options: CallOptions = {}): Promise<ModelEntry[]> {
    const data = await this.call('GET /api/tags', options, (o) => o.list());
    const { models } = this.parse(OllamaTagsResponseSchema, data, 'GET /api/tags');
    return models.map(tagsModelToEntry).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** GET /api/ps → loaded models (longest remaining keep-alive first, as the server orders them). */
  async runningModels(options: CallOptions = {}): Promise<ModelEntry[]> {
    const data = await this.call('GET /api/ps', options, (o) => o.ps());
    return this.parse(OllamaPsResponseSchema, data, 'GET /api/ps').models.map(psModelToEntry);
  }

  /** POST /api/show → capabilities (tool support) and context length. */
  async show(model: string, options: CallOptions = {}): Promise<ModelShowInfo> {
    const data = await this.call('POST /api/show', options, (o) => o.show({ model }));
    const show = this.parse(OllamaShowResponseSchema, data, 'POST /api/show');
    const info = show.model_info ?? {};
    const arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : null;
    const capabilities = show.capabilities ?? [];
    return {
      model,
      capabilities,
      // Servers before `capabilities` existed decided tool support from the template.
      supports_tools: show.capabilities ? capabilities.includes('tools') : (show.template ?? '').includes('.Tools'),
      context_length: contextLength(info, arch),
      architecture: arch,
      family: show.details?.family || null,
      parameter_size: show.details?.parameter_size || null,
      quantization: show.details?.quantization_level || null,
    };
  }

  /**
   * POST /api/pull, streamed. Resolves on `{"status":"success"}`; an in-stream `{"error"}` line or
   * a stream that ends without success rejects with LlmStreamError. `idleTimeoutMs` bounds the
   * silence between progress lines, not the whole download.
   */
  async pull(
    model: string,
    onProgress?: (progress: PullProgress) => void,
    signal?: AbortSignal,
    options: { idleTimeoutMs?: number } = {},
  ): Promise<void> {
    const endpoint = 'POST /api/pull';
    const call: InternalCall = { signal, timeoutMs: options.idleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS, timeoutMode: 'idle', maxResponseBytes: STREAM_LIMITS.pullResponseBytes };
    await this.call(endpoint, call, async (o) => {
      const stream = await o.pull({ model, stream: true });
      let succeeded = false;
      for await (const raw of this.streamParts(stream, endpoint)) {
        const line = this.parse(OllamaProgressSchema, raw, endpoint);
        if (line.status === 'success') succeeded = true;
        onProgress?.(toProgress(line));
      }
      if (!succeeded) throw new LlmStreamError(this.baseUrl, endpoint, 'incomplete', 'no success line');
    });
  }

  /** Loads a model: POST /api/generate with an empty prompt and `keep_alive` (default "30m"). */
  async load(model: string, options: LoadOptions = {}): Promise<OllamaGenerateResponse> {
    const endpoint = 'POST /api/generate';
    const call: InternalCall = { ...options, timeoutMs: options.timeoutMs ?? DEFAULT_LONG_CALL_TIMEOUT_MS };
    const data = await this.call(endpoint, call, (o) =>
      o.generate({ model, prompt: '', keep_alive: options.keepAlive ?? '30m', stream: false }),
    );
    return this.parse(OllamaGenerateResponseSchema, data, endpoint);
  }

  /**
   * Loads the model and waits until /api/ps lists it, within `timeoutMs` overall. Other loaded
   * models are left alone: the server may be shared, and Ollama evicts idle models itself when
   * it needs the memory.
   */
  warmup(model: string, options: WarmupOptions = {}): Promise<WarmupResult> {
    return warmupModel(this, model, options);
  }

  /** Unloads a model now: POST /api/generate with `keep_alive: 0`. */
  async unload(model: string, options: CallOptions = {}): Promise<void> {
    const endpoint = 'POST /api/generate';
    const data = await this.call(endpoint, options, (o) => o.generate({ model, prompt: '', keep_alive: 0, stream: false }));
    this.parse(OllamaGenerateResponseSchema, data, endpoint);
  }

  /** POST /api/chat, streamed by default (see ChatRequest.stream). */
  async chat(request: ChatRequest): Promise<ChatResult> {
    const endpoint = 'POST /api/chat';
    const stream = request.stream ?? true;
    const call: InternalCall = {
      signal: request.signal,
      timeoutMs: request.timeoutMs ?? (stream ? DEFAULT_STREAM_IDLE_TIMEOUT_MS : DEFAULT_LONG_CALL_TIMEOUT_MS),
      timeoutMode: stream ? 'idle' : 'deadline',
      onSend: request.onSend,
      deadlineMs: request.deadlineMs ?? (stream ? DEFAULT_TURN_DEADLINE_MS : undefined),
      maxResponseBytes: STREAM_LIMITS.chatResponseBytes,
    };
    const body = {
      model: request.model,
      messages: request.messages.map(toWireMessage),
      ...(request.tools?.length ? { tools: request.tools } : {}),
      ...(request.options ? { options: request.options } : {}),
      ...(request.keepAlive !== undefined ? { keep_alive: request.keepAlive } : {}),
      ...(request.think !== undefined ? { think: request.think } : {}),
    };
    return this.call(endpoint, call, async (o) => {
      const acc = new ChatAccumulator();
      if (!stream) {
        const data = await o.chat({ ...body, stream: false });
        acc.add(this.parse(OllamaChatResponseSchema, data, endpoint));
      } else {
        const parts = await o.chat({ ...body, stream: true });
        for await (const raw of this.streamParts(parts, endpoint)) {
          const delta = acc.add(this.parse(OllamaChatResponseSchema, raw, endpoint));
          if (request.onDelta && (delta.content || delta.thinking)) request.onDelta(delta);
        }
      }
      if (!acc.isDone) throw new LlmStreamError(this.baseUrl, endpoint, 'incomplete', 'no done chunk');
      return acc.result();
    });
  }

  /** Runs one ollama-js call with its own fetch (signal + timeout) and typed errors. */
  private async call<T>(endpoint: string, options: InternalCall, run: (ollama: Ollama) => Promise<T>): Promise<T> {
    const { fetch, release } = createCallFetch({
      baseFetch: this.baseFetch,
      serverUrl: this.baseUrl,
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? this.timeoutMs,
      timeoutMode: options.timeoutMode ?? 'deadline',
      onSend: options.onSend,
      deadlineMs: options.deadlineMs,
      maxResponseBytes: options.maxResponseBytes,
      api: 'ollama',
    });
    // One ollama-js instance per call: its fetch is where the per-call signal lives. Construction
    // only formats the host, so this costs nothing.
    const ollama = new Ollama({ host: this.baseUrl, headers: this.headers, fetch });
    try {
      return await run(ollama);
    } catch (error) {
      if (error instanceof LlmError) throw error;
      if (error instanceof SyntaxError) throw new LlmResponseShapeError(this.baseUrl, endpoint, `not JSON (${error.message})`);
      throw error;
    } finally {
      release();
    }
  }

  /**
   * Iterates an ollama-js stream, turning its untyped failures into ours: it throws a bare
   * `Error(line.error)` for an in-stream error line and a fixed message when the body ends early.
   */
  private async *streamParts(parts: AsyncIterable<unknown>, endpoint: string): AsyncGenerator<unknown> {
    try {
      for await (const part of parts) yield part;
    } catch (error) {
      if (error instanceof LlmError) throw error;
      if (error instanceof Error && error.message.startsWith('Did not receive done or success')) {
        throw new LlmStreamError(this.baseUrl, endpoint, 'incomplete', error.message);
      }
      if (error instanceof Error && error.constructor === Error) {
        throw new LlmStreamError(this.baseUrl, endpoint, 'error_line', error.message);
      }
      throw transportError(error, this.baseUrl, endpoint);
    }
  }

  private parse<S extends z.ZodType>(schema: S, data: unknown, endpoint: string): z.output<S> {
    const result = schema.safeParse(data);
    if (!result.success) throw new LlmResponseShapeError(this.baseUrl, endpoint, z.prettifyError(result.error));
    return result.data;
  }
}

function contextLength(info: Record<string, unknown>, arch: string | null): number | null {
  const preferred = arch ? info[`${arch}.context_length`] : undefined;
  if (typeof preferred === 'number') return preferred;
  for (const [key, value] of Object.entries(info)) {
    if ((key === 'context_length' || key.endsWith('.context_length')) && typeof value === 'number') return value;
  }
  return null;
}

function toProgress(line: z.output<typeof OllamaProgressSchema>): PullProgress {
  const progress: PullProgress = { status: line.status };
  if (line.digest) progress.digest = line.digest;
  if (typeof line.total === 'number') progress.total = line.total;
  if (typeof line.completed === 'number') progress.completed = line.completed;
  if (progress.total && progress.completed !== undefined) {
    progress.percent = Math.min(100, Math.round((progress.completed / progress.total) * 1000) / 10);
  }
  return progress;
}
