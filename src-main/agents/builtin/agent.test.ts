import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResult, LlmChat } from '../../llm/chat-types';
import { ToolsUnsupportedError } from '../../llm/errors';
import type { AgentEvent } from '../events';
import { runBuiltinAgent } from './agent';
import type { KubeReader } from './kube-client';
import type { AgentTool } from './tools';

/** A scripted LLM: each turn is either tool calls or a final content; records every request. */
function scriptedLlm(turns: (ChatResult['message'] | Error)[]): LlmChat & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    requests,
    async chat(req) {
      requests.push(structuredClone({ ...req, signal: undefined }));
      const turn = turns[requests.length - 1];
      if (!turn) throw new Error('script exhausted');
      if (turn instanceof Error) throw turn;
      return { message: turn, model: req.model, metrics: { prompt_eval_count: 100, eval_count: 20, eval_duration: 1_000_000_000 } };
    },
  };
}

function fakeTool(name: string, output: string | Error): AgentTool & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name,
    calls,
    definition: { type: 'function', function: { name, description: name, parameters: { type: 'object', properties: {} } } },
    async execute(args) {
      calls.push(args);
      if (output instanceof Error) return { ok: false, content: `error: ${output.message}` };
      return { ok: true, content: output };
    },
  };
}

const kube = { server: 'http://fake' } as KubeReader;

describe('runBuiltinAgent', () => {
  it('runs the tool calls the model asks for and returns its answer with metrics and events', async () => {
    const pods = fakeTool('list_unhealthy_pods', 'shop/web: CrashLoopBackOff');
    const llm = scriptedLlm([
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'list_unhealthy_pods', arguments: {} }] },
      { role: 'assistant', content: 'shop/web is in CrashLoopBackOff.' },
    ]);
    const events: AgentEvent[] = [];
    const result = await runBuiltinAgent('what is broken?', { llm, kube, model: 'm', tools: [pods], onEvent: (e) => events.push(e) });

    expect(result.answer).toBe('shop/web is in CrashLoopBackOff.');
    expect(result.metadata).toMatchObject({ agent: 'builtin', model: 'm', steps: 2, tool_calls: 1, prompt_tokens: 200, completion_tokens: 40, tokens_per_second: 20 });
    expect(pods.calls).toEqual([{}]);
    // Second round carries the assistant turn and the tool result (with tool_name).
    const second = llm.requests[1]?.messages ?? [];
    expect(second.at(-1)).toEqual({ role: 'tool', tool_name: 'list_unhealthy_pods', content: 'shop/web: CrashLoopBackOff', tool_call_id: 'call_1' });
    expect(llm.requests[0]?.tools?.map((t) => t.function.name)).toEqual(['list_unhealthy_pods']);
    expect(events.map((e) => `${e.event}:${e.status}`)).toEqual([
      'llmserver.chat:started',
      'llmserver.chat:ok',
      'agent.tool_call:ok',
      'llmserver.chat:started',
      'llmserver.chat:ok',
    ]);
    expect(events[2]?.labels).toMatchObject({ tool: 'list_unhealthy_pods', arguments: '{}', result_chars: 26 });
  });

  it('feeds unknown tools and tool errors back to the model instead of failing', async () => {
    const broken = fakeTool('get_pod_logs', new Error('kubeconfig lacks permission to read logs'));
    const llm = scriptedLlm([
      { role: 'assistant', content: '', tool_calls: [{ name: 'rm_rf', arguments: {} }, { name: 'get_pod_logs', arguments: { pod: 'x' } }] },
      { role: 'assistant', content: 'I could not read the logs.' },
    ]);
    const events: AgentEvent[] = [];
    const result = await runBuiltinAgent('q', { llm, kube, model: 'm', tools: [broken], onEvent: (e) => events.push(e) });
    expect(result.answer).toBe('I could not read the logs.');
    const toolMessages = (llm.requests[1]?.messages ?? []).filter((m) => m.role === 'tool');
    expect(toolMessages[0]?.content).toMatch(/unknown tool 'rm_rf'; available tools: get_pod_logs/);
    expect(toolMessages[1]?.content).toMatch(/lacks permission/);
    expect(events.filter((e) => e.event === 'agent.tool_call').map((e) => e.status)).toEqual(['error', 'error']);
  });

  it('at the step limit asks once more without tools', async () => {
    const t = fakeTool('list_namespaces', 'default');
    const call = { role: 'assistant' as const, content: '', tool_calls: [{ name: 'list_namespaces', arguments: {} }] };
    const llm = scriptedLlm([call, call, { role: 'assistant', content: 'final' }]);
    const result = await runBuiltinAgent('q', { llm, kube, model: 'm', tools: [t], maxSteps: 2 });
    expect(result.answer).toBe('final');
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests[2]?.tools).toBeUndefined();
    expect(llm.requests[2]?.messages.at(-1)?.content).toMatch(/used all your tool calls/);
    expect(result.metadata.steps).toBe(3);
    expect(result.metadata.tool_calls).toBe(2);
  });

  it('falls back to a cluster snapshot when the model does not support tools', async () => {
    const a = fakeTool('list_unhealthy_pods', 'POD-SUMMARY');
    const b = fakeTool('get_node_conditions', 'NODE-SUMMARY');
    const llm = scriptedLlm([
      new ToolsUnsupportedError('http://x', 'gemma:2b does not support tools', 'POST /api/chat', 'gemma:2b'),
      { role: 'assistant', content: 'answer from snapshot' },
    ]);
    const events: AgentEvent[] = [];
    const result = await runBuiltinAgent('why?', { llm, kube, model: 'gemma:2b', tools: [a, b], summaryTools: [a, b], onEvent: (e) => events.push(e) });
    expect(result.answer).toBe('answer from snapshot');
    expect(result.metadata.mode).toBe('snapshot');
    expect(result.metadata.tool_calls).toBe(2);
    const last = llm.requests[1];
    expect(last?.tools).toBeUndefined();
    expect(last?.messages[1]?.content).toMatch(/POD-SUMMARY[\s\S]*NODE-SUMMARY[\s\S]*Question: why\?/);
    expect(events.some((e) => e.event === 'agent.fallback')).toBe(true);
    expect(events.filter((e) => e.event === 'llmserver.chat').map((e) => e.status)).toEqual(['started', 'error', 'started', 'ok']);
  });

  it('nudges once after an empty turn, then fails clearly when the answer stays empty', async () => {
    const llm = scriptedLlm([
      { role: 'assistant', content: '' },
      { role: 'assistant', content: '  ' },
      { role: 'assistant', content: '' },
    ]);
    await expect(runBuiltinAgent('q', { llm, kube, model: 'm', tools: [] })).rejects.toThrow(/model m returned an empty answer/);
    expect(llm.requests[1]?.messages.at(-1)?.content).toMatch(/answer the question now/);
  });

  it('propagates cancellation', async () => {
    const controller = new AbortController();
    const llm: LlmChat = {
      chat: (req) =>
        new Promise((_, reject) => {
          req.signal?.addEventListener('abort', () => reject(Object.assign(new Error('cancelled'), { name: 'AbortError' })));
        }),
    };
    const p = runBuiltinAgent('q', { llm, kube, model: 'm', signal: controller.signal });
    controller.abort();
    await expect(p).rejects.toThrow('cancelled');
  });
});
