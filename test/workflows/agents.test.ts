import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../shared';
import { SCENARIO } from '../fakes/kubernetes';
import type { ChatTurn } from '../fakes/ollama';
import {
  agentResult,
  ensureCliBuilt,
  expectInOrder,
  line,
  mustK8s,
  pathWithFakeAgents,
  startHarness,
  submit,
  tempDir,
  waitForEnd,
  waitForEvent,
  type Harness,
} from './harness';

/**
 * agentic-agent through the API with each kind of agent: the built-in one in-process and as a
 * `benchdesk driver builtin` stdio process, a user driver registered by environment, and the
 * bundled holmes driver running the fake `holmes` CLI.
 */

const CRASH = SCENARIO.crashLoopPod;
const MODEL = 'llama3.1:8b';
const QUESTION = 'Which pod in the cluster is failing, and why?';
const ANSWER = `The pod ${CRASH.namespace}/${CRASH.name} is in CrashLoopBackOff: its container web exits with code 1 because it cannot connect to postgres.shop.svc:5432.`;

/** Asks for unhealthy pods, then the crashing pod's logs, then answers. */
const SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] },
  { tool_calls: [{ name: 'get_pod_logs', arguments: { namespace: CRASH.namespace, pod: CRASH.name, previous: true, tail_lines: 20 } }] },
  { content: ANSWER },
];

const MY_DRIVER = `
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const mode = process.argv[2] ?? 'ok';
const rl = createInterface({ input: process.stdin });
rl.once('line', (text) => {
  const req = JSON.parse(text);
  const answer = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
  if (process.env.MY_DRIVER_LOG) appendFileSync(process.env.MY_DRIVER_LOG, text + '\\n');
  if (mode === 'garbage') { process.stdout.write('Hello! I am not speaking JSON today.\\n'); return; }
  if (mode === 'hang') { process.stderr.write('thinking forever\\n'); setInterval(() => {}, 1000); return; }
  if (mode === 'error') { answer({ status: 'error', error: 'my-agent: the cluster is on fire', id: req.id }); return; }
  if (req.action === 'info') { answer({ status: 'ok', result: { name: 'my-agent', version: '1.2.3', actions: ['ask', 'info'] }, id: req.id }); return; }
  process.stderr.write('my-agent: looking at the cluster\\n');
  const p = req.params;
  answer({ status: 'ok', id: req.id, result: {
    answer: 'my-agent says: ' + p.question + ' [model=' + p.model + ' backend=' + p.backend_url + ' type=' + p.backend_type + ']',
    artifacts: [{ kind: 'note', title: 'kubeconfig', data: p.kubeconfig }],
    metadata: { steps: 1, tool_calls: 0 },
  } });
});
`;

let h: Harness;
let scratch: string;
let driverLog: string;
let holmesRecord: string;

beforeAll(async () => {
  const cli = ensureCliBuilt();
  scratch = await tempDir('benchdesk-wf-agents-');
  const driver = path.join(scratch, 'my-driver.mjs');
  await writeFile(driver, MY_DRIVER);
  driverLog = path.join(scratch, 'my-driver.log');
  holmesRecord = path.join(scratch, 'holmes-record.json');
  h = await startHarness({
    k8s: true,
    ollama: { scripts: { [MODEL]: SCRIPT } },
    env: {
      PATH: pathWithFakeAgents(),
      BENCHDESK_DRIVER_VIASTDIO: `${process.execPath} ${cli} driver builtin`,
      BENCHDESK_DRIVER_MYAGENT: `node ${driver}`,
      BENCHDESK_DRIVER_GARBAGE: `node ${driver} garbage`,
      BENCHDESK_DRIVER_HANGS: `node ${driver} hang`,
      BENCHDESK_DRIVER_FAILS: `node ${driver} error`,
      MY_DRIVER_LOG: driverLog,
      FAKE_HOLMES_RECORD: holmesRecord,
      // Agent programs get an allow-listed environment: the test knobs must be named.
      BENCHDESK_AGENT_ENV: 'MY_DRIVER_LOG FAKE_HOLMES_*',
    },
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await rm(scratch, { recursive: true, force: true });
});

function body(agent: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { question: QUESTION, model: MODEL, agent, backend_url: h.ollama.url, kubeconfig: mustK8s(h).kubeconfigPath, ...over };
}

function chatEvents(events: readonly JobEvent[]): JobEvent[] {
  return events.filter((e) => line(e) === 'llmserver.chat:ok');
}

describe('agentic-agent with the built-in agent', () => {
  for (const agent of ['builtin', 'viastdio'] as const) {
    it(`${agent === 'builtin' ? 'in-process' : 'as `benchdesk driver builtin` over stdio'}: tool calls against the cluster, the answer names the crashing pod`, async () => {
      const chatsBefore = h.ollama.callsTo('/api/chat').length;
      const kubeBefore = mustK8s(h).calls.length;
      const id = await submit(h, 'agentic-agent', body(agent));
      const { job, events } = await waitForEnd(h, id, 30_000);
      expect(job.status, job.error ?? '').toBe('succeeded');
      const result = agentResult(job);
      expect(result.answer).toBe(ANSWER);
      expect(result.answer).toContain(CRASH.name);
      expect(result.answer).toContain('CrashLoopBackOff');
      expect(result.result_type).toBe('text');
      expect(Array.isArray(result.artifacts)).toBe(true);
      const md = result.metadata;
      expect(md).toMatchObject({ agent, model: MODEL, steps: 3, tool_calls: 2 });
      for (const k of ['prompt_tokens', 'completion_tokens', 'tokens_per_second', 'duration_ms'] as const) expect(md[k], k).toBeGreaterThan(0);

      // Events: warm-up, one timed agent.ask, one agent.tool_call per call, llmserver.chat per round.
      expectInOrder(events, ['job.running:info', 'llmserver.warmup:ok', 'agent.ask:started', 'agent.tool_call:ok', 'agent.tool_call:ok', 'agent.ask:ok', 'job.succeeded:ok']);
      expect(events.filter((e) => e.event === 'agent.ask').map(line)).toEqual(['agent.ask:started', 'agent.ask:ok']);
      const tools = events.filter((e) => line(e) === 'agent.tool_call:ok');
      expect(tools.map((e) => e.labels.tool)).toEqual(['list_unhealthy_pods', 'get_pod_logs']);
      expect(tools.every((e) => typeof e.duration_ms === 'number')).toBe(true);
      expect(chatEvents(events)).toHaveLength(3);
      expect(events.find((e) => line(e) === 'agent.ask:ok')?.labels).toMatchObject({ agent, tool_calls: 2 });
      if (agent === 'viastdio') expect(events.find((e) => line(e) === 'agent.ask:started')?.labels.transport).toBe('stdio');
      expect(events.some((e) => (e.message ?? '').includes('@benchdesk-event'))).toBe(false);

      // What the model saw came from the (fake) cluster.
      expect(h.ollama.state.violations).toEqual([]);
      const chats = h.ollama.callsTo('/api/chat').slice(chatsBefore);
      expect(chats).toHaveLength(3);
      const last = chats[2]?.body as { messages: { role: string; content: string; tool_name?: string }[] };
      const toolMsgs = last.messages.filter((m) => m.role === 'tool');
      expect(toolMsgs.map((m) => m.tool_name)).toEqual(['list_unhealthy_pods', 'get_pod_logs']);
      expect(toolMsgs[0]?.content).toContain(`${CRASH.namespace}/${CRASH.name}`);
      expect(toolMsgs[0]?.content).toContain('CrashLoopBackOff');
      expect(toolMsgs[1]?.content).toContain(SCENARIO.crashLogLine);
      const kubeCalls = mustK8s(h).calls.slice(kubeBefore);
      expect(kubeCalls.some((c) => c.path === `/api/v1/namespaces/${CRASH.namespace}/pods/${CRASH.name}/log`)).toBe(true);
      expect(kubeCalls.every((c) => c.method === 'GET')).toBe(true);
    });
  }
});

describe('a user driver registered by environment', () => {
  it('answers through the API with the protocol parameters', async () => {
    const id = await submit(h, 'agentic-agent', body('myagent', { backend_url: `${h.ollama.url}/`, backend_type: 'ollama', backend_warmup: false }));
    const { job, events } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = agentResult(job);
    expect(result.answer).toBe(`my-agent says: ${QUESTION} [model=${MODEL} backend=${h.ollama.url} type=llmserver]`);
    expect(result.artifacts).toEqual([{ kind: 'note', title: 'kubeconfig', data: mustK8s(h).kubeconfigPath }]);
    expect(result.metadata).toMatchObject({ agent: 'myagent', model: MODEL, steps: 1, tool_calls: 0 });
    expect(result.metadata.duration_ms).toBeGreaterThanOrEqual(0);
    // Its stderr is kept as events.
    expect(events.find((e) => e.event === 'agent.stderr')?.message).toBe('my-agent: looking at the cluster');
    expectInOrder(events, ['agent.ask:started', 'agent.stderr:info', 'agent.ask:ok', 'job.succeeded:ok']);
    // One JSON line in: {action:"ask", params, id}.
    const sent = (await readFile(driverLog, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(sent.at(-1)).toMatchObject({
      action: 'ask',
      params: { question: QUESTION, model: MODEL, kubeconfig: mustK8s(h).kubeconfigPath, backend_type: 'llmserver', backend_url: h.ollama.url },
    });
    expect(typeof sent.at(-1)?.id).toBe('string');
  });

  it('a driver answering garbage fails the job with a clear message', async () => {
    const id = await submit(h, 'agentic-agent', body('garbage', { backend_warmup: false }));
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('agent_bad_output');
    expect(job.error).toMatch(/garbage/);
    expect(job.error).toMatch(/JSON/i);
    expect(events.find((e) => line(e) === 'agent.ask:error')?.message).toBe(job.error);
  });

  it('a driver answering status "error" fails the job with its message', async () => {
    const id = await submit(h, 'agentic-agent', body('fails', { backend_warmup: false }));
    const { job } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(job.error).toContain('my-agent: the cluster is on fire');
  });

  it('cancel kills a driver that never answers; the job ends cancelled', async () => {
    const id = await submit(h, 'agentic-agent', body('hangs', { backend_warmup: false }));
    await waitForEvent(h, id, (e) => e.event === 'agent.stderr' && e.message === 'thinking forever', 'the driver to start');
    expect((await h.post(`/v1/jobs/${id}/cancel`, {})).status).toBe(202);
    // The driver never ends by itself: reaching `cancelled` means it was stopped.
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('cancelled');
    expectInOrder(events, ['agent.ask:started', 'job.cancel_requested:info', 'agent.ask:error', 'job.cancelled:info']);
  });
});

describe('the holmes driver', () => {
  it('runs the holmes CLI with the right argv and environment, and answers from its JSON output', async () => {
    const id = await submit(h, 'agentic-agent', body('holmes'));
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = agentResult(job);
    expect(result.answer).toBe(`The pod ${CRASH.namespace}/${CRASH.name} is in CrashLoopBackOff: its container exits with code 1 because it cannot reach postgres.`);
    expect(result.metadata).toMatchObject({ agent: 'holmes', model: MODEL, tool_calls: 2, prompt_tokens: 1234, completion_tokens: 56 });
    expect(events.some((e) => e.event === 'agent.stderr' && (e.message ?? '').includes('Loaded toolsets'))).toBe(true);

    const record = JSON.parse(await readFile(holmesRecord, 'utf8')) as { argv: string[]; env: Record<string, string | null> };
    expect(record.argv.slice(0, 4)).toEqual(['ask', `--model=ollama_chat/${MODEL}`, '--no-interactive', '--json-output-file']);
    expect(record.argv.slice(-2)).toEqual(['--', QUESTION]);
    expect(record.env).toMatchObject({ KUBECONFIG: mustK8s(h).kubeconfigPath, OLLAMA_API_BASE: h.ollama.url });
  });

  it('talks to the llmserver it was given', async () => {
    const h2 = await startHarness({ k8s: true, env: { PATH: pathWithFakeAgents(), FAKE_HOLMES_CALL_OLLAMA: '1', BENCHDESK_AGENT_ENV: 'FAKE_HOLMES_*' } });
    try {
      const id = await submit(h2, 'agentic-agent', { question: QUESTION, model: 'qwen2.5:7b', agent: 'holmes', backend_url: h2.ollama.url });
      const { job } = await waitForEnd(h2, id, 30_000);
      expect(job.status, job.error ?? '').toBe('succeeded');
      expect(agentResult(job).answer).toBe('Fake answer from qwen2.5:7b.');
      expect(h2.ollama.callsTo('/api/chat')).toHaveLength(1);
    } finally {
      await h2.close();
    }
  });

  it('holmes failing (exit 1) fails the job with its output in the message', async () => {
    const h2 = await startHarness({ k8s: true, env: { PATH: pathWithFakeAgents(), FAKE_HOLMES_EXIT: '1', BENCHDESK_AGENT_ENV: 'FAKE_HOLMES_*' } });
    try {
      const id = await submit(h2, 'agentic-agent', { question: QUESTION, model: MODEL, agent: 'holmes', backend_url: h2.ollama.url, backend_warmup: false });
      const { job } = await waitForEnd(h2, id, 30_000);
      expect(job.status).toBe('failed');
      expect(job.error_code).toBe('agent_failed');
      expect(job.error).toMatch(/holmes failed \(exit code 1\)/);
      // Holmes reports the cause on stdout: it is quoted.
      expect(job.error).toContain('connection refused');
    } finally {
      await h2.close();
    }
  });
});

describe('the k8sgpt driver', () => {
  it('runs k8sgpt analyze against the kubeconfig and answers with its findings', async () => {
    const id = await submit(h, 'agentic-agent', body('k8sgpt', { backend_warmup: false }));
    const { job } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(agentResult(job).answer).toContain(`${CRASH.namespace}/${CRASH.name}`);
    expect(agentResult(job).metadata).toMatchObject({ agent: 'k8sgpt', model: MODEL });
  });
});

describe('an llmserver behind an auth proxy', () => {
  it('credentials in backend_url reach the agent, in-process and over stdio', async () => {
    const cli = ensureCliBuilt();
    const h2 = await startHarness({
      k8s: true,
      ollama: { scripts: { [MODEL]: SCRIPT }, knobs: { proxyToken: 'proxy-secret-42' } },
      env: { BENCHDESK_DRIVER_VIASTDIO: `${process.execPath} ${cli} driver builtin` },
    });
    try {
      const port = new URL(h2.ollama.url).port;
      for (const agent of ['builtin', 'viastdio']) {
        const id = await submit(h2, 'agentic-agent', {
          question: QUESTION,
          model: MODEL,
          agent,
          backend_url: `http://vastai:proxy-secret-42@127.0.0.1:${port}`,
          kubeconfig: mustK8s(h2).kubeconfigPath,
        });
        const { job, events } = await waitForEnd(h2, id, 30_000);
        expect(job.status, `${agent}: ${job.error ?? ''}`).toBe('succeeded');
        expect(agentResult(job).answer).toBe(ANSWER);
        // Shown without the credentials in what the workflow reports.
        expect(events.find((e) => line(e) === 'llmserver.warmup:ok')?.labels.backend_url).toBe(`http://127.0.0.1:${port}`);
        expect(JSON.stringify(job.result)).not.toContain('proxy-secret-42');
        expect(JSON.stringify(events)).not.toContain('proxy-secret-42');
      }
      expect(h2.ollama.calls.every((c) => c.status !== 401)).toBe(true);
    } finally {
      await h2.close();
    }
  });
});
