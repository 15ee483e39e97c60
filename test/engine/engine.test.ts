import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidTransitionError, StoredRequestSchemas, type JobEvent, type JobRecord } from '../../shared';
import { openJobStore } from '../../src-main/store/job-store';
import type { JobStore } from '../../src-main/store/types';
import { bodies, createTestHandlers, testBenchmarkResult, testLlmResult, type Recorder } from '../helpers/handlers';
import { waitFor } from '../helpers/bench';
import { EngineClosedError, JobEngine } from '../../src-main/engine/engine';
import { JobFailure, type AnyJobHandler, type JobHandler, type Logger } from '../../src-main/engine/types';

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

let dir: string;
let store: JobStore;
let engine: JobEngine | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-engine-'));
  store = await openJobStore({ dataDir: dir, logger: silent, releaseLockOnExit: false });
});
afterEach(async () => {
  await engine?.shutdown(0);
  engine = undefined;
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function make(options: { handlers?: AnyJobHandler[]; concurrency?: number; logger?: Logger } = {}): { engine: JobEngine; recorder: Recorder } {
  const test = createTestHandlers();
  engine = new JobEngine({ store, handlers: options.handlers ?? test.handlers, logger: options.logger ?? silent, ...(options.concurrency ? { concurrency: options.concurrency } : {}) });
  return { engine, recorder: test.recorder };
}

async function settle(e: JobEngine, id: string): Promise<JobRecord> {
  return waitFor(async () => {
    const job = await store.getJob(id);
    return job && ['succeeded', 'failed', 'cancelled'].includes(job.status) ? job : undefined;
  }, `job ${id} to end`).finally(() => e.settled(id));
}

describe('JobEngine', () => {
  it('submit stores the job queued before it resolves, then runs it to succeeded', async () => {
    const { engine: e } = make();
    const job = await e.submit('t1', 'llm-instance', bodies.llm('ok') as never);
    expect(job).toMatchObject({ status: 'queued', tenant_id: 't1', kind: 'llm-instance', message: 'accepted' });
    expect(store.count()).toBe(1);
    const done = await settle(e, job.job_id);
    expect(done).toMatchObject({ status: 'succeeded', message: 'succeeded', error: null });
    expect(done.started_at).toBeTruthy();
    const events = await store.listEvents(job.job_id);
    expect(events.map((ev) => ev.event)).toEqual(['job.queued', 'job.running', 'job.succeeded']);
    expect(events.at(-1)?.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('publishes every stored event on the bus to the tenant channel only after it is stored', async () => {
    const { engine: e } = make();
    const seen: JobEvent[] = [];
    const other: JobEvent[] = [];
    e.bus.subscribeTenant('t1', (ev) => {
      seen.push(ev);
    });
    e.bus.subscribeTenant('t2', (ev) => other.push(ev));
    const job = await e.submit('t1', 'benchmark', bodies.benchmark('steps') as never);
    await settle(e, job.job_id);
    const stored = await store.listEvents(job.job_id);
    expect(seen.map((ev) => ev.seq)).toEqual(stored.map((ev) => ev.seq));
    expect(other).toEqual([]);
  });

  it('transitions are enforced by the store (no way back from a terminal status)', async () => {
    const { engine: e } = make();
    const job = await e.submit('t1', 'llm-instance', bodies.llm('ok') as never);
    await settle(e, job.job_id);
    await expect(store.updateJob(job.job_id, { status: 'running' })).rejects.toBeInstanceOf(InvalidTransitionError);
    await expect(store.updateJob(job.job_id, { status: 'queued' })).rejects.toBeInstanceOf(InvalidTransitionError);
    // cancel of a terminal job is a no-op that reports the status
    expect(await e.cancel(job.job_id)).toBe('succeeded');
    expect(await e.cancel('no-such-job')).toBeUndefined();
    expect((await store.getJob(job.job_id))?.status).toBe('succeeded');
  });

  it('a kind without a handler fails with unsupported_kind', async () => {
    const test = createTestHandlers();
    const { engine: e } = make({ handlers: test.handlers.filter((h) => h.kind !== 'benchmark') });
    const job = await e.submit('t1', 'benchmark', bodies.benchmark('ok') as never);
    expect(await settle(e, job.job_id)).toMatchObject({ status: 'failed', error_code: 'unsupported_kind' });
  });

  it('a JobFailure keeps its code; other errors are "internal"', async () => {
    const { engine: e } = make();
    const a = await e.submit('t1', 'llm-instance', bodies.llm('fail') as never);
    const b = await e.submit('t1', 'llm-instance', bodies.llm('crash') as never);
    expect(await settle(e, a.job_id)).toMatchObject({ status: 'failed', error_code: 'test_failure', error: 'the test handler failed on purpose' });
    expect(await settle(e, b.job_id)).toMatchObject({ status: 'failed', error_code: 'internal', error: 'plain crash' });
    const last = (await store.listEvents(a.job_id)).at(-1);
    expect(last).toMatchObject({ event: 'job.failed', status: 'error', error_type: 'JobFailure', labels: { error_code: 'test_failure' } });
  });

  it('respects the concurrency limit, FIFO', async () => {
    const { engine: e, recorder } = make({ concurrency: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await e.submit('t1', 'llm-instance', bodies.llm('hold') as never)).job_id);
    await recorder.startedJob(ids[2] as string);
    expect(e.runningCount).toBe(3);
    expect(e.queuedCount).toBe(4);
    for (const id of ids) recorder.release(id);
    await e.idle();
    expect(recorder.started).toEqual(ids);
    expect(recorder.maxActive).toBe(3);
  });

  it('a handler that ignores the abort and returns still ends cancelled', async () => {
    let release: () => void = () => undefined;
    const stubborn: JobHandler<'llm-instance'> = {
      kind: 'llm-instance',
      run: () => new Promise((resolve) => (release = () => resolve(testLlmResult('http://ok:11434', 'late')))),
    };
    const { engine: e } = make({ handlers: [stubborn] });
    const job = await e.submit('t1', 'llm-instance', bodies.llm('ok') as never);
    await waitFor(async () => (await store.getJob(job.job_id))?.status === 'running', 'running');
    expect(await e.cancel(job.job_id)).toBe('running');
    release();
    expect(await settle(e, job.job_id)).toMatchObject({ status: 'cancelled', result: null });
  });

  it('setProgress and setResources persist (resources merge)', async () => {
    let seen: JobRecord | undefined;
    const h: JobHandler<'benchmark'> = {
      kind: 'benchmark',
      async run(ctx) {
        await ctx.setProgress('provision', 'renting', 10);
        await ctx.setResources({ marketplace_instance_id: 7, dph_total: 0.4 });
        await ctx.setResources({ marketplace_instance_released: true });
        seen = await store.getJob(ctx.job.job_id);
        expect(ctx.signal.aborted).toBe(false);
        expect(ctx.request.model).toBe('llama3:8b');
        return testBenchmarkResult('ok', ctx.request);
      },
    };
    const { engine: e } = make({ handlers: [h] });
    const job = await e.submit('t1', 'benchmark', bodies.benchmark('ok') as never);
    const done = await settle(e, job.job_id);
    expect(seen?.progress).toEqual({ phase: 'provision', detail: 'renting', percent: 10 });
    expect(done.resources).toEqual({ marketplace_instance_id: 7, dph_total: 0.4, marketplace_instance_released: true });
  });

  it('recover(): running → failed/interrupted after the hook (even when the hook throws); queued → run again', async () => {
    const at = new Date().toISOString();
    const base = { tenant_id: 't1', message: 'accepted', created_at: at, started_at: null, finished_at: null, updated_at: at, progress: null, result: null, error: null, error_code: null, resources: null };
    await store.createJob({ ...base, job_id: 'r1', kind: 'benchmark', status: 'queued', request: StoredRequestSchemas.benchmark.parse(bodies.benchmark('ok')) });
    await store.updateJob('r1', { status: 'running' });
    await store.createJob({ ...base, job_id: 'r2', kind: 'llm-instance', status: 'queued', request: StoredRequestSchemas['llm-instance'].parse({}) });
    await store.updateJob('r2', { status: 'running' });
    await store.createJob({ ...base, job_id: 'q1', kind: 'llm-instance', status: 'queued', request: StoredRequestSchemas['llm-instance'].parse({ backend_url: 'http://ok' }) });
    await store.createJob({ ...base, job_id: 'q2', kind: 'llm-instance', status: 'queued', request: StoredRequestSchemas['llm-instance'].parse({ backend_url: 'http://ok' }) });

    const test = createTestHandlers();
    const hooks: string[] = [];
    const handlers = test.handlers.map((h): AnyJobHandler =>
      h.kind === 'llm-instance'
        ? {
            ...h,
            async recover(job) {
              hooks.push(job.job_id);
              throw new Error('could not release');
            },
          }
        : h,
    );
    const errors: string[] = [];
    const { engine: e } = make({ handlers, logger: { ...silent, error: (msg) => void errors.push(msg) } });
    expect(await e.recover()).toEqual({ interrupted: 2, requeued: 2 });
    expect(test.recorder.recovered.map((j) => j.job_id)).toEqual(['r1']);
    expect(hooks).toEqual(['r2']);
    expect(errors).toContain('recovery hook failed');
    for (const id of ['r1', 'r2']) expect(await store.getJob(id)).toMatchObject({ status: 'failed', error_code: 'interrupted' });
    expect((await store.listEvents('r2')).map((ev) => `${ev.event}:${ev.status}`)).toEqual(['job.recover:error', 'job.failed:error']);
    await e.idle();
    expect(test.recorder.started).toEqual(['q1', 'q2']);
    for (const id of ['q1', 'q2']) expect((await store.getJob(id))?.status).toBe('succeeded');
  });

  it('shutdown(): stops accepting, aborts after the grace period, leaves queued jobs queued', async () => {
    const { engine: e, recorder } = make({ concurrency: 1 });
    const a = await e.submit('t1', 'agentic-agent', bodies.agent('hang') as never);
    const b = await e.submit('t1', 'llm-instance', bodies.llm('ok') as never);
    await recorder.startedJob(a.job_id);
    await e.shutdown(0);
    expect(await store.getJob(a.job_id)).toMatchObject({ status: 'failed', error_code: 'interrupted' });
    expect(recorder.cleanups).toEqual([{ jobId: a.job_id, reason: 'shutdown' }]);
    expect((await store.getJob(b.job_id))?.status).toBe('queued');
    await expect(e.submit('t1', 'llm-instance', bodies.llm('ok') as never)).rejects.toBeInstanceOf(EngineClosedError);
    expect(recorder.runs.has(b.job_id)).toBe(false);
  });

  it('a handler sees an already-aborted signal if cancelled between dequeue and start', async () => {
    const { engine: e, recorder } = make();
    const job = await e.submit('t1', 'llm-instance', bodies.llm('hold') as never);
    // cancel synchronously after submit resolved: the job has been dequeued (running map) already
    const status = await e.cancel(job.job_id);
    expect(['cancelled', 'running']).toContain(status);
    const done = await settle(e, job.job_id);
    expect(done.status).toBe('cancelled');
    expect(recorder.runs.get(job.job_id) ?? 0).toBeLessThanOrEqual(1);
  });

  it('JobFailure carries a code and cause', () => {
    const cause = new Error('root');
    const f = new JobFailure('x_code', 'msg', { cause });
    expect(f).toMatchObject({ code: 'x_code', message: 'msg', name: 'JobFailure', cause });
  });
});
