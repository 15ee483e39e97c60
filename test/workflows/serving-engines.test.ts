import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServingRequestRecordSchema, type JobRecord, type ServingBenchmarkResult } from '../../shared';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai';
import { line, startHarness, submit, waitForEnd, type Harness } from './harness';

/**
 * The same serving job against the fake Ollama and the fake vLLM (design §13b), end to end through
 * the HTTP API: the API detected, the metrics, the network RTT and the manifest in the result, the
 * early-stop warning, the refusal of a prompt too long before any request, the 401 without a key,
 * a request-rate level, and the per-request records as JSONL and CSV.
 */

const TIMING = { firstTokenMs: 30, tokenIntervalMs: 3 };
const OPENAI_MODEL = 'Qwen/Qwen2.5-7B-Instruct';
const KEY = 'sk-serving-test-4242';

let h: Harness;
let vllm: FakeOpenAi;
beforeAll(async () => {
  [h, vllm] = await Promise.all([
    startHarness({ ollama: { knobs: { serving: TIMING } } }),
    startFakeOpenAi({ models: [{ id: OPENAI_MODEL, max_model_len: 2048 }], knobs: { serving: TIMING } }),
  ]);
}, 30_000);
afterAll(async () => {
  await Promise.all([h?.close(), vllm?.close()]);
});

function servingResult(job: JobRecord): ServingBenchmarkResult {
  if (job.kind !== 'serving-benchmark' || !job.result) throw new Error(`expected a serving-benchmark result, got ${job.kind} ${job.status}: ${job.error ?? ''}`);
  return job.result;
}

const engines = () =>
  [
    { api: 'ollama', body: { backend_url: h.ollama.url, model: 'llama3.1:8b' }, stop: (n: number | undefined) => h.ollama.setKnobs({ serving: { ...TIMING, ...(n ? { stopAfterTokens: n } : {}) } }) },
    { api: 'openai', body: { backend_url: vllm.url, model: OPENAI_MODEL }, stop: (n: number | undefined) => vllm.setKnobs({ serving: { ...TIMING, ...(n ? { stopAfterTokens: n } : {}) } }) },
  ] as const;

describe.each([0, 1])('the same serving job on both engines (%#: 0 = Ollama, 1 = vLLM)', (which) => {
  const engine = () => engines()[which] ?? engines()[0];

  it('detects the API, measures every level, and carries the network RTT and the manifest', async () => {
    const { api, body } = engine();
    const id = await submit(h, 'serving-benchmark', { ...body, concurrency: [1, 4], requests_per_level: 8, prompt_tokens: 64, output_tokens: 16, warmup_requests: 1, slo: { ttft_ms: 5000 } });
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = servingResult(job);
    expect(result).toMatchObject({ backend_api: api, requests_per_level: 8, warnings: [] });
    expect(result.network_rtt_ms).toBeGreaterThan(0);
    for (const level of result.levels) {
      expect(level).toMatchObject({ requests: 8, failed: 0, output_tokens: 8 * 16, mean_output_tokens: 16, early_stop_requests: 0, slo_attainment: 1, warnings: [] });
      expect(level.ttft_ms?.p50).toBeGreaterThanOrEqual(TIMING.firstTokenMs);
      expect(level.ttft_ms?.std).not.toBeNull();
      expect(level.goodput_rps).toBe(level.request_throughput);
    }
    expect(result.best.by_slo).not.toBeNull();
    expect(result.manifest).toMatchObject({ backend_api: api, model: body.model, machine: null, suite_id: null, request: { model: body.model } });
    expect(result.manifest?.backend_version).toBe(api === 'ollama' ? '0.15.2' : '0.11.0');
    if (api === 'ollama') expect(result.manifest?.num_ctx).toBeGreaterThanOrEqual(256);
    expect(events.map(line)).toEqual(expect.arrayContaining(['llmserver.detect:ok', 'serving.context_check:ok', 'serving.network_rtt:ok', 'serving.network:info']));
    // The per-request records: one per measured request, in both formats.
    const jsonl = await h.get(`/v1/jobs/${id}/requests`);
    expect(jsonl.status).toBe(200);
    expect(String(jsonl.headers['content-type'])).toMatch(/application\/x-ndjson/);
    const rows = String(jsonl.body.raw).trim().split('\n').map((l) => ServingRequestRecordSchema.parse(JSON.parse(l)));
    expect(rows).toHaveLength(16);
    expect(rows.filter((r) => r.level === 2)).toHaveLength(8);
    expect(rows.every((r) => r.output_tokens === 16 && r.error === null && r.itl_count === 15)).toBe(true);
    const csv = await h.get(`/v1/jobs/${id}/requests?format=csv`);
    expect(String(csv.headers['content-type'])).toMatch(/text\/csv/);
    const csvLines = String(csv.body.raw).trim().split('\n');
    expect(csvLines[0]).toBe('level,started_at_ms,ttft_ms,e2e_ms,output_tokens,itl_count,finish_reason,error');
    expect(csvLines).toHaveLength(17);
  }, 40_000);

  it('reports a model that stops early: early_stop_requests, the mean, and a warning the front ends show', async () => {
    const { body, stop } = engine();
    stop(6);
    try {
      // ignore_eos false: the fake vLLM then stops early too.
      const id = await submit(h, 'serving-benchmark', { ...body, concurrency: [2], requests_per_level: 4, output_tokens: 24, warmup_requests: 0, ignore_eos: false });
      const { job, events } = await waitForEnd(h, id, 30_000);
      const [level] = servingResult(job).levels;
      expect(level).toMatchObject({ early_stop_requests: 4, mean_output_tokens: 6 });
      expect(level?.warnings[0]).toMatch(/4 of 4 requests stopped before the tokens asked \(mean 6 of 24\)/);
      expect(events.find((e) => line(e) === 'serving.level:ok')?.labels.warnings).toMatch(/stopped before the tokens asked/);
    } finally {
      stop(undefined);
    }
  }, 40_000);

  it('refuses a prompt the model cannot hold before anything is loaded or requested, naming the numbers', async () => {
    const { body } = engine();
    const before = vllm.callsTo('/v1/chat/completions').length + h.ollama.callsTo('/api/chat').length;
    // llama3.1:8b holds 131,072 tokens; ask it for num_ctx 4096 with prompts of 8,000. The fake vLLM holds 2,048.
    const id = await submit(h, 'serving-benchmark', { ...body, concurrency: [1], requests_per_level: 2, prompt_tokens: 8000, output_tokens: 16, warmup_requests: 1, ...(which === 0 ? { num_ctx: 4096 } : {}) });
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job).toMatchObject({ status: 'failed', error_code: 'prompt_too_long' });
    expect(job.error).toMatch(which === 0 ? /about 8000 tokens.*num_ctx is 4096/ : /holds at most 2048 \(the server's max_model_len/);
    expect(vllm.callsTo('/v1/chat/completions').length + h.ollama.callsTo('/api/chat').length).toBe(before);
    // Refused in the provision phase: the warm-up never loaded the model.
    expect(events.map(line)).toEqual(expect.arrayContaining(['serving.context_check:ok', 'phase.provision:error']));
    expect(events.map(line)).not.toContain('llmserver.warmup:started');
  }, 30_000);

  // The 5% figure is the generator test's and the bench's; here, through the whole server on a shared machine, the rate is checked loosely.
  it('runs a request-rate level, its achieved rate near the asked one', async () => {
    const { body } = engine();
    const id = await submit(h, 'serving-benchmark', { ...body, request_rate: [25], requests_per_level: 25, prompt_tokens: 32, output_tokens: 4, warmup_requests: 0 });
    const { job } = await waitForEnd(h, id, 30_000);
    const [level] = servingResult(job).levels;
    expect(level).toMatchObject({ concurrency: null, request_rate: 25, requests: 25 });
    expect(level?.achieved_request_rate).toBeGreaterThan(25 * 0.8);
    expect(level?.achieved_request_rate).toBeLessThan(25 * 1.2);
  }, 30_000);
});

describe('an OpenAI-compatible server started with --api-key', () => {
  it('answers the job without the key with a clear 401 failure, and measures with it; the key never reaches the record', async () => {
    vllm.setKnobs({ apiKey: KEY });
    try {
      const id = await submit(h, 'serving-benchmark', { backend_url: vllm.url, backend_api: 'openai', model: OPENAI_MODEL, concurrency: [1], requests_per_level: 2, output_tokens: 4 });
      const { job } = await waitForEnd(h, id, 30_000);
      expect(job.status).toBe('failed');
      expect(job.error).toMatch(/HTTP 401 Unauthorized\): it wants an API key; set backend_api_key/);

      const ok = await submit(h, 'serving-benchmark', { backend_url: vllm.url, backend_api: 'openai', backend_api_key: KEY, model: OPENAI_MODEL, concurrency: [1], requests_per_level: 2, output_tokens: 4, warmup_requests: 0 });
      const done = await waitForEnd(h, ok, 30_000);
      expect(done.job.status, done.job.error ?? '').toBe('succeeded');
      expect(done.job.request.backend_api_key).toBe('[redacted]');
      expect(JSON.stringify(done.job)).not.toContain(KEY);
      expect(JSON.stringify(done.events)).not.toContain(KEY);
      expect(vllm.callsTo('/v1/chat/completions').at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
    } finally {
      vllm.setKnobs({ apiKey: null });
    }
  }, 40_000);

  it('GET /v1/llm/models takes the key in X-Backend-Api-Key (never the query) and says which API answered', async () => {
    vllm.setKnobs({ apiKey: KEY });
    try {
      const url = `/v1/llm/models?backend_url=${encodeURIComponent(vllm.url)}`;
      const refused = await h.get(url);
      expect(refused.status).toBe(502);
      expect(JSON.stringify(refused.body)).toMatch(/wants an API key/);
      const res = await h.bd.app.inject({ method: 'GET', url, headers: { 'x-backend-api-key': KEY } });
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ backend_api: 'openai', models: [{ name: OPENAI_MODEL, context_length: 2048 }] });
    } finally {
      vllm.setKnobs({ apiKey: null });
    }
  });

  it('GET /v1/jobs/{id}/requests: 404 for a job of another kind and for an unknown one', async () => {
    const id = await submit(h, 'llm-instance', { backend_url: vllm.url });
    await waitForEnd(h, id);
    expect((await h.get(`/v1/jobs/${id}/requests`)).status).toBe(404);
    expect((await h.get('/v1/jobs/nope/requests')).status).toBe(404);
    expect((await h.get(`/v1/jobs/${id}/requests?format=xml`)).status).toBe(422);
  });
});
