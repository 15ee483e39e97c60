import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JobRecordSchema, type JobRecord, type MarketplaceInstanceList } from '../../shared';
import { SettingsStore } from '../../src-main/app/settings';
import { HeldKeys } from '../../src-main/marketplace/held-keys';
import { DEFAULT_FAKE_MODELS, startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, startFakeVast, type FakeVast } from '../fakes/vast';
import { TUNING, getEvents, getJob, line, marketplaceLlmResult, productEnv, startHarness, submit, tempDir, waitForEnd, waitForEvent, waitUntil, type Harness, type HarnessOptions } from './harness';

/**
 * Whose machine is whose (each data dir has an install id, in the labels of its machines), and which
 * key releases it (the key a job rented with, kept until its machine is confirmed gone).
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** A model the fake Ollama can pull (slowly, when a test holds a job in its pull). */
const PULLED = 'mistral:7b';

async function fakes(): Promise<{ ollama: FakeOllama; vast: FakeVast }> {
  const ollama = await startFakeOllama({ models: DEFAULT_FAKE_MODELS, registry: [{ name: PULLED, size: 4_113_301_824, family: 'llama', parameter_size: '7.2B' }] });
  const vast = await startFakeVast();
  vast.setKnob('ollamaPort', Number(new URL(ollama.url).port));
  cleanups.push(async () => {
    await vast.close();
    await ollama.close();
  });
  return { ollama, vast };
}

async function harness(shared: { ollama: FakeOllama; vast: FakeVast }, options: HarnessOptions = {}): Promise<Harness> {
  const h = await startHarness({ reuse: shared, vast: true, start: true, ...options, extra: { instancesTuning: { sweepIntervalMs: 600_000, releaseRetryDelayMs: 5 }, ...options.extra } });
  cleanups.push(() => h.close());
  return h;
}

const llmInstance = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  marketplace: true,
  template_hash: OLLAMA_TEMPLATE_HASH,
  max_dph: 1,
  model: 'llama3.1:8b',
  backend_warmup: false,
  ...over,
});

async function machines(h: Harness): Promise<MarketplaceInstanceList> {
  const res = await h.get('/v1/marketplace/instances');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as MarketplaceInstanceList;
}

async function rentOnFake(vast: FakeVast, label: string): Promise<number> {
  const res = await fetch(`${vast.url}/asks/20000002/`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${FAKE_VAST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: 'me', template_hash_id: OLLAMA_TEMPLATE_HASH, disk: 41, label }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { new_contract: number }).new_contract;
}

function runningLlmInstance(): JobRecord {
  const at = new Date(Date.now() - 60_000).toISOString();
  return JobRecordSchema.parse({
    job_id: randomUUID(), tenant_id: 'default', kind: 'llm-instance', status: 'queued', message: 'accepted', created_at: at, started_at: null, finished_at: null, updated_at: at,
    request: llmInstance({ backend_type: 'llmserver', backend_warmup_timeout: 300, min_dph: 0, reliability: 0.99 }),
    progress: null, result: null, error: null, error_code: null, resources: null,
  });
}

async function keptMachine(h: Harness): Promise<{ jobId: string; instanceId: number }> {
  const jobId = await submit(h, 'llm-instance', llmInstance());
  const { job } = await waitForEnd(h, jobId);
  expect(job.status, job.error ?? '').toBe('succeeded');
  return { jobId, instanceId: marketplaceLlmResult(job).contract_id };
}

describe('install ids', () => {
  it('each data dir gets one install id, kept in its settings store: a restart keeps it, another data dir has its own', async () => {
    const a = await tempDir();
    const b = await tempDir();
    cleanups.push(() => rm(a, { recursive: true, force: true }), () => rm(b, { recursive: true, force: true }));
    const first = new SettingsStore(a).ensureInstallId();
    expect(first).toMatch(/^[a-z0-9]{12}$/);
    expect(new SettingsStore(a).ensureInstallId()).toBe(first);
    expect(new SettingsStore(a).read().install_id).toBe(first);
    expect(new SettingsStore(b).ensureInstallId()).not.toBe(first);
  });

  it("another install's machines are foreign: listed with their label, never orphans, never released by the sweep; by hand only with force", async () => {
    const shared = await fakes();
    const mine = await harness(shared);
    const other = await harness(shared);
    expect(other.bd.installId).not.toBe(mine.bd.installId);
    // Install A keeps a machine (an llm-instance); install B releases orphans automatically.
    const kept = await keptMachine(mine);
    other.bd.settings.updateAppSettings({ release_orphans_automatically: true });
    // B's own older-format machine (named by one of its job records), and an older-format one nobody here knows.
    const failedJob = await submit(other, 'llm-instance', llmInstance({ max_dph: 0.01 }));
    expect((await waitForEnd(other, failedJob)).job.status).toBe('failed');
    const legacyOurs = shared.vast.seedInstance(`benchdesk:${failedJob}`);
    const legacyUnknown = shared.vast.seedInstance('benchdesk:7d0c5e0a-0000-4000-8000-000000000000');

    const swept = await other.bd.instances.sweep();
    expect(swept).toEqual({ orphaned: [legacyOurs], released: [legacyOurs], failed: [] });
    expect(shared.vast.liveInstances().map((i) => i.id).sort()).toEqual([kept.instanceId, legacyUnknown].sort());
    expect(((await other.get('/healthz')).body.marketplace as { orphaned_instances: number }).orphaned_instances).toBe(0);

    const seen = await machines(other);
    expect(seen.instances.find((e) => e.instance_id === kept.instanceId)).toMatchObject({
      classification: 'foreign',
      label: `benchdesk:${mine.bd.installId}:${kept.jobId}`,
      job: null,
    });
    expect(seen.instances.find((e) => e.instance_id === legacyUnknown)).toMatchObject({ classification: 'foreign', job: null });
    // Install A still sees its own machine as kept.
    expect((await machines(mine)).instances.find((e) => e.instance_id === kept.instanceId)).toMatchObject({ classification: 'kept', job: { job_id: kept.jobId } });

    const refused = await other.post(`/v1/marketplace/instances/${kept.instanceId}/release`, undefined);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'instance_foreign' });
    expect(String(refused.body.detail)).toContain('belongs to another benchdesk install');
    expect(String(refused.body.detail)).toContain(`benchdesk:${mine.bd.installId}:${kept.jobId}`);
    expect(shared.vast.liveInstances().map((i) => i.id)).toContain(kept.instanceId);

    // Forcing it is the app's own tenant's call: another tenant of install B is refused, and nothing is destroyed.
    const byTenant = await other.bd.app.inject({
      method: 'POST',
      url: `/v1/marketplace/instances/${kept.instanceId}/release`,
      headers: { 'x-tenant-id': 'team-b' },
      payload: { force: true },
    });
    expect(byTenant.statusCode, byTenant.body).toBe(403);
    expect(JSON.parse(byTenant.body)).toMatchObject({ code: 'forbidden_tenant' });
    expect(shared.vast.liveInstances().map((i) => i.id)).toContain(kept.instanceId);

    const forced = await other.post(`/v1/marketplace/instances/${kept.instanceId}/release`, { force: true });
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    expect(forced.body).toMatchObject({ released: true, verified: true, job_id: null });
    expect(shared.vast.liveInstances().map((i) => i.id)).toEqual([legacyUnknown]);
  }, 40_000);
});

describe('the proxy token file', () => {
  it('secrets/instance-<id>.token is removed once its machine is released (here: a kept machine released by hand)', async () => {
    const h = await harness(await fakes());
    const kept = await keptMachine(h);
    const tokenFile = path.join(h.dir, 'secrets', `instance-${kept.instanceId}.token`);
    expect(existsSync(tokenFile)).toBe(true);
    const released = await h.post(`/v1/marketplace/instances/${kept.instanceId}/release`, undefined);
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect(existsSync(tokenFile)).toBe(false);
  });
});

describe('a job keeps the key it rented with', () => {
  it('the key changes while a machine is held: the cancel still releases it, with the key it was rented with', async () => {
    const shared = await fakes();
    const h = await harness(shared, { extra: { appMarketplaceKey: { persist: async () => undefined } } });
    shared.ollama.setKnobs({ pullLineDelayMs: 30_000 });
    const jobId = await submit(h, 'llm-instance', llmInstance({ model: PULLED }));
    await waitForEvent(h, jobId, (e) => line(e) === 'llmserver.pull:started', 'the pull to start');
    const instanceId = (await getJob(h, jobId)).resources?.marketplace_instance_id ?? -1;
    // Sealed like the backend credentials: 0600 in secrets/, for crash recovery.
    const held = path.join(h.dir, 'secrets', `rent-key-${jobId}.json`);
    expect(statSync(held).mode & 0o777).toBe(0o600);
    expect(await new HeldKeys(path.join(h.dir, 'secrets')).keyOf(jobId)).toBe(FAKE_VAST_KEY);

    // A key the marketplace does not know (401 for everything), as when the wrong key is pasted.
    await h.bd.marketplaceKey.store('a-key-the-marketplace-refuses');
    expect((await h.post(`/v1/jobs/${jobId}/cancel`, undefined)).status).toBe(202);
    shared.ollama.setKnobs({ pullLineDelayMs: 0 });
    const { job, events } = await waitForEnd(h, jobId);
    expect(job.status).toBe('cancelled');
    expect(events.find((e) => line(e) === 'marketplace.instance.destroy:ok')?.message).toBe(`Instance ${instanceId} destroyed and confirmed gone`);
    const destroy = shared.vast.callsTo('destroy');
    expect(destroy.map((c) => [c.headers.authorization, c.status])).toEqual([[`Bearer ${FAKE_VAST_KEY}`, 200]]);
    expect(shared.vast.liveInstances()).toEqual([]);
    expect(existsSync(held)).toBe(false);
  });

  it('the machines list and the orphan sweep use every key that still holds a machine', async () => {
    const shared = await fakes();
    const clock = { t: Date.now() };
    const h = await harness(shared, {
      extra: { appMarketplaceKey: { persist: async () => undefined }, workflowTuning: { ...TUNING, now: () => clock.t }, leaseTuning: { spendCheckMs: 20 } },
    });
    const kept = await keptMachine(h);
    // Another account's key: it cannot see the machine at all.
    shared.vast.addKey('key-of-another-account', 'other');
    await h.bd.marketplaceKey.store('key-of-another-account');
    expect((await machines(h)).instances.map((e) => [e.instance_id, e.classification])).toEqual([[kept.instanceId, 'kept']]);
    // Its spend limit still applies (the setting, read at every check): an hour later its lease
    // releases it with the key it was rented with.
    h.bd.settings.updateAppSettings({ default_max_cost_usd: 0.01 });
    clock.t += 3_600_000;
    await waitUntil(() => shared.vast.liveInstances().length === 0, 'the kept machine to be released at its limit');
    expect(shared.vast.callsTo('destroy').map((c) => c.headers.authorization)).toEqual([`Bearer ${FAKE_VAST_KEY}`]);
    const events = await waitUntil(async () => {
      const all = await getEvents(h, kept.jobId);
      return all.some((e) => e.event === 'marketplace.instance.destroy' && e.status === 'ok') ? all : null;
    }, 'the release on the job');
    expect(events.find((e) => e.event === 'cost.limit_reached')?.labels).toMatchObject({ max_cost_usd: 0.01, instance_id: kept.instanceId });
    await waitUntil(() => !existsSync(path.join(h.dir, 'secrets', `rent-key-${kept.jobId}.json`)), 'the held key to be removed');
  });

  it('after a crash, recovery releases the machine with the sealed key although another key is in use now', async () => {
    const shared = await fakes();
    const dir = await tempDir();
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // What a crash leaves behind: a running job whose machine is recorded, and the key it rented with, sealed.
    const before = await startHarness({ reuse: shared, vast: true, dataDir: dir });
    const job = runningLlmInstance();
    await before.bd.store.createJob(job);
    const instanceId = await rentOnFake(shared.vast, `benchdesk:${before.bd.installId}:${job.job_id}`);
    await before.bd.store.updateJob(job.job_id, {
      status: 'running',
      started_at: new Date().toISOString(),
      resources: { marketplace_instance_id: instanceId, marketplace_instance_released: false, marketplace_stop_instance: true },
    });
    await new HeldKeys(path.join(dir, 'secrets')).hold(job.job_id, FAKE_VAST_KEY);
    await before.closeProduct();

    // The next start has only a key the marketplace refuses (401 for everything).
    const after = await startHarness({ reuse: shared, vast: true, dataDir: dir, start: true, env: { ...productEnv({ vast: shared.vast }), VAST_API_KEY: 'a-key-the-marketplace-refuses' } });
    cleanups.push(() => after.close());
    const { job: recovered, events } = await waitForEnd(after, job.job_id);
    expect(recovered).toMatchObject({ status: 'failed', error_code: 'interrupted', resources: { marketplace_instance_released: true, marketplace_release_error: null } });
    expect(events.find((e) => line(e) === 'marketplace.instance.destroy:ok')).toBeDefined();
    expect(shared.vast.liveInstances()).toEqual([]);
    expect(shared.vast.callsTo('destroy').map((c) => c.headers.authorization)).toEqual([`Bearer ${FAKE_VAST_KEY}`]);
    expect(existsSync(path.join(dir, 'secrets', `rent-key-${job.job_id}.json`))).toBe(false);
  });
});
