import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src-main/agents/events';
import { createAgentRegistry } from '../../src-main/agents/registry';
import type { ChatTurn } from '../fakes/ollama';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { SCENARIO, startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { buildDriverEntry } from './build-driver';

const CRASH = SCENARIO.crashLoopPod;
const ANSWER = `The pod ${CRASH.namespace}/${CRASH.name} is in CrashLoopBackOff: its container web exits with code 1 because it cannot connect to postgres.shop.svc:5432.`;

const TOOL_SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] },
  {
    tool_calls: [
      { name: 'get_pod_logs', arguments: { namespace: CRASH.namespace, pod: CRASH.name, previous: true, tail_lines: 20 } },
      { name: 'list_warning_events', arguments: { namespace: 'shop' } },
    ],
  },
  { content: ANSWER },
];

let k8s: FakeKubernetes;
let ollama: FakeOllama;
let selfCommand: string[];
let cleanup: () => Promise<void>;

beforeAll(async () => {
  k8s = await startFakeKubernetes();
  ollama = await startFakeOllama({
    scripts: { 'llama3.1:8b': TOOL_SCRIPT, 'gemma:2b': [{ content: `From the snapshot: ${CRASH.name} is crash-looping (CrashLoopBackOff).` }] },
  });
  ({ selfCommand, cleanup } = await buildDriverEntry());
}, 60_000);
afterAll(async () => {
  await Promise.all([k8s.close(), ollama.close(), cleanup()]);
});

function chatBodies(from: number): { tools?: unknown[]; messages: { role: string; content: string; tool_name?: string }[] }[] {
  return ollama
    .callsTo('/api/chat')
    .slice(from)
    .map((c) => c.body as { tools?: unknown[]; messages: { role: string; content: string; tool_name?: string }[] });
}

const params = () => ({ question: 'Why is the web app down?', model: 'llama3.1:8b', kubeconfig: k8s.kubeconfigPath, backend_url: ollama.url });

describe('builtin agent against fake Kubernetes + fake Ollama', () => {
  for (const mode of ['in-process', 'driver'] as const) {
    it(`answers with tool calls (${mode === 'driver' ? 'through a real `driver builtin` child process' : 'in-process'})`, async () => {
      const registry = createAgentRegistry({ selfCommand, builtinTransport: mode });
      const agent = registry.resolveAgent('builtin');
      expect(agent.transport).toBe(mode === 'driver' ? 'stdio' : 'in-process');
      const before = ollama.callsTo('/api/chat').length;
      const events: AgentEvent[] = [];
      const stderr: string[] = [];
      const result = await agent.ask(params(), { onEvent: (e) => events.push(e), onStderr: (l) => stderr.push(l) });

      expect(result.answer).toBe(ANSWER);
      expect(result.result_type).toBe('text');
      expect(result.metadata).toMatchObject({ agent: 'builtin', model: 'llama3.1:8b', steps: 3, tool_calls: 3 });
      expect(result.metadata.prompt_tokens).toBeGreaterThan(0);
      expect(result.metadata.completion_tokens).toBeGreaterThan(0);
      expect(result.metadata.tokens_per_second).toBeGreaterThan(0);
      expect(result.metadata.duration_ms).toBeGreaterThan(0);
      expect(ollama.state.violations).toEqual([]);

      // What the model saw: real cluster data from the fake API server.
      const bodies = chatBodies(before);
      expect(bodies).toHaveLength(3);
      const toolResults = bodies[2]?.messages.filter((m) => m.role === 'tool') ?? [];
      expect(toolResults.map((m) => m.tool_name)).toEqual(['list_unhealthy_pods', 'get_pod_logs', 'list_warning_events']);
      expect(toolResults[0]?.content).toContain(`${CRASH.namespace}/${CRASH.name}`);
      expect(toolResults[0]?.content).toContain('CrashLoopBackOff');
      expect(toolResults[1]?.content).toContain(SCENARIO.crashLogLine);
      expect(bodies[0]?.tools?.length).toBe(7);

      // Events: one timed agent.ask, one agent.tool_call per call, llmserver.chat per round.
      const names = events.map((e) => `${e.event}:${e.status}`);
      expect(names.filter((n) => n.startsWith('agent.ask'))).toEqual(['agent.ask:started', 'agent.ask:ok']);
      const toolEvents = events.filter((e) => e.event === 'agent.tool_call');
      expect(toolEvents.map((e) => e.labels?.tool)).toEqual(['list_unhealthy_pods', 'get_pod_logs', 'list_warning_events']);
      expect(toolEvents.every((e) => e.status === 'ok' && typeof e.duration_ms === 'number')).toBe(true);
      expect(toolEvents[1]?.labels?.arguments).toContain('"previous":true');
      expect(events.filter((e) => e.event === 'llmserver.chat' && e.status === 'ok')).toHaveLength(3);
      expect(events.at(-1)).toMatchObject({ event: 'agent.ask', status: 'ok', labels: { agent: 'builtin', tool_calls: 3 } });
      // Structured event lines are not passed on as plain stderr.
      expect(stderr.some((l) => l.includes('@benchdesk-event'))).toBe(false);
    });
  }

  it('falls back to a cluster snapshot for a model without tool support', async () => {
    const registry = createAgentRegistry({ selfCommand });
    const before = ollama.callsTo('/api/chat').length;
    const events: AgentEvent[] = [];
    const result = await registry.resolveAgent('builtin').ask({ ...params(), model: 'gemma:2b' }, { onEvent: (e) => events.push(e) });
    expect(result.answer).toContain(CRASH.name);
    expect(result.metadata).toMatchObject({ model: 'gemma:2b', mode: 'snapshot', tool_calls: 4, steps: 1 });
    const calls = ollama.callsTo('/api/chat').slice(before);
    expect(calls.map((c) => c.status)).toEqual([400, 200]);
    const second = chatBodies(before)[1];
    expect(second?.tools).toBeUndefined();
    const prompt = second?.messages.map((m) => m.content).join('\n') ?? '';
    expect(prompt).toContain('CrashLoopBackOff');
    expect(prompt).toContain('NotReady');
    expect(prompt).toContain('shop/web: 0/3 available');
    expect(events.filter((e) => e.event === 'agent.tool_call').map((e) => e.labels?.tool)).toEqual([
      'list_unhealthy_pods',
      'list_warning_events',
      'list_unavailable_deployments',
      'get_node_conditions',
    ]);
  });

  it('an unknown model is a clear llm error', async () => {
    const registry = createAgentRegistry({ selfCommand });
    const err = await registry
      .resolveAgent('builtin')
      .ask({ ...params(), model: 'nope:1b' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'AgentError', code: 'llm' });
    expect((err as Error).message).toMatch(/not found/);
  });

  it('the in-process agent has the same time limit as a driver', async () => {
    ollama.setKnobs({ firstByteDelayMs: 5000 });
    try {
      const registry = createAgentRegistry({ selfCommand, timeoutMs: 300 });
      await expect(registry.resolveAgent('builtin').ask(params())).rejects.toMatchObject({
        code: 'timeout',
        message: "agent 'builtin' did not finish within 300 ms",
      });
    } finally {
      ollama.setKnobs({ firstByteDelayMs: 0 });
    }
  });

  it('can be cancelled', async () => {
    ollama.setKnobs({ firstByteDelayMs: 5000 });
    try {
      const registry = createAgentRegistry({ selfCommand });
      const controller = new AbortController();
      const events: AgentEvent[] = [];
      const p = registry.resolveAgent('builtin').ask(params(), { signal: controller.signal, onEvent: (e) => events.push(e) });
      setTimeout(() => controller.abort(), 200);
      await expect(p).rejects.toMatchObject({ code: 'cancelled' });
      expect(events.at(-1)).toMatchObject({ event: 'agent.ask', status: 'error', error_type: 'cancelled' });
    } finally {
      ollama.setKnobs({ firstByteDelayMs: 0 });
    }
  });
});
