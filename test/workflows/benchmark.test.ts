import { afterEach, describe, expect, it } from 'vitest';
import type { PhaseRecord } from '../../shared';
import { SCENARIO } from '../fakes/kubernetes';
import { DEFAULT_FAKE_MODELS, type ChatTurn } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH } from '../fakes/vast';
import {
  benchmarkResult,
  destroyCalls,
  expectInOrder,
  expectKeyOnlyInHeader,
  line,
  mustK8s,
  mustVast,
  pollJob,
  startHarness,
  startVastCaddy,
  submit,
  waitForEnd,
  waitForEvent,
  waitUntil,
  type Harness,
  type HarnessOptions,
} from './harness';

/**
 * benchmark (design §4): provision → warmup → analysis → teardown, on an existing llmserver and on
 * a rented machine; teardown on success, failure and cancel; a teardown failure is reported
 * without hiding the answer.
 */

const CRASH = SCENARIO.crashLoopPod;
const ANSWER = `${CRASH.namespace}/${CRASH.name} is in CrashLoopBackOff: it cannot connect to postgres.shop.svc:5432.`;
const SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: { namespace: CRASH.namespace } }] },
  { tool_calls: [{ name: 'get_pod_logs', arguments: { namespace: CRASH.namespace, pod: CRASH.name, previous: true } }] },
  { content: ANSWER },
];
/** 23.5 GB of VRAM: the 12 GB RTX 3060 no longer fits, the cheapest fit is the 24 GB RTX 3090. */
const BIG_MODEL = 'qwen2.5:32b';
const BIG_OFFER = { id: 20000002, gpu_name: 'RTX 3090', num_gpus: 1 } as const;
const FIRST_INSTANCE = 30000001;

const harnesses: Harness[] = [];
const closers: (() => Promise<void>)[] = [];
async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const h = await startHarness({
    vast: true,
    k8s: true,
    ollama: {
      models: DEFAULT_FAKE_MODELS,
      registry: [{ name: BIG_MODEL, size: 19_851_336_256, family: 'qwen2', parameter_size: '32.8B' }],
      scripts: { 'llama3.1:8b': SCRIPT, [BIG_MODEL]: SCRIPT },
    },
    ...options,
  });
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    if (h.vast && h.vast.calls.length > 0) expectKeyOnlyInHeader(h.vast);
    await h.close();
  }
  for (const c of closers.splice(0)) await c();
});

const marketplaceBody = (h: Harness, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  marketplace: true,
  template_hash: OLLAMA_TEMPLATE_HASH,
  max_dph: 0.5,
  reliability: 0.99,
  model: BIG_MODEL,
  question: 'Why is the shop down?',
  kubeconfig: mustK8s(h).kubeconfigPath,
  backend_warmup_timeout: 30,
  ...over,
});

function expectPhaseShapes(phases: PhaseRecord[]): void {
  for (const p of phases) {
    expect(Number.isNaN(Date.parse(p.started_at)), p.name).toBe(false);
    expect(p.duration_ms, p.name).toBeGreaterThanOrEqual(0);
  }
  for (let i = 1; i < phases.length; i++) {
    expect(Date.parse(phases[i]?.started_at ?? '')).toBeGreaterThanOrEqual(Date.parse(phases[i - 1]?.started_at ?? ''));
  }
}

describe('benchmark on an existing llmserver', () => {
  it('runs the phases, skips teardown, costs nothing, and returns the agent answer', async () => {
    const h = await harness({ vast: false });
    const id = await submit(h, 'benchmark', { backend_url: h.ollama.url, model: 'llama3.1:8b', question: 'Why is the shop down?', kubeconfig: mustK8s(h).kubeconfigPath });
    const { job, events } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = benchmarkResult(job);
    expect(result).toMatchObject({
      answer: ANSWER,
      result_type: 'text',
      model_name: 'llama3.1:8b',
      backend_url: h.ollama.url,
      contract_id: null,
      cost: { dph_total: 0, rented_seconds: 0, cost_usd: 0 },
      instance: null,
      teardown: null,
    });
    expect(result.metadata).toMatchObject({ agent: 'builtin', model: 'llama3.1:8b', steps: 3, tool_calls: 2 });
    const phases = result.phases;
    expect(phases.map((p) => `${p.name}:${p.status}`)).toEqual(['provision:ok', 'warmup:ok', 'analysis:ok', 'teardown:skipped']);
    expectPhaseShapes(phases);
    expect(phases[3]?.duration_ms).toBe(0);
    expectInOrder(events, [
      'phase.provision:started',
      'phase.provision:ok',
      'phase.warmup:started',
      'llmserver.warmup:ok',
      'phase.warmup:ok',
      'phase.analysis:started',
      'agent.ask:started',
      'agent.tool_call:ok',
      'agent.ask:ok',
      'phase.analysis:ok',
      'job.succeeded:ok',
    ]);
    expect(events.map(line)).not.toContain('phase.teardown:started');
    expect(events.filter((e) => e.event.startsWith('marketplace.'))).toEqual([]);
  });

  it('backend_warmup false skips the warmup phase', async () => {
    const h = await harness({ vast: false });
    const id = await submit(h, 'benchmark', { backend_url: h.ollama.url, model: 'llama3.1:8b', question: 'q', kubeconfig: mustK8s(h).kubeconfigPath, backend_warmup: false });
    const { job } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(benchmarkResult(job).phases.map((p) => `${p.name}:${p.status}`)).toEqual(['provision:ok', 'warmup:skipped', 'analysis:ok', 'teardown:skipped']);
  });
});

describe('benchmark on an existing llmserver behind auth', () => {
  it('uses the credentials of backend_url for warm-up and the agent, and reports the URL without them', async () => {
    const h = await harness({ vast: false, ollama: { scripts: { 'llama3.1:8b': SCRIPT }, knobs: { proxyToken: 'bench-secret-7' } } });
    const port = new URL(h.ollama.url).port;
    const id = await submit(h, 'benchmark', {
      backend_url: `http://vastai:bench-secret-7@127.0.0.1:${port}/`,
      model: 'llama3.1:8b',
      question: 'Why is the shop down?',
      kubeconfig: mustK8s(h).kubeconfigPath,
    });
    const { job } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(job.result).toMatchObject({ answer: ANSWER, backend_url: `http://127.0.0.1:${port}` });
    expect(JSON.stringify(job.result)).not.toContain('bench-secret-7');
    expect(h.ollama.calls.every((c) => c.status !== 401)).toBe(true);
  });
});

describe('benchmark on the marketplace', () => {
  it('rents a machine that fits the model, pulls, warms, asks through its proxy, and destroys it', async () => {
    const h = await harness();
    const vast = mustVast(h);
    // Every Ollama call (ours and the agent's) must carry the instance's proxy token.
    const caddy = await startVastCaddy(h);
    closers.push(() => caddy.close());
    const id = await submit(h, 'benchmark', marketplaceBody(h));
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = benchmarkResult(job);
    expect(result).toMatchObject({
      answer: ANSWER,
      model_name: BIG_MODEL,
      backend_url: `http://127.0.0.1:${vast.knobs.ollamaPort}`,
      contract_id: FIRST_INSTANCE,
      instance: { id: FIRST_INSTANCE, gpu_name: BIG_OFFER.gpu_name, num_gpus: 1, released: true },
      teardown: { released: true, verified: true },
    });
    // The model's VRAM need filtered the offers.
    expect(vast.callsTo('bundles')[0]?.body).toMatchObject({ gpu_total_ram: { gte: 23500 }, dph_total: { lte: 0.5 } });
    expect(vast.callsTo('asks').map((c) => c.path)).toEqual([`/api/v0/asks/${BIG_OFFER.id}/`]);
    // The label names this data dir's install and the job.
    expect(vast.callsTo('asks')[0]?.body).toMatchObject({ label: `benchdesk:${h.bd.installId}:${id}`, env: { OLLAMA_MODEL: BIG_MODEL } });

    const cost = result.cost;
    expect(cost.dph_total).toBeGreaterThan(0.16);
    expect(cost.dph_total).toBeLessThan(0.2);
    expect(cost.rented_seconds).toBeGreaterThanOrEqual(0);
    // The download from the pull stream's totals (the model's layers: 19,851,336,256 + 487 bytes) at the host's $0.00123/GB.
    // One rounding of dollars everywhere: 1/1,000,000 $.
    expect(cost).toMatchObject({ download_gb: 19.851, download_usd: 0.024417 });
    const machine = (seconds: number) => cost.dph_total * (seconds / 3600);
    expect(cost.cost_usd).toBeGreaterThanOrEqual(Math.round((machine(Math.max(0, cost.rented_seconds - 1)) + 0.024417) * 1e6) / 1e6);
    expect(cost.cost_usd).toBeLessThanOrEqual(Math.round((machine(cost.rented_seconds + 1) + 0.024417) * 1e6) / 1e6);
    const download = events.find((e) => e.event === 'cost.download');
    expect(download?.labels).toMatchObject({ model: BIG_MODEL, download_gb: 19.851, download_usd: 0.024417, inet_down_cost: 0.00123, source: 'pull' });
    const phases = result.phases;
    expect(phases.map((p) => `${p.name}:${p.status}`)).toEqual(['provision:ok', 'warmup:ok', 'analysis:ok', 'teardown:ok']);
    expectPhaseShapes(phases);
    expect(phases[0]?.duration_ms).toBeGreaterThan(0);

    expectInOrder(events, [
      'phase.provision:started',
      'marketplace.offer_search:ok',
      'marketplace.instance.create:ok',
      'marketplace.instance.wait_running:ok',
      'llmserver.pull:ok',
      'phase.provision:ok',
      'phase.warmup:started',
      'llmserver.warmup:ok',
      'phase.warmup:ok',
      'phase.analysis:started',
      'agent.ask:ok',
      'phase.analysis:ok',
      'phase.teardown:started',
      'marketplace.instance.destroy:started',
      'marketplace.instance.destroy:ok',
      'phase.teardown:ok',
      'job.succeeded:ok',
    ]);
    // Destroyed and read back; the agent's chat went to the rented machine with the proxy token.
    expect(destroyCalls(vast, FIRST_INSTANCE).deletes).toBe(1);
    expect(destroyCalls(vast, FIRST_INSTANCE).readBacksAfterDelete).toBeGreaterThanOrEqual(1);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expect(job.resources).toMatchObject({ marketplace_instance_id: FIRST_INSTANCE, marketplace_instance_released: true });
    expect(caddy.rejected()).toBe(0);
    expect(h.ollama.callsTo('/api/chat')).toHaveLength(3);
    // The token is a secret: not in the job, its events or the answer.
    const token = String((vast.callsTo('asks')[0]?.body as { env: Record<string, string> }).env.OPEN_BUTTON_TOKEN);
    expect(JSON.stringify(job)).not.toContain(token);
    expect(JSON.stringify(events)).not.toContain(token);
  });

  it('a failing analysis still tears the instance down, and the job fails with the agent error', async () => {
    const h = await harness({ ollama: { models: DEFAULT_FAKE_MODELS, registry: [{ name: BIG_MODEL }], knobs: { chatFailure: 'queue_full' } } });
    const vast = mustVast(h);
    const id = await submit(h, 'benchmark', marketplaceBody(h));
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('agent_failed');
    expect(job.error).toMatch(/busy|maximum pending requests/);
    expectInOrder(events, ['phase.analysis:started', 'agent.ask:error', 'phase.analysis:error', 'phase.teardown:started', 'marketplace.instance.destroy:ok', 'phase.teardown:ok', 'job.failed:error']);
    expect(destroyCalls(vast, FIRST_INSTANCE).deletes).toBe(1);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expect(job.resources).toMatchObject({ marketplace_instance_released: true });
  });

  it('a failing provision (no offer fits) fails without renting anything', async () => {
    const h = await harness();
    const vast = mustVast(h);
    const id = await submit(h, 'benchmark', marketplaceBody(h, { max_dph: 0.1 }));
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/No offer fits/);
    expect(job.error_code).toBe('no_offers');
    expect(vast.callsTo('asks')).toEqual([]);
    expect(events.map(line)).toContain('phase.provision:error');
    expect(events.map(line)).not.toContain('phase.teardown:started');
  });

  it('cancel during the analysis: the agent is aborted, the instance destroyed, the job cancelled', async () => {
    const h = await harness({ ollama: { models: DEFAULT_FAKE_MODELS, registry: [{ name: BIG_MODEL }], scripts: { [BIG_MODEL]: SCRIPT }, knobs: { firstByteDelayMs: 60_000 } } });
    const vast = mustVast(h);
    const id = await submit(h, 'benchmark', marketplaceBody(h));
    await waitForEvent(h, id, (e) => line(e) === 'agent.ask:started', 'the analysis to start', 30_000);
    expect((await h.post(`/v1/jobs/${id}/cancel`, {})).status).toBe(202);
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('cancelled');
    expectInOrder(events, ['job.cancel_requested:info', 'agent.ask:error', 'phase.teardown:started', 'marketplace.instance.destroy:ok', 'job.cancelled:info']);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    expect(job.resources).toMatchObject({ marketplace_instance_released: true });
  });

  it('marketplace_stop_instance false keeps the instance and says so', async () => {
    const h = await harness();
    const vast = mustVast(h);
    const id = await submit(h, 'benchmark', marketplaceBody(h, { marketplace_stop_instance: false }));
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(vast.callsTo('destroy')).toEqual([]);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(false);
    expect(job.result).toMatchObject({ instance: { id: FIRST_INSTANCE, released: false }, teardown: null });
    expect(benchmarkResult(job).phases.at(-1)).toMatchObject({ name: 'teardown', status: 'skipped' });
    expect(events.find((e) => line(e) === 'marketplace.instance.kept:info')?.message).toContain(String(FIRST_INSTANCE));
  });

  for (const failure of ['500', '429'] as const) {
    it(`a teardown failure (destroy answers ${failure} every time) is recorded and does not hide the answer`, async () => {
      // For 429 the client's own retries would take seconds of backoff: the product's client with faster retries.
      const fast = failure === '429';
      const h = await harness(fast ? { extra: { marketplaceClient: { timeoutMs: 5_000, retry: { maxAttempts: 3, initialDelayMs: 2, maxDelayMs: 5, jitter: 0 } } } } : {});
      const vast = mustVast(h);
      if (failure === '500') vast.setKnob('failNext', { count: 1_000, status: 500, endpoints: ['destroy'] });
      else vast.setKnob('rateLimit', { count: 1_000, variant: 'cycle', endpoints: ['destroy'] });
      const id = await submit(h, 'benchmark', marketplaceBody(h));
      const { job, events } = await waitForEnd(h, id, 60_000);
      expect(job.status, job.error ?? '').toBe('succeeded');
      const result = benchmarkResult(job);
      expect(result.answer).toBe(ANSWER);
      expect(result.instance).toMatchObject({ id: FIRST_INSTANCE, released: false });
      const teardown = result.teardown;
      expect(teardown).toMatchObject({ released: false, verified: false });
      expect(teardown?.message).toContain(String(FIRST_INSTANCE));
      expect(teardown?.message).toMatch(/Vast\.ai console/);
      expect(result.phases.at(-1)).toMatchObject({ name: 'teardown', status: 'error' });
      expectInOrder(events, ['phase.analysis:ok', 'phase.teardown:started', 'marketplace.instance.destroy:error', 'phase.teardown:error', 'job.succeeded:ok']);
      expect(events.find((e) => line(e) === 'phase.teardown:error')?.message).toMatch(/keeps trying to release it, and it counts in the spend until it is gone/);
      expect(job.resources).toMatchObject({ marketplace_instance_released: false });
      // The lease keeps trying after the job ended (each round on the job's event log), and the machine keeps counting.
      const costBefore = (await h.get(`/v1/marketplace/instances`)).body as { instances: { instance_id: number; cost_usd_so_far: number | null; release_error?: string | null }[] };
      expect(costBefore.instances.find((i) => i.instance_id === FIRST_INSTANCE)?.release_error).toBeTruthy();
      const rounds = vast.callsTo('destroy').length;
      await waitUntil(() => vast.callsTo('destroy').length > rounds, 'a later release round');
      // Once the marketplace takes it, the release is confirmed and the job's record follows, with the final cost.
      if (failure === '500') vast.setKnob('failNext', null);
      else vast.setKnob('rateLimit', null);
      await waitUntil(() => vast.state.instances.get(FIRST_INSTANCE)?.destroyed, 'the retried release to go through');
      const settled = await pollJob(h, id, (j) => j.resources?.marketplace_instance_released === true, 15_000, 'the release recorded on the job');
      expect(settled.resources).toMatchObject({ marketplace_release_error: null });
      expect(settled.resources?.cost_usd).toBeGreaterThanOrEqual(result.cost.cost_usd);
    });
  }
});
