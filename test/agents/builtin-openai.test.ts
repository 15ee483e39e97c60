import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentRegistry } from '../../src-main/agents/registry';
import { KUBERNETES_TOOLS } from '../../src-main/agents/builtin/tools';
import { SCENARIO, startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import type { ChatTurn } from '../fakes/ollama';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai';
import { benchmarkResult, line, startHarness, submit, waitForEnd } from '../workflows/harness';
import { buildDriverEntry } from './build-driver';

/**
 * The built-in agent on an OpenAI-compatible server (design §13b): tools sent as OpenAI `tools`,
 * the model's `tool_calls` run (their arguments a JSON string), each result sent back as
 * `role:"tool"` with its `tool_call_id`, in process and through a `driver builtin` child; the
 * fallback for a server without tool calling; and a benchmark job answered through it.
 */

const CRASH = SCENARIO.crashLoopPod;
const MODEL = 'Qwen/Qwen2.5-7B-Instruct';
const KEY = 'sk-agent-openai-7777';
const ANSWER = `The pod ${CRASH.namespace}/${CRASH.name} is in CrashLoopBackOff: it cannot connect to postgres.shop.svc:5432.`;
const SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] },
  { tool_calls: [{ name: 'get_pod_logs', arguments: { namespace: CRASH.namespace, pod: CRASH.name, previous: true, tail_lines: 20 } }, { name: 'list_warning_events', arguments: { namespace: 'shop' } }] },
  { content: ANSWER },
];

let k8s: FakeKubernetes;
let vllm: FakeOpenAi;
let selfCommand: string[];
let cleanup: () => Promise<void>;
beforeAll(async () => {
  [k8s, vllm] = await Promise.all([startFakeKubernetes(), startFakeOpenAi({ models: [{ id: MODEL }, { id: 'no-tools', tools: false }], scripts: { [MODEL]: SCRIPT }, knobs: { apiKey: KEY } })]);
  ({ selfCommand, cleanup } = await buildDriverEntry());
}, 60_000);
afterAll(async () => {
  await Promise.all([k8s?.close(), vllm?.close(), cleanup?.()]);
});

type Body = { tools?: { type: string; function: { name: string } }[]; messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: { id: string; function: { arguments: string } }[] }[] };
const bodies = (from: number) => vllm.callsTo('/v1/chat/completions').slice(from).map((c) => c.body as Body);
const params = (model = MODEL) => ({ question: 'Why is the web app down?', model, kubeconfig: k8s.kubeconfigPath, backend_url: vllm.url, backend_api: 'openai' as const, backend_api_key: KEY });

describe('the built-in agent on an OpenAI-compatible server', () => {
  for (const mode of ['in-process', 'driver'] as const) {
    it(`answers through OpenAI tool calls (${mode})`, async () => {
      const agent = createAgentRegistry({ selfCommand, builtinTransport: mode }).resolveAgent('builtin');
      const before = vllm.callsTo('/v1/chat/completions').length;
      const result = await agent.ask(params());
      expect(result.answer).toBe(ANSWER);
      expect(result.metadata).toMatchObject({ agent: 'builtin', model: MODEL, steps: 3, tool_calls: 3, mode: 'tools' });
      expect(result.metadata.prompt_tokens).toBeGreaterThan(0);
      expect(vllm.state.violations).toEqual([]);
      const sent = bodies(before);
      expect(sent).toHaveLength(3);
      expect(sent[0]?.tools?.map((t) => t.function.name)).toEqual(KUBERNETES_TOOLS.map((t) => t.name));
      // The assistant's calls go back with string arguments; each result names its call.
      const second = sent[1]?.messages ?? [];
      const assistant = second.find((m) => m.role === 'assistant');
      expect(typeof assistant?.tool_calls?.[0]?.function.arguments).toBe('string');
      expect(second.find((m) => m.role === 'tool')?.tool_call_id).toBe(assistant?.tool_calls?.[0]?.id);
      const toolResults = sent[2]?.messages.filter((m) => m.role === 'tool') ?? [];
      expect(toolResults).toHaveLength(3);
      expect(toolResults[1]?.content).toContain(SCENARIO.crashLogLine);
      expect(vllm.callsTo('/v1/chat/completions').slice(before).every((c) => c.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    });
  }

  it('falls back to a cluster snapshot when the server does not call tools', async () => {
    const result = await createAgentRegistry({ selfCommand }).resolveAgent('builtin').ask(params('no-tools'));
    expect(result.metadata).toMatchObject({ mode: 'snapshot', steps: 1 });
    expect(result.answer).toBe('Fake answer from no-tools.');
  });
});

describe('a benchmark job on an OpenAI-compatible server', () => {
  it('detects the API and answers through the built-in agent’s tool calls', async () => {
    const h = await startHarness({ k8s: true });
    try {
      const id = await submit(h, 'benchmark', { backend_url: vllm.url, backend_api_key: KEY, model: MODEL, question: 'Why is the shop down?', kubeconfig: k8s.kubeconfigPath });
      const { job, events } = await waitForEnd(h, id, 30_000);
      expect(job.status, job.error ?? '').toBe('succeeded');
      expect(benchmarkResult(job)).toMatchObject({ answer: ANSWER, backend_url: vllm.url, metadata: { tool_calls: 3 } });
      expect(events.find((e) => e.event === 'llmserver.api')?.labels).toMatchObject({ backend_api: 'openai' });
      expect(events.map(line)).toEqual(expect.arrayContaining(['llmserver.detect:ok', 'llmserver.warmup:ok', 'agent.tool_call:ok']));
      expect(JSON.stringify(job)).not.toContain(KEY);
    } finally {
      await h.close();
    }
  }, 40_000);
});
