import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JobRecordSchema, type JobRecord, type ServingBenchmarkResult } from '../../shared';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai';
import { VLLM_TEMPLATE_HASH, defaultTemplates, type FakeVast } from '../fakes/vast';
import { pollSweep } from '../sweeps/helpers';
import { destroyCalls, expectInOrder, line, mustVast, startHarness, submit, waitForEnd, type Harness } from './harness';

/**
 * A rented OpenAI-compatible server (design §13b, reference §F.4): `backend_api: "openai"` on the
 * marketplace rents Vast's vLLM template, found by its name, with the model as MODEL_NAME and
 * port 8000 published; the machine is ready once `GET /v1/models` lists the model (vLLM loads it
 * at start: nothing is pulled), the load runs through the OpenAI endpoints, and the machine is
 * released with its cost (the model's download at the catalog's size) in the ledger. The fake
 * Vast maps the instance's 8000/tcp to a fake vLLM (test/fakes/openai.ts).
 */

const MODEL = 'Qwen/Qwen2.5-0.5B-Instruct';
/** The catalog's download of MODEL (GB): what vLLM fetched at start, billed at the host's $/GB. */
const MODEL_DOWNLOAD_GB = 0.99;
const FIRST_INSTANCE = 30000001;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** The product against the fake Vast, its instances' port 8000 pointing at a fake vLLM that is still loading for its first requests. */
async function rig(vast: { templates?: ReturnType<typeof defaultTemplates> } = {}): Promise<{ h: Harness; vast: FakeVast; vllm: FakeOpenAi }> {
  const vllm = await startFakeOpenAi({ models: [{ id: MODEL, max_model_len: 4096 }], knobs: { serving: { firstTokenMs: 5, tokenIntervalMs: 2 }, startingRequests: 2 } });
  cleanups.push(() => vllm.close());
  const h = await startHarness({ vast });
  cleanups.push(() => h.close());
  const fake = mustVast(h);
  fake.setKnob('openaiPort', Number(new URL(vllm.url).port));
  return { h, vast: fake, vllm };
}

/** The create's env as the product sent it (the dict form, reference §A.3). */
function createEnv(vast: FakeVast): Record<string, string> {
  const body = vast.callsTo('asks')[0]?.body as { env?: Record<string, string>; template_hash_id?: string } | undefined;
  return body?.env ?? {};
}

/** The ledger's record of the lease that held this instance (`<dataDir>/leases/*.json`). */
async function leaseOf(dir: string, instanceId: number): Promise<Record<string, unknown>> {
  const folder = path.join(dir, 'leases');
  for (const file of await readdir(folder)) {
    if (!file.endsWith('.json')) continue;
    const record = JSON.parse(await readFile(path.join(folder, file), 'utf8')) as Record<string, unknown>;
    if (record.instance_id === instanceId) return record;
  }
  throw new Error(`no lease of instance ${instanceId} in ${folder}`);
}

function servingResult(job: JobRecord): ServingBenchmarkResult {
  if (job.kind !== 'serving-benchmark' || !job.result) throw new Error(`expected a serving-benchmark result, got ${job.kind} ${job.status}: ${job.error ?? ''}`);
  return job.result;
}

const templateSearches = (vast: FakeVast) => vast.callsTo('template').map((c) => JSON.parse(c.query.select_filters ?? '{}') as Record<string, unknown>);

describe('a serving benchmark on a rented vLLM machine', () => {
  it('rents the vLLM template found by name with MODEL_NAME, waits for /v1/models, measures through the OpenAI API, and releases the machine with its cost in the ledger', async () => {
    const { h, vast, vllm } = await rig();
    const id = await submit(h, 'serving-benchmark', {
      marketplace: true,
      backend_api: 'openai',
      max_dph: 0.5,
      model: MODEL,
      concurrency: [1, 2],
      requests_per_level: 4,
      prompt_tokens: 32,
      output_tokens: 8,
      warmup_requests: 1,
      backend_warmup_timeout: 30,
    });
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');

    // The template: searched by its name (no hash was given), and the create made from it.
    expect(templateSearches(vast)).toContainEqual({ name: { eq: 'vLLM' } });
    expect(vast.callsTo('asks')).toHaveLength(1);
    expect((vast.callsTo('asks')[0]?.body as { template_hash_id?: string }).template_hash_id).toBe(VLLM_TEMPLATE_HASH);
    const env = createEnv(vast);
    expect(env.MODEL_NAME).toBe(MODEL);
    expect(env).not.toHaveProperty('OLLAMA_MODEL');
    // The instance publishes vLLM's port (the template's -p 8000:8000 merged in) and was reached on it.
    expect(vast.state.instances.get(FIRST_INSTANCE)?.env).toContainEqual(['-p 8000:8000', '1']);

    // Ready = /v1/models lists the model: the two 502s of a vLLM still loading were waited out.
    const ready = events.find((e) => line(e) === 'llmserver.ready:ok');
    expect(ready?.labels).toMatchObject({ backend_api: 'openai', model: MODEL });
    expect(vllm.callsTo('/v1/models').length).toBeGreaterThanOrEqual(1);
    expect(vllm.state.knobs.startingRequests).toBe(0);
    // Measured through the OpenAI endpoints; Ollama was never asked to pull or chat.
    expect(vllm.callsTo('/v1/chat/completions').length).toBeGreaterThanOrEqual(8);
    expect(h.ollama.callsTo('/api/pull')).toHaveLength(0);
    expect(h.ollama.callsTo('/api/chat')).toHaveLength(0);
    const result = servingResult(job);
    expect(result.backend_api).toBe('openai');
    expect(result.levels.map((l) => [l.concurrency, l.requests, l.failed])).toEqual([
      [1, 4, 0],
      [2, 4, 0],
    ]);
    expect(result.manifest).toMatchObject({ backend_api: 'openai', template: { hash: VLLM_TEMPLATE_HASH, name: 'vLLM' } });

    // Released, confirmed, and its cost in the ledger: machine time plus the model's download.
    expect(result.teardown).toMatchObject({ released: true, verified: true });
    expect(destroyCalls(vast, FIRST_INSTANCE).deletes).toBe(1);
    expect(vast.state.instances.get(FIRST_INSTANCE)?.destroyed).toBe(true);
    const inetDownCost = Number(vast.state.instances.get(FIRST_INSTANCE)?.offer.inet_down_cost);
    const lease = await leaseOf(h.dir, FIRST_INSTANCE);
    expect(lease).toMatchObject({ state: 'released', downloads: [{ model: MODEL, gb: MODEL_DOWNLOAD_GB, source: 'catalog' }] });
    expect(result.cost.download_usd).toBeCloseTo(MODEL_DOWNLOAD_GB * inetDownCost, 6);
    expect(result.cost.cost_usd).toBeGreaterThan(result.cost.download_usd ?? 0);
    expect(job.resources).toMatchObject({ marketplace_instance_id: FIRST_INSTANCE, marketplace_instance_released: true, cost_usd: result.cost.cost_usd });
    expectInOrder(events, ['marketplace.template_lookup:ok', 'marketplace.instance.create:ok', 'llmserver.ready:ok', 'cost.download:info', 'phase.load:ok', 'marketplace.instance.destroy:ok', 'job.succeeded:ok']);
  }, 40_000);

  it('without a vLLM template on the marketplace the job is a 422 naming the template search; nothing is rented', async () => {
    const { h, vast } = await rig({ templates: defaultTemplates().filter((t) => t.hash_id !== VLLM_TEMPLATE_HASH) });
    const res = await h.post('/v1/jobs/serving-benchmark', { marketplace: true, backend_api: 'openai', max_dph: 0.5, model: MODEL });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(JSON.stringify(res.body)).toMatch(/No template named \\"vLLM\\" was found on Vast.ai \(the template search for name = \\"vLLM\\"/);
    expect(vast.callsTo('asks')).toHaveLength(0);
  });
});

describe('a sweep with backend_api openai', () => {
  it('rents a vLLM machine for its model, runs the serving job through the OpenAI API, and releases it with the download in its cost', async () => {
    const { h, vast, vllm } = await rig();
    const res = await h.post('/v1/sweeps', {
      name: 'vllm on a 4090',
      models: [MODEL],
      gpus: ['RTX 4090'],
      serving: { concurrency: [1, 2], requests_per_level: 4, prompt_tokens: 32, output_tokens: 8 },
      backend_api: 'openai',
      max_dph: 1,
      max_total_cost_usd: 5,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const sweep = await pollSweep(h, String(res.body.sweep_id), undefined, 60_000);
    expect(sweep.status, JSON.stringify(sweep.cells)).toBe('succeeded');
    expect(templateSearches(vast)).toContainEqual({ name: { eq: 'vLLM' } });
    expect(vast.callsTo('asks')).toHaveLength(1);
    expect(createEnv(vast).MODEL_NAME).toBe(MODEL);
    const [cell] = sweep.cells;
    expect(cell).toMatchObject({ status: 'succeeded', model: MODEL, gpu: 'RTX 4090' });
    expect(cell?.usd_per_million_output_tokens).toBeGreaterThan(0);
    const job = JobRecordSchema.parse((await h.get(`/v1/jobs/${cell?.job_ids[0] ?? ''}`)).body);
    expect(job).toMatchObject({ kind: 'serving-benchmark', status: 'succeeded', request: { marketplace: false, backend_api: 'openai', model: MODEL } });
    expect(vllm.callsTo('/v1/chat/completions').length).toBeGreaterThanOrEqual(8);
    expect(h.ollama.callsTo('/api/pull')).toHaveLength(0);
    // Released, and the machine's cost (the sweep's spend) includes vLLM's download of the model.
    expect(vast.liveInstances()).toHaveLength(0);
    expect(sweep.machines[0]).toMatchObject({ status: 'released', released: true });
    const lease = await leaseOf(h.dir, sweep.machines[0]?.instance_id ?? -1);
    expect(lease).toMatchObject({ state: 'released', downloads: [{ model: MODEL, gb: MODEL_DOWNLOAD_GB, source: 'catalog' }] });
    expect(sweep.spend_usd).toBeGreaterThan(0);
    expect(sweep.spend_usd).toBe(sweep.machines[0]?.cost_usd);
  }, 60_000);
});
