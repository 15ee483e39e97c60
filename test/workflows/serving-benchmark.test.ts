import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { JobRecordSchema, StoredRequestSchemas, type JobRecord, type ServingBenchmarkResult } from '../../shared';
import { DEFAULT_FAKE_MODELS } from '../fakes/ollama';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, defaultOffers } from '../fakes/vast';
import { destroyCalls, expectInOrder, line, mustVast, startHarness, submit, tempDir, waitForEnd, waitForEvent, type Harness, type HarnessOptions } from './harness';

/**
 * serving-benchmark (design §13) end to end through the HTTP API: against an existing llmserver
 * (the fake Ollama's serving mode, known timing) and on a rented machine of the fake marketplace:
 * exactly one machine rented, each level priced per million output tokens, the machine released on
 * success and on cancel (with the requests in flight stopped).
 */

const MODEL = 'qwen2.5:32b';
const FIRST_INSTANCE = 30000001;
const TIMING = { firstTokenMs: 40, tokenIntervalMs: 5 };

const harnesses: Harness[] = [];
async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const h = await startHarness({
    vast: true,
    ollama: {
      models: DEFAULT_FAKE_MODELS,
      registry: [{ name: MODEL, size: 19_851_336_256, family: 'qwen2', parameter_size: '32.8B', context_length: 32_768 }],
      knobs: { serving: TIMING },
    },
    ...options,
  });
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

function servingResult(job: JobRecord): ServingBenchmarkResult {
  if (job.kind !== 'serving-benchmark' || !job.result) throw new Error(`expected a serving-benchmark result, got ${job.kind} ${job.status}: ${job.error ?? ''}`);
  return job.result;
}

const rentBody = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  marketplace: true,
  template_hash: OLLAMA_TEMPLATE_HASH,
  max_dph: 0.5,
  model: MODEL,
  concurrency: [1, 4],
  requests_per_level: 8,
  prompt_tokens: 64,
  output_tokens: 16,
  warmup_requests: 1,
  backend_warmup_timeout: 30,
  ...over,
});

describe('serving-benchmark on an existing llmserver', () => {
  it('runs the levels in order with live serving.level events, and prices nothing', async () => {
    const h = await harness({ vast: false });
    const id = await submit(h, 'serving-benchmark', { backend_url: h.ollama.url, model: 'llama3.1:8b', concurrency: [1, 2, 4], requests_per_level: 4, output_tokens: 8, warmup_requests: 0 });
    const { job, events } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = servingResult(job);
    expect(result).toMatchObject({ model: 'llama3.1:8b', backend_url: h.ollama.url, contract_id: null, instance: null, teardown: null, cost: { cost_usd: 0 }, best: { by_cost: null } });
    expect(result.levels.map((l) => [l.concurrency, l.requests, l.failed, l.output_tokens])).toEqual([[1, 4, 0, 32], [2, 4, 0, 32], [4, 4, 0, 32]]);
    expect(result.levels.every((l) => l.usd_per_million_output_tokens === null)).toBe(true);
    expect(result.best.by_throughput).toBe(result.levels.reduce((a, b) => (b.output_tokens_per_s > a.output_tokens_per_s ? b : a)).concurrency);
    expect(result.phases.map((p) => `${p.name}:${p.status}`)).toEqual(['provision:ok', 'warmup:ok', 'load:ok', 'teardown:skipped']);
    // Defaults applied to what was left out.
    expect(job.request).toMatchObject({ prompt_tokens: 256, warmup_requests: 0, marketplace: false });
    expectInOrder(events, ['phase.load:started', 'serving.level:started', 'serving.level:ok', 'serving.level:started', 'serving.level:ok', 'serving.level:started', 'serving.level:ok', 'phase.load:ok']);
    const done = events.filter((e) => line(e) === 'serving.level:ok');
    expect(done.map((e) => e.labels.concurrency)).toEqual([1, 2, 4]);
    expect(done[2]?.labels).toMatchObject({ level: 3, levels: 3, requests: 4, failed: 0, output_tokens_per_s: result.levels[2]?.output_tokens_per_s, ttft_p50_ms: result.levels[2]?.ttft_ms?.p50 });
  });

  it('fails serving_failed with the first error when every request fails', async () => {
    const h = await harness({ vast: false });
    h.ollama.setKnobs({ chatFailure: 'queue_full' });
    const id = await submit(h, 'serving-benchmark', { backend_url: h.ollama.url, model: 'llama3.1:8b', concurrency: [2], requests_per_level: 2, warmup_requests: 0 });
    const { job, events } = await waitForEnd(h, id);
    expect(job).toMatchObject({ status: 'failed', error_code: 'serving_failed' });
    expect(job.error).toMatch(/every request failed; the first error: .*maximum pending requests exceeded/);
    expect(events.find((e) => line(e) === 'serving.level:error')?.labels).toMatchObject({ concurrency: 2, requests: 0, failed: 2 });
  });
});

describe('serving-benchmark on a rented machine', () => {
  it('rents exactly one machine, prices every level per million output tokens, names the cheapest, and releases it', async () => {
    const h = await harness();
    const vast = mustVast(h);
    const id = await submit(h, 'serving-benchmark', rentBody());
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = servingResult(job);
    expect(vast.callsTo('asks')).toHaveLength(1);
    expect(result.instance).toMatchObject({ id: FIRST_INSTANCE, released: true });
    expect(result.teardown).toMatchObject({ released: true, verified: true });
    expect(destroyCalls(vast, FIRST_INSTANCE).deletes).toBe(1);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    const dph = result.cost.dph_total;
    expect(dph).toBeGreaterThan(0);
    for (const level of result.levels) {
      expect(level.requests).toBe(8);
      expect(level.usd_per_million_output_tokens).toBeCloseTo((dph / (level.output_tokens_per_s * 3600)) * 1e6, 2);
    }
    const cheapest = [...result.levels].sort((a, b) => (a.usd_per_million_output_tokens ?? 0) - (b.usd_per_million_output_tokens ?? 0))[0];
    expect(result.best.by_cost).toBe(cheapest?.concurrency);
    expect(result.phases.map((p) => `${p.name}:${p.status}`)).toEqual(['provision:ok', 'warmup:ok', 'load:ok', 'teardown:ok']);
    expectInOrder(events, ['marketplace.instance.create:ok', 'phase.load:started', 'serving.level:ok', 'cost.update:info', 'phase.load:ok', 'phase.teardown:started', 'marketplace.instance.destroy:ok', 'job.succeeded:ok']);
    expect(events.find((e) => line(e) === 'serving.level:ok')?.labels.usd_per_million_output_tokens).toBe(result.levels[0]?.usd_per_million_output_tokens);
    expect(job.resources).toMatchObject({ marketplace_instance_id: FIRST_INSTANCE, marketplace_instance_released: true });
  }, 40_000);

  it('cancel mid-level stops the requests in flight and releases the machine', async () => {
    const h = await harness();
    const vast = mustVast(h);
    // 2,000 tokens at 5 ms: each request would stream for 10 s.
    const id = await submit(h, 'serving-benchmark', rentBody({ concurrency: [4], requests_per_level: 40, output_tokens: 2000, warmup_requests: 0 }));
    await waitForEvent(h, id, (e) => line(e) === 'serving.level:started', 'the level to start', 30_000);
    const chatsBefore = () => h.ollama.callsTo('/api/chat').filter((c) => Array.isArray((c.body as { messages?: unknown }).messages) && ((c.body as { messages: unknown[] }).messages.length > 0));
    while (chatsBefore().length < 4) await new Promise((r) => setTimeout(r, 10));
    expect((await h.post(`/v1/jobs/${id}/cancel`, {})).status).toBe(202);
    const { job, events } = await waitForEnd(h, id, 20_000);
    expect(job.status).toBe('cancelled');
    expectInOrder(events, ['job.cancel_requested:info', 'phase.load:error', 'phase.teardown:started', 'marketplace.instance.destroy:ok', 'job.cancelled:info']);
    expect(vast.callsTo('asks')).toHaveLength(1);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expect(job.resources).toMatchObject({ marketplace_instance_released: true });
    // No request was started after the cancel: only the 4 that were in flight.
    expect(chatsBefore()).toHaveLength(4);
  }, 40_000);

  it('stops at the spend limit mid-load, releases the machine and fails budget_exceeded', async () => {
    // Free downloads: the limit is reached by machine time alone, mid-load.
    const h = await harness({ vast: { offers: defaultOffers().map((o) => ({ ...o, inet_down_cost: 0 })) }, extra: { workflowTuning: { waitTimeoutMs: 8_000, pollIntervalMs: 5, releaseRetryDelayMs: 5, costUpdateIntervalMs: 50 } } });
    const id = await submit(h, 'serving-benchmark', rentBody({ concurrency: [2], requests_per_level: 20, output_tokens: 4000, warmup_requests: 0, max_cost_usd: 0.0001, estimated_duration_seconds: 1 }));
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job, JSON.stringify(events.map(line))).toMatchObject({ status: 'failed', error_code: 'budget_exceeded' });
    expect(mustVast(h).state.instances.get(FIRST_INSTANCE)?.destroyed, job.error ?? '').toBe(true);
    expectInOrder(events, ['phase.load:started', 'phase.load:error', 'marketplace.instance.destroy:ok', 'job.failed:error']);
  }, 40_000);
});

describe('serving-benchmark after a crash', () => {
  it('a job left running with a rented machine becomes interrupted on the next start, and its machine is released', async () => {
    const dir = await tempDir();
    const first = await harness({ dataDir: dir });
    const vast = mustVast(first);
    const at = new Date(Date.now() - 60_000).toISOString();
    const job = JobRecordSchema.parse({
      job_id: randomUUID(),
      tenant_id: 'default',
      kind: 'serving-benchmark',
      status: 'queued',
      message: 'accepted',
      created_at: at,
      started_at: null,
      finished_at: null,
      updated_at: at,
      request: StoredRequestSchemas['serving-benchmark'].parse(rentBody()),
      progress: null,
      result: null,
      error: null,
      error_code: null,
      resources: null,
    });
    // Rented as the crashed process would have, then recorded as running.
    const rent = await fetch(`${vast.url}/asks/20000002/`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${FAKE_VAST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'me', template_hash_id: OLLAMA_TEMPLATE_HASH, disk: 40, label: `benchdesk:${job.job_id}` }),
    });
    const instance = ((await rent.json()) as { new_contract: number }).new_contract;
    await first.bd.store.createJob(job);
    await first.bd.store.updateJob(job.job_id, {
      status: 'running',
      started_at: new Date().toISOString(),
      resources: { marketplace_instance_id: instance, marketplace_instance_released: false, marketplace_stop_instance: true, dph_total: 0.17 },
    });
    await first.closeProduct();

    const h = await harness({ dataDir: first.dir, start: true, reuse: { ollama: first.ollama, vast }, vast: true });
    const { job: after, events } = await waitForEnd(h, job.job_id);
    expect(after).toMatchObject({ status: 'failed', error_code: 'interrupted', resources: { marketplace_instance_released: true } });
    expect(vast.state.instances.get(instance)?.destroyed).toBe(true);
    expectInOrder(events, ['job.recover:info', 'marketplace.instance.destroy:ok', 'job.failed:error']);
    await h.close();
    await first.close();
    await rm(dir, { recursive: true, force: true });
  }, 30_000);
});
