import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../shared';
import { DEFAULT_FAKE_MODELS } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH } from '../fakes/vast';
import {
  marketplaceLlmResult,
  destroyCalls,
  expectInOrder,
  expectKeyOnlyInHeader,
  expectMonotonic,
  line,
  mustVast,
  startHarness,
  startOllamaProxy,
  submit,
  waitForEnd,
  waitForEvent,
  type Harness,
  type HarnessOptions,
} from './harness';

/**
 * llm-instance with `marketplace: true` end to end: fake Vast.ai (offers, template, an instance
 * that goes created → loading → running with 11434/tcp mapped to the fake Ollama) and a fake
 * Ollama that lacks the model (pulled, then warmed up).
 */

const MODEL = 'qwen3:8b';
/**
 * Cheapest in total (an hour plus the 5.2 GB download) of the verified, rentable offers with ≥ 7000 MB
 * (qwen3:8b's need), reliability ≥ 0.99 and a direct port: not the $0.05/h host without direct ports,
 * nor the $0.06/h one whose downloads cost $40/TB.
 */
const CHEAPEST = { id: 20000001, gpu_name: 'RTX 3060' } as const;
const FIRST_INSTANCE = 30000001;

const request = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  marketplace: true,
  template_hash: OLLAMA_TEMPLATE_HASH,
  max_dph: 1,
  reliability: 0.99,
  model: MODEL,
  backend_warmup_timeout: 30,
  ...over,
});

const harnesses: Harness[] = [];
const closers: (() => Promise<void>)[] = [];
async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const h = await startHarness({
    vast: true,
    ollama: { models: DEFAULT_FAKE_MODELS, registry: [{ name: MODEL, size: 5_200_000_000, family: 'qwen3', parameter_size: '8.2B' }] },
    ...options,
  });
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    if (h.vast) expectKeyOnlyInHeader(h.vast);
    await h.close();
  }
  for (const c of closers.splice(0)) await c();
});

function destroyEvents(events: readonly JobEvent[]): string[] {
  return events.filter((e) => e.event === 'marketplace.instance.destroy').map(line);
}

describe('llm-instance on the marketplace', () => {
  it('rents the cheapest fit, waits for it, pulls and warms the model, and leaves the instance up', async () => {
    const h = await harness();
    const vast = mustVast(h);
    const id = await submit(h, 'llm-instance', request());
    const { job, events } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');

    const port = new URL(h.ollama.url).port;
    const result = marketplaceLlmResult(job);
    expect(result).toMatchObject({
      mode: 'marketplace',
      backend_url: `http://127.0.0.1:${port}`,
      model_name: MODEL,
      contract_id: FIRST_INSTANCE,
      offer: { id: CHEAPEST.id, gpu_name: CHEAPEST.gpu_name, num_gpus: 1 },
      instance_running: true,
    });
    expect(result.dph_total).toBeGreaterThan(0.065);
    expect(result.dph_total).toBeLessThan(0.1);
    expect(result.message).toMatch(/running and billing/);

    // The journey, in order.
    expectMonotonic(events);
    expectInOrder(events, [
      'job.running:info',
      'marketplace.template_lookup:ok',
      'marketplace.offer_search:started',
      'marketplace.offer_search:ok',
      'marketplace.instance.create:started',
      'marketplace.instance.create:ok',
      'marketplace.instance.wait_running:started',
      'marketplace.instance.wait_running:ok',
      'llmserver.ready:ok',
      'llmserver.models:ok',
      'llmserver.pull:started',
      'llmserver.pull:ok',
      'llmserver.warmup:started',
      'llmserver.warmup:ok',
      'marketplace.instance.kept:info',
      'job.succeeded:ok',
    ]);
    // The instance advanced created → loading → running, seen by polling.
    const phases = events.filter((e) => line(e) === 'marketplace.instance.wait_running:info').map((e) => e.labels.actual_status);
    expect(phases.indexOf('created')).toBeGreaterThanOrEqual(0);
    expect(phases.indexOf('loading')).toBeGreaterThan(phases.indexOf('created'));
    // Pull progress was reported.
    const progress = events.filter((e) => e.event === 'llmserver.pull.progress');
    // (throttled: each status change, at most one line per 2 s within a status)
    const statuses = progress.map((e) => e.message);
    expect(statuses[0]).toBe('pulling manifest');
    expect(statuses.some((s) => /^pulling [0-9a-f]{12}$/.test(s ?? ''))).toBe(true);
    expect(statuses).toContain('verifying sha256 digest');
    expect(statuses.at(-1)).toBe('success');
    expect(progress.some((e) => typeof e.labels.total === 'number')).toBe(true);
    expect(progress.every((e) => e.labels.model === MODEL)).toBe(true);

    // It stays up: no destroy, nothing marked released.
    expect(vast.callsTo('destroy')).toEqual([]);
    expect(destroyEvents(events)).toEqual([]);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(false);
    expect(job.resources).toMatchObject({ marketplace_instance_id: FIRST_INSTANCE, marketplace_instance_released: false, marketplace_stop_instance: false });

    // The rent: our label, the template, the model; the key only in the Authorization header.
    const rents = vast.callsTo('asks');
    expect(rents).toHaveLength(1);
    expect(rents[0]?.path).toBe(`/api/v0/asks/${CHEAPEST.id}/`);
    expect(rents[0]?.body).toMatchObject({ label: `benchdesk:${h.bd.installId}:${id}`, template_hash_id: OLLAMA_TEMPLATE_HASH, env: { OLLAMA_MODEL: MODEL } });
    expect(vast.state.instances.get(FIRST_INSTANCE)?.label).toBe(`benchdesk:${h.bd.installId}:${id}`);
    // The offer search asked for the model's VRAM need, the price ceiling, and only hosts a job can use.
    expect(vast.callsTo('bundles')[0]?.body).toMatchObject({
      gpu_total_ram: { gte: 7000 }, dph_total: { lte: 1 }, reliability: { gte: 0.99 }, direct_port_count: { gte: 1 }, external: { eq: false }, disk_space: { gte: 40 },
    });

    // The model was pulled and warmed on the rented machine.
    expect(h.ollama.state.installed.has(MODEL)).toBe(true);
    expect(h.ollama.state.loaded.has(MODEL)).toBe(true);
    // Every Ollama call carried the proxy token; the token is in a 0600 file, not in the job.
    const token = String((rents[0]?.body as { env: Record<string, string> }).env.OPEN_BUTTON_TOKEN);
    expect(token.length).toBeGreaterThan(10);
    for (const call of h.ollama.calls) expect(call.headers.authorization).toBe(`Bearer ${token}`);
    const auth = result.backend_auth;
    expect(auth?.type).toBe('bearer');
    expect(path.dirname(auth?.token_file ?? '')).toBe(path.join(h.dir, 'secrets'));
    expect((await readFile(auth?.token_file ?? '', 'utf8')).trim()).toBe(token);
    expect(JSON.stringify(job)).not.toContain(token);
    expect(JSON.stringify(events)).not.toContain(token);
  });

  it("a model named by its untagged alias is sized by the catalog and reported by the name it has on the server", async () => {
    const h = await harness({ ollama: { models: DEFAULT_FAKE_MODELS, registry: [{ name: 'qwen3' }] } });
    const vast = mustVast(h);
    const id = await submit(h, 'llm-instance', request({ model: 'qwen3' }));
    const { job } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    // Sized as qwen3:8b (7000 MB), pulled and warmed as "qwen3" (qwen3:latest on the server).
    expect(vast.callsTo('bundles')[0]?.body).toMatchObject({ gpu_total_ram: { gte: 7000 } });
    expect(h.ollama.state.loaded.has('qwen3:latest')).toBe(true);
    expect(job.result).toMatchObject({ model_name: 'qwen3', catalog_model: 'qwen3:8b' });
    // The name in the result is one the server answers to.
    const listed = await h.get(`/v1/llm/models?backend_url=${encodeURIComponent(h.ollama.url)}`);
    expect((listed.body.models as { name: string }[]).map((m) => m.name)).toContain('qwen3:latest');
  });

  it('Ollama still starting behind the proxy (502) when the instance reads running: waits, then succeeds', async () => {
    const h = await harness();
    const vast = mustVast(h);
    let starting = 3;
    const proxy = await startOllamaProxy(h.ollama.url, () => (starting-- > 0 ? { status: 502, body: { error: 'bad gateway' } } : null));
    closers.push(() => proxy.close());
    vast.setKnob('ollamaPort', proxy.port);
    const id = await submit(h, 'llm-instance', request());
    const { job, events } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(starting).toBeLessThan(0);
    expectInOrder(events, ['marketplace.instance.wait_running:ok', 'llmserver.ready:started', 'llmserver.ready:ok', 'llmserver.models:ok', 'llmserver.pull:ok']);
    expect(vast.callsTo('destroy')).toEqual([]);
  });

  it('Ollama never answering behind the proxy: bounded wait, then the instance is destroyed', async () => {
    const h = await harness({ extra: { workflowTuning: { waitTimeoutMs: 300, pollIntervalMs: 5, releaseRetryDelayMs: 5 } } });
    const vast = mustVast(h);
    const proxy = await startOllamaProxy(h.ollama.url, () => ({ status: 502, body: { error: 'bad gateway' } }));
    closers.push(() => proxy.close());
    vast.setKnob('ollamaPort', proxy.port);
    const id = await submit(h, 'llm-instance', request());
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(job.error).toContain('502');
    expectInOrder(events, ['llmserver.ready:started', 'llmserver.ready:error', 'marketplace.instance.destroy:ok', 'job.failed:error']);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expect(job.resources).toMatchObject({ marketplace_instance_released: true });
  });

  it('an instance that exits while starting: the job fails and the instance is destroyed', async () => {
    const h = await harness();
    const vast = mustVast(h);
    vast.setKnob('outcome', 'exited');
    const id = await submit(h, 'llm-instance', request());
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(job.error).toContain(`Instance ${FIRST_INSTANCE} will not start`);
    expect(job.error_code).toBe('instance_failed');
    expect(destroyCalls(vast, FIRST_INSTANCE).deletes).toBeGreaterThanOrEqual(1);
    expect(destroyCalls(vast, FIRST_INSTANCE).readBacksAfterDelete).toBeGreaterThanOrEqual(1);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expect(destroyEvents(events)).toEqual(['marketplace.instance.destroy:started', 'marketplace.instance.destroy:ok']);
    expectInOrder(events, ['marketplace.instance.wait_running:error', 'marketplace.instance.destroy:ok', 'job.failed:error']);
    expect(job.resources).toMatchObject({ marketplace_instance_id: FIRST_INSTANCE, marketplace_instance_released: true });
    // No Ollama call was attempted on a machine that never ran.
    expect(h.ollama.callsTo('/api/pull')).toEqual([]);
  });

  it('a pull that fails mid-stream: the job fails and the instance is destroyed', async () => {
    const h = await harness({ ollama: { models: DEFAULT_FAKE_MODELS, registry: [{ name: MODEL }], knobs: { pullMidStreamError: 'max retries exceeded: unexpected EOF' } } });
    const vast = mustVast(h);
    const id = await submit(h, 'llm-instance', request());
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(job.error).toContain('max retries exceeded');
    expectInOrder(events, ['marketplace.instance.wait_running:ok', 'llmserver.pull:started', 'llmserver.pull:error', 'marketplace.instance.destroy:started', 'marketplace.instance.destroy:ok', 'job.failed:error']);
    expect(destroyCalls(vast, FIRST_INSTANCE)).toMatchObject({ deletes: 1 });
    expect(destroyCalls(vast, FIRST_INSTANCE).readBacksAfterDelete).toBeGreaterThanOrEqual(1);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expect(job.resources).toMatchObject({ marketplace_instance_id: FIRST_INSTANCE, marketplace_instance_released: true });
  });

  it('a warm-up that 404s: the job fails and the instance is destroyed', async () => {
    const h = await harness();
    const vast = mustVast(h);
    // Ollama behind a proxy that refuses to load anything.
    const proxy = await startOllamaProxy(h.ollama.url, (req) =>
      req.url === '/api/generate' ? { status: 404, body: { error: `model '${MODEL}' not found` } } : null,
    );
    closers.push(() => proxy.close());
    vast.setKnob('ollamaPort', proxy.port);
    const id = await submit(h, 'llm-instance', request());
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(job.error).toContain('not found');
    expectInOrder(events, ['llmserver.pull:ok', 'llmserver.warmup:started', 'llmserver.warmup:error', 'marketplace.instance.destroy:ok', 'job.failed:error']);
    expect(destroyCalls(vast, FIRST_INSTANCE).deletes).toBe(1);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expect(job.resources).toMatchObject({ marketplace_instance_released: true });
  });

  it('cancel while the instance never becomes ready: the job ends cancelled and the instance is destroyed', async () => {
    const h = await harness();
    const vast = mustVast(h);
    vast.setKnob('outcome', 'never_ready');
    const id = await submit(h, 'llm-instance', request());
    await waitForEvent(h, id, (e) => line(e) === 'marketplace.instance.wait_running:info' && e.labels.actual_status === 'loading', 'the instance loading');
    const res = await h.post(`/v1/jobs/${id}/cancel`, {});
    expect(res.status).toBe(202);
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('cancelled');
    expect(job.result).toBeNull();
    expect(destroyCalls(vast, FIRST_INSTANCE).deletes).toBeGreaterThanOrEqual(1);
    expect(destroyCalls(vast, FIRST_INSTANCE).readBacksAfterDelete).toBeGreaterThanOrEqual(1);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expectInOrder(events, ['job.cancel_requested:info', 'marketplace.instance.destroy:started', 'marketplace.instance.destroy:ok', 'job.cancelled:info']);
    expect(job.resources).toMatchObject({ marketplace_instance_id: FIRST_INSTANCE, marketplace_instance_released: true });
  });

  it('cancel during the pull: the pull is aborted and the instance is destroyed', async () => {
    const h = await harness({ ollama: { models: DEFAULT_FAKE_MODELS, registry: [{ name: MODEL }], knobs: { pullLineDelayMs: 200 } } });
    const vast = mustVast(h);
    const id = await submit(h, 'llm-instance', request());
    await waitForEvent(h, id, (e) => line(e) === 'llmserver.pull:started', 'the pull to start');
    expect((await h.post(`/v1/jobs/${id}/cancel`, {})).status).toBe(202);
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('cancelled');
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expectInOrder(events, ['llmserver.pull:started', 'job.cancel_requested:info', 'marketplace.instance.destroy:ok', 'job.cancelled:info']);
    expect(h.ollama.state.installed.has(MODEL)).toBe(false);
  });
});
