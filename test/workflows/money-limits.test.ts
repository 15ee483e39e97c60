import { afterEach, describe, expect, it } from 'vitest';
import {
  TUNING,
  destroyCalls,
  expectInOrder,
  getEvents,
  getJob,
  line,
  mustK8s,
  mustVast,
  pollJob,
  submit,
  waitForEnd,
  waitForEvent,
  waitUntil,
  type Harness,
  type HarnessOptions,
} from './harness';
import { CRASH, entryOf, freeDownloads, instances, llmInstanceBody, moneyHarness } from './money-helpers';

/**
 * Money safety (issue 12): the running cost, the spend limit, stuck machines, and destroy failures
 * that are retried and then reported. All through the HTTP API against the fake Vast.ai, Ollama
 * and Kubernetes.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const harness = (options: HarnessOptions = {}): Promise<Harness> => moneyHarness(cleanups, options);

describe('running cost and the spend limit', () => {
  it('emits cost.update events that grow while a job holds a machine, and keeps the running cost in progress', async () => {
    const h = await harness({ extra: { workflowTuning: { waitTimeoutMs: 20_000, pollIntervalMs: 5, releaseRetryDelayMs: 5, costUpdateIntervalMs: 50 } } });
    // A machine that takes a while to boot: the meter runs during the wait too.
    mustVast(h).setKnob('pollsPerPhase', { scheduling: 1, created: 1, loading: 60 });
    const id = await submit(h, 'llm-instance', llmInstanceBody());
    const { job, events } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const updates = events.filter((e) => e.event === 'cost.update');
    expect(updates.length).toBeGreaterThanOrEqual(3);
    const costs = updates.map((e) => Number(e.labels.cost_usd));
    for (let i = 1; i < costs.length; i++) expect(costs[i]).toBeGreaterThanOrEqual(costs[i - 1] ?? 0);
    expect(costs.at(-1)).toBeGreaterThan(costs[0] ?? 0);
    const dph = job.resources?.dph_total ?? 0;
    for (const u of updates) expect(u).toMatchObject({ status: 'info', labels: { dph_total: dph, instance_id: job.resources?.marketplace_instance_id ?? -1 } });
    // Interval ticks and phase boundaries both report.
    expect(updates.some((u) => u.labels.reason === 'interval')).toBe(true);
    expect(updates.some((u) => String(u.labels.reason).startsWith('phase:'))).toBe(true);
    expect(job.progress).toMatchObject({ dph_total: dph, cost_usd: costs.at(-1) });
    // The pre-flight estimate for the offer rented is on its create event.
    const create = events.find((e) => line(e) === 'marketplace.instance.create:started');
    // An hour at dph_total plus the model's 4.9 GB download at the host's $0.00123/GB.
    expect(create?.labels).toMatchObject({
      dph_total: dph, estimated_duration_seconds: 3600, download_gb: 4.9, download_usd: 0.006, estimated_cost_usd: Math.round((dph + 0.006) * 10_000) / 10_000, max_cost_usd: null,
    });
  }, 30_000);

  it('stops a benchmark mid-analysis when its cost reaches max_cost_usd, destroys the machine even though it was to be kept, and fails budget_exceeded', async () => {
    // Free downloads here: the limit is reached by machine time alone, mid-analysis.
    const h = await harness({ k8s: true, vast: { offers: freeDownloads() }, extra: { workflowTuning: { waitTimeoutMs: 8_000, pollIntervalMs: 5, releaseRetryDelayMs: 5, costUpdateIntervalMs: 50 } } });
    // The agent's first model call hangs: the analysis is running when the limit is reached.
    h.ollama.setKnobs({ firstByteDelayMs: 30_000 });
    const id = await submit(h, 'benchmark', {
      ...llmInstanceBody(),
      question: 'Why is the shop down?',
      kubeconfig: mustK8s(h).kubeconfigPath,
      max_cost_usd: 0.00004,
      estimated_duration_seconds: 1,
      marketplace_stop_instance: false,
    });
    const { job, events } = await waitForEnd(h, id, 20_000);
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('budget_exceeded');
    expect(job.error).toMatch(/spend limit reached: instance \d+ cost \$0\.0000\d+ .* against a limit of \$0\.00004/);
    const instanceId = job.resources?.marketplace_instance_id ?? -1;
    expect(destroyCalls(mustVast(h), instanceId).deletes).toBe(1);
    expect(mustVast(h).state.instances.get(instanceId)?.destroyed).toBe(true);
    expect(job.resources?.marketplace_instance_released).toBe(true);
    expectInOrder(events, ['phase.analysis:started', 'cost.update:info', 'phase.analysis:error', 'phase.teardown:started', 'marketplace.instance.destroy:ok', 'job.failed:error']);
    const last = events.filter((e) => e.event === 'cost.update').at(-1);
    expect(Number(last?.labels.cost_usd)).toBeGreaterThanOrEqual(0.00004);
    expect(events.find((e) => line(e) === 'job.failed:error')?.labels).toMatchObject({ error_code: 'budget_exceeded' });
  }, 30_000);

  it('keeps a benchmark\'s answer when the limit is reached only after the analysis finished, and still releases the kept machine', async () => {
    // The meter's clock jumps an hour while the analysis runs; with no interval ticks the next
    // limit check is the analysis's end, when the answer is already in.
    let skewMs = 0;
    const h = await harness({
      k8s: true,
      vast: { offers: freeDownloads() },
      extra: { workflowTuning: { waitTimeoutMs: 8_000, pollIntervalMs: 5, releaseRetryDelayMs: 5, costUpdateIntervalMs: 600_000, now: () => Date.now() + skewMs } },
    });
    h.ollama.setKnobs({ firstByteDelayMs: 300 });
    const id = await submit(h, 'benchmark', {
      ...llmInstanceBody(),
      question: 'Why is the shop down?',
      kubeconfig: mustK8s(h).kubeconfigPath,
      max_cost_usd: 0.001,
      estimated_duration_seconds: 1,
      marketplace_stop_instance: false,
    });
    await waitForEvent(h, id, (e) => line(e) === 'phase.analysis:started', 'the analysis to start');
    skewMs = 3_600_000;
    const { job, events } = await waitForEnd(h, id, 20_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect((job.result as { answer?: string } | null)?.answer).toContain(CRASH.name);
    const instanceId = job.resources?.marketplace_instance_id ?? -1;
    expect(mustVast(h).state.instances.get(instanceId)?.destroyed).toBe(true);
    expect(job.result).toMatchObject({ instance: { id: instanceId, released: true }, teardown: { released: true, verified: true } });
    expectInOrder(events, ['phase.analysis:ok', 'cost.limit_reached:info', 'phase.teardown:started', 'marketplace.instance.destroy:ok', 'job.succeeded:ok']);
    expect(events.find((e) => e.event === 'cost.limit_reached')?.message).toMatch(/spend limit reached after the work finished: .*against a limit of \$0\.001; the result is kept and the machine released/);
  }, 30_000);

  it("a kept machine answers to its job's limit: its lease releases it once its cost reaches max_cost_usd (checked at least every 5 s)", async () => {
    const clock = { t: Date.now() };
    const h = await harness({ start: true, extra: { workflowTuning: { ...TUNING, now: () => clock.t }, leaseTuning: { spendCheckMs: 20 } } });
    const vast = mustVast(h);
    const id = await submit(h, 'llm-instance', llmInstanceBody({ max_cost_usd: 0.01, estimated_duration_seconds: 60 }));
    const { job } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const kept = job.resources?.marketplace_instance_id ?? -1;
    expect(vast.state.instances.get(kept)?.destroyed).toBe(false);
    // An hour later on the ledger's clock: about $0.07 at this rate, over the $0.01 limit.
    clock.t += 3_600_000;
    await waitUntil(() => vast.state.instances.get(kept)?.destroyed, 'the kept machine to be released at its limit');
    const events = await waitUntil(async () => {
      const all = await getEvents(h, id);
      return all.some((e) => line(e) === 'marketplace.instance.destroy:ok') ? all : null;
    }, 'the release on the job');
    const limit = events.find((e) => e.event === 'cost.limit_reached');
    expect(limit?.labels).toMatchObject({ instance_id: kept, max_cost_usd: 0.01 });
    expect(limit?.message).toMatch(/reaching its spend limit of \$0\.01/);
    // The job's record follows, with the machine's final cost.
    const after = await pollJob(h, id, (j) => j.resources?.marketplace_instance_released === true, 15_000, 'the release on the record');
    expect(after.resources?.cost_usd).toBeGreaterThanOrEqual(0.01);
  });

  it('refuses before renting when the estimate for the offer exceeds the limit (request field, then the settings default)', async () => {
    const h = await harness();
    const vast = mustVast(h);
    const id = await submit(h, 'llm-instance', llmInstanceBody({ max_cost_usd: 0.01, estimated_duration_seconds: 7200 }));
    const { job, events } = await waitForEnd(h, id);
    expect(job).toMatchObject({ status: 'failed', error_code: 'budget_exceeded' });
    expect(job.error).toMatch(
      /the estimate before renting, \$0\.1\d+ \(offer \d+ at \$0\.\d+\/h for the expected duration of 7200 s, plus \$0\.0060 to download 4\.9 GB at \$0\.00123\/GB\), exceeds the spend limit of \$0\.01; nothing was rented/,
    );
    expect(vast.callsTo('asks')).toEqual([]);
    expect(events.find((e) => e.event === 'marketplace.instance.create')?.labels).toMatchObject({ max_cost_usd: 0.01, estimated_duration_seconds: 7200 });

    h.bd.settings.updateAppSettings({ default_max_cost_usd: 0.02 });
    const byDefault = await submit(h, 'llm-instance', llmInstanceBody());
    const { job: refused } = await waitForEnd(h, byDefault);
    expect(refused).toMatchObject({ status: 'failed', error_code: 'budget_exceeded' });
    expect(refused.error).toMatch(/for the expected duration of 3600 s.*exceeds the spend limit of \$0\.02/);
    expect(vast.callsTo('asks')).toEqual([]);

    const bad = await h.post('/v1/jobs/llm-instance', llmInstanceBody({ max_cost_usd: -1 }));
    expect(bad.status).toBe(422);
  });
});

describe('stuck machines and destroy failures', () => {
  it('destroys a machine that never gets ready within the bound; the job says what it waited for', async () => {
    const h = await harness({ extra: { workflowTuning: { waitTimeoutMs: 300, pollIntervalMs: 5, releaseRetryDelayMs: 5 } } });
    mustVast(h).setKnob('outcome', 'never_ready');
    const id = await submit(h, 'llm-instance', llmInstanceBody());
    const { job } = await waitForEnd(h, id);
    expect(job).toMatchObject({ status: 'failed', error_code: 'wait_timeout' });
    expect(job.error).toMatch(/was not running with port 11434 mapped within 0\.3 s \(last: .*Pulling image/);
    expect(job.error).toMatch(/destroyed and confirmed gone/);
    const instanceId = job.resources?.marketplace_instance_id ?? -1;
    expect(mustVast(h).state.instances.get(instanceId)?.destroyed).toBe(true);
    expect(destroyCalls(mustVast(h), instanceId).deletes).toBe(1);
  });

  it('destroys a machine whose host goes offline or unknown while it starts; the job says what the marketplace reported', async () => {
    const h = await harness();
    const vast = mustVast(h);
    for (const outcome of ['offline', 'unknown'] as const) {
      vast.setKnob('outcome', outcome);
      const id = await submit(h, 'llm-instance', llmInstanceBody());
      const { job } = await waitForEnd(h, id);
      expect(job).toMatchObject({ status: 'failed', error_code: 'instance_failed' });
      expect(job.error).toContain(`instance is ${outcome}`);
      const instanceId = job.resources?.marketplace_instance_id ?? -1;
      expect(vast.state.instances.get(instanceId)?.destroyed).toBe(true);
      expect(destroyCalls(vast, instanceId).deletes).toBe(1);
    }
  });

  it('retries a destroy that meets 429 and 5xx answers, and reports one that keeps failing (the machine stays listed)', async () => {
    const h = await harness({
      start: true,
      extra: {
        instancesTuning: { releaseRetryDelayMs: 5 },
        // The product's client with millisecond backoff.
        marketplaceClient: { retry: { initialDelayMs: 5, maxDelayMs: 20, jitter: 0 } },
      },
    });
    const vast = mustVast(h);
    const kept = async (): Promise<{ job: string; instance: number }> => {
      const job = await submit(h, 'llm-instance', llmInstanceBody());
      const { job: done } = await waitForEnd(h, job);
      expect(done.status, done.error ?? '').toBe('succeeded');
      return { job, instance: done.resources?.marketplace_instance_id ?? -1 };
    };

    // Transient: two 429s and two 503s, then the destroy goes through.
    const first = await kept();
    vast.setKnob('rateLimit', { count: 2, variant: 'cycle', endpoints: ['destroy'] });
    vast.setKnob('failNext', { count: 2, status: 503, endpoints: ['destroy'] });
    const ok = await h.post(`/v1/marketplace/instances/${first.instance}/release`, undefined);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ released: true, verified: true });
    const attempts = vast.callsTo('destroy').filter((c) => c.path === `/api/v0/instances/${first.instance}/`);
    expect(attempts.map((c) => c.status)).toEqual([429, 429, 503, 503, 200]);
    expect(vast.state.instances.get(first.instance)?.destroyed).toBe(true);

    // Persistent: every destroy answers 500. Reported to the caller, recorded on the job, still listed.
    const second = await kept();
    vast.setKnob('failNext', { count: 1_000, status: 500, endpoints: ['destroy'] });
    const failed = await h.post(`/v1/marketplace/instances/${second.instance}/release`, undefined);
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('upstream_error');
    expect(String(failed.body.detail)).toMatch(new RegExp(`Could not destroy instance ${second.instance}: .*HTTP 500.*may still be billing`));
    expect(vast.callsTo('destroy').filter((c) => c.path === `/api/v0/instances/${second.instance}/`).length).toBeGreaterThanOrEqual(2);
    expect(vast.state.instances.get(second.instance)?.destroyed).toBe(false);
    const destroyEvent = (await getEvents(h, second.job)).find((e) => line(e) === 'marketplace.instance.destroy:error');
    expect(destroyEvent?.error_type).toBe('destroy_failed');
    expect(entryOf(await instances(h), second.instance)).toMatchObject({ classification: 'kept' });
    expect((await getJob(h, second.job)).resources?.marketplace_instance_released).toBe(false);
    vast.setKnob('failNext', null);
  }, 30_000);
});
