import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OPERATION_NAMES,
  isStreamReset,
  type BenchdeskClient,
  type JobEvent,
  type JobStreamItem,
  type OperationName,
  type Problem,
} from '../../shared';
import { BenchdeskApiError, createHttpClient } from '../../shared/client';
import { bodies } from '../helpers/handlers';
import { SNAPSHOT_FORMAT, SUITE_FORMAT, type Suite, type SnapshotSummary } from '../../shared';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { TOKENS, makeBench, removeDir, waitForStatus, type TestBench } from '../helpers/bench';
import { threeTransports, type TransportName } from './transports';
import { heldRunner } from '../sweeps/helpers';
import { inTestMachines } from '../sweeps/fake-machines';

/**
 * One contract, three transports: the typed HTTP client against the real server, the in-process
 * adapter, and the IPC path (renderer client → preload → dispatcher). The same request must give
 * the same response and the same problem body on each, for every operation of the table.
 */

type Outcome = { ok: unknown } | { problem: Problem };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await run() };
  } catch (err) {
    if (err instanceof BenchdeskApiError) return { problem: err.problem };
    throw err;
  }
}

/** A stream's events; these streams resume from positions the server holds, so a reset is a failure. */
async function collect(stream: AsyncIterable<JobStreamItem>, until?: (item: JobEvent) => boolean): Promise<JobEvent[]> {
  const items: JobEvent[] = [];
  for await (const item of stream) {
    if (isStreamReset(item)) throw new Error(`unexpected reset: ${item.message}`);
    items.push(item);
    if (until?.(item)) break;
  }
  return items;
}

function eventOf(item: JobStreamItem): JobEvent {
  if (isStreamReset(item)) throw new Error(`unexpected reset: ${item.message}`);
  return item;
}

let t: TestBench;
let k8s: FakeKubernetes;
let clients: Record<TransportName, BenchdeskClient>;
let removeIpc: () => void;
const TRANSPORTS: TransportName[] = ['http', 'in-process', 'ipc'];
const covered = new Set<OperationName>();
/** The sweeps' jobs, held until the test lets them finish (the sweep engine itself is real). */
const sweepJobs = heldRunner({ hold: true });

/** Runs one call on all three transports and expects identical outcomes; returns it. */
async function same(op: OperationName, call: (c: BenchdeskClient) => Promise<unknown>): Promise<Outcome> {
  covered.add(op);
  const results: Partial<Record<TransportName, Outcome>> = {};
  for (const name of TRANSPORTS) results[name] = await outcome(() => call(clients[name]));
  expect(results['in-process'], `${op}: in-process vs http`).toEqual(results.http);
  expect(results.ipc, `${op}: ipc vs http`).toEqual(results.http);
  return results.http as Outcome;
}

function problemOf(o: Outcome): Problem {
  if (!('problem' in o)) throw new Error(`expected a problem, got ${JSON.stringify(o)}`);
  return o.problem;
}

beforeAll(async () => {
  k8s = await startFakeKubernetes();
  t = await makeBench({ start: true, sseHeartbeatMs: 200, extra: { sweepTuning: { runner: sweepJobs.runner, machines: inTestMachines().machines } } });
  const bd = t.bd as typeof t.bd & { apiUrl: string };
  ({ clients, removeIpc } = threeTransports(bd, TOKENS.default));
});

afterAll(async () => {
  removeIpc();
  await t.close();
  await removeDir(t.dir);
  await k8s.close();
});

describe('unary operations', () => {
  it('getHealth', async () => {
    const o = await same('getHealth', (c) => c.getHealth({}));
    expect(o).toMatchObject({ ok: { status: 'ok', auth: 'enabled' } });
  });

  it('createEstimate: the answer, a 422 with its errors, and a 400 for a body that is not an object', async () => {
    expect(await same('createEstimate', (c) => c.createEstimate({ marketplace: true, min_dph: 0.1, max_dph: 1 }))).toMatchObject({ ok: { projected_cost_usd: 0.5 } });
    const invalid = problemOf(await same('createEstimate', (c) => c.createEstimate({ min_dph: 2, max_dph: 1 })));
    expect(invalid).toMatchObject({ status: 422, code: 'validation_failed', errors: [{ path: 'max_dph' }] });
    const unknownField = problemOf(await same('createEstimate', (c) => c.createEstimate({ bogus: 1 } as never)));
    expect(unknownField.detail).toContain('bogus');
    const notObject = problemOf(await same('createEstimate', (c) => c.createEstimate([1, 2] as never)));
    expect(notObject).toMatchObject({ status: 400, code: 'bad_request' });
  });

  it('createJob: one job for one Idempotency-Key across transports, 422 for a bad request or reused key', async () => {
    const accepted = await same('createJob', (c) => c.createJob({ kind: 'agentic-agent', request: bodies.agent('ok') as never, idempotency_key: 'contract-1' }));
    expect(accepted).toMatchObject({ ok: { status: 'accepted' } });
    const jobId = (accepted as { ok: { job_id: string } }).ok.job_id;
    await waitForStatus(t.bd, jobId, 'succeeded');
    const reused = problemOf(await same('createJob', (c) => c.createJob({ kind: 'agentic-agent', request: { ...bodies.agent('ok'), question: 'other' } as never, idempotency_key: 'contract-1' })));
    expect(reused).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    const invalid = problemOf(await same('createJob', (c) => c.createJob({ kind: 'benchmark', request: { question: 'q', model: 'm', marketplace: true } })));
    expect(invalid.status).toBe(422);
    expect(invalid.errors?.map((e) => e.path).sort()).toEqual(['max_dph', 'template_hash']);
    const wrongType = problemOf(await same('createJob', (c) => c.createJob({ kind: 'llm-instance', request: { backend_url: 'http://ok', backend_warmup: 'true' } as never })));
    expect(wrongType.errors?.[0]?.path).toBe('backend_warmup');
  });

  it('createJob serving-benchmark: accepted and succeeded on every transport; the same 422s for bad levels, request counts and output tokens', async () => {
    const accepted = await same('createJob', (c) => c.createJob({ kind: 'serving-benchmark', request: bodies.serving('ok') as never, idempotency_key: 'contract-serving' }));
    expect(accepted).toMatchObject({ ok: { status: 'accepted' } });
    const jobId = (accepted as { ok: { job_id: string } }).ok.job_id;
    await waitForStatus(t.bd, jobId, 'succeeded');
    const job = await same('getJob', (c) => c.getJob({ job_id: jobId }));
    expect(job).toMatchObject({ ok: { kind: 'serving-benchmark', request: { concurrency: [1, 2], requests_per_level: 4, prompt_tokens: 256, output_tokens: 128, warmup_requests: 2 }, result: { levels: [{ concurrency: 1 }, { concurrency: 2 }] } } });
    const bad = async (over: Record<string, unknown>) => problemOf(await same('createJob', (c) => c.createJob({ kind: 'serving-benchmark', request: { ...bodies.serving('ok'), ...over } as never })));
    expect(await bad({ concurrency: [0, 2] })).toMatchObject({ status: 422, errors: [{ path: 'concurrency.0' }] });
    expect(await bad({ concurrency: 4 })).toMatchObject({ status: 422, errors: [{ path: 'concurrency' }] });
    expect(await bad({ concurrency: [2, 8], requests_per_level: 4 })).toMatchObject({ status: 422, errors: [{ path: 'requests_per_level' }] });
    expect(await bad({ output_tokens: 0 })).toMatchObject({ status: 422, errors: [{ path: 'output_tokens' }] });
    // Its per-request records (none from the test handler): the CSV header alone, the same everywhere; another kind is a 404.
    expect(await same('getJobRequests', (c) => c.getJobRequests({ job_id: jobId, format: 'csv' }))).toEqual({ ok: 'level,started_at_ms,ttft_ms,e2e_ms,output_tokens,itl_count,finish_reason,error\n' });
    expect(problemOf(await same('getJobRequests', (c) => c.getJobRequests({ job_id: 'no-such-job' })))).toMatchObject({ status: 404 });
  });

  it('getJob, listJobs, getJobEvents and getMetricsSummary see the same records', async () => {
    const { job_id } = await clients['in-process'].createJob({ kind: 'benchmark', request: bodies.benchmark('steps') as never });
    await waitForStatus(t.bd, job_id, 'succeeded');
    const job = await same('getJob', (c) => c.getJob({ job_id }));
    expect(job).toMatchObject({ ok: { job_id, kind: 'benchmark', status: 'succeeded' } });
    expect(problemOf(await same('getJob', (c) => c.getJob({ job_id: 'no-such-job' })))).toMatchObject({ status: 404, code: 'job_not_found' });

    const list = await same('listJobs', (c) => c.listJobs({ kind: 'benchmark', limit: 5 }));
    expect((list as { ok: { jobs: { job_id: string }[] } }).ok.jobs[0]?.job_id).toBe(job_id);
    expect(problemOf(await same('listJobs', (c) => c.listJobs({ limit: 0 })))).toMatchObject({ status: 422, errors: [{ path: 'limit' }] });
    expect(problemOf(await same('listJobs', (c) => c.listJobs({ cursor: 'garbage' })))).toMatchObject({ status: 422 });

    const counts = await same('getJobCounts', (c) => c.getJobCounts({ kind: 'benchmark' }));
    expect((counts as { ok: { total: number; by_status: { succeeded: number } } }).ok.by_status.succeeded).toBeGreaterThanOrEqual(1);
    expect(problemOf(await same('getJobCounts', (c) => c.getJobCounts({ kind: 'nope' as never })))).toMatchObject({ status: 422 });

    const events = await same('getJobEvents', (c) => c.getJobEvents({ job_id }));
    const all = (events as { ok: { events: JobEvent[] } }).ok.events;
    expect(all.map((e) => e.event)).toContain('job.succeeded');
    const after = all[1]?.seq ?? 0;
    const tail = await same('getJobEvents', (c) => c.getJobEvents({ job_id, after }));
    expect((tail as { ok: { events: JobEvent[] } }).ok.events.every((e) => e.seq > after)).toBe(true);
    expect(problemOf(await same('getJobEvents', (c) => c.getJobEvents({ job_id: 'no-such-job' })))).toMatchObject({ status: 404 });

    const metrics = await same('getMetricsSummary', (c) => c.getMetricsSummary({ job_id }));
    expect((metrics as { ok: { events: unknown[] } }).ok.events.length).toBeGreaterThan(0);
  });

  it('cancelJob: 202 once, then the same 409 everywhere', async () => {
    const { job_id } = await clients.http.createJob({ kind: 'agentic-agent', request: bodies.agent('hang') as never });
    await t.recorder.startedJob(job_id);
    covered.add('cancelJob');
    expect(await clients.ipc.cancelJob({ job_id })).toMatchObject({ job_id });
    await waitForStatus(t.bd, job_id, 'cancelled');
    const again = problemOf(await same('cancelJob', (c) => c.cancelJob({ job_id })));
    expect(again).toMatchObject({ status: 409, code: 'job_not_cancellable' });
    expect(problemOf(await same('cancelJob', (c) => c.cancelJob({ job_id: 'nope' })))).toMatchObject({ status: 404 });
  });

  it('listCatalog and listLlmModels', async () => {
    expect(await same('listCatalog', (c) => c.listCatalog({}))).toMatchObject({ ok: { models: [{ name: 'llama3:8b' }] } });
    expect(await same('listLlmModels', (c) => c.listLlmModels({ backend_url: 'http://ollama:11434' }))).toMatchObject({ ok: { backend_url: 'http://ollama:11434' } });
    const missing = problemOf(await same('listLlmModels', (c) => c.listLlmModels({} as never)));
    expect(missing).toMatchObject({ status: 422, errors: [{ path: 'backend_url' }] });
  });

  it('listInstances and releaseInstance without a marketplace key: an empty list that says why, a 409, a 422', async () => {
    const list = await same('listInstances', (c) => c.listInstances({ orphaned: true }));
    expect(list).toMatchObject({ ok: { instances: [], note: expect.stringMatching(/no marketplace key/) } });
    expect(problemOf(await same('listInstances', (c) => c.listInstances({ orphaned: 'maybe' } as never)))).toMatchObject({ status: 422, errors: [{ path: 'orphaned' }] });
    expect(problemOf(await same('releaseInstance', (c) => c.releaseInstance({ instance_id: 42 })))).toMatchObject({ status: 409, code: 'marketplace_not_configured' });
    expect(problemOf(await same('releaseInstance', (c) => c.releaseInstance({ instance_id: -1 })))).toMatchObject({ status: 422 });
    // `force` travels on every transport (over HTTP in the body): accepted, or refused alike when it is not a boolean.
    expect(problemOf(await same('releaseInstance', (c) => c.releaseInstance({ instance_id: 42, force: true })))).toMatchObject({ status: 409, code: 'marketplace_not_configured' });
    expect(problemOf(await same('releaseInstance', (c) => c.releaseInstance({ instance_id: 42, force: 'yes' } as never)))).toMatchObject({ status: 422, errors: [{ path: 'force' }] });
    // Over HTTP the id is the path's: a body that repeats it is refused, an empty POST is fine.
    const res = await t.req({ method: 'POST', url: '/v1/marketplace/instances/42/release', payload: { instance_id: 43 } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ errors: [{ path: 'instance_id', message: 'instance_id is given by the path, not the body' }] });
    expect((await t.req({ method: 'POST', url: '/v1/marketplace/instances/42/release' })).statusCode).toBe(409);
  });

  it('searchTemplates without a marketplace key: an empty list that says why; a 422 for a query too long', async () => {
    expect(await same('searchTemplates', (c) => c.searchTemplates({ q: 'Ollama' }))).toMatchObject({ ok: { templates: [], note: expect.stringMatching(/no marketplace key/) } });
    expect(problemOf(await same('searchTemplates', (c) => c.searchTemplates({ q: 'x'.repeat(201) })))).toMatchObject({ status: 422, errors: [{ path: 'q' }] });
  });

  it('listAgents: builtin and the bundled drivers, the same on every transport', async () => {
    const o = await same('listAgents', (c) => c.listAgents({}));
    expect(o).toMatchObject({
      ok: {
        agents: [
          { name: 'builtin', source: 'builtin', transport: 'in-process' },
          { name: 'holmes', source: 'bundled' },
          { name: 'k8sgpt', source: 'bundled' },
        ],
        warnings: [],
      },
    });
  });

  it('settings: read, an update that changes nothing, 422s, the token (none headless), the key test, 409 on storing a key, spend', async () => {
    expect(await same('getSettings', (c) => c.getSettings({}))).toMatchObject({ ok: { settings: { concurrency: expect.any(Number) as number } } });
    // The default again: every transport answers the same, nothing changed.
    const unchanged = await same('updateSettings', (c) => c.updateSettings({ release_orphans_automatically: false }));
    expect(unchanged).toMatchObject({ ok: { changed: [] } });
    expect(problemOf(await same('updateSettings', (c) => c.updateSettings({ concurrency: 0 })))).toMatchObject({ status: 422, errors: [{ path: 'concurrency' }] });
    expect(problemOf(await same('updateSettings', (c) => c.updateSettings({ colour: 'red' } as never)))).toMatchObject({ status: 422 });
    expect(await same('getApiToken', (c) => c.getApiToken({}))).toMatchObject({ ok: { token: null, tenant_id: 'default' } });
    // A rotation changes state, so only its refusal is the same everywhere.
    expect(problemOf(await same('rotateApiToken', (c) => c.rotateApiToken({ now: true } as never)))).toMatchObject({ status: 422 });
    expect(await same('testMarketplaceKey', (c) => c.testMarketplaceKey({}))).toMatchObject({ ok: { ok: false, source: null } });
    expect(problemOf(await same('setMarketplaceKey', (c) => c.setMarketplaceKey({ key: 'abc' })))).toMatchObject({ status: 409, code: 'marketplace_not_configured' });
    expect(await same('getSpendSummary', (c) => c.getSpendSummary({}))).toMatchObject({ ok: { tenant_id: 'default' } });
  });
});

describe('snapshots', () => {
  const handWritten = (name: string) => ({
    format: SNAPSHOT_FORMAT,
    name,
    recorded_at: '2026-08-20T10:30:00Z',
    source: { server: 'https://203.0.113.10:6443' },
    objects: { pods: [{ metadata: { name: 'web-1', namespace: 'shop' }, spec: { containers: [{ name: 'web' }] }, status: { phase: 'Pending' } }] },
  });

  it('recordSnapshot: the same 422s everywhere; one recording per transport, each a 201 summary', async () => {
    const missing = problemOf(await same('recordSnapshot', (c) => c.recordSnapshot({ name: 'x', kubeconfig: '/nowhere/kubeconfig' })));
    expect(missing).toMatchObject({ status: 422, errors: [{ path: 'kubeconfig' }] });
    expect(problemOf(await same('recordSnapshot', (c) => c.recordSnapshot({ name: '', kubeconfig: k8s.kubeconfigPath })))).toMatchObject({ status: 422, errors: [{ path: 'name' }] });
    for (const name of TRANSPORTS) {
      const summary = await clients[name].recordSnapshot({ name: `recorded over ${name}`, kubeconfig: k8s.kubeconfigPath, namespaces: ['shop'], log_tail_lines: 5 });
      expect(summary, name).toMatchObject({ name: `recorded over ${name}`, origin: 'recorded', namespaces: ['shop'], counts: { pods: 4 } });
    }
  });

  it('importSnapshot, listSnapshots, getSnapshot, exportSnapshot: the same answers; a 422 naming the path', async () => {
    const imported = await same('importSnapshot', (c) => c.importSnapshot(handWritten('contract import')));
    const summary = (imported as { ok: SnapshotSummary }).ok;
    expect(summary).toMatchObject({ name: 'contract import', origin: 'imported', counts: { pods: 1, namespaces: 1 } });
    const bad = problemOf(await same('importSnapshot', (c) => c.importSnapshot({ ...handWritten('bad'), recorded_at: 'yesterday' })));
    expect(bad).toMatchObject({ status: 422, errors: [{ path: 'recorded_at' }] });

    const list = await same('listSnapshots', (c) => c.listSnapshots({}));
    expect((list as { ok: { snapshots: SnapshotSummary[] } }).ok.snapshots.map((s) => s.snapshot_id)).toContain(summary.snapshot_id);
    expect(await same('getSnapshot', (c) => c.getSnapshot({ snapshot_id: summary.snapshot_id }))).toEqual({ ok: summary });
    expect(problemOf(await same('getSnapshot', (c) => c.getSnapshot({ snapshot_id: 'nope' })))).toMatchObject({ status: 404, code: 'snapshot_not_found' });
    const exported = await same('exportSnapshot', (c) => c.exportSnapshot({ snapshot_id: summary.snapshot_id }));
    expect(exported).toMatchObject({ ok: { format: SNAPSHOT_FORMAT, snapshot_id: summary.snapshot_id, objects: { pods: [{ metadata: { name: 'web-1', namespace: 'shop' } }] } } });
  });

  it('deleteSnapshot: nothing back on success, on every transport; the same 404 and 409', async () => {
    expect(problemOf(await same('deleteSnapshot', (c) => c.deleteSnapshot({ snapshot_id: 'nope' })))).toMatchObject({ status: 404 });
    const held = await clients.http.importSnapshot(handWritten('in use'));
    const release = t.bd.snapshots.registerUsage((id) => (id === held.snapshot_id ? ['suite contract'] : []));
    expect(problemOf(await same('deleteSnapshot', (c) => c.deleteSnapshot({ snapshot_id: held.snapshot_id })))).toMatchObject({ status: 409, code: 'snapshot_in_use' });
    release();
    for (const name of TRANSPORTS) {
      const { snapshot_id } = await clients.http.importSnapshot(handWritten(`to delete over ${name}`));
      expect(await clients[name].deleteSnapshot({ snapshot_id }), name).toBeUndefined();
      await expect(clients.http.getSnapshot({ snapshot_id })).rejects.toMatchObject({ problem: { status: 404 } });
    }
  });

  it('serveSnapshot, getSnapshotServing, stopServingSnapshot: one replay whatever the transport; in use while served', async () => {
    const { snapshot_id } = await clients.http.importSnapshot(handWritten('served'));
    expect(await same('getSnapshotServing', (c) => c.getSnapshotServing({ snapshot_id }))).toEqual({ ok: { serving: null } });
    const started = await same('serveSnapshot', (c) => c.serveSnapshot({ snapshot_id }));
    const serving = (started as { ok: { url: string; kubeconfig: string } }).ok;
    expect(serving).toMatchObject({ snapshot_id, url: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+$/) });
    expect(await same('getSnapshotServing', (c) => c.getSnapshotServing({ snapshot_id }))).toEqual({ ok: { serving } });
    expect(problemOf(await same('deleteSnapshot', (c) => c.deleteSnapshot({ snapshot_id })))).toMatchObject({ status: 409, detail: expect.stringContaining('Snapshots page') });
    expect(problemOf(await same('serveSnapshot', (c) => c.serveSnapshot({ snapshot_id: 'nope' })))).toMatchObject({ status: 404 });
    expect(await same('stopServingSnapshot', (c) => c.stopServingSnapshot({ snapshot_id }))).toEqual({ ok: undefined });
    expect(await clients.http.getSnapshotServing({ snapshot_id })).toEqual({ serving: null });
    expect(problemOf(await same('stopServingSnapshot', (c) => c.stopServingSnapshot({ snapshot_id: 'nope' })))).toMatchObject({ status: 404 });
    await clients.http.deleteSnapshot({ snapshot_id });
  });
});

describe('suites', () => {
  const scenario = (snapshotId: string, over: Record<string, unknown> = {}) => ({
    scenario_id: 'oom',
    title: 'OOM',
    snapshot_id: snapshotId,
    question: 'why?',
    expected: [{ finding: 'oom', any_of: ['oom ?kill'] }],
    difficulty: 'easy' as const,
    ...over,
  });

  it('listSuites and getSuite: the shipped starter suite from the first start, the same everywhere', async () => {
    const list = await same('listSuites', (c) => c.listSuites({}));
    expect(list).toMatchObject({ ok: { suites: [{ suite_id: 'starter', read_only: true }] } });
    const starter = await same('getSuite', (c) => c.getSuite({ suite_id: 'starter' }));
    expect((starter as { ok: Suite }).ok.scenarios.length).toBeGreaterThanOrEqual(10);
    expect(problemOf(await same('getSuite', (c) => c.getSuite({ suite_id: 'nope' })))).toMatchObject({ status: 404, code: 'suite_not_found' });
  });

  it('createSuite: an invalid regex is a 422 naming its path, a missing snapshot too, on every transport', async () => {
    const bad = problemOf(await same('createSuite', (c) => c.createSuite({ name: 'bad', scenarios: [scenario('starter-oomkilled', { expected: [{ finding: 'f', any_of: ['(oops'] }] })] })));
    expect(bad).toMatchObject({ status: 422, errors: [{ path: 'scenarios.0.expected.0.any_of.0' }] });
    const missing = problemOf(await same('createSuite', (c) => c.createSuite({ name: 'missing', scenarios: [scenario('no-such-snapshot')] })));
    expect(missing).toMatchObject({ status: 422, errors: [{ path: 'scenarios.0.snapshot_id' }] });
    expect(problemOf(await same('createSuite', (c) => c.createSuite({ suite_id: 'starter', name: 'x', scenarios: [scenario('starter-oomkilled')] })))).toMatchObject({ status: 409, code: 'suite_exists' });
    for (const name of TRANSPORTS) {
      const created = await clients[name].createSuite({ name: `created over ${name}`, scenarios: [scenario('starter-oomkilled')] });
      expect(created, name).toMatchObject({ name: `created over ${name}`, read_only: false, scenarios: [{ scenario_id: 'oom', must_not: [], tags: [] }] });
    }
  });

  it('exportSuite and importSuite: the suite with its snapshots in one document; a bad one is a 422 naming the path', async () => {
    const created = await clients.http.createSuite({ suite_id: 'contract-export', name: 'export me', scenarios: [scenario('starter-oomkilled')] });
    const exported = await same('exportSuite', (c) => c.exportSuite({ suite_id: created.suite_id }));
    const doc = (exported as { ok: { format: string; suite: { suite_id: string }; snapshots: { snapshot_id: string }[] } }).ok;
    expect(doc).toMatchObject({ format: SUITE_FORMAT, suite: { suite_id: 'contract-export' }, snapshots: [{ snapshot_id: 'starter-oomkilled' }] });
    const broken = problemOf(await same('importSuite', (c) => c.importSuite({ ...doc, snapshots: [] } as never)));
    expect(broken).toMatchObject({ status: 422, errors: [{ path: 'suite.scenarios.0.snapshot_id' }] });
    covered.add('importSuite');
    for (const name of TRANSPORTS) {
      // The id is taken: each import gets a new one; the same snapshot content is reused.
      const imported = await clients[name].importSuite(doc as never);
      expect(imported.suite_id, name).not.toBe('contract-export');
      expect(imported.scenarios[0]?.snapshot_id, name).toBe('starter-oomkilled');
    }
  });

  it('deleteSuite: 204 on every transport; the starter suite is read-only (409); a used snapshot cannot be deleted (409)', async () => {
    expect(problemOf(await same('deleteSuite', (c) => c.deleteSuite({ suite_id: 'starter' })))).toMatchObject({ status: 409, code: 'suite_read_only' });
    expect(problemOf(await same('deleteSuite', (c) => c.deleteSuite({ suite_id: 'nope' })))).toMatchObject({ status: 404 });
    const inUse = problemOf(await same('deleteSnapshot', (c) => c.deleteSnapshot({ snapshot_id: 'starter-healthy' })));
    expect(inUse).toMatchObject({ status: 409, code: 'snapshot_in_use' });
    expect(inUse.detail).toContain('suite starter');
    for (const name of TRANSPORTS) {
      const { suite_id } = await clients.http.createSuite({ name: `to delete over ${name}`, scenarios: [scenario('starter-oomkilled')] });
      expect(await clients[name].deleteSuite({ suite_id }), name).toBeUndefined();
      await expect(clients.http.getSuite({ suite_id })).rejects.toMatchObject({ problem: { status: 404 } });
    }
  });

  it('scoreAnswer: the same score and statements on every transport; 404 for an unknown scenario, 422 for a bad body', async () => {
    const answer = 'report-worker was OOMKilled; it is not a password problem. Raise its memory limit.';
    const scored = await same('scoreAnswer', (c) => c.scoreAnswer({ suite_id: 'starter', scenario_id: 'oomkilled', answer }));
    expect(scored).toMatchObject({ ok: { passed: true, method: 'rules', statements: expect.arrayContaining([expect.objectContaining({ reason: 'negated' })]) } });
    expect(problemOf(await same('scoreAnswer', (c) => c.scoreAnswer({ suite_id: 'starter', scenario_id: 'ghost', answer })))).toMatchObject({ status: 404, code: 'scenario_not_found' });
    expect(problemOf(await same('scoreAnswer', (c) => c.scoreAnswer({ suite_id: 'starter', scenario_id: 'oomkilled' } as never)))).toMatchObject({ status: 422 });
  });

  it('another tenant may read suites but not create, import or delete one (403 on every transport)', async () => {
    const acme = createHttpClient({ baseUrl: (t.bd as typeof t.bd & { apiUrl: string }).apiUrl, token: TOKENS.acme, tenant: 'acme' });
    expect((await acme.listSuites({})).suites.map((s) => s.suite_id)).toContain('starter');
    await expect(acme.createSuite({ name: 'x', scenarios: [scenario('starter-oomkilled')] })).rejects.toMatchObject({ problem: { status: 403, code: 'forbidden_tenant' } });
    await expect(acme.deleteSuite({ suite_id: 'contract-export' })).rejects.toMatchObject({ problem: { status: 403 } });
    await expect(acme.importSuite({} as never)).rejects.toMatchObject({ problem: { status: 403 } });
    // In process too: the guard sits in the handlers every transport calls.
    const acmeInProcess = t.bd.client('acme');
    await expect(acmeInProcess.createSuite({ name: 'x', scenarios: [scenario('starter-oomkilled')] })).rejects.toMatchObject({ problem: { status: 403, code: 'forbidden_tenant' } });
    await expect(acmeInProcess.deleteSuite({ suite_id: 'starter' })).rejects.toMatchObject({ problem: { status: 403 } });
    expect((await acmeInProcess.getSuite({ suite_id: 'starter' })).read_only).toBe(true);
  });
});

describe('sweeps', () => {
  const sweepBody = { name: 'contract sweep', models: ['llama3.1:8b'], gpus: ['RTX 3090'], suite_id: 'starter', template_hash: 'abc', max_dph: 1, max_total_cost_usd: 5 };

  it('createSweep, getSweep, listSweeps, getSweepReport (json, md, csv), cancelSweep: the same answers and problems on every transport', async () => {
    const invalid = problemOf(await same('createSweep', (c) => c.createSweep({ ...sweepBody, suite_id: undefined })));
    expect(invalid).toMatchObject({ status: 422, code: 'validation_failed', errors: [{ path: 'suite_id' }] });
    // Sweep events reach the tenant feed on every transport (SSE, IPC push, in process).
    const stop = new AbortController();
    const feeds = TRANSPORTS.map((name) =>
      (async () => {
        const seen: string[] = [];
        for await (const item of clients[name].streamEvents({}, { signal: stop.signal })) {
          const e = eventOf(item);
          if (e.labels.sweep_id === undefined) continue;
          seen.push(`${e.job_id}:${e.event}`);
          if (e.event === 'sweep.cell.job') break;
        }
        return seen;
      })(),
    );
    await new Promise((r) => setTimeout(r, 100));
    const accepted = await clients.http.createSweep(sweepBody);
    expect(accepted.status).toBe('accepted');
    const id = accepted.sweep_id;
    const seen = await Promise.all(feeds);
    stop.abort();
    for (const events of seen) expect(events).toEqual(expect.arrayContaining([`${id}:sweep.queued`, `${id}:sweep.running`, `${id}:sweep.machine.rented`, `${id}:sweep.cell.job`]));
    const ended = (await clients['in-process'].getSweep({ sweep_id: id })).status;
    expect(['queued', 'running']).toContain(ended);
    // Cancelled while its first job is held: every transport then reads the same finished sweep.
    for (let i = 0; i < 500 && sweepJobs.jobs.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(await same('cancelSweep', (c) => c.cancelSweep({ sweep_id: 'sw-none' }))).toMatchObject({ problem: { status: 404, code: 'sweep_not_found' } });
    expect((await clients.ipc.cancelSweep({ sweep_id: id })).sweep_id).toBe(id);
    for (let i = 0; i < 500; i++) {
      if ((await clients.http.getSweep({ sweep_id: id })).status === 'cancelled') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const got = await same('getSweep', (c) => c.getSweep({ sweep_id: id }));
    expect(got).toMatchObject({ ok: { sweep_id: id, status: 'cancelled', cells: [{ status: 'cancelled' }] } });
    expect(await same('listSweeps', (c) => c.listSweeps({}))).toMatchObject({ ok: { sweeps: [{ sweep_id: id }] } });
    expect(problemOf(await same('cancelSweep', (c) => c.cancelSweep({ sweep_id: id })))).toMatchObject({ status: 409, code: 'sweep_not_cancellable' });
    const json = await same('getSweepReport', (c) => c.getSweepReport({ sweep_id: id }));
    expect(json).toMatchObject({ ok: { sweep_id: id, ranked_by: 'accuracy', rows: [{ status: 'cancelled' }] } });
    const md = (await same('getSweepReport', (c) => c.getSweepReport({ sweep_id: id, format: 'md' }))) as { ok: unknown };
    expect(String(md.ok)).toMatch(/^## Sweep: contract sweep/);
    const csv = (await same('getSweepReport', (c) => c.getSweepReport({ sweep_id: id, format: 'csv' }))) as { ok: unknown };
    expect(String(csv.ok)).toMatch(/^rank_tier,model,gpu,status/);
    expect(problemOf(await same('getSweep', (c) => c.getSweep({ sweep_id: 'sw-none' })))).toMatchObject({ status: 404 });
  });
});

describe('streams', () => {
  it("streamJobEvents: a finished job's events, then the end; a 404 for an unknown job", async () => {
    const { job_id } = await clients.http.createJob({ kind: 'benchmark', request: bodies.benchmark('steps') as never });
    await waitForStatus(t.bd, job_id, 'succeeded');
    covered.add('streamJobEvents');
    const seen: Partial<Record<TransportName, string[]>> = {};
    for (const name of TRANSPORTS) seen[name] = (await collect(clients[name].streamJobEvents({ job_id }))).map((e) => `${e.seq}:${e.event}:${e.status}`);
    expect(seen.http?.at(-1)).toMatch(/job\.succeeded/);
    expect(seen['in-process']).toEqual(seen.http);
    expect(seen.ipc).toEqual(seen.http);
    const missing = await same('streamJobEvents', (c) => collect(c.streamJobEvents({ job_id: 'no-such-job' })));
    expect(problemOf(missing)).toMatchObject({ status: 404, code: 'job_not_found' });
  });

  it('streamJobEvents follows a live job to its end on every transport', async () => {
    const { job_id } = await clients.http.createJob({ kind: 'agentic-agent', request: bodies.agent('hold') as never });
    await t.recorder.startedJob(job_id);
    const streams = TRANSPORTS.map((name) => collect(clients[name].streamJobEvents({ job_id })));
    await new Promise((r) => setTimeout(r, 100));
    t.recorder.release(job_id);
    const [http, inProcess, ipc] = await Promise.all(streams);
    expect(http?.at(-1)?.event).toBe('job.succeeded');
    expect(inProcess).toEqual(http);
    expect(ipc).toEqual(http);
  });

  it("streamEvents: every job of the tenant, live, on every transport, and none of another tenant's", async () => {
    covered.add('streamEvents');
    const stop = new AbortController();
    const acme = createHttpClient({ baseUrl: (t.bd as typeof t.bd & { apiUrl: string }).apiUrl, token: TOKENS.acme, tenant: 'acme' });
    const acmeSeen: JobEvent[] = [];
    const acmeFeed = (async () => {
      for await (const e of acme.streamEvents({}, { signal: stop.signal })) acmeSeen.push(eventOf(e));
    })().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));

    const ids: string[] = [];
    const feeds = TRANSPORTS.map((name) => {
      const mine: JobEvent[] = [];
      return (async () => {
        // Keep everything: a job's first events can arrive before its createJob call returns.
        for await (const item of clients[name].streamEvents({}, { signal: stop.signal })) {
          const e = eventOf(item);
          mine.push(e);
          if (ids.length === 2 && ids.every((id) => mine.some((m) => m.job_id === id && m.event === 'job.succeeded'))) break;
        }
        return mine.filter((e) => ids.includes(e.job_id));
      })();
    });
    await new Promise((r) => setTimeout(r, 100));
    for (const kind of ['llm-instance', 'agentic-agent'] as const) {
      const request = kind === 'llm-instance' ? bodies.llm('ok') : bodies.agent('ok');
      ids.push((await clients['in-process'].createJob({ kind, request } as never)).job_id);
    }
    const [http, inProcess, ipc] = await Promise.all(feeds);
    stop.abort();
    await acmeFeed;
    for (const id of ids) expect(http?.filter((e) => e.job_id === id).map((e) => e.event)).toEqual(expect.arrayContaining(['job.queued', 'job.running', 'job.succeeded']));
    expect(inProcess).toEqual(http);
    expect(ipc).toEqual(http);
    expect(acmeSeen.filter((e) => ids.includes(e.job_id))).toEqual([]);
  });

  it('streamEvents resumes after a seq (Last-Event-ID) with the events it missed', async () => {
    const { job_id } = await clients.http.createJob({ kind: 'llm-instance', request: bodies.llm('ok') as never });
    await waitForStatus(t.bd, job_id, 'succeeded');
    const events = (await clients.http.getJobEvents({ job_id })).events;
    const first = events[0]?.seq ?? 0;
    for (const name of TRANSPORTS) {
      const replayed = await collect(clients[name].streamEvents({ after: first }), (e) => e.job_id === job_id && e.event === 'job.succeeded');
      expect(replayed.filter((e) => e.job_id === job_id).map((e) => e.seq), name).toEqual(events.slice(1).map((e) => e.seq));
    }
  });
});

describe('coverage', () => {
  it('every operation of the table has a contract case', () => {
    expect([...covered].sort()).toEqual([...OPERATION_NAMES].sort());
  });
});
