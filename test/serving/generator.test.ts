import { afterEach, describe, expect, it } from 'vitest';
import type { ServingLevelSpec, SpokenBackendApi } from '../../shared';
import type { LlmBackend } from '../../src-main/llm/backend-port';
import { LlmServerClient } from '../../src-main/llm/llmserver-client';
import { OpenAiClient } from '../../src-main/llm/openai-client';
import { randomSource } from '../../src-main/serving/dataset';
import { runServingLoad, type ServingPlan } from '../../src-main/serving/generator';
import { startFakeOllama } from '../fakes/ollama';
import { startFakeOpenAi } from '../fakes/openai';
import type { FakeServingTiming } from '../fakes/serving-timing';

/**
 * The load generator (a worker thread) against the fake Ollama and the fake vLLM of known timing
 * (first token after F ms, then one every G ms): the same plan, the same assertions, both APIs.
 * Tolerances are wide on purpose (a shared CI machine); the exact error is what `npm run bench`
 * prints.
 */

const F = 60;
const G = 10;
const N = 20;
const OLLAMA_MODEL = 'llama3.1:8b';
const OPENAI_MODEL = 'Qwen/Qwen2.5-7B-Instruct';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serving(api: SpokenBackendApi, timing: FakeServingTiming, apiKey?: string): Promise<{ backend: LlmBackend; model: string; chatCalls: () => { body: unknown }[] }> {
  if (api === 'ollama') {
    const fake = await startFakeOllama({ knobs: { serving: timing } });
    closers.push(() => fake.close());
    return { backend: new LlmServerClient({ baseUrl: fake.url }), model: OLLAMA_MODEL, chatCalls: () => fake.callsTo('/api/chat') };
  }
  const fake = await startFakeOpenAi({ knobs: { serving: timing, apiKey: apiKey ?? null } });
  closers.push(() => fake.close());
  return { backend: new OpenAiClient({ baseUrl: fake.url, apiKey }), model: OPENAI_MODEL, chatCalls: () => fake.callsTo('/v1/chat/completions') };
}

const c = (concurrency: number): ServingLevelSpec => ({ kind: 'concurrency', concurrency });
const plan = (over: Partial<ServingPlan> = {}): ServingPlan => ({
  levels: [c(1), c(4)],
  requestsPerLevel: 8,
  durationS: null,
  warmupRequests: 1,
  dphTotal: null,
  slo: null,
  seed: 0,
  requestTimeoutMs: 20_000,
  levelTimeoutMs: 60_000,
  ...over,
});
const workload = (api: SpokenBackendApi, model: string, over: { outputTokens?: number; ignoreEos?: boolean } = {}) => ({
  source: randomSource({ inputTokens: 64, outputTokens: over.outputTokens ?? N, rangeRatio: 0, seed: 0 }),
  body: { api, endpoint: 'chat' as const, model, numCtx: api === 'ollama' ? 512 : null, ignoreEos: over.ignoreEos ?? true, minTokens: undefined, temperature: undefined, seed: undefined, engine: api === 'ollama' ? 'ollama' : 'vllm' },
});

const within = (value: number | null | undefined, low: number, high: number) => {
  expect(value).toBeGreaterThanOrEqual(low);
  expect(value).toBeLessThanOrEqual(high);
};

describe.each(['ollama', 'openai'] as const)('the serving load generator against a backend of known timing (%s)', (api) => {
  it('measures TTFT, TPOT, ITL p50 and output tokens/s near the known values, with output tokens from the server', async () => {
    const { backend, model, chatCalls } = await serving(api, { firstTokenMs: F, tokenIntervalMs: G });
    const records: unknown[] = [];
    const levels = await runServingLoad(backend, workload(api, model), plan(), new AbortController().signal, { onRecord: (r) => void records.push(r) });
    // Every request (warm-up included) asked for N tokens.
    const calls = chatCalls();
    expect(calls).toHaveLength(2 * (8 + 1));
    for (const call of calls) expect(call.body).toMatchObject(api === 'ollama' ? { stream: true, options: { num_predict: N, num_ctx: 512 } } : { stream: true, max_tokens: N, stream_options: { include_usage: true }, ignore_eos: true });
    for (const level of levels) {
      expect(level).toMatchObject({ requests: 8, failed: 0, first_error: null, output_tokens: 8 * N, mean_output_tokens: N, early_stop_requests: 0, warnings: [] });
      // The role-only chunk the fake vLLM sends at once is not the first token: TTFT is near F, not near 0.
      within(level.ttft_ms?.p50, F, F * 1.6 + 15);
      within(level.tpot_ms?.p50, G * 0.6, G * 1.6);
      within(level.itl_ms?.p50, G * 0.5, G * 1.6);
      expect(level.ttft_ms?.std).toBeGreaterThanOrEqual(0);
      expect(level.ttft_ms?.p95).toBeGreaterThanOrEqual(level.ttft_ms?.p50 ?? Infinity);
      // Ollama's own clock: N tokens in N × G ms; an OpenAI server has none.
      if (api === 'ollama') expect(level.server_tokens_per_s).toBeCloseTo(1000 / G, 6);
      else expect(level.server_tokens_per_s).toBeNull();
    }
    // One record per measured request, with the contract's fields.
    expect(records).toHaveLength(16);
    expect(records[0]).toMatchObject({ level: 1, output_tokens: N, itl_count: N - 1, finish_reason: 'length', error: null });
  });

  it('reports answers shorter than asked (the model stopped early) as early stops with a warning', async () => {
    const { backend, model } = await serving(api, { firstTokenMs: 5, tokenIntervalMs: 1, stopAfterTokens: 8 });
    // Without ignore_eos the fake vLLM stops early too; Ollama cannot be told not to.
    const [level] = await runServingLoad(backend, workload(api, model, { outputTokens: 32, ignoreEos: false }), plan({ levels: [c(2)], requestsPerLevel: 4, warmupRequests: 0 }), new AbortController().signal);
    expect(level).toMatchObject({ requests: 4, early_stop_requests: 4, mean_output_tokens: 8, output_tokens: 32 });
    expect(level?.warnings[0]).toMatch(/^4 of 4 requests stopped before the tokens asked \(mean 8 of 32\)/);
  });

  it('runs a request-rate level whose achieved rate is within 5% of the asked one', async () => {
    const { backend, model } = await serving(api, { firstTokenMs: 5, tokenIntervalMs: 2 });
    // 60 requests over 3 s: a late timer at either end moves the achieved rate by a fraction of a percent.
    const rate: ServingLevelSpec = { kind: 'rate', rate: 20, burstiness: 1, maxConcurrency: null };
    const [level] = await runServingLoad(backend, workload(api, model, { outputTokens: 8 }), plan({ levels: [rate], requestsPerLevel: 60, warmupRequests: 1 }), new AbortController().signal);
    expect(level).toMatchObject({ concurrency: null, request_rate: 20, requests: 60, failed: 0 });
    within(level?.achieved_request_rate, 19, 21);
  });

  it('cancel stops the worker and every request in flight at once', async () => {
    const { backend, model } = await serving(api, { firstTokenMs: 5, tokenIntervalMs: 50 });
    const ac = new AbortController();
    const run = runServingLoad(backend, workload(api, model, { outputTokens: 2000 }), plan({ levels: [c(4)], requestsPerLevel: 40, warmupRequests: 0 }), ac.signal);
    setTimeout(() => ac.abort(new Error('cancelled')), 150);
    const t0 = performance.now();
    await expect(run).rejects.toThrow('cancelled');
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});

describe('the serving load generator against an OpenAI server that wants a key', () => {
  it('fails every request with the 401 without the key, stopping the level after its first ones', async () => {
    const fake = await startFakeOpenAi({ knobs: { serving: { firstTokenMs: 1, tokenIntervalMs: 1 }, apiKey: 'sk-test-123456' } });
    closers.push(() => fake.close());
    const [level] = await runServingLoad(new OpenAiClient({ baseUrl: fake.url }), workload('openai', OPENAI_MODEL), plan({ levels: [c(2)], requestsPerLevel: 20, warmupRequests: 0, failFast: 4 }), new AbortController().signal);
    expect(level).toMatchObject({ requests: 0, first_error: 'HTTP 401: Unauthorized' });
    expect(level?.stopped).toMatch(/its first 4 requests all failed \(the first: HTTP 401: Unauthorized\)/);
    expect(fake.callsTo('/v1/chat/completions').length).toBeLessThanOrEqual(6);
  });
});
