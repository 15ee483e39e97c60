import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JobRecordSchema, type JobEvent, type JobKind, type JobRecord } from '../../shared';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, startFakeVast, type FakeVast } from '../fakes/vast';
import {
  ROOT,
  destroyCalls,
  ensureCliBuilt,
  expectInOrder,
  getEvents,
  line,
  productEnv,
  startHarness,
  tempDir,
  waitForEnd,
  waitUntil,
  type Harness,
} from './harness';

/**
 * Crash recovery (design §3): a job left `running` with a rented instance becomes `failed` /
 * `interrupted` on the next start, and its instance is destroyed (or only reported, when the
 * request said to keep it). Jobs left `queued` run again.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fakes(): Promise<{ vast: FakeVast; ollama: FakeOllama; dir: string }> {
  const ollama = await startFakeOllama();
  const vast = await startFakeVast();
  vast.setKnob('ollamaPort', Number(new URL(ollama.url).port));
  const dir = await tempDir();
  cleanups.push(async () => {
    await vast.close();
    await ollama.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { vast, ollama, dir };
}

async function restart(f: { vast: FakeVast; ollama: FakeOllama; dir: string }): Promise<Harness> {
  const h = await startHarness({ dataDir: f.dir, start: true, reuse: { ollama: f.ollama, vast: f.vast }, vast: true });
  cleanups.push(() => h.close());
  return h;
}

/** Rents an instance on the fake directly (as a crashed benchdesk would have), returns its id. */
async function rentOnFake(vast: FakeVast, offerId: number, label: string): Promise<number> {
  const res = await fetch(`${vast.url}/asks/${offerId}/`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${FAKE_VAST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: 'me', template_hash_id: OLLAMA_TEMPLATE_HASH, disk: 40, label }),
  });
  const body = (await res.json()) as { new_contract: number };
  expect(res.status).toBe(200);
  return body.new_contract;
}

function runningRecord(kind: JobKind, request: Record<string, unknown>, resources: JobRecord['resources']): JobRecord {
  const at = new Date(Date.now() - 60_000).toISOString();
  // Parsed as the engine would store it (defaults applied to the request).
  return JobRecordSchema.parse({
    job_id: randomUUID(),
    tenant_id: 'default',
    kind,
    status: 'queued',
    message: 'accepted',
    created_at: at,
    started_at: null,
    finished_at: null,
    updated_at: at,
    request,
    progress: null,
    result: null,
    error: null,
    error_code: null,
    resources,
  });
}

const benchmarkRequest = {
  marketplace: true,
  template_hash: OLLAMA_TEMPLATE_HASH,
  min_dph: 0,
  max_dph: 1,
  reliability: 0.99,
  backend_type: 'llmserver',
  backend_warmup: true,
  backend_warmup_timeout: 300,
  question: 'why?',
  model: 'llama3.1:8b',
  agent: 'builtin',
  marketplace_stop_instance: true,
};

describe('crash recovery through the store', () => {
  it('running jobs become failed/interrupted; their instances are destroyed, found by id or by label, or reported when kept', async () => {
    const f = await fakes();
    // A product that "crashed": jobs written through the store API, left running.
    const first = await startHarness({ dataDir: f.dir, reuse: { ollama: f.ollama, vast: f.vast }, vast: true });
    const store = first.bd.store;

    const byIdJob = runningRecord('benchmark', benchmarkRequest, null);
    const byId = await rentOnFake(f.vast, 20000002, `benchdesk:${byIdJob.job_id}`);
    const byLabelJob = runningRecord('llm-instance', { ...benchmarkRequest, question: undefined, agent: undefined, marketplace_stop_instance: undefined }, null);
    const byLabel = await rentOnFake(f.vast, 20000003, `benchdesk:${byLabelJob.job_id}`);
    const keptJob = runningRecord('benchmark', { ...benchmarkRequest, marketplace_stop_instance: false }, null);
    const kept = await rentOnFake(f.vast, 20000004, `benchdesk:${keptJob.job_id}`);
    const queuedJob = runningRecord('llm-instance', { marketplace: false, backend_url: f.ollama.url, backend_type: 'llmserver', backend_warmup: false, backend_warmup_timeout: 300, min_dph: 0, reliability: 0.99 }, null);
    const someoneElses = await rentOnFake(f.vast, 20000006, 'not-ours');

    for (const job of [byIdJob, byLabelJob, keptJob, queuedJob]) await store.createJob(job);
    await store.updateJob(byIdJob.job_id, {
      status: 'running',
      started_at: new Date().toISOString(),
      resources: { marketplace_instance_id: byId, marketplace_instance_released: false, marketplace_stop_instance: true, dph_total: 0.17 },
    });
    // Crashed between the rent and recording its id: only the label can find it.
    await store.updateJob(byLabelJob.job_id, { status: 'running', started_at: new Date().toISOString() });
    await store.updateJob(keptJob.job_id, {
      status: 'running',
      started_at: new Date().toISOString(),
      resources: { marketplace_instance_id: kept, marketplace_instance_released: false, marketplace_stop_instance: false },
    });
    await first.closeProduct();
    await first.close();
    const destroysBefore = f.vast.callsTo('destroy').length;
    expect(destroysBefore).toBe(0);

    const h = await restart(f);

    // Interrupted, with the instance released and an event saying so.
    for (const [job, instance] of [
      [byIdJob, byId],
      [byLabelJob, byLabel],
    ] as const) {
      const { job: after, events } = await waitForEnd(h, job.job_id);
      expect(after).toMatchObject({ status: 'failed', error_code: 'interrupted' });
      expect(after.error).toMatch(/stopped while this job was running/);
      expect(after.resources).toMatchObject({ marketplace_instance_released: true });
      expect(destroyCalls(f.vast, instance).deletes).toBe(1);
      expect(destroyCalls(f.vast, instance).readBacksAfterDelete).toBeGreaterThanOrEqual(1);
      expect(f.vast.state.instances.get(instance)?.destroyed).toBe(true);
      expectInOrder(events, ['job.recover:info', 'marketplace.instance.destroy:started', 'marketplace.instance.destroy:ok', 'job.failed:error']);
      expect(events.find((e) => line(e) === 'job.recover:info')?.labels.instance_id).toBe(instance);
    }

    // Kept on request: reported, not destroyed.
    const { job: keptAfter, events: keptEvents } = await waitForEnd(h, keptJob.job_id);
    expect(keptAfter).toMatchObject({ status: 'failed', error_code: 'interrupted' });
    expect(f.vast.state.instances.get(kept)?.destroyed).toBe(false);
    expect(destroyCalls(f.vast, kept).deletes).toBe(0);
    const keptEvent = keptEvents.find((e) => line(e) === 'marketplace.instance.kept:info');
    expect(keptEvent?.message).toContain(String(kept));
    expect(keptEvent?.message).toMatch(/still billing/);

    // The queued job ran after the restart.
    const { job: queuedAfter } = await waitForEnd(h, queuedJob.job_id);
    expect(queuedAfter.status, queuedAfter.error ?? '').toBe('succeeded');

    // Nothing else was touched.
    expect(f.vast.state.instances.get(someoneElses)?.destroyed).toBe(false);
  });
});

describe('crash recovery after a real kill', () => {
  it('a server killed while provisioning: the next start marks the job interrupted and destroys the instance', async () => {
    ensureCliBuilt();
    const f = await fakes();
    f.vast.setKnob('outcome', 'never_ready');
    const env = {
      ...productEnv({ vast: f.vast }),
      BENCHDESK_DATA_DIR: f.dir,
      BENCHDESK_PORT: '0',
      BENCHDESK_LOG_LEVEL: 'warn',
    };
    const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'dist', 'main', 'server.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const apiUrl = await waitUntil(() => /benchdesk API listening on (\S+)/.exec(out)?.[1], `the server to listen (output: ${out})`, 20_000);

    const res = await fetch(`${apiUrl}/v1/jobs/llm-instance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ marketplace: true, template_hash: OLLAMA_TEMPLATE_HASH, max_dph: 1, model: 'llama3.1:8b' }),
    });
    expect(res.status).toBe(202);
    const { job_id: id } = (await res.json()) as { job_id: string };
    // Mid-provisioning: rented, id recorded (the wait starts once that write is durable),
    // waiting for a machine that never gets ready.
    await waitUntil(async () => {
      const body = (await (await fetch(`${apiUrl}/v1/jobs/${id}/events`)).json()) as { events: JobEvent[] };
      return body.events.some((e) => line(e) === 'marketplace.instance.wait_running:started');
    }, 'the wait for running to start');
    const running = (await (await fetch(`${apiUrl}/v1/jobs/${id}`)).json()) as JobRecord;
    expect(running.status).toBe('running');
    const instanceId = running.resources?.marketplace_instance_id ?? -1;
    // benchdesk:<the data dir's install id>:<job id>
    expect(f.vast.state.instances.get(instanceId)?.label).toMatch(new RegExp(`^benchdesk:[a-z0-9]{12}:${id}$`));
    child.kill('SIGKILL');
    await exited;
    expect(f.vast.callsTo('destroy')).toEqual([]);
    expect(f.vast.state.instances.get(instanceId)?.destroyed).toBe(false);

    const h = await restart(f);
    const { job, events } = await waitForEnd(h, id);
    expect(job).toMatchObject({ status: 'failed', error_code: 'interrupted' });
    expect(job.resources).toMatchObject({ marketplace_instance_id: instanceId, marketplace_instance_released: true });
    expect(destroyCalls(f.vast, instanceId).deletes).toBe(1);
    expect(f.vast.state.instances.get(instanceId)?.destroyed).toBe(true);
    expectInOrder(events, ['marketplace.instance.create:ok', 'job.recover:info', 'marketplace.instance.destroy:ok', 'job.failed:error']);
    // The events survived the kill and carry on with the same numbering.
    const seqs = (await getEvents(h, id)).map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });
});

describe('graceful shutdown while provisioning', () => {
  it('the job ends failed/interrupted with its instance destroyed; the next start has nothing left to do', async () => {
    const f = await fakes();
    f.vast.setKnob('outcome', 'never_ready');
    const first = await startHarness({ dataDir: f.dir, reuse: { ollama: f.ollama, vast: f.vast }, vast: true });
    const res = await first.post('/v1/jobs/llm-instance', { marketplace: true, template_hash: OLLAMA_TEMPLATE_HASH, max_dph: 1, model: 'llama3.1:8b' });
    expect(res.status).toBe(202);
    const id = String(res.body.job_id);
    const instanceId = await waitUntil(async () => (await first.bd.store.getJob(id))?.resources?.marketplace_instance_id, 'the rent');
    await first.close();
    expect(f.vast.state.instances.get(instanceId)?.destroyed).toBe(true);
    expect(destroyCalls(f.vast, instanceId).deletes).toBe(1);

    const h = await restart(f);
    const { job, events } = await waitForEnd(h, id);
    expect(job).toMatchObject({ status: 'failed', error_code: 'interrupted' });
    expect(job.resources).toMatchObject({ marketplace_instance_released: true });
    expect(events.map(line)).not.toContain('job.recover:info');
    expect(destroyCalls(f.vast, instanceId).deletes).toBe(1);
  });
});
