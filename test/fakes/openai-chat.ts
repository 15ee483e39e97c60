/**
 * The fake OpenAI-compatible server's generation routes, shaped like vLLM's (reference
 * external-apis.md §F.4): POST /v1/chat/completions and POST /v1/completions, streamed as SSE
 * (`data: {chunk}` … `data: [DONE]`) or not, with tool calls, vLLM's `ignore_eos`/`min_tokens`,
 * its context-length and unknown-model errors, and the serving timing of serving-timing.ts.
 */
import type { ServerResponse } from 'node:http';
import { asRecord, sendJson, tokens, type Json } from './http-util';
import { misbehave } from './misbehave';
import type { ChatTurn } from './ollama';
import type { FakeOpenAiState, FakeOpenAiModel } from './openai';
import { answerTokens, createSlots, streamOnSchedule, type FakeServingTiming } from './serving-timing';

const vllmError = (res: ServerResponse, status: number, type: string, message: string) => sendJson(res, status, { object: 'error', message, type, param: null, code: status });

/** Checks that each earlier assistant tool call got its `role:"tool"` result (by tool_call_id); returns the turn. */
function checkConversation(messages: Json[]): { turn: number } | { error: string } {
  let turn = 0;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] ?? {};
    if (message.role !== 'assistant') continue;
    turn++;
    const ids = (Array.isArray(message.tool_calls) ? message.tool_calls.map(asRecord) : []).map((c) => String(c.id ?? ''));
    const answered = new Set<string>();
    for (let j = i + 1; j < messages.length && messages[j]?.role === 'tool'; j++) answered.add(String(messages[j]?.tool_call_id ?? ''));
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0) return { error: `tool call(s) ${missing.join(', ')} of assistant turn ${turn} got no role:"tool" message with that tool_call_id` };
  }
  return { turn };
}

type Writer = { chunk(delta: Json, finish: string | null): void; raw(obj: Json): void; done(): void };

function sseWriter(res: ServerResponse, model: string, object: string, completions: boolean): Writer {
  const id = `${completions ? 'cmpl' : 'chatcmpl'}-${Math.random().toString(36).slice(2, 12)}`;
  const created = Math.floor(Date.now() / 1000);
  const send = (obj: Json) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
  return {
    chunk: (delta, finish) =>
      send({
        id,
        object,
        created,
        model,
        choices: [completions ? { index: 0, text: delta.content ?? '', logprobs: null, finish_reason: finish, stop_reason: null } : { index: 0, delta, logprobs: null, finish_reason: finish }],
      }),
    raw: (obj) => send({ id, object, created, model, ...obj }),
    done: () => {
      res.write('data: [DONE]\n\n');
      res.end();
    },
  };
}

export function createGenerationRoutes(state: FakeOpenAiState, models: Map<string, FakeOpenAiModel>, scripts: Map<string, ChatTurn[]>) {
  const slots = createSlots();

  /** Serving mode: the role chunk when the request gets its slot, then n tokens on the schedule, the usage chunk, [DONE]. */
  const streamTokens = async (res: ServerResponse, w: Writer, n: number, asked: number, timing: FakeServingTiming, arrived: number, signal: AbortSignal, completions: boolean) => {
    const release = await slots.acquire(timing.parallel, signal);
    try {
      const start = timing.parallel !== undefined ? Math.max(arrived, performance.now()) : arrived;
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
      if (!completions) w.chunk({ role: 'assistant', content: '' }, null);
      await streamOnSchedule({
        n,
        start,
        timing,
        signal,
        lateness: state.servingLateness,
        write: (from, to) => {
          for (let i = from; i < to; i++) w.chunk({ content: ` t${i}` }, i === n - 1 ? (n < asked ? 'stop' : 'length') : null);
        },
      });
    } finally {
      release();
    }
  };

  /** A scripted or canned answer, streamed at once or as one JSON. */
  const answer = (res: ServerResponse, body: Json, model: string, reply: ChatTurn, promptTokens: number, maxTokens: number, question: string) => {
    const toolCalls = 'tool_calls' in reply ? reply.tool_calls.map((c, i) => ({ id: `chatcmpl-tool-${state.toolCallSeq++}-${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) : null;
    const byQuestion = 'content' in reply && reply.by_question ? Object.entries(reply.by_question).find(([key]) => question.includes(key))?.[1] : undefined;
    const content = byQuestion ?? ('content' in reply ? reply.content : '');
    const words = content === '' ? [] : content.split(/(?<= )/).slice(0, maxTokens);
    const finish = toolCalls ? 'tool_calls' : words.length < maxTokens ? 'stop' : 'length';
    const usage = { prompt_tokens: promptTokens, total_tokens: promptTokens + Math.max(words.length, toolCalls ? 8 : 0), completion_tokens: Math.max(words.length, toolCalls ? 8 : 0) };
    if (body.stream !== true) {
      return sendJson(res, 200, { id: 'chatcmpl-fake', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, message: { role: 'assistant', content: toolCalls ? null : words.join(''), ...(toolCalls ? { tool_calls: toolCalls } : {}) }, logprobs: null, finish_reason: finish }], usage });
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8' });
    const w = sseWriter(res, model, 'chat.completion.chunk', false);
    w.chunk({ role: 'assistant', content: '' }, null);
    toolCalls?.forEach((call, index) => {
      const args = call.function.arguments;
      const half = Math.floor(args.length / 2);
      w.chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, null);
      w.chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }, null);
      w.chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }, null);
    });
    words.forEach((word, i) => w.chunk({ content: word }, i === words.length - 1 && !toolCalls ? finish : null));
    if (toolCalls) w.chunk({}, 'tool_calls');
    if (words.length === 0 && !toolCalls) w.chunk({ content: '' }, finish);
    if (asRecord(body.stream_options).include_usage === true) w.raw({ choices: [], usage });
    w.done();
  };

  return async (res: ServerResponse, body: Json, completions: boolean, arrived: number, signal: AbortSignal): Promise<void> => {
    const name = typeof body.model === 'string' ? body.model : '';
    const model = models.get(name);
    if (!model) return vllmError(res, 404, 'NotFoundError', `The model \`${name}\` does not exist.`);
    const messages = Array.isArray(body.messages) ? body.messages.map(asRecord) : [];
    const promptText = completions ? String(body.prompt ?? '') : messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    const promptTokens = tokens(promptText);
    const asked = typeof body.max_tokens === 'number' ? body.max_tokens : typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : completions ? 16 : model.max_model_len - promptTokens;
    if (promptTokens + asked > model.max_model_len) {
      return vllmError(res, 400, 'BadRequestError', `This model's maximum context length is ${model.max_model_len} tokens. However, you requested ${promptTokens + asked} tokens (${promptTokens} in the messages, ${asked} in the completion). Please reduce the length of the messages or completion.`);
    }
    const failure = state.knobs.failure;
    if (failure !== 'none') return misbehave(res, failure, signal, 'text/event-stream', () => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: ' more' }, finish_reason: null }] })}\n\n`);
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    if (hasTools && (!state.knobs.autoToolChoice || !model.tools)) return vllmError(res, 400, 'BadRequestError', '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set');
    const timing = state.knobs.serving;
    if (timing && body.stream === true && !hasTools) {
      const n = answerTokens(asked, timing, body.ignore_eos === true, typeof body.min_tokens === 'number' ? body.min_tokens : 0);
      const w = sseWriter(res, name, completions ? 'text_completion' : 'chat.completion.chunk', completions);
      await streamTokens(res, w, n, asked, timing, arrived, signal, completions);
      if (asRecord(body.stream_options).include_usage === true) w.raw({ choices: [], usage: { prompt_tokens: promptTokens, total_tokens: promptTokens + n, completion_tokens: n } });
      return w.done();
    }
    let reply: ChatTurn = { content: `Fake answer from ${name}.` };
    const script = scripts.get(name);
    if (script) {
      const checked = checkConversation(messages);
      if ('error' in checked) {
        state.violations.push(checked.error);
        return vllmError(res, 400, 'BadRequestError', `fake openai: ${checked.error}`);
      }
      const turn = script[checked.turn];
      if (!turn) return vllmError(res, 500, 'InternalServerError', `fake openai: script for ${name} has no turn ${checked.turn + 1}`);
      reply = turn;
    }
    const firstUser = messages.find((m) => m.role === 'user');
    return answer(res, body, name, reply, promptTokens, asked, typeof firstUser?.content === 'string' ? firstUser.content : '');
  };
}
