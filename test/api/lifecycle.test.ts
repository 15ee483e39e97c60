import { afterEach, describe, expect, it } from 'vitest';
import { API_PATHS, StoredRequestSchemas, type JobRecord } from '../../shared';
import { bodies, createTestHandlers } from '../helpers/handlers';
import { json, makeBench, removeDir, tmpDir, waitFor, waitForStatus, type TestBench } from '../helpers/bench';

const benches: TestBench[] = [];
const dirs: string[] = [];
async function bench(...args: Parameters<typeof makeBench>): Promise<TestBench> {
  const t = await makeBench(...args);
  benches.push(t);
  return t;
}
afterEach(async () => {
  for (const t of benches.splice(0)) await t.close();
  for (const d of dirs.splice(0)) await removeDir(d);
});

async function submit(t: TestBench, path: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.req({ method: 'POST', url: path, payload: body });
  expect(res.statusCode, res.body).toBe(202);
  return json<{ job_id: string }>(res).job_id;
}

async function eventNames(t: TestBench, id: string): Promise<string[]> {
  return (await t.bd.store.listEvents(id)).map((e) => `${e.event}:${e.status}`);
}

describe('cancel', () => {
  it('a queued job (behind a hanging one at concurrency 1) ends cancelled without ever running', async () => {
    const t = await bench({ env: { BENCHDESK_CONCURRENCY: '1' } });
    dirs.push(t.dir);
    const blocker = await submit(t, '/v1/jobs/agentic-agent', bodies.agent('hang'));
    await t.recorder.startedJob(blocker);
    const queued = await submit(t, '/v1/jobs/llm-instance', bodies.llm('ok'));
    expect((await t.bd.store.getJob(queued))?.status).toBe('queued');

    const res = await t.req({ method: 'POST', url: API_PATHS.jobCancel(queued) });
    expect(res.statusCode).toBe(202);
    expect(json(res)).toEqual({ job_id: queued, status: 'cancelled' });
    const job = await t.bd.store.getJob(queued);
    expect(job).toMatchObject({ status: 'cancelled', started_at: null });
    expect(job?.finished_at).toBeTruthy();
    expect(await eventNames(t, queued)).toEqual(['job.queued:info', 'job.cancelled:info']);

    // the blocker is still running; cancelling it lets the queue move on, and the cancelled one never runs
    const after = await submit(t, '/v1/jobs/llm-instance', bodies.llm('ok'));
    expect((await t.req({ method: 'POST', url: API_PATHS.jobCancel(blocker) })).statusCode).toBe(202);
    await waitForStatus(t.bd, blocker, 'cancelled');
    await waitForStatus(t.bd, after, 'succeeded');
    expect(t.recorder.runs.has(queued)).toBe(false);
    expect(t.recorder.started).toEqual([blocker, after]);
  });

  it('a running job: the step is aborted, its cleanup runs, and it ends cancelled', async () => {
    const t = await bench();
    dirs.push(t.dir);
    const id = await submit(t, '/v1/jobs/benchmark', bodies.benchmark('hang'));
    await t.recorder.startedJob(id);
    await waitFor(async () => (await eventNames(t, id)).includes('agent.ask:started'), 'the step to start');
    const res = await t.req({ method: 'POST', url: API_PATHS.jobCancel(id) });
    expect(res.statusCode).toBe(202);
    expect(json(res)).toEqual({ job_id: id, status: 'running' }); // it ends after its cleanup
    const job = await waitForStatus(t.bd, id, 'cancelled');
    expect(job.error_code).toBeNull();
    expect(job.result).toBeNull();
    expect(t.recorder.cleanups).toEqual([{ jobId: id, reason: 'cancelled' }]);
    const names = await eventNames(t, id);
    expect(names).toEqual([
      'job.queued:info',
      'job.running:info',
      'agent.ask:started',
      'job.cancel_requested:info',
      'agent.ask:error',
      'phase.teardown:info',
      'job.cancelled:info',
    ]);
    // a second cancel is a 409: it has ended
    expect((await t.req({ method: 'POST', url: API_PATHS.jobCancel(id) })).statusCode).toBe(409);
  });

  it('a cancel while the job is still being cancelled is accepted again and changes nothing', async () => {
    const t = await bench();
    dirs.push(t.dir);
    const id = await submit(t, '/v1/jobs/llm-instance', bodies.llm('hold'));
    await t.recorder.startedJob(id);
    const [a, b] = await Promise.all([
      t.req({ method: 'POST', url: API_PATHS.jobCancel(id) }),
      t.req({ method: 'POST', url: API_PATHS.jobCancel(id) }),
    ]);
    expect([a.statusCode, b.statusCode].every((s) => s === 202 || s === 409)).toBe(true);
    await waitForStatus(t.bd, id, 'cancelled');
    expect((await eventNames(t, id)).filter((n) => n.startsWith('job.cancel_requested'))).toHaveLength(1);
    expect(t.recorder.cleanups).toHaveLength(1);
  });
});

describe('concurrency limit and FIFO', () => {
  it('runs at most BENCHDESK_CONCURRENCY jobs at once, in submission order', async () => {
    const t = await bench({ env: { BENCHDESK_CONCURRENCY: '2' } });
    dirs.push(t.dir);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await submit(t, i % 2 ? '/v1/jobs/llm-instance' : '/v1/jobs/benchmark', i % 2 ? bodies.llm('hold') : bodies.benchmark('hold')));
    await t.recorder.startedJob(ids[1] as string);
    expect(t.bd.engine.runningCount).toBe(2);
    const statuses = await Promise.all(ids.map(async (id) => (await t.bd.store.getJob(id))?.status));
    expect(statuses).toEqual(['running', 'running', 'queued', 'queued', 'queued', 'queued']);
    const listed = json<{ jobs: JobRecord[] }>(await t.req({ method: 'GET', url: '/v1/jobs?status=queued' })).jobs.map((j) => j.job_id);
    expect(listed).toEqual(ids.slice(2).reverse());

    // release the second first: the third starts next (FIFO), the first is still running
    t.recorder.release(ids[1] as string);
    await t.recorder.startedJob(ids[2] as string);
    expect((await t.bd.store.getJob(ids[3] as string))?.status).toBe('queued');
    for (const id of ids) t.recorder.release(id);
    for (const id of ids) await waitForStatus(t.bd, id, 'succeeded');
    expect(t.recorder.started).toEqual(ids);
    expect(t.recorder.maxActive).toBe(2);
  });

  it('defaults to 4', async () => {
    const t = await bench();
    dirs.push(t.dir);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await submit(t, '/v1/jobs/llm-instance', bodies.llm('hold')));
    await t.recorder.startedJob(ids[3] as string);
    const statuses = await Promise.all(ids.map(async (id) => (await t.bd.store.getJob(id))?.status));
    expect(statuses).toEqual(['running', 'running', 'running', 'running', 'queued', 'queued']);
    for (const id of ids) t.recorder.release(id);
    await t.bd.engine.idle();
    expect(t.recorder.maxActive).toBe(4);
    expect(t.recorder.started).toEqual(ids);
  });
});

describe('restart and shutdown', () => {
  it('on start-up queued jobs run again and running ones end failed/interrupted after the recover hook', async () => {
    const dir = await tmpDir();
    dirs.push(dir);
    // 1. Write the state a crash would leave, through the store of a first instance.
    const first = await makeBench({ dir });
    const at = new Date().toISOString();
    const base = {
      tenant_id: 'acme',
      message: 'accepted',
      created_at: at,
      started_at: null,
      finished_at: null,
      updated_at: at,
      progress: null,
      result: null,
      error: null,
      error_code: null,
      resources: null,
    };
    const running: JobRecord = { ...base, job_id: 'crashed-running-1', kind: 'benchmark', status: 'queued', request: StoredRequestSchemas.benchmark.parse({ question: 'ok q', model: 'm', backend_url: 'http://x' }) };
    const llmRequest = StoredRequestSchemas['llm-instance'].parse({ backend_url: 'http://ok:1' });
    const queued: JobRecord = { ...base, job_id: 'crashed-queued-1', kind: 'llm-instance', status: 'queued', request: llmRequest };
    await first.bd.store.createJob(running);
    await first.bd.store.updateJob(running.job_id, { status: 'running', started_at: at, resources: { marketplace_instance_id: 42, marketplace_stop_instance: true } });
    await first.bd.store.createJob(queued);
    const done: JobRecord = { ...base, job_id: 'already-done', kind: 'llm-instance', status: 'queued', request: llmRequest };
    await first.bd.store.createJob(done);
    await first.bd.store.updateJob(done.job_id, { status: 'running' });
    await first.bd.store.updateJob(done.job_id, { status: 'succeeded', result: { mode: 'existing', backend_url: 'http://ok:1', models: [], backend_api: 'ollama' } });

    const maxSeqBefore = Math.max(0, ...(await first.bd.store.listEvents(done.job_id)).map((e) => e.seq));
    const probe = await submit(first, '/v1/jobs/llm-instance', bodies.llm('fail'));
    await waitForStatus(first.bd, probe, 'failed');
    const probeSeqs = (await first.bd.store.listEvents(probe)).map((e) => e.seq);
    await first.close();

    // 2. A second instance on the same data dir.
    const second = await bench({ dir, start: true });
    const failed = await waitForStatus(second.bd, running.job_id, 'failed');
    expect(failed).toMatchObject({ error_code: 'interrupted', tenant_id: 'acme' });
    expect(failed.finished_at).toBeTruthy();
    expect(second.recorder.recovered.map((j) => j.job_id)).toEqual([running.job_id]);
    expect(second.recorder.recovered[0]?.resources).toMatchObject({ marketplace_instance_id: 42 });
    expect(failed.resources).toMatchObject({ marketplace_instance_id: 42, marketplace_instance_released: true });
    expect(second.recorder.runs.has(running.job_id)).toBe(false);
    const evs = (await second.bd.store.listEvents(running.job_id)).map((e) => `${e.event}:${e.status}`);
    expect(evs).toEqual(['marketplace.instance.destroy:info', 'job.failed:error']);

    const ran = await waitForStatus(second.bd, queued.job_id, 'succeeded');
    expect(ran.result).toEqual({ mode: 'existing', backend_url: 'http://ok:1', models: [{ name: 'echo' }], backend_api: 'ollama' });
    expect(second.recorder.runs.get(queued.job_id)).toBe(1);
    expect(second.recorder.runs.has(done.job_id)).toBe(false);
    expect((await second.bd.store.getJob(done.job_id))?.status).toBe('succeeded');

    // seq stays global and monotonic across the restart
    const newSeqs = (await second.bd.store.listEvents(running.job_id)).map((e) => e.seq);
    expect(Math.min(...newSeqs)).toBeGreaterThan(Math.max(maxSeqBefore, ...probeSeqs));

    // visible over the API to their tenant
    const viaApi = await second.req({ method: 'GET', url: API_PATHS.job(running.job_id), tenant: 'acme' });
    expect(json(viaApi)).toMatchObject({ status: 'failed', error_code: 'interrupted' });
  });

  it('a shutdown interrupts running jobs (cleanup runs) and keeps queued ones for the next start', async () => {
    const dir = await tmpDir();
    dirs.push(dir);
    const first = await makeBench({ dir, start: true, env: { BENCHDESK_CONCURRENCY: '1' } });
    const runningId = await submit(first, '/v1/jobs/agentic-agent', bodies.agent('hang'));
    await first.recorder.startedJob(runningId);
    const queuedId = await submit(first, '/v1/jobs/llm-instance', bodies.llm('ok'));
    await first.close(); // grace 0 s in tests: running jobs are aborted at once
    expect(first.recorder.cleanups).toEqual([{ jobId: runningId, reason: 'shutdown' }]);
    expect(first.recorder.runs.has(queuedId)).toBe(false);

    const second = await bench({ dir, start: true });
    expect(await waitForStatus(second.bd, runningId, 'failed')).toMatchObject({ error_code: 'interrupted' });
    await waitForStatus(second.bd, queuedId, 'succeeded');
    expect(second.recorder.runs.has(runningId)).toBe(false);
    expect(second.recorder.recovered).toEqual([]); // it had already ended failed at shutdown
  });

  it('a graceful shutdown lets a running job finish within the grace period and refuses new work', async () => {
    const t = await bench({ start: true, env: { BENCHDESK_SHUTDOWN_GRACE_S: '30' } });
    dirs.push(t.dir);
    const id = await submit(t, '/v1/jobs/llm-instance', bodies.llm('hold'));
    await t.recorder.startedJob(id);
    const closing = t.close();
    await waitFor(() => t.bd.engine.runningCount === 1 && !t.bd.app.server.listening, 'the listener to close');
    await expect(t.bd.service.createJob('default', 'llm-instance', bodies.llm('ok'))).rejects.toMatchObject({ status: 503, code: 'shutting_down' });
    t.recorder.release(id);
    await closing;
    // reopen: the job finished normally
    const again = await bench({ dir: t.dir });
    expect((await again.bd.store.getJob(id))?.status).toBe('succeeded');
    expect(t.recorder.cleanups).toEqual([]);
  });

  it('a second instance on a data dir in use refuses to start', async () => {
    const t = await bench({ start: true });
    dirs.push(t.dir);
    await expect(makeBench({ dir: t.dir, recorder: createTestHandlers() })).rejects.toThrow(/in use|lock/i);
    expect((await t.req({ method: 'GET', url: API_PATHS.health })).statusCode).toBe(200);
  });
});
