import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent, SnapshotSummary } from '../../shared';
import { createAgentRegistry } from '../../src-main/agents/registry';
import { SCENARIO } from '../fakes/kubernetes';
import type { ChatTurn } from '../fakes/ollama';
import {
  agentResult,
  benchmarkResult,
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
  waitUntil,
  type Harness,
} from './harness';

/**
 * Jobs on a recorded cluster (design §11): `snapshot` instead of `kubeconfig`. The job serves the
 * snapshot as a read-only Kubernetes API for its life and hands every kind of agent a kubeconfig
 * for it; the agent answers as it does on the live (fake) cluster, which is not asked anything.
 */

const CRASH = SCENARIO.crashLoopPod;
const MODEL = 'llama3.1:8b';
const QUESTION = 'Which pod in the cluster is failing, and why?';
const ANSWER = `The pod ${CRASH.namespace}/${CRASH.name} is in CrashLoopBackOff: its container web exits with code 1 because it cannot connect to postgres.shop.svc:5432.`;
const SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }, { name: 'list_warning_events', arguments: { namespace: 'shop' } }] },
  { tool_calls: [{ name: 'get_pod_logs', arguments: { namespace: CRASH.namespace, pod: CRASH.name, previous: true, tail_lines: 20 } }, { name: 'list_deployments', arguments: {} }, { name: 'list_nodes', arguments: {} }] },
  { content: ANSWER },
];

/** A registered driver that reads the cluster itself: kubectl's Table of pods, straight from its kubeconfig. */
const READING_DRIVER = `
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const rl = createInterface({ input: process.stdin });
rl.once('line', (text) => {
  const req = JSON.parse(text);
  const kubeconfig = readFileSync(req.params.kubeconfig, 'utf8');
  const field = (name) => JSON.parse(new RegExp('^\\\\s*' + name + ': (.*)$', 'm').exec(kubeconfig)[1].startsWith('"') ? new RegExp('^\\\\s*' + name + ': (.*)$', 'm').exec(kubeconfig)[1] : JSON.stringify(new RegExp('^\\\\s*' + name + ': (.*)$', 'm').exec(kubeconfig)[1]));
  const server = field('server');
  const ca = Buffer.from(field('certificate-authority-data'), 'base64');
  const token = field('token');
  https.get(server + '/api/v1/namespaces/shop/pods', { ca, headers: { authorization: 'Bearer ' + token, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }, (res) => {
    let body = '';
    res.on('data', (d) => (body += d));
    res.on('end', () => {
      const rows = JSON.parse(body).rows.map((r) => r.cells.slice(0, 3).join(' '));
      process.stdout.write(JSON.stringify({ status: 'ok', id: req.id, result: { answer: rows.join('; '), artifacts: [{ kind: 'note', title: 'kubeconfig', data: req.params.kubeconfig }], metadata: {} } }) + '\\n');
    });
  });
});
`;

let h: Harness;
let scratch: string;
let holmesRecord: string;
let snapshot: SnapshotSummary;

beforeAll(async () => {
  const cli = ensureCliBuilt();
  scratch = await tempDir('benchdesk-wf-snapshot-');
  const driver = path.join(scratch, 'reading-driver.mjs');
  await writeFile(driver, READING_DRIVER);
  holmesRecord = path.join(scratch, 'holmes-record.json');
  h = await startHarness({
    k8s: true,
    ollama: { scripts: { [MODEL]: SCRIPT } },
    env: {
      PATH: pathWithFakeAgents(),
      BENCHDESK_DRIVER_VIASTDIO: `${process.execPath} ${cli} driver builtin`,
      BENCHDESK_DRIVER_READER: `${process.execPath} ${driver}`,
      BENCHDESK_DRIVER_HANGS: `${process.execPath} -e "process.stdin.resume(); process.stderr.write('thinking forever\\\\n')"`,
      FAKE_HOLMES_RECORD: holmesRecord,
      // Agent programs get an allow-listed environment: the test knob must be named.
      BENCHDESK_AGENT_ENV: 'FAKE_HOLMES_*',
    },
  });
  const res = await h.post('/v1/snapshots', { name: 'fake cluster', kubeconfig: mustK8s(h).kubeconfigPath });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  snapshot = res.body as unknown as SnapshotSummary;
}, 60_000);
afterAll(async () => {
  await h?.close();
  await rm(scratch, { recursive: true, force: true });
});

const replaysDir = () => path.join(h.dir, 'replays');
const body = (agent: string, over: Record<string, unknown> = {}) => ({ question: QUESTION, model: MODEL, agent, backend_url: h.ollama.url, backend_warmup: false, ...over });

/** The tool results the model was given in its last round. */
function toolMessages(fromChat: number): { tool_name?: string; content: string }[] {
  const chats = h.ollama.callsTo('/api/chat').slice(fromChat);
  const last = chats.at(-1)?.body as { messages: { role: string; content: string; tool_name?: string }[] };
  return last.messages.filter((m) => m.role === 'tool').map((m) => ({ tool_name: m.tool_name, content: m.content }));
}

describe('agentic-agent on a snapshot answers as on the live cluster', () => {
  for (const agent of ['builtin', 'viastdio'] as const) {
    it(`${agent === 'builtin' ? 'the built-in agent in-process' : 'the built-in agent as a stdio driver'}: the same tool results, the same answer, no call to the live cluster`, async () => {
      const k8s = mustK8s(h);
      let chats = h.ollama.callsTo('/api/chat').length;
      const live = await waitForEnd(h, await submit(h, 'agentic-agent', body(agent, { kubeconfig: k8s.kubeconfigPath })), 30_000);
      expect(live.job.status, live.job.error ?? '').toBe('succeeded');
      const liveTools = toolMessages(chats);

      chats = h.ollama.callsTo('/api/chat').length;
      const kubeCalls = k8s.calls.length;
      const id = await submit(h, 'agentic-agent', body(agent, { snapshot: snapshot.snapshot_id }));
      const replayed = await waitForEnd(h, id, 30_000);
      expect(replayed.job.status, replayed.job.error ?? '').toBe('succeeded');
      expect(k8s.calls.length).toBe(kubeCalls);
      const replayTools = toolMessages(chats);

      expect(agentResult(replayed.job).answer).toBe(ANSWER);
      expect(agentResult(replayed.job).answer).toBe(agentResult(live.job).answer);
      expect(replayTools.map((m) => m.tool_name)).toEqual(['list_unhealthy_pods', 'list_warning_events', 'get_pod_logs', 'list_deployments', 'list_nodes']);
      expect(replayTools).toEqual(liveTools);
      expect(replayTools[2]?.content).toContain(SCENARIO.crashLogLine);
      expect(replayed.job.request).toMatchObject({ snapshot: snapshot.snapshot_id });
      expectInOrder(replayed.events, ['job.running:info', 'snapshot.serve:started', 'snapshot.serve:ok', 'agent.ask:started', 'agent.ask:ok', 'snapshot.stop:info', 'job.succeeded:ok']);
      // The replay is gone with the job: its kubeconfig's directory too.
      expect(await readdir(replaysDir())).toEqual([]);
    });
  }
});

describe('every kind of agent gets a kubeconfig of the replay', () => {
  it('a registered driver (stdio) reads the snapshot through it, with the STATUS kubectl would show', async () => {
    const id = await submit(h, 'agentic-agent', body('reader', { snapshot: snapshot.snapshot_id }));
    const { job } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = agentResult(job);
    expect(result.answer).toContain(`${CRASH.name} 0/1 CrashLoopBackOff`);
    expect(result.answer).toContain(`${SCENARIO.imagePullPod.name} 0/1 ImagePullBackOff`);
    const kubeconfig = String(result.artifacts[0]?.data);
    expect(kubeconfig.startsWith(replaysDir())).toBe(true);
    expect(existsSync(kubeconfig)).toBe(false);
  });

  it('the bundled holmes driver (stdio) and k8sgpt run with KUBECONFIG pointing at the replay', async () => {
    const holmes = await waitForEnd(h, await submit(h, 'agentic-agent', body('holmes', { snapshot: snapshot.snapshot_id })), 30_000);
    expect(holmes.job.status, holmes.job.error ?? '').toBe('succeeded');
    const record = JSON.parse(await readFile(holmesRecord, 'utf8')) as { env: Record<string, string> };
    expect(record.env.KUBECONFIG?.startsWith(replaysDir())).toBe(true);
    const k8sgpt = await waitForEnd(h, await submit(h, 'agentic-agent', body('k8sgpt', { snapshot: snapshot.snapshot_id })), 30_000);
    expect(k8sgpt.job.status, k8sgpt.job.error ?? '').toBe('succeeded');
  });

  it('the bundled drivers in-process (the desktop app) read a served snapshot too', async () => {
    const lease = await h.bd.snapshots.serve(snapshot.snapshot_id, 'test');
    try {
      const registry = createAgentRegistry({ selfCommand: ['/nonexistent'], env: { ...process.env, PATH: pathWithFakeAgents(), FAKE_HOLMES_RECORD: holmesRecord, BENCHDESK_AGENT_ENV: 'FAKE_HOLMES_*' }, bundledTransport: 'in-process' });
      const answer = await registry.resolveAgent('holmes').ask({ question: QUESTION, model: MODEL, kubeconfig: lease.kubeconfigPath, backend_url: h.ollama.url });
      expect(answer.answer).toMatch(/CrashLoopBackOff/);
      const record = JSON.parse(await readFile(holmesRecord, 'utf8')) as { env: Record<string, string> };
      expect(record.env.KUBECONFIG).toBe(lease.kubeconfigPath);
    } finally {
      await lease.close();
    }
  });
});

describe('benchmark on a snapshot', () => {
  it('serves the snapshot from before provisioning to after teardown', async () => {
    const id = await submit(h, 'benchmark', { question: QUESTION, model: MODEL, backend_url: h.ollama.url, snapshot: snapshot.snapshot_id });
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(benchmarkResult(job).answer).toBe(ANSWER);
    expectInOrder(events, ['snapshot.serve:ok', 'phase.provision:started', 'phase.analysis:ok', 'snapshot.stop:info', 'job.succeeded:ok']);
  });
});

describe('submit-time checks and the snapshot in use', () => {
  it('kubeconfig and snapshot together, or an unknown snapshot, are 422s naming `snapshot`', async () => {
    const both = await h.post('/v1/jobs/agentic-agent', body('builtin', { snapshot: snapshot.snapshot_id, kubeconfig: mustK8s(h).kubeconfigPath }));
    expect(both.status).toBe(422);
    expect(both.body).toMatchObject({ errors: [{ path: 'snapshot', message: expect.stringContaining('not both') }] });
    const unknown = await h.post('/v1/jobs/benchmark', { question: QUESTION, model: MODEL, backend_url: h.ollama.url, snapshot: 'no-such-snapshot' });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ errors: [{ path: 'snapshot', message: expect.stringContaining('no snapshot no-such-snapshot') }] });
  });

  it('while a job serves it, the snapshot names the job and cannot be deleted; cancel stops the replay', async () => {
    const id = await submit(h, 'agentic-agent', body('hangs', { snapshot: snapshot.snapshot_id }));
    await waitForEvent(h, id, (e: JobEvent) => line(e) === 'agent.ask:started', 'the driver to start');
    expect((await h.get(`/v1/snapshots/${snapshot.snapshot_id}`)).body).toMatchObject({ used_by: [`job ${id}`] });
    const refused = await h.bd.app.inject({ method: 'DELETE', url: `/v1/snapshots/${snapshot.snapshot_id}` });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain(`job ${id}`);
    expect((await readdir(replaysDir())).length).toBe(1);
    expect((await h.post(`/v1/jobs/${id}/cancel`, {})).status).toBe(202);
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('cancelled');
    expectInOrder(events, ['snapshot.serve:ok', 'agent.ask:started', 'snapshot.stop:info', 'job.cancelled:info']);
    await waitUntil(async () => (await readdir(replaysDir())).length === 0, 'the replay to be gone');
    expect((await h.get(`/v1/snapshots/${snapshot.snapshot_id}`)).body).toMatchObject({ used_by: [] });
  });
});
