import type { SpokenBackendApi } from '../../shared/backend-api';
import type { ModelEntry } from '../../shared/models';
import type { LlmChat } from './chat-types';
import type { WarmupOptions, WarmupResult } from './warmup';

/**
 * One llmserver, whatever API it speaks (design §13b): the port the workflows, the agent and the
 * serving benchmark code against, so none of them branches on Ollama vs OpenAI. LlmServerClient
 * implements it over Ollama's /api/*, OpenAiClient over an OpenAI-compatible /v1/*; openBackend()
 * picks one (detecting the API for `auto`).
 */

export interface BackendCallOptions {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

/** What benchdesk needs to know of a model before using it; null where the server does not say. */
export interface ModelFacts {
  /** The longest context the server runs the model with: Ollama's trained context (/api/show), vLLM's max_model_len. */
  context_length: number | null;
  /** Ollama's digest of the weights (/api/tags). */
  digest: string | null;
  supports_tools: boolean | null;
  /** Which engine serves it, where the server says: `ollama`, or an OpenAI server's `owned_by` (`vllm`, `sglang`, `llamacpp`…). */
  engine: string | null;
}

/** How the serving benchmark's own client reaches the server: origin, path prefix, and the headers every request carries (credentials). */
export interface BackendWire {
  origin: string;
  /** A reverse proxy's path prefix (`/ollama`), or ''. */
  prefix: string;
  headers: Record<string, string>;
}

export interface LlmBackend extends LlmChat {
  readonly api: SpokenBackendApi;
  /** Normalised, without credentials: safe to show and store. */
  readonly baseUrl: string;
  /** The server's version (Ollama /api/version, vLLM /version); null when the engine does not say. */
  version(options?: BackendCallOptions): Promise<string | null>;
  /** Installed models (Ollama), or the models the server serves (OpenAI). */
  listModels(options?: BackendCallOptions): Promise<ModelEntry[]>;
  /** Loaded models (Ollama /api/ps); an OpenAI-compatible server serves what it lists. */
  runningModels(options?: BackendCallOptions): Promise<ModelEntry[]>;
  describeModel(model: string, options?: BackendCallOptions): Promise<ModelFacts>;
  /** Whether `name` (as the server lists it) is the model asked for: Ollama implies `:latest`, OpenAI ids are exact. */
  isModel(listed: string, asked: string): boolean;
  /** Loads the model and waits until it serves: Ollama loads it and polls /api/ps; an OpenAI server must list it. */
  warmup(model: string, options?: WarmupOptions): Promise<WarmupResult>;
  /** One small request: the network round trip (the serving benchmark's `network_rtt_ms`). */
  ping(options?: BackendCallOptions): Promise<void>;
  wire(): BackendWire;
}
