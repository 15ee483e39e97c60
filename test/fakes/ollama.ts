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
 * Failure knobs cover: load latency, slow first byte, 503 queue full, mid-stream error lines,
 * streams without done/success, pull errors, partial GPU offload (size_vram < size), delayed
 * visibility in /api/ps, and a Vast "Caddy" proxy that wants `Authorization: Bearer <token>`
 * (or Basic vastai:<token>) and otherwise answers 401 `WWW-Authenticate: Basic realm="restricted"`
 * with a plain-text body. Unknown request fields are ignored, as Ollama does.
 */
import { createHash } from 'node:crypto';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ChatTurn =
  | { tool_calls: { name: string; arguments: Record<string, unknown> }[] }
  /** `by_question`: the content for a conversation whose first user message contains the key (first key found wins); else `content`. */
  | { content: string; by_question?: Record<string, string> };

export interface FakeModelSeed {
  /** As /api/tags lists it; a bare name gets `:latest`. */
  name: string;
  size?: number;
  digest?: string;
  modified_at?: string;
  family?: string;
  parameter_size?: string;
  quantization_level?: string;
  /** model_info `<family>.context_length`. */
  context_length?: number;
  /** Default true. false: capabilities lack "tools" and chat with tools answers 400. */
  tools?: boolean;
}

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
  chatFailure: 'none' | 'queue_full' | 'mid_stream_error' | 'no_done';
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

export interface FakeServingTiming {
  /** F: ms from the start of a request to its first token. */
  firstTokenMs: number;
  /** G: ms between tokens. */
  tokenIntervalMs: number;
  /** Requests served at once (Ollama's OLLAMA_NUM_PARALLEL); the rest wait for a slot. Default: no limit. */
  parallel?: number;
}

export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  /** Set when the answer is finished (or the connection closed). */
  status?: number;
  at: number;
}

export interface FakeModel {
  name: string;
  size: number;
  digest: string;
  modified_at: string;
  family: string;
  parameter_size: string;
  quantization_level: string;
  context_length: number;
  tools: boolean;
}

export interface LoadedModel {
  model: FakeModel;
  /** ms on the fake's clock; Infinity-like for negative keep_alive. */
  expiresAt: number;
  /** The next answer reports load_duration (first use after a load), then omits it. */
  coldStart: boolean;
  hiddenPolls: number;
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

export const DEFAULT_FAKE_MODELS: FakeModelSeed[] = [
  { name: 'llama3.1:8b', size: 4_920_753_328, family: 'llama', parameter_size: '8.0B', quantization_level: 'Q4_K_M', context_length: 131_072, modified_at: '2025-05-04T17:37:44.706015396-07:00' },
  { name: 'qwen2.5:7b', size: 4_683_087_332, family: 'qwen2', parameter_size: '7.6B', quantization_level: 'Q4_K_M', context_length: 32_768, modified_at: '2025-06-11T09:12:03.118273645Z' },
  { name: 'gemma:2b', size: 1_678_456_656, family: 'gemma', parameter_size: '3B', quantization_level: 'Q4_0', context_length: 8192, tools: false, modified_at: '2024-11-02T08:01:55.001223344+01:00' },
  { name: 'tinyllama', size: 637_700_138, family: 'llama', parameter_size: '1B', quantization_level: 'Q4_0', context_length: 2048, tools: false, modified_at: '2024-03-15T10:00:00.5Z' },
];

export const DEFAULT_REGISTRY_MODELS: FakeModelSeed[] = [
  { name: 'qwen3:0.6b', size: 522_653_767, family: 'qwen3', parameter_size: '751.63M', quantization_level: 'Q4_K_M', context_length: 40_960 },
];

const DEFAULT_KNOBS: FakeOllamaKnobs = {
  loadLatencyMs: 0,
  firstByteDelayMs: 0,
  pullLineDelayMs: 0,
  pullMidStreamError: null,
  pullNoSuccess: false,
  chatFailure: 'none',
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

/** Ollama's name matching: case-insensitive, `:latest` implied. */
export function canonicalName(name: string): string {
  const n = name.trim().toLowerCase().replace(/^registry\.ollama\.ai\/library\//, '');
  return n.slice(n.lastIndexOf('/') + 1).includes(':') ? n : `${n}:latest`;
}

const DEFAULT_KEEP_ALIVE_MS = 5 * 60_000;
/** Go's max Duration (~292 years): what a negative keep_alive means. */
const FOREVER_MS = 9_223_372_036_854;
const COLD_LOAD_NS = 2_969_184_542;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function toModel(seed: FakeModelSeed): FakeModel {
  const name = seed.name.includes(':') ? seed.name : `${seed.name}:latest`;
  return {
    name,
    size: seed.size ?? 1_000_000_000,
    digest: seed.digest ?? sha256(name),
    modified_at: seed.modified_at ?? '2025-01-01T00:00:00.000000001Z',
    family: seed.family ?? 'llama',
    parameter_size: seed.parameter_size ?? '1B',
    quantization_level: seed.quantization_level ?? 'Q4_0',
    context_length: seed.context_length ?? 4096,
    tools: seed.tools ?? true,
  };
}

/** RFC 3339 with nanoseconds, as Go formats Ollama's timestamps. */
function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

function details(m: FakeModel) {
  return { parent_model: '', format: 'gguf', family: m.family, families: [m.family], parameter_size: m.parameter_size, quantization_level: m.quantization_level };
}

const DURATION_RE = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h)/;
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** keep_alive as Ollama reads it: seconds as a number, a Go duration string; negative = forever. */
export function parseKeepAlive(value: unknown): number | { error: string } {
  if (value === undefined || value === null) return DEFAULT_KEEP_ALIVE_MS;
  if (typeof value === 'number') return value < 0 ? -1 : value * 1000;
  if (typeof value !== 'string') return { error: `json: cannot unmarshal ${typeof value} into Go struct field .keep_alive` };
  if (value === '0' || value === '-0') return 0;
  let rest = value;
  const negative = rest.startsWith('-');
  if (negative) rest = rest.slice(1);
  let total = 0;
  if (rest === '') return { error: `time: invalid duration "${value}"` };
  while (rest !== '') {
    const match = DURATION_RE.exec(rest);
    if (!match) return { error: `time: invalid duration "${value}"` };
    const [, num, unit] = /^([\d.]+)(.*)$/.exec(match[0]) ?? [];
    total += Number(num) * (UNIT_MS[unit ?? ''] ?? NaN);
    rest = rest.slice(match[0].length);
  }
  if (Number.isNaN(total)) return { error: `time: invalid duration "${value}"` };
  return negative && total > 0 ? -1 : total;
}

class ClientGone extends Error {}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return signal.aborted ? Promise.reject(new ClientGone()) : Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ClientGone());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

function startNdjson(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
}

function writeLine(res: ServerResponse, obj: unknown): void {
  res.write(`${JSON.stringify(obj)}\n`);
}

type Json = Record<string, unknown>;

function asRecord(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function callId(seed: string): string {
  return `call_${sha256(seed).replace(/[^a-z0-9]/g, '').slice(0, 8)}`;
}

function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
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
  const calls: RecordedCall[] = [];
  const closing = new AbortController();

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

  const tags = (res: ServerResponse) =>
    sendJson(res, 200, {
      models: [...state.installed.values()].map((m) => ({ name: m.name, model: m.name, modified_at: m.modified_at, size: m.size, digest: m.digest, details: details(m) })),
    });

  const ps = (res: ServerResponse) => {
    pruneExpired();
    const visible = [...state.loaded.values()].filter((entry) => {
      if (entry.hiddenPolls > 0) {
        entry.hiddenPolls--;
        return false;
      }
      return true;
    });
    visible.sort((a, b) => b.expiresAt - a.expiresAt);
    sendJson(res, 200, {
      models: visible.map(({ model: m, expiresAt }) => {
        const size = Math.round(m.size * 1.35);
        return {
          name: m.name,
          model: m.name,
          size,
          digest: m.digest,
          details: details(m),
          expires_at: rfc3339Nano(expiresAt),
          size_vram: Math.round(size * state.knobs.sizeVramRatio),
          context_length: state.knobs.runningContextLength,
        };
      }),
    });
  };

  const show = (res: ServerResponse, body: Json) => {
    const found = lookup(body);
    if (!found) return sendJson(res, 400, { error: 'model is required' });
    const m = found.model;
    if (!m) return notFound(res, found.requested);
    const template = m.tools
      ? '{{- if .Tools }}<|tools|>{{ range .Tools }}{{ . }}{{ end }}{{ end }}{{ range .Messages }}<|{{ .Role }}|>{{ .Content }}{{ end }}<|assistant|>'
      : '{{ range .Messages }}<|{{ .Role }}|>{{ .Content }}{{ end }}<|assistant|>';
    sendJson(res, 200, {
      license: 'LICENSE AGREEMENT ...',
      modelfile: `# Modelfile generated by "ollama show"\nFROM ${m.name}\nTEMPLATE """${template}"""\nPARAMETER stop <|eot|>\n`,
      parameters: 'stop                           "<|eot|>"',
      template,
      details: details(m),
      model_info: {
        'general.architecture': m.family,
        'general.file_type': 15,
        'general.parameter_count': 8_030_261_248,
        'general.quantization_version': 2,
        [`${m.family}.attention.head_count`]: 32,
        [`${m.family}.block_count`]: 32,
        [`${m.family}.context_length`]: m.context_length,
        [`${m.family}.embedding_length`]: 4096,
        'tokenizer.ggml.model': 'gpt2',
      },
      capabilities: m.tools ? ['completion', 'tools'] : ['completion'],
      modified_at: m.modified_at,
    });
  };

  const pull = async (res: ServerResponse, body: Json, signal: AbortSignal) => {
    const found = lookup(body);
    if (!found) return sendJson(res, 400, { error: 'model is required' });
    const key = canonicalName(found.requested);
    const model = state.registry.get(key) ?? state.installed.get(key);
    if (!model) return sendJson(res, 500, { error: 'pull model manifest: file does not exist' });
    const knobs = state.knobs;
    const layers = [
      { digest: `sha256:${model.digest}`, total: model.size },
      { digest: `sha256:${sha256(`${model.name}/params`)}`, total: 487 },
    ];
    const lines: Json[] = [{ status: 'pulling manifest' }];
    for (const layer of layers) {
      const status = `pulling ${layer.digest.slice(7, 19)}`;
      lines.push({ status, digest: layer.digest, total: layer.total });
      for (const part of [1, 2, 3]) lines.push({ status, digest: layer.digest, total: layer.total, completed: Math.round((layer.total * part) / 3) });
    }
    lines.push({ status: 'verifying sha256 digest' }, { status: 'writing manifest' }, { status: 'removing any unused layers' });
    const failAt = knobs.pullMidStreamError !== null ? 3 : -1;

    if (body.stream === false) {
      await sleep(knobs.pullLineDelayMs * lines.length, signal);
      if (knobs.pullMidStreamError !== null) return sendJson(res, 500, { error: knobs.pullMidStreamError });
      state.installed.set(key, model);
      return sendJson(res, 200, { status: 'success' });
    }
    startNdjson(res);
    for (const [i, line] of lines.entries()) {
      if (i === failAt) {
        writeLine(res, { error: knobs.pullMidStreamError });
        return res.end();
      }
      writeLine(res, line);
      await sleep(knobs.pullLineDelayMs, signal);
    }
    if (knobs.pullNoSuccess) return res.end();
    state.installed.set(key, model);
    writeLine(res, { status: 'success' });
    res.end();
  };

  const generate = async (res: ServerResponse, body: Json, signal: AbortSignal) => {
    const found = lookup(body);
    if (!found) return sendJson(res, 400, { error: 'model is required' });
    const { requested, model } = found;
    if (!model) return notFound(res, requested);
    const keepAlive = parseKeepAlive(body.keep_alive);
    if (typeof keepAlive === 'object') return sendJson(res, 400, { error: keepAlive.error });
    const prompt = typeof body.prompt === 'string' ? body.prompt : '';
    const base = () => ({ model: requested, created_at: rfc3339Nano(now()) });

    if (prompt === '') {
      if (keepAlive === 0) {
        unload(model);
        return sendJson(res, 200, { ...base(), response: '', done: true, done_reason: 'unload' });
      }
      await ensureLoaded(model, keepAlive, signal);
      return sendJson(res, 200, { ...base(), response: '', done: true, done_reason: 'load' });
    }

    const entry = await ensureLoaded(model, keepAlive, signal);
    await sleep(state.knobs.firstByteDelayMs, signal);
    const text = `Fake completion from ${model.name}.`;
    const final = { ...base(), response: '', done: true, done_reason: 'stop', context: [1, 2, 3], ...metrics(entry, tokens(prompt), tokens(text)) };
    if (keepAlive === 0) unload(model);
    if (body.stream === false) return sendJson(res, 200, { ...final, response: text });
    startNdjson(res);
    for (const piece of text.split(/(?<= )/)) writeLine(res, { ...base(), response: piece, done: false });
    writeLine(res, final);
    res.end();
  };

  /** Checks the tool results of earlier assistant turns; returns the turn index or an error. */
  const checkConversation = (messages: Json[]): { turn: number } | { error: string } => {
    let turn = 0;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i] ?? {};
      if (message.role !== 'assistant') continue;
      turn++;
      const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls.map(asRecord) : [];
      if (toolCalls.length === 0) continue;
      const expected = toolCalls.map((c) => String(asRecord(c.function).name ?? ''));
      const results: Json[] = [];
      for (let j = i + 1; j < messages.length && messages[j]?.role === 'tool'; j++) results.push(messages[j] ?? {});
      if (results.length < expected.length) {
        return { error: `expected ${expected.length} role:"tool" message(s) after assistant turn ${turn}, got ${results.length}` };
      }
      const pending = [...expected];
      for (const result of results) {
        if (typeof result.tool_name !== 'string') continue;
        const at = pending.indexOf(result.tool_name);
        if (at < 0) return { error: `tool result for "${result.tool_name}" does not answer a call of assistant turn ${turn} (${expected.join(', ')})` };
        pending.splice(at, 1);
      }
    }
    return { turn };
  };

  // Serving mode: slots of `parallel`, then tokens on an absolute schedule.
  let busySlots = 0;
  const slotWaiters: (() => void)[] = [];
  const acquireSlot = async (limit: number | undefined, signal: AbortSignal): Promise<() => void> => {
    if (limit !== undefined && busySlots >= limit) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const at = slotWaiters.indexOf(go);
          if (at >= 0) slotWaiters.splice(at, 1);
          reject(new ClientGone());
        };
        const go = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        slotWaiters.push(go);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    busySlots++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      busySlots--;
      slotWaiters.shift()?.();
    };
  };

  const servingChat = async (res: ServerResponse, body: Json, requested: string, entry: LoadedModel, promptText: string, timing: FakeServingTiming, arrived: number, signal: AbortSignal) => {
    const options = asRecord(body.options);
    const n = typeof options.num_predict === 'number' && options.num_predict > 0 ? Math.floor(options.num_predict) : 128;
    const release = await acquireSlot(timing.parallel, signal);
    try {
      const start = timing.parallel !== undefined ? Math.max(arrived, performance.now()) : arrived;
      const due = (i: number) => start + timing.firstTokenMs + i * timing.tokenIntervalMs;
      startNdjson(res);
      let i = 0;
      let firstWritten = false;
      while (i < n) {
        const wait = due(i) - performance.now();
        if (wait > 0) await sleep(wait, signal);
        const t = performance.now();
        const createdAt = rfc3339Nano(now());
        let batch = '';
        for (; i < n && due(i) <= t; i++) {
          batch += `${JSON.stringify({ model: requested, created_at: createdAt, message: { role: 'assistant', content: ` t${i}` }, done: false })}\n`;
        }
        if (batch) {
          if (!firstWritten) state.servingLateness.push(t - due(0));
          firstWritten = true;
          res.write(batch);
        }
      }
      const promptTokens = tokens(promptText);
      entry.coldStart = false;
      writeLine(res, {
        model: requested,
        created_at: rfc3339Nano(now()),
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'length',
        total_duration: Math.round((timing.firstTokenMs + n * timing.tokenIntervalMs) * 1e6),
        prompt_eval_count: promptTokens,
        prompt_eval_duration: Math.round(timing.firstTokenMs * 1e6),
        eval_count: n,
        eval_duration: Math.round(n * timing.tokenIntervalMs * 1e6),
      });
      res.end();
    } finally {
      release();
    }
  };

  const arrivals = new WeakMap<IncomingMessage, number>();

  const chat = async (req: IncomingMessage, res: ServerResponse, body: Json, signal: AbortSignal) => {
    const arrived = arrivals.get(req) ?? performance.now();
    const found = lookup(body);
    if (!found) return sendJson(res, 400, { error: 'model is required' });
    const { requested, model } = found;
    if (!model) return notFound(res, requested);
    const keepAlive = parseKeepAlive(body.keep_alive);
    if (typeof keepAlive === 'object') return sendJson(res, 400, { error: keepAlive.error });
    const messages = Array.isArray(body.messages) ? body.messages.map(asRecord) : [];
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    const base = () => ({ model: requested, created_at: rfc3339Nano(now()) });

    if (hasTools && !model.tools) {
      return sendJson(res, 400, { error: `registry.ollama.ai/library/${model.name} does not support tools` });
    }
    if (messages.length === 0) {
      if (keepAlive === 0) {
        unload(model);
        return sendJson(res, 200, { ...base(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'unload' });
      }
      await ensureLoaded(model, keepAlive, signal);
      return sendJson(res, 200, { ...base(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'load' });
    }
    if (state.knobs.chatFailure === 'queue_full') {
      return sendJson(res, 503, { error: 'server busy, please try again.  maximum pending requests exceeded' });
    }
    const timing = state.knobs.serving;
    if (timing && body.stream !== false && !hasTools) {
      const entry = await ensureLoaded(model, keepAlive, signal);
      const promptText = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
      return servingChat(res, body, requested, entry, promptText, timing, arrived, signal);
    }

    const script = scripts.get(canonicalName(requested));
    let reply: ChatTurn = { content: `Fake answer from ${model.name}.` };
    if (script) {
      const checked = checkConversation(messages);
      if ('error' in checked) {
        state.violations.push(checked.error);
        return sendJson(res, 400, { error: `fake ollama: ${checked.error}` });
      }
      const turn = script[checked.turn];
      if (!turn) {
        const error = `script for ${model.name} has no turn ${checked.turn + 1} (it has ${script.length})`;
        state.violations.push(error);
        return sendJson(res, 500, { error: `fake ollama: ${error}` });
      }
      reply = turn;
    }

    const entry = await ensureLoaded(model, keepAlive, signal);
    await sleep(state.knobs.firstByteDelayMs, signal);
    const promptText = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    const toolCalls =
      'tool_calls' in reply
        ? reply.tool_calls.map((call, index) => ({
            id: callId(`${messages.length}/${index}/${call.name}`),
            function: { index, name: call.name, arguments: call.arguments },
          }))
        : undefined;
    const firstUser = messages.find((m) => m.role === 'user');
    const asked = typeof firstUser?.content === 'string' ? firstUser.content : '';
    const byQuestion = 'content' in reply && reply.by_question ? Object.entries(reply.by_question).find(([key]) => asked.includes(key))?.[1] : undefined;
    const content = byQuestion ?? ('content' in reply ? reply.content : '');
    const evalTokens = tokens(content || JSON.stringify(toolCalls ?? ''));
    const final = { ...base(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', ...metrics(entry, tokens(promptText), evalTokens) };
    if (keepAlive === 0) unload(model);

    if (body.stream === false) {
      return sendJson(res, 200, { ...final, message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) } });
    }
    startNdjson(res);
    const failure = state.knobs.chatFailure;
    if (toolCalls) writeLine(res, { ...base(), message: { role: 'assistant', content: '', tool_calls: toolCalls }, done: false });
    const pieces = content === '' ? [] : content.split(/(?<= )/);
    for (const [i, piece] of pieces.entries()) {
      writeLine(res, { ...base(), message: { role: 'assistant', content: piece }, done: false });
      if (i === 0 && failure === 'mid_stream_error') break;
    }
    if (failure === 'mid_stream_error') writeLine(res, { error: 'an error was encountered while running the model' });
    else if (failure !== 'no_done') writeLine(res, final);
    res.end();
  };

  // ---- plumbing -------------------------------------------------------------------------------

  const authorised = (req: IncomingMessage): boolean => {
    const token = state.knobs.proxyToken;
    if (token === null) return true;
    const header = req.headers.authorization ?? '';
    return header === `Bearer ${token}` || header === `Basic ${Buffer.from(`vastai:${token}`).toString('base64')}`;
  };

  const route = async (req: IncomingMessage, res: ServerResponse, path: string, body: unknown, signal: AbortSignal) => {
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
    return chat(req, res, json, signal);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // The serving mode's clock starts when the request arrives, before its body is read.
    arrivals.set(req, performance.now());
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const call: RecordedCall = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
      at: now(),
    };
    calls.push(call);
    const gone = new AbortController();
    const onGone = () => gone.abort();
    // A client that hung up mid-stream must not crash the test process with an unhandled 'error'.
    res.on('error', onGone);
    res.on('close', () => {
      call.status = res.statusCode;
      if (!res.writableFinished) onGone();
    });
    closing.signal.addEventListener('abort', onGone, { once: true });
    try {
      if (!authorised(req)) {
        return sendText(res, 401, 'Unauthorized\n', { 'WWW-Authenticate': 'Basic realm="restricted"' });
      }
      await route(req, res, url.pathname, body, gone.signal);
    } catch (error) {
      if (error instanceof ClientGone) return;
      if (!res.headersSent) sendJson(res, 500, { error: `fake ollama: ${String(error)}` });
      else res.end();
    } finally {
      closing.signal.removeEventListener('abort', onGone);
    }
  };

  const server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    state,
    setKnobs: (knobs) => void Object.assign(state.knobs, knobs),
    callsTo: (path) => calls.filter((c) => c.path === path),
    close: async () => {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
