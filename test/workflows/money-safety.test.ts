import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../shared';
import { createHttpClient, BenchdeskApiError } from '../../shared/client';
import type { Benchdesk } from '../../src-main/composition/start';
import { DEFAULT_FAKE_MODELS, startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { startFakeVast } from '../fakes/vast';
import { must } from '../marketplace/helpers';
import {
  ROOT,
  destroyCalls,
  ensureCliBuilt,
  expectInOrder,
  getEvents,
  getJob,
  line,
  mustVast,
  productEnv,
  submit,
  tempDir,
  waitForEnd,
  waitForEvent,
  waitUntil,
  type Harness,
  type HarnessOptions,
} from './harness';
import { BIG_MODEL, entryOf, instanceOf, instances, llmInstanceBody, moneyHarness, rentForeign } from './money-helpers';

/**
 * Money safety (issue 12): every rented machine accounted for (list, release, orphan sweep). All
 * through the HTTP API against the fake Vast.ai, Ollama and Kubernetes. The running cost, the
 * spend limit, stuck machines and destroy failures are in money-limits.test.ts.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const harness = (options: HarnessOptions = {}): Promise<Harness> => moneyHarness(cleanups, options);

describe('rented machines as a resource', () => {
  it('lists an active, a kept and an orphaned machine (the orphan left by a SIGKILLed server), reports the orphan, releases it; never touches unlabelled machines', async () => {
    // `npm test` builds first; run alone, dist/main is built when missing.
    ensureCliBuilt();
    const ollama: FakeOllama = await startFakeOllama({
      models: DEFAULT_FAKE_MODELS,
      registry: [{ name: BIG_MODEL, size: 19_851_336_256, family: 'qwen2', parameter_size: '32.8B' }],
    });
    const vast = await startFakeVast();
    vast.setKnob('ollamaPort', Number(new URL(ollama.url).port));
    const dir = await tempDir();
    cleanups.push(async () => {
      await vast.close();
      await ollama.close();
      await rm(dir, { recursive: true, force: true });
    });
    // Someone else's machine on the same account.
    const foreign = await rentForeign(vast);

    // 1. A real server rents, and is killed before the rent's answer (the instance id) reaches it.
    vast.setKnob('rentAnswerDelayMs', 60_000);
    const env = { ...productEnv({ vast }), BENCHDESK_DATA_DIR: dir, BENCHDESK_PORT: '0', BENCHDESK_LOG_LEVEL: 'warn' };
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
    const res = await fetch(`${apiUrl}/v1/jobs/llm-instance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(llmInstanceBody()) });
    expect(res.status).toBe(202);
    const { job_id: heldJob } = (await res.json()) as { job_id: string };
    // Labelled with the server's install id (created in its data dir) and the job.
    const lostRent = await waitUntil(() => [...vast.state.instances.values()].find((x) => x.label?.startsWith('benchdesk:') && x.label.endsWith(`:${heldJob}`))?.id, 'the rent to reach the marketplace');
    const before = (await (await fetch(`${apiUrl}/v1/jobs/${heldJob}`)).json()) as JobRecord;
    expect(before.resources?.marketplace_instance_id ?? null).toBeNull();
    child.kill('SIGKILL');
    await exited;
    vast.setKnob('rentAnswerDelayMs', 0);

    // 2. Restart while the marketplace listing fails (a whole lookup's worth of 500s): the job's lease,
    // left open while renting, is hunted by its label; the failed lookup is retried, not taken for
    // "nothing there", and the machine is released, with release_orphans_automatically off.
    vast.setKnob('failNext', { count: 3, status: 500, endpoints: ['list_v1'] });
    const h = await harness({
      dataDir: dir,
      start: true,
      reuse: { ollama, vast },
      extra: { instancesTuning: { sweepIntervalMs: 100 }, marketplaceClient: { retry: { maxAttempts: 3, initialDelayMs: 2, maxDelayMs: 5, jitter: 0 } } },
    });
    expect(h.bd.settings.appSettings().release_orphans_automatically).toBe(false);
    const { job: interrupted } = await waitForEnd(h, heldJob);
    expect(interrupted).toMatchObject({ status: 'failed', error_code: 'interrupted' });
    const found = await waitForEvent(h, heldJob, (e) => line(e) === 'marketplace.instance.destroy:ok', 'the lost rent released');
    expect(vast.state.instances.get(lostRent)?.destroyed).toBe(true);
    expectInOrder(await getEvents(h, heldJob), ['job.recover:info', 'marketplace.lost_rent:info', 'marketplace.instance.destroy:ok']);
    expect(found.labels).toMatchObject({ instance_id: lostRent });
    // Its cost is in the ledger (from the machine's start to its release), and in the spend.
    expect(h.bd.leases.ledger.get(heldJob)).toMatchObject({ state: 'released', instance_id: lostRent });

    // 3. An orphan the ledger never knew: a machine labelled for a job of this install that rented
    // nothing. The sweep finds it: logged, an event on its job, counted in /healthz; not released (the setting is off).
    const orphanJob = await submit(h, 'llm-instance', { marketplace: false, backend_url: ollama.url, backend_warmup: false });
    expect((await waitForEnd(h, orphanJob)).job.status).toBe('succeeded');
    const orphan = vast.seedInstance(`benchdesk:${h.bd.installId}:${orphanJob}`);
    const orphanEvent = await waitForEvent(h, orphanJob, (e) => e.event === 'marketplace.orphan', 'marketplace.orphan');
    expect(orphanEvent.labels).toMatchObject({ instance_id: orphan, release_automatically: false });
    const health = await waitUntil(async () => {
      const r = await h.get('/healthz');
      return (r.body.marketplace as { orphaned_instances: number } | undefined)?.orphaned_instances === 1 ? r.body : null;
    }, '/healthz to count the orphan');
    expect(Date.parse(String((health.marketplace as { last_sweep_at: string }).last_sweep_at))).not.toBeNaN();
    expect(vast.state.instances.get(orphan)?.destroyed).toBe(false);
    // One event per orphan, not one per sweep.
    await new Promise((r) => setTimeout(r, 350));
    expect((await getEvents(h, orphanJob)).filter((e) => e.event === 'marketplace.orphan')).toHaveLength(1);

    // 4. A kept machine (an llm-instance that succeeded) and an active one (a job still pulling its model).
    const keptJob = await submit(h, 'llm-instance', llmInstanceBody());
    const { job: keptDone } = await waitForEnd(h, keptJob);
    expect(keptDone.status, keptDone.error ?? '').toBe('succeeded');
    const kept = keptDone.resources?.marketplace_instance_id ?? -1;
    ollama.setKnobs({ pullLineDelayMs: 30_000 });
    const activeJob = await submit(h, 'llm-instance', llmInstanceBody({ model: BIG_MODEL }));
    const active = await instanceOf(h, activeJob);
    await waitForEvent(h, activeJob, (e) => line(e) === 'llmserver.pull:started', 'the pull to start');

    const list = await instances(h);
    expect(list.note).toBeNull();
    expect(list.instances.map((e) => e.instance_id).sort()).toEqual([orphan, kept, active].sort());
    expect(entryOf(list, foreign)).toBeUndefined();
    expect(entryOf(list, orphan)).toMatchObject({ classification: 'orphaned', label: `benchdesk:${h.bd.installId}:${orphanJob}`, job: { job_id: orphanJob, kind: 'llm-instance', status: 'succeeded' } });
    expect(entryOf(list, kept)).toMatchObject({ classification: 'kept', job: { job_id: keptJob, status: 'succeeded' }, gpu_name: expect.any(String), num_gpus: 1, state: 'running' });
    expect(entryOf(list, active)).toMatchObject({ classification: 'active', job: { job_id: activeJob, status: 'running' } });
    for (const e of list.instances) {
      expect(e.dph_total).toBeGreaterThan(0);
      expect(Date.parse(e.rented_at ?? '')).not.toBeNaN();
      expect(e.cost_usd_so_far).toBeGreaterThanOrEqual(0);
    }
    const orphansOnly = await instances(h, '?orphaned=true');
    expect(orphansOnly.instances.map((e) => e.instance_id)).toEqual([orphan]);

    // 5. The active one is refused (cancel its job instead); the orphan is released and verified.
    const refused = await h.post(`/v1/marketplace/instances/${active}/release`, undefined);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'instance_active' });
    expect(String(refused.body.detail)).toContain(`/v1/jobs/${activeJob}/cancel`);
    expect(destroyCalls(vast, active).deletes).toBe(0);
    const notOurs = await h.post(`/v1/marketplace/instances/${foreign}/release`, undefined);
    expect(notOurs.status).toBe(404);
    expect(destroyCalls(vast, foreign).deletes).toBe(0);

    const released = await h.post(`/v1/marketplace/instances/${orphan}/release`, undefined);
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect(released.body).toMatchObject({ instance_id: orphan, released: true, verified: true, job_id: orphanJob });
    // The release's answer says what the machine cost in the end (the ledger's figure).
    expect(released.body.cost_usd).toEqual(expect.any(Number));
    expect(vast.state.instances.get(orphan)?.destroyed).toBe(true);
    expect(destroyCalls(vast, orphan).readBacksAfterDelete).toBeGreaterThanOrEqual(1);
    expectInOrder(await getEvents(h, orphanJob), ['marketplace.orphan:info', 'marketplace.instance.release:info', 'marketplace.instance.destroy:ok']);
    expect((await getJob(h, orphanJob)).resources?.marketplace_instance_released ?? null).toBeNull();
    await waitUntil(async () => ((await h.get('/healthz')).body.marketplace as { orphaned_instances: number }).orphaned_instances === 0, 'the orphan count to drop');

    // The sweeps never touched the foreign machine.
    expect(vast.state.instances.get(foreign)?.destroyed).toBe(false);
    expect(destroyCalls(vast, foreign).deletes).toBe(0);

    const cancel = await h.post(`/v1/jobs/${activeJob}/cancel`, undefined);
    expect(cancel.status).toBe(202);
    ollama.setKnobs({ pullLineDelayMs: 0 });
    const { job: cancelled } = await waitForEnd(h, activeJob);
    expect(cancelled.status).toBe('cancelled');
    expect(vast.state.instances.get(active)?.destroyed).toBe(true);
  }, 60_000);

  it('releases a kept machine through the HTTP client and the in-process client; a second release is a 404; without a key the list is empty and says why', async () => {
    const h = await harness({ start: true });
    const keptJob = await submit(h, 'llm-instance', llmInstanceBody());
    const { job } = await waitForEnd(h, keptJob);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const kept = job.resources?.marketplace_instance_id ?? -1;

    const apiUrl = (h.bd as Benchdesk & { apiUrl?: string }).apiUrl ?? '';
    const http = createHttpClient({ baseUrl: apiUrl });
    const listed = await http.listInstances({});
    expect(listed.instances.map((e) => [e.instance_id, e.classification])).toEqual([[kept, 'kept']]);
    // The model's download is billed once and counts in the kept machine's cost so far, as in its events.
    const downloaded = (await getEvents(h, keptJob)).find((e) => e.event === 'cost.download')?.labels.download_usd;
    expect(typeof downloaded === 'number' && downloaded > 0, `download_usd=${String(downloaded)}`).toBe(true);
    expect(job.resources?.download_usd).toBe(downloaded);
    const entry = listed.instances[0];
    expect(entry?.download_usd).toBe(downloaded);
    const machineOnly = ((entry?.dph_total ?? 0) * (Date.now() - Date.parse(entry?.rented_at ?? ''))) / 3_600_000;
    expect(entry?.cost_usd_so_far ?? 0).toBeGreaterThanOrEqual(Number(downloaded));
    expect(entry?.cost_usd_so_far ?? 0).toBeLessThanOrEqual(machineOnly + Number(downloaded) + 1e-6);
    const local = h.bd.client();
    expect((await local.listInstances({ orphaned: true })).instances).toEqual([]);

    const released = await local.releaseInstance({ instance_id: kept });
    expect(released).toMatchObject({ instance_id: kept, released: true, verified: true, job_id: keptJob });
    expect(mustVast(h).state.instances.get(kept)?.destroyed).toBe(true);
    expect(destroyCalls(mustVast(h), kept).deletes).toBe(1);
    // The job's record follows: its machine is gone.
    expect((await getJob(h, keptJob)).resources).toMatchObject({ marketplace_instance_id: kept, marketplace_instance_released: true });
    const again = await http.releaseInstance({ instance_id: kept }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(again).toBeInstanceOf(BenchdeskApiError);
    expect((again as BenchdeskApiError).status).toBe(404);
    expect((again as BenchdeskApiError).code).toBe('instance_not_found');
    expect((await http.listInstances({})).instances).toEqual([]);

    const keyless = await harness({ vastKey: false });
    const empty = await instances(keyless);
    expect(empty.instances).toEqual([]);
    expect(empty.note).toMatch(/no marketplace key/);
    const noKeyRelease = await keyless.post(`/v1/marketplace/instances/${kept}/release`, undefined);
    expect(noKeyRelease.status).toBe(409);
    expect(noKeyRelease.body.code).toBe('marketplace_not_configured');
    const bad = await keyless.get('/v1/marketplace/instances?orphaned=maybe');
    expect(bad.status).toBe(422);

    // Both operations are in the OpenAPI document derived from the operation table.
    const doc = (await keyless.get('/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    expect(doc.paths['/v1/marketplace/instances']?.get).toBeDefined();
    expect(doc.paths['/v1/marketplace/instances/{instance_id}/release']?.post).toBeDefined();
  }, 30_000);
});

describe('the orphan sweep', () => {
  it("a machine whose create answer was lost appears a moment later: its lease finds it by label and releases it, with release_orphans_automatically off", async () => {
    // Only the start-up sweep runs by itself; the test calls the next one.
    const h = await harness({ start: true, extra: { instancesTuning: { sweepIntervalMs: 600_000 } } });
    const vast = mustVast(h);
    await waitUntil(async () => (await h.get('/healthz')).body.marketplace, 'the start-up sweep');
    expect(h.bd.settings.appSettings().release_orphans_automatically).toBe(false);
    // The rent succeeds on the marketplace, but the answer never arrives and the machine only shows a moment later.
    vast.setKnob('rentAnswerLost', true);
    vast.setKnob('rentVisibleAfterMs', 400);
    const id = await submit(h, 'llm-instance', llmInstanceBody());
    const { job } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/keeps looking for its label/);
    expect(job.resources?.marketplace_instance_id ?? null).toBeNull();
    const lost = must([...vast.state.instances.values()].find((i) => i.label === `benchdesk:${h.bd.installId}:${id}`), 'the lost machine');
    vast.setKnob('rentAnswerLost', false);
    await waitForEvent(h, id, (e) => line(e) === 'marketplace.instance.destroy:ok', 'the lost machine released');
    expect(vast.state.instances.get(lost.id)?.destroyed).toBe(true);
    // Only one machine was ever rented for the job; the orphan sweep had nothing left to do.
    expect(vast.callsTo('asks')).toHaveLength(1);
    expectInOrder(await getEvents(h, id), ['job.failed:error', 'marketplace.lost_rent:info', 'marketplace.instance.destroy:ok']);
    expect(await h.bd.instances.sweep()).toEqual({ orphaned: [], released: [], failed: [] });
    // It billed from the moment Vast created it to its release: the ledger counts it, and the Overview's spend has it.
    const cost = must(h.bd.leases.ledger.cost(id), 'its cost');
    expect(cost.running).toBe(false);
    const spend = await h.get('/v1/spend');
    expect((spend.body.by_kind as Record<string, { cost_usd: number }>)['llm-instance']?.cost_usd).toBe(cost.cost_usd);
  }, 30_000);
});
