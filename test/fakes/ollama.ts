/**
 * Fake Ollama server (reference external-apis.md §B and §E.B), for tests of the llmserver client,
 * the engine and the agents. Plain node:http on 127.0.0.1:0; every request is recorded.
 *
 *   const fake = await startFakeOllama({ scripts: { 'llama3.1:8b': [
 *     { tool_calls: [{ name: 'list_pods', arguments: { namespace: 'default' } }] },
 *     { content: 'The pod web-7d9 is crashlooping because ...' },
 *   ] } });
 *   ... new LlmServerClient({ baseUrl: fake.url }) ...
 *   await fake.close();
 *
 * Options (all optional):
 * - `models`: FakeModelSeed[] installed (listed by /api/tags). Default: DEFAULT_FAKE_MODELS
 *   (llama3.1:8b and qwen2.5:7b with tools, gemma:2b and tinyllama without).
 * - `registry`: extra FakeModelSeed[] that /api/pull can fetch. Default: DEFAULT_REGISTRY_MODELS
 *   (qwen3:0.6b). Installed models can be pulled again.
 * - `scripts: Record<modelName, ChatTurn[]>`: scripted /api/chat conversations. A ChatTurn is
 *   `{ tool_calls: [{ name, arguments }] }` or `{ content }`. The turn answered is the number of
 *   `role:"assistant"` messages already in the request (turn 0 for the first question), so one
 *   script serves every conversation. For each earlier assistant turn with tool calls, the fake
 *   checks that a `role:"tool"` message came back per call (matching `tool_name` when given);
 *   otherwise, or when the script has no such turn, it answers 400/500 `{"error":"fake ollama: ..."}`
 *   and appends the reason to `state.violations`. Keys match like Ollama (`x` ≡ `x:latest`).
 *   A model without a script answers a canned text. A content turn's `by_question` answers by the
 *   first user message (one script, a different answer per question: suites).
 * - `now: () => number`: clock in ms for keep_alive expiry in /api/ps (see createManualClock).
 * - `version`: /api/version answer (default "0.15.2").
 * - `knobs`: initial FakeOllamaKnobs; change them later with `setKnobs`.
 *
 * Serving mode (knob `serving`): a backend of known timing for the serving benchmark. A streamed
 * /api/chat answers `options.num_predict` tokens (default 128), one per chunk: the first F ms
 * after the request arrived (or after it got one of `parallel` slots), then one every G ms. Token
 * i is due at start + F + i·G on performance.now(): a late timer writes every token already due,
 * so lateness never accumulates. The final chunk has eval_count = tokens, eval_duration = tokens ×
 * G (ns), prompt_eval_count ≈ prompt characters / 4 and prompt_eval_duration = F.
 *
 * With `stopAfterTokens` the model stops early (done_reason "stop" after that many tokens: Ollama
 * has no ignore-EOS), and a prompt longer than the context window (options.num_ctx, else
 * `runningContextLength`, at most the model's own context) is cut as Ollama cuts it: the final
 * chunk's prompt_eval_count is the window. The chat route lives in ollama-chat.ts.
 *
 * Failure knobs cover: load latency, slow first byte, 503 queue full, mid-stream error lines,
 * backends that would bloat a client (chatFailure / pullFailure `stream_forever`, `no_newlines`,
 * `never_answer`),
 * streams without done/success, pull errors, partial GPU offload (size_vram < size), delayed
 * visibility in /api/ps, and a Vast "Caddy" proxy that wants `Authorization: Bearer <token>`
 * (or Basic vastai:<token>) and otherwise answers 401 `WWW-Authenticate: Basic realm="restricted"`
 * with a plain-text body. Unknown request fields are ignored, as Ollama does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { asRecord, sendJson, sendText, sleep, startRecordingServer, type Json, type RecordedCall, type RecordedRoute } from './http-util';
import type { Misbehaviour } from './misbehave';
import { createChatRoute } from './ollama-chat';
import { createModelRoutes } from './ollama-models';
import {
  COLD_LOAD_NS,
  DEFAULT_FAKE_MODELS,
  DEFAULT_REGISTRY_MODELS,
  FOREVER_MS,
  canonicalName,
  toModel,
  type FakeModel,
  type FakeModelSeed,
  type LoadedModel,
} from './ollama-helpers';
import type { FakeServingTiming } from './serving-timing';

export { DEFAULT_FAKE_MODELS, DEFAULT_REGISTRY_MODELS, canonicalName, parseKeepAlive, type FakeModel, type FakeModelSeed, type LoadedModel } from './ollama-helpers';
export type { FakeServingTiming } from './serving-timing';
export type { RecordedCall } from './http-util';

export type ChatTurn =
  | { tool_calls: { name: string; arguments: Record<string, unknown> }[] }
  /** `by_question`: the content for a conversation whose first user message contains the key (first key found wins); else `content`. */
  | { content: string; by_question?: Record<string, string> };


export interface FakeOllamaKnobs {
  /** Delay before a cold model counts as loaded (load requests and first use). */
  loadLatencyMs: number;
  /** Delay before the first byte of a generate/chat answer with a prompt. */
  firstByteDelayMs: number;
  /** Delay between /api/pull progress lines. */
  pullLineDelayMs: number;
  /** Non-null: after a few progress lines, /api/pull writes `{"error": <this>}` and ends (status 200). */
  pullMidStreamError: string | null;
  /** /api/pull ends without the `success` line. */
  pullNoSuccess: boolean;
  /** /api/chat failure mode for answers with messages. */
  chatFailure: 'none' | 'queue_full' | 'mid_stream_error' | 'no_done' | Misbehaviour;
  /** Non-null: /api/pull misbehaves this way (a client must cap what it reads). */
  pullFailure: Misbehaviour | null;
  /** A freshly loaded model shows in /api/ps only after this many /api/ps calls. */
  psHiddenPolls: number;
  /** size_vram = size × this (below 1 = partly offloaded to CPU). */
  sizeVramRatio: number;
  /** /api/ps context_length of loaded models. */
  runningContextLength: number;
  /** Non-null: emulate Vast's Caddy proxy requiring this token. */
  proxyToken: string | null;
  /** Non-null: streamed chats answer with this known timing (see "Serving mode" above). */
  serving: FakeServingTiming | null;
}





export interface FakeOllamaState {
  /** Installed models by canonical name. */
  installed: Map<string, FakeModel>;
  /** Pullable models by canonical name. */
  registry: Map<string, FakeModel>;
  /** Loaded models by canonical name (expired ones are pruned on access). */
  loaded: Map<string, LoadedModel>;
  /** Script misuse seen by /api/chat (missing tool results, script exhausted). */
  violations: string[];
  /** Serving mode: per request, how late its first token was written against its schedule (ms; timers and CPU). */
  servingLateness: number[];
  knobs: FakeOllamaKnobs;
}

export interface FakeOllamaOptions {
  models?: FakeModelSeed[];
  registry?: FakeModelSeed[];
  scripts?: Record<string, ChatTurn[]>;
  now?: () => number;
  version?: string;
  knobs?: Partial<FakeOllamaKnobs>;
}

export interface FakeOllama {
  url: string;
  calls: RecordedCall[];
  state: FakeOllamaState;
  setKnobs(knobs: Partial<FakeOllamaKnobs>): void;
  /** Calls to one path, e.g. `callsTo('/api/chat')`. */
  callsTo(path: string): RecordedCall[];
  close(): Promise<void>;
}



const DEFAULT_KNOBS: FakeOllamaKnobs = {
  loadLatencyMs: 0,
  firstByteDelayMs: 0,
  pullLineDelayMs: 0,
  pullMidStreamError: null,
  pullNoSuccess: false,
  chatFailure: 'none',
  pullFailure: null,
  psHiddenPolls: 0,
  sizeVramRatio: 1,
  runningContextLength: 4096,
  proxyToken: null,
  serving: null,
};

/** A clock tests can move by hand, for keep_alive expiry. */
export function createManualClock(start = Date.parse('2026-01-15T12:00:00Z')): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const now = options.now ?? Date.now;
  const version = options.version ?? '0.15.2';
  const scripts = new Map(Object.entries(options.scripts ?? {}).map(([name, turns]) => [canonicalName(name), turns]));
  const state: FakeOllamaState = {
    installed: new Map((options.models ?? DEFAULT_FAKE_MODELS).map((s) => { const m = toModel(s); return [canonicalName(m.name), m]; })),
    registry: new Map((options.registry ?? DEFAULT_REGISTRY_MODELS).map((s) => { const m = toModel(s); return [canonicalName(m.name), m]; })),
    loaded: new Map(),
    violations: [],
    servingLateness: [],
    knobs: { ...DEFAULT_KNOBS, ...options.knobs },
  };

  const pruneExpired = () => {
    for (const [key, entry] of state.loaded) if (entry.expiresAt <= now()) state.loaded.delete(key);
  };

  /** Loads (or refreshes) a model; pays the load latency when it was not loaded. */
  const ensureLoaded = async (model: FakeModel, keepAliveMs: number, signal: AbortSignal): Promise<LoadedModel> => {
    pruneExpired();
    const key = canonicalName(model.name);
    let entry = state.loaded.get(key);
    if (!entry) {
      await sleep(state.knobs.loadLatencyMs, signal);
      entry = { model, expiresAt: 0, coldStart: true, hiddenPolls: state.knobs.psHiddenPolls };
      state.loaded.set(key, entry);
    }
    entry.expiresAt = keepAliveMs < 0 ? now() + FOREVER_MS : now() + keepAliveMs;
    return entry;
  };

  const unload = (model: FakeModel) => void state.loaded.delete(canonicalName(model.name));

  /** The metrics block of a final answer; load_duration only on the first use after a load. */
  const metrics = (entry: LoadedModel, promptTokens: number, evalTokens: number) => {
    const prompt_eval_duration = promptTokens * 1_900_000;
    const eval_duration = evalTokens * 21_000_000;
    const load = entry.coldStart ? COLD_LOAD_NS : 0;
    entry.coldStart = false;
    return {
      total_duration: load + prompt_eval_duration + eval_duration + 3_100_000,
      ...(load ? { load_duration: load } : {}),
      prompt_eval_count: promptTokens,
      prompt_eval_duration,
      eval_count: evalTokens,
      eval_duration,
    };
  };

  const lookup = (body: Json): { requested: string; model: FakeModel | undefined } | undefined => {
    const requested = typeof body.model === 'string' && body.model !== '' ? body.model : typeof body.name === 'string' ? body.name : '';
    if (requested === '') return undefined;
    return { requested, model: state.installed.get(canonicalName(requested)) };
  };

  const notFound = (res: ServerResponse, requested: string) => sendJson(res, 404, { error: `model '${requested}' not found` });

  // ---- routes -------------------------------------------------------------------------------

  const { tags, ps, show, pull, generate } = createModelRoutes({ state, now, lookup, notFound, ensureLoaded, unload, metrics, pruneExpired });

  const chat = createChatRoute({ state, scripts, now, ensureLoaded, unload, metrics, lookup, notFound });

  // ---- plumbing -------------------------------------------------------------------------------

  const authorised = (req: IncomingMessage): boolean => {
    const token = state.knobs.proxyToken;
    if (token === null) return true;
    const header = req.headers.authorization ?? '';
    return header === `Bearer ${token}` || header === `Basic ${Buffer.from(`vastai:${token}`).toString('base64')}`;
  };

  const route: RecordedRoute = async (req, res, path, body, arrived, signal) => {
    if (!authorised(req)) return sendText(res, 401, 'Unauthorized\n', { 'WWW-Authenticate': 'Basic realm="restricted"' });
    const method = req.method ?? 'GET';
    const get = method === 'GET' || method === 'HEAD';
    const routes: Record<string, 'GET' | 'POST'> = {
      '/': 'GET', '/api/version': 'GET', '/api/tags': 'GET', '/api/ps': 'GET',
      '/api/show': 'POST', '/api/pull': 'POST', '/api/generate': 'POST', '/api/chat': 'POST',
    };
    const want = routes[path];
    if (!want) return sendText(res, 404, '404 page not found');
    if ((want === 'GET' && !get) || (want === 'POST' && method !== 'POST')) return sendText(res, 405, '405 method not allowed');
    if (path === '/') return sendText(res, 200, 'Ollama is running');
    if (path === '/api/version') return sendJson(res, 200, { version });
    if (path === '/api/tags') return tags(res);
    if (path === '/api/ps') return ps(res);

    if (body === undefined) return sendJson(res, 400, { error: 'missing request body' });
    if (typeof body === 'string') return sendJson(res, 400, { error: 'invalid character in request body' });
    const json = asRecord(body);
    if (path === '/api/show') return show(res, json);
    if (path === '/api/pull') return pull(res, json, signal);
    if (path === '/api/generate') return generate(res, json, signal);
    return chat(res, json, arrived, signal);
  };

  const server = await startRecordingServer({ now, route, errorBody: (message) => ({ error: `fake ollama: ${message}` }) });

  return {
    url: server.url,
    calls: server.calls,
    state,
    setKnobs: (knobs) => void Object.assign(state.knobs, knobs),
    callsTo: (path) => server.calls.filter((c) => c.path === path),
    close: server.close,
  };
}
