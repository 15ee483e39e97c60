import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage, ChatToolDefinition, LlmChat } from '../../src-main/llm/chat-types';
import { LlmServerClient } from '../../src-main/llm/llmserver-client';
import {
  LlmAbortedError,
  LlmServerHttpError,
  LlmServerUnreachableError,
  LlmStreamError,
  ModelNotFoundError,
  ToolsUnsupportedError,
} from '../../src-main/llm/errors';
import { startFakeOllama, type ChatTurn, type FakeOllama } from '../fakes/ollama';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const TOOLS: ChatToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'list_unhealthy_pods',
      description: 'List pods that are not Running/Ready',
      parameters: { type: 'object', properties: { namespace: { type: 'string', description: 'namespace, or all' } }, required: [] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'pod_logs',
      description: 'Tail the logs of a pod',
      parameters: { type: 'object', properties: { namespace: { type: 'string' }, name: { type: 'string' } }, required: ['namespace', 'name'] },
    },
  },
];

const SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: { namespace: 'default' } }] },
  { tool_calls: [{ name: 'pod_logs', arguments: { namespace: 'default', name: 'web-7d9' } }, { name: 'list_unhealthy_pods', arguments: {} }] },
  { content: 'web-7d9 is crashlooping: the container exits with code 1 because DATABASE_URL is unset.' },
];

const question: ChatMessage[] = [
  { role: 'system', content: 'You are a Kubernetes troubleshooting agent.' },
  { role: 'user', content: 'Why is pod web-7d9 crashlooping?' },
];

/** The agent loop the built-in agent will run, against the LlmChat interface only. */
async function runAgent(llm: LlmChat, model: string, stream: boolean) {
  const messages = [...question];
  for (let step = 0; step < 5; step++) {
    const { message, metrics } = await llm.chat({ model, messages, tools: TOOLS, stream });
    messages.push(message);
    if (!message.tool_calls?.length) return { answer: message.content, messages, metrics, steps: step + 1 };
    for (const call of message.tool_calls) {
      messages.push({ role: 'tool', tool_name: call.name, content: JSON.stringify({ called: call.name, with: call.arguments }) });
    }
  }
  throw new Error('step limit');
}

describe('chat', () => {
  it('answers without tools, non-streamed, with metrics (load_duration only when cold)', async () => {
    fake = await startFakeOllama();
    const client = new LlmServerClient({ baseUrl: fake.url });
    const first = await client.chat({ model: 'llama3.1:8b', messages: question, stream: false, options: { temperature: 0, num_ctx: 8192 }, keepAlive: '10m' });
    expect(first.message).toEqual({ role: 'assistant', content: 'Fake answer from llama3.1:8b.' });
    expect(first.done_reason).toBe('stop');
    expect(first.model).toBe('llama3.1:8b');
    expect(first.metrics).toEqual({
      prompt_eval_count: expect.any(Number), prompt_eval_duration: expect.any(Number), eval_count: expect.any(Number),
      eval_duration: expect.any(Number), total_duration: expect.any(Number), load_duration: expect.any(Number),
    });
    const second = await client.chat({ model: 'llama3.1:8b', messages: question, stream: false });
    expect(second.metrics.load_duration).toBeUndefined();
    expect(fake.callsTo('/api/chat')[0]?.body).toMatchObject({ stream: false, options: { temperature: 0, num_ctx: 8192 }, keep_alive: '10m' });
    expect(fake.callsTo('/api/chat')[0]?.body).not.toHaveProperty('tools');
  });

  it('streams by default and reports deltas as they arrive', async () => {
    fake = await startFakeOllama({ scripts: { 'qwen2.5:7b': [{ content: 'All pods in default are healthy.' }] } });
    const client = new LlmServerClient({ baseUrl: fake.url });
    const deltas: string[] = [];
    const result = await client.chat({ model: 'qwen2.5:7b', messages: question, onDelta: (d) => d.content && deltas.push(d.content) });
    expect(result.message.content).toBe('All pods in default are healthy.');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(result.message.content);
    expect(result.metrics.eval_count).toBeGreaterThan(0);
    expect(fake.callsTo('/api/chat')[0]?.body).toMatchObject({ stream: true });
  });

  it.each([true, false])('runs a scripted tool-calling conversation (stream=%s)', async (stream) => {
    // The script key and the requested name differ by `:latest` on purpose.
    fake = await startFakeOllama({ models: [{ name: 'kube-agent', family: 'llama' }], scripts: { 'kube-agent:latest': SCRIPT } });
    const client = new LlmServerClient({ baseUrl: fake.url });
    const run = await runAgent(client, 'kube-agent', stream);
    expect(run.steps).toBe(3);
    expect(run.answer).toBe(SCRIPT[2] && 'content' in SCRIPT[2] ? SCRIPT[2].content : '');
    const firstReply = run.messages[2];
    expect(firstReply).toEqual({
      role: 'assistant', content: '',
      tool_calls: [{ id: expect.stringMatching(/^call_[a-z0-9]{8}$/), name: 'list_unhealthy_pods', arguments: { namespace: 'default' } }],
    });
    expect(fake.state.violations).toEqual([]);
    const requests = fake.callsTo('/api/chat');
    expect(requests).toHaveLength(3);
    expect(requests[0]?.body).toMatchObject({ model: 'kube-agent', tools: TOOLS });
    // The third request carries both tool results of turn 2, in Ollama's wire form.
    const sent = (requests[2]?.body as { messages: unknown[] }).messages;
    expect(sent.slice(4)).toEqual([
      { role: 'assistant', content: '', tool_calls: [
        { id: expect.any(String), function: { name: 'pod_logs', arguments: { namespace: 'default', name: 'web-7d9' } } },
        { id: expect.any(String), function: { name: 'list_unhealthy_pods', arguments: {} } },
      ] },
      { role: 'tool', tool_name: 'pod_logs', content: expect.any(String) },
      { role: 'tool', tool_name: 'list_unhealthy_pods', content: expect.any(String) },
    ]);
  });

  it('the fake refuses a conversation that skipped the tool results', async () => {
    fake = await startFakeOllama({ scripts: { 'llama3.1:8b': SCRIPT } });
    const client = new LlmServerClient({ baseUrl: fake.url });
    const first = await client.chat({ model: 'llama3.1:8b', messages: question, tools: TOOLS });
    const error = await client.chat({ model: 'llama3.1:8b', messages: [...question, first.message], tools: TOOLS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmServerHttpError);
    expect((error as LlmServerHttpError).serverMessage).toMatch(/fake ollama: expected 1 role:"tool" message/);
    expect(fake.state.violations).toHaveLength(1);
  });

  it('maps "does not support tools" to ToolsUnsupportedError, and the same model works without tools', async () => {
    fake = await startFakeOllama();
    const client = new LlmServerClient({ baseUrl: fake.url });
    for (const stream of [true, false]) {
      const error = await client.chat({ model: 'gemma:2b', messages: question, tools: TOOLS, stream }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ToolsUnsupportedError);
      expect((error as ToolsUnsupportedError).serverMessage).toBe('registry.ollama.ai/library/gemma:2b does not support tools');
      expect((error as ToolsUnsupportedError).model).toBe('gemma:2b');
    }
    expect((await client.chat({ model: 'gemma:2b', messages: question })).message.content).toContain('gemma:2b');
  });

  it('reports an unknown model with Ollama\'s message', async () => {
    fake = await startFakeOllama();
    const error = await new LlmServerClient({ baseUrl: fake.url }).chat({ model: 'missing:1b', messages: question }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect((error as Error).message).toMatch(/^model 'missing:1b' not found \(HTTP 404/);
  });

  it('maps the failure knobs: 503, mid-stream error line, stream without done', async () => {
    fake = await startFakeOllama({ knobs: { chatFailure: 'queue_full' } });
    const client = new LlmServerClient({ baseUrl: fake.url });
    const busy = await client.chat({ model: 'llama3.1:8b', messages: question }).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(LlmServerHttpError);
    expect((busy as LlmServerHttpError).status).toBe(503);

    fake.setKnobs({ chatFailure: 'mid_stream_error' });
    const midStream = await client.chat({ model: 'llama3.1:8b', messages: question }).catch((e: unknown) => e);
    expect(midStream).toBeInstanceOf(LlmStreamError);
    expect(midStream).toMatchObject({ kind: 'error_line', serverMessage: 'an error was encountered while running the model' });

    fake.setKnobs({ chatFailure: 'no_done' });
    const noDone = await client.chat({ model: 'llama3.1:8b', messages: question }).catch((e: unknown) => e);
    expect(noDone).toBeInstanceOf(LlmStreamError);
    expect(noDone).toMatchObject({ kind: 'incomplete' });
  });

  it.each([true, false])('times out on a slow first byte (stream=%s)', async (stream) => {
    fake = await startFakeOllama({ knobs: { firstByteDelayMs: 5_000 } });
    const client = new LlmServerClient({ baseUrl: fake.url });
    const error = await client.chat({ model: 'llama3.1:8b', messages: question, stream, timeoutMs: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmServerUnreachableError);
    expect(error).toMatchObject({ reason: 'timeout', url: fake.url });
  });

  it.each([true, false])('aborts via the signal (stream=%s)', async (stream) => {
    fake = await startFakeOllama({ knobs: { firstByteDelayMs: 5_000 } });
    const client = new LlmServerClient({ baseUrl: fake.url });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await client.chat({ model: 'llama3.1:8b', messages: question, stream, signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmAbortedError);
  });

  it('loads and unloads through chat with no messages', async () => {
    fake = await startFakeOllama();
    const client = new LlmServerClient({ baseUrl: fake.url });
    expect((await client.chat({ model: 'qwen2.5:7b', messages: [], stream: false })).done_reason).toBe('load');
    expect((await client.runningModels()).map((m) => m.name)).toEqual(['qwen2.5:7b']);
    expect((await client.chat({ model: 'qwen2.5:7b', messages: [], keepAlive: 0 })).done_reason).toBe('unload');
    expect(await client.runningModels()).toEqual([]);
  });
});
