/**
 * The fake Ollama's POST /api/chat: load/unload with `messages: []`, scripted conversations (tool
 * calls and answers, with the tool results checked), the serving mode of known timing (with an
 * early stop and the context window Ollama cuts prompts at), and the failure knobs.
 */
import type { ServerResponse } from 'node:http';
import { asRecord, sendJson, sleep, tokens, type Json } from './http-util';
import { misbehave } from './misbehave';
import { callId, canonicalName, parseKeepAlive, rfc3339Nano, startNdjson, writeLine, type FakeModel, type LoadedModel } from './ollama-helpers';
import type { ChatTurn, FakeOllamaState } from './ollama';
import { answerTokens, createSlots, streamOnSchedule, type FakeServingTiming } from './serving-timing';

export type ChatDeps = {
  state: FakeOllamaState;
  scripts: Map<string, ChatTurn[]>;
  now: () => number;
  ensureLoaded(model: FakeModel, keepAliveMs: number, signal: AbortSignal): Promise<LoadedModel>;
  unload(model: FakeModel): void;
  metrics(entry: LoadedModel, promptTokens: number, evalTokens: number): Json;
  lookup(body: Json): { requested: string; model: FakeModel | undefined } | undefined;
  notFound(res: ServerResponse, requested: string): void;
};

/** Checks the tool results of earlier assistant turns; returns the turn index or an error. */
function checkConversation(messages: Json[]): { turn: number } | { error: string } {
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
}

const promptOf = (messages: Json[]) => messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');

type ServingContext = { state: FakeOllamaState; now: () => number; slots: ReturnType<typeof createSlots> };

/** Serving mode: a slot, then `num_predict` tokens (fewer on an early stop) on the known schedule. */
async function servingChat(ctx: ServingContext, res: ServerResponse, body: Json, requested: string, entry: LoadedModel, promptText: string, timing: FakeServingTiming, arrived: number, signal: AbortSignal): Promise<void> {
const { state, now, slots } = ctx;
  const options = asRecord(body.options);
  const asked = typeof options.num_predict === 'number' && options.num_predict > 0 ? Math.floor(options.num_predict) : 128;
  // Ollama has no ignore-EOS: a model that stops early stops.
  const n = answerTokens(asked, timing, false);
  // Ollama cuts a prompt longer than the context window (num_ctx, else its default) from the front.
  const window = Math.min(typeof options.num_ctx === 'number' ? options.num_ctx : state.knobs.runningContextLength, entry.model.context_length);
  const promptTokens = Math.min(tokens(promptText), window);
  const release = await slots.acquire(timing.parallel, signal);
  try {
    const start = timing.parallel !== undefined ? Math.max(arrived, performance.now()) : arrived;
    startNdjson(res);
    await streamOnSchedule({
      n,
      start,
      timing,
      signal,
      lateness: state.servingLateness,
      write: (from, to) => {
        const createdAt = rfc3339Nano(now());
        let batch = '';
        for (let i = from; i < to; i++) batch += `${JSON.stringify({ model: requested, created_at: createdAt, message: { role: 'assistant', content: ` t${i}` }, done: false })}\n`;
        res.write(batch);
      },
    });
    entry.coldStart = false;
    writeLine(res, {
      model: requested,
      created_at: rfc3339Nano(now()),
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: n < asked ? 'stop' : 'length',
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
}

export function createChatRoute(deps: ChatDeps) {
  const { state, now } = deps;
  const slots = createSlots();

  /** A scripted turn (or the canned answer), streamed or not, with the failure knobs. */
  const scriptedChat = async (res: ServerResponse, body: Json, requested: string, model: FakeModel, messages: Json[], keepAlive: number, signal: AbortSignal) => {
    const base = () => ({ model: requested, created_at: rfc3339Nano(now()) });
    const script = deps.scripts.get(canonicalName(requested));
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
    const entry = await deps.ensureLoaded(model, keepAlive, signal);
    await sleep(state.knobs.firstByteDelayMs, signal);
    const toolCalls =
      'tool_calls' in reply ? reply.tool_calls.map((call, index) => ({ id: callId(`${messages.length}/${index}/${call.name}`), function: { index, name: call.name, arguments: call.arguments } })) : undefined;
    const firstUser = messages.find((m) => m.role === 'user');
    const asked = typeof firstUser?.content === 'string' ? firstUser.content : '';
    const byQuestion = 'content' in reply && reply.by_question ? Object.entries(reply.by_question).find(([key]) => asked.includes(key))?.[1] : undefined;
    const content = byQuestion ?? ('content' in reply ? reply.content : '');
    const evalTokens = tokens(content || JSON.stringify(toolCalls ?? ''));
    const final = { ...base(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', ...deps.metrics(entry, tokens(promptOf(messages)), evalTokens) };
    if (keepAlive === 0) deps.unload(model);
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

  return async (res: ServerResponse, body: Json, arrived: number, signal: AbortSignal): Promise<void> => {
    const found = deps.lookup(body);
    if (!found) return sendJson(res, 400, { error: 'model is required' });
    const { requested, model } = found;
    if (!model) return deps.notFound(res, requested);
    const keepAlive = parseKeepAlive(body.keep_alive);
    if (typeof keepAlive === 'object') return sendJson(res, 400, { error: keepAlive.error });
    const messages = Array.isArray(body.messages) ? body.messages.map(asRecord) : [];
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    const base = () => ({ model: requested, created_at: rfc3339Nano(now()) });
    if (hasTools && !model.tools) return sendJson(res, 400, { error: `registry.ollama.ai/library/${model.name} does not support tools` });
    if (messages.length === 0) {
      if (keepAlive === 0) {
        deps.unload(model);
        return sendJson(res, 200, { ...base(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'unload' });
      }
      await deps.ensureLoaded(model, keepAlive, signal);
      return sendJson(res, 200, { ...base(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'load' });
    }
    const failure = state.knobs.chatFailure;
    if (failure === 'queue_full') return sendJson(res, 503, { error: 'server busy, please try again.  maximum pending requests exceeded' });
    if (failure === 'stream_forever' || failure === 'no_newlines' || failure === 'never_answer') {
      return misbehave(res, failure, signal, 'application/x-ndjson', () => `${JSON.stringify({ ...base(), message: { role: 'assistant', content: ' more' }, done: false })}\n`);
    }
    const timing = state.knobs.serving;
    if (timing && body.stream !== false && !hasTools) {
      const entry = await deps.ensureLoaded(model, keepAlive, signal);
      return servingChat({ state, now, slots }, res, body, requested, entry, promptOf(messages), timing, arrived, signal);
    }
    return scriptedChat(res, body, requested, model, messages, keepAlive, signal);
  };
}
