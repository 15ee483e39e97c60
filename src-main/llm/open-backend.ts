import type { BackendApi, SpokenBackendApi } from '../../shared/backend-api';
import type { LlmBackend } from './backend-port';
import type { FetchFn } from './call-fetch';
import { LlmAbortedError, LlmError, LlmServerAuthError, LlmServerUnreachableError } from './errors';
import { LlmServerClient } from './llmserver-client';
import { OpenAiClient } from './openai-client';

/**
 * The one place that turns "an llmserver URL and the API it speaks" into a client (design §13b).
 * `auto` asks `GET /api/version` (Ollama answers) and then `GET /v1/models` (an OpenAI-compatible
 * server answers, or refuses without its key). A rented OpenAI server plugs in here with
 * `api: "openai"` and its port's URL; OpenAiClient.waitUntilServing is its readiness check.
 */

export interface BackendTarget {
  /** As the user gave it (credentials in userinfo are split off into a header). */
  backendUrl: string;
  /** Extra headers on every call (a rented machine's proxy token). */
  headers?: Record<string, string> | undefined;
  api?: BackendApi | undefined;
  /** An OpenAI-compatible server's key (Bearer). */
  apiKey?: string | undefined;
}

export interface OpenBackendOptions {
  signal?: AbortSignal | undefined;
  /** Bound of each detection request (default 10 s). */
  timeoutMs?: number | undefined;
  fetch?: FetchFn | undefined;
}

const DETECT_TIMEOUT_MS = 10_000;

/** A client for a known API (no network). */
export function backendClient(target: BackendTarget, api: SpokenBackendApi, fetch?: FetchFn): LlmBackend {
  const common = { baseUrl: target.backendUrl, ...(target.headers ? { headers: target.headers } : {}), ...(fetch ? { fetch } : {}) };
  return api === 'openai' ? new OpenAiClient({ ...common, apiKey: target.apiKey }) : new LlmServerClient(common);
}

/**
 * Which API the server speaks. Ollama's /api/version first (Ollama serves /v1 too, and its own
 * API says more); then /v1/models. An OpenAI server that refuses /v1/models without a key is
 * OpenAI-compatible all the same: the auth error is thrown when there is no key to send.
 */
export async function detectBackendApi(target: BackendTarget, options: OpenBackendOptions = {}): Promise<SpokenBackendApi> {
  const call = { signal: options.signal, timeoutMs: options.timeoutMs ?? DETECT_TIMEOUT_MS };
  const ollama = backendClient(target, 'ollama', options.fetch);
  let ollamaFailure: unknown;
  try {
    await ollama.version(call);
    return 'ollama';
  } catch (error) {
    if (error instanceof LlmAbortedError || (error instanceof LlmServerUnreachableError && error.reason !== 'timeout')) throw error;
    ollamaFailure = error;
  }
  const openai = backendClient(target, 'openai', options.fetch);
  try {
    await openai.listModels(call);
    return 'openai';
  } catch (error) {
    if (error instanceof LlmServerAuthError) {
      if (target.apiKey === undefined && ollamaFailure instanceof LlmServerAuthError && ollamaFailure.who === 'proxy') throw ollamaFailure;
      throw error;
    }
    if (error instanceof LlmAbortedError) throw error;
    const why = (e: unknown) => (e instanceof LlmError || e instanceof Error ? e.message : String(e));
    throw new LlmServerUnreachableError(
      ollama.baseUrl,
      'network',
      `neither Ollama (GET /api/version: ${why(ollamaFailure)}) nor an OpenAI-compatible server (GET /v1/models: ${why(error)}) answered; set backend_api if the server speaks one of them`,
    );
  }
}

/** The client for `target`, detecting its API when it is `auto` (or not given). */
export async function openBackend(target: BackendTarget, options: OpenBackendOptions = {}): Promise<LlmBackend> {
  const api = target.api === 'ollama' || target.api === 'openai' ? target.api : await detectBackendApi(target, options);
  return backendClient(target, api, options.fetch);
}
