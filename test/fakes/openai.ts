/**
 * Fake OpenAI-compatible server shaped like vLLM's (`vllm serve`, reference external-apis.md
 * §F.4), for tests of the OpenAI client, the serving benchmark and the built-in agent's tool
 * calls. Plain node:http on 127.0.0.1:0; every request is recorded.
 *
 *   const fake = await startFakeOpenAi({ models: [{ id: 'Qwen/Qwen2.5-7B-Instruct', max_model_len: 4096 }],
 *     knobs: { serving: { firstTokenMs: 40, tokenIntervalMs: 5, parallel: 8 } } });
 *
 * Routes: `GET /health` (200, empty), `GET /version`, `GET /v1/models` (with `max_model_len`,
 * `owned_by: "vllm"`), `POST /v1/chat/completions` and `POST /v1/completions` (openai-chat.ts).
 * Streams are SSE: a role-only first chunk (sent when the request gets its slot, before the
 * first token, so a client that counted it as the first token would be caught), one chunk per
 * token, the last one with `finish_reason`, the usage chunk with `include_usage`, `data: [DONE]`.
 *
 * Knobs: `serving` (known timing with FIFO slots; `stopAfterTokens` makes the model stop early
 * unless the request sends `ignore_eos`, and `min_tokens` holds it longer), `apiKey` (as
 * `--api-key`: /v1/* answers 401 `{"error":"Unauthorized"}` without `Authorization: Bearer <key>`),
 * `autoToolChoice` (false: tools answer vLLM's 400), `startingRequests` (vLLM still loading behind
 * Vast's proxy: 502), `failure` (a backend that would bloat a
 * client: `stream_forever`, `no_newlines`, `never_answer`). Scripts are the fake Ollama's
 * ChatTurn lists, answered by turn (the number of assistant messages so far), with each tool call's
 * result checked by its `tool_call_id`.
 */
import { asRecord, sendJson, startRecordingServer, type RecordedCall, type RecordedRoute } from './http-util';
import type { Misbehaviour } from './misbehave';
import type { ChatTurn } from './ollama';
import { createGenerationRoutes } from './openai-chat';
import type { FakeServingTiming } from './serving-timing';

export interface FakeOpenAiModel {
  id: string;
  /** vLLM's --max-model-len (default 4096). */
  max_model_len: number;
  /** Whether the server parses tool calls for it (default true). */
  tools: boolean;
}

export interface FakeOpenAiKnobs {
  serving: FakeServingTiming | null;
  apiKey: string | null;
  autoToolChoice: boolean;
  failure: 'none' | Misbehaviour;
  /**
   * vLLM starting on a rented machine: it listens only once the model is loaded, so until then
   * Vast's proxy in front of the port answers 502 (plain text). The next this-many requests get
   * that 502 (default 0: serving).
   */
  startingRequests: number;
}

export interface FakeOpenAiState {
  knobs: FakeOpenAiKnobs;
  servingLateness: number[];
  violations: string[];
  toolCallSeq: number;
}

export interface FakeOpenAiOptions {
  models?: { id: string; max_model_len?: number; tools?: boolean }[];
  scripts?: Record<string, ChatTurn[]>;
  knobs?: Partial<FakeOpenAiKnobs>;
  version?: string;
  /** `owned_by` of the models (vLLM: "vllm"). */
  ownedBy?: string;
}

export interface FakeOpenAi {
  url: string;
  calls: RecordedCall[];
  state: FakeOpenAiState;
  setKnobs(knobs: Partial<FakeOpenAiKnobs>): void;
  callsTo(path: string): RecordedCall[];
  close(): Promise<void>;
}

export const DEFAULT_OPENAI_MODELS: NonNullable<FakeOpenAiOptions['models']> = [{ id: 'Qwen/Qwen2.5-7B-Instruct', max_model_len: 4096 }];

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const models = new Map<string, FakeOpenAiModel>((options.models ?? DEFAULT_OPENAI_MODELS).map((m) => [m.id, { id: m.id, max_model_len: m.max_model_len ?? 4096, tools: m.tools ?? true }]));
  const state: FakeOpenAiState = {
    knobs: { serving: null, apiKey: null, autoToolChoice: true, failure: 'none', startingRequests: 0, ...options.knobs },
    servingLateness: [],
    violations: [],
    toolCallSeq: 0,
  };
  const generate = createGenerationRoutes(state, models, new Map(Object.entries(options.scripts ?? {})));
  const ownedBy = options.ownedBy ?? 'vllm';

  const route: RecordedRoute = async (req, res, path, body, arrived, signal) => {
    const method = req.method ?? 'GET';
    if (state.knobs.startingRequests > 0) {
      state.knobs.startingRequests--;
      res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' });
      return res.end('502 Bad Gateway');
    }
    if (path === '/health' && method === 'GET') {
      res.writeHead(200, { 'Content-Length': 0 });
      return res.end();
    }
    if (path === '/version' && method === 'GET') return sendJson(res, 200, { version: options.version ?? '0.11.0' });
    if (path.startsWith('/v1/') && state.knobs.apiKey !== null && req.headers.authorization !== `Bearer ${state.knobs.apiKey}`) return sendJson(res, 401, { error: 'Unauthorized' });
    if (path === '/v1/models' && method === 'GET') {
      const created = Math.floor(Date.now() / 1000);
      return sendJson(res, 200, { object: 'list', data: [...models.values()].map((m) => ({ id: m.id, object: 'model', created, owned_by: ownedBy, root: m.id, parent: null, max_model_len: m.max_model_len, permission: [] })) });
    }
    if ((path === '/v1/chat/completions' || path === '/v1/completions') && method === 'POST') {
      if (typeof body !== 'object' || body === null) return sendJson(res, 400, { object: 'error', message: 'Expecting value: line 1 column 1 (char 0)', type: 'BadRequestError', param: null, code: 400 });
      return generate(res, asRecord(body), path === '/v1/completions', arrived, signal);
    }
    return sendJson(res, 404, { detail: 'Not Found' });
  };

  const server = await startRecordingServer({ now: Date.now, route, errorBody: (message) => ({ object: 'error', message: `fake openai: ${message}`, type: 'InternalServerError', param: null, code: 500 }) });
  return {
    url: server.url,
    calls: server.calls,
    state,
    setKnobs: (knobs) => void Object.assign(state.knobs, knobs),
    callsTo: (path) => server.calls.filter((c) => c.path === path),
    close: server.close,
  };
}
