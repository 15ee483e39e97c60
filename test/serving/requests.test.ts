import { describe, expect, it } from 'vitest';
import { BenchmarkRequestSchema, ServingBenchmarkRequestSchema, SweepRequestSchema, defaultRequestsForLevel, servingLevels, zodIssuesToValidation } from '../../shared';

/** The request rules of design §13b, as every front end gets them from shared/. */

const issues = (schema: { safeParse: (v: unknown) => { success: boolean; error?: { issues: unknown[] } } }, body: unknown) => {
  const r = schema.safeParse(body);
  return r.success ? [] : zodIssuesToValidation((r.error?.issues ?? []) as never).map((i) => `${i.path}: ${i.message}`);
};
const serving = (over: Record<string, unknown>) => issues(ServingBenchmarkRequestSchema, { backend_url: 'http://gpu:8000', model: 'm', ...over });

describe('the serving request (design §13b)', () => {
  it('takes a level as a concurrency or a rate, not both; burstiness and max_concurrency go with rates', () => {
    expect(serving({ request_rate: [1, 4, 'inf'], burstiness: 0.5, max_concurrency: 32 })).toEqual([]);
    expect(serving({ concurrency: [2], request_rate: [4] })).toEqual([expect.stringMatching(/^concurrency: give concurrency or request_rate, not both/)]);
    expect(serving({ burstiness: 2 })).toEqual(['burstiness: applies to request_rate levels only']);
    expect(serving({ request_rate: [4, 4] })).toEqual(['request_rate.1: lists rate 4 twice']);
    expect(serving({ request_rate: [0] })).toHaveLength(1);
  });

  it('a level runs requests_per_level or duration_s; "inf" needs a count', () => {
    expect(serving({ duration_s: 30 })).toEqual([]);
    expect(serving({ duration_s: 30, requests_per_level: 64 })).toEqual(['duration_s: give requests_per_level or duration_s, not both']);
    expect(serving({ request_rate: ['inf'], duration_s: 30 })).toEqual([expect.stringMatching(/^duration_s: a request_rate of "inf"/)]);
    // Without levels of its own the request runs the default ones: 7 requests cannot fill level 8.
    expect(serving({ requests_per_level: 7 })).toEqual([expect.stringMatching(/level 8 keeps 8 requests in flight/)]);
  });

  it('datasets, SLOs, min_tokens, endpoint and the key are checked', () => {
    expect(serving({ dataset: { kind: 'file', path: '/data/sharegpt.json' }, slo: { ttft_ms: 500 } })).toEqual([]);
    expect(serving({ dataset: { kind: 'file', path: '/etc/passwd' } })).toEqual(['dataset.path: a .json (ShareGPT) or .jsonl file']);
    expect(serving({ slo: {} })).toEqual(['slo: give at least one of ttft_ms, tpot_ms, e2e_ms']);
    expect(serving({ min_tokens: 200 })).toEqual(['min_tokens: must be at most the output tokens asked (128)']);
    expect(serving({ endpoint: 'completions', backend_api: 'ollama' })).toHaveLength(1);
    expect(serving({ backend_api_key: 'has space' })).toEqual(['backend_api_key: printable ASCII without spaces: it is sent as a Bearer token']);
  });

  it('levels and their default request counts: at least 32 and three waves', () => {
    expect(servingLevels({}).map((l) => (l.kind === 'concurrency' ? l.concurrency : l.rate))).toEqual([1, 2, 4, 8]);
    expect(defaultRequestsForLevel({ kind: 'concurrency', concurrency: 64 })).toBe(192);
    expect(defaultRequestsForLevel({ kind: 'concurrency', concurrency: 2 })).toBe(32);
    expect(defaultRequestsForLevel({ kind: 'rate', rate: 8, burstiness: 1, maxConcurrency: null })).toBe(240);
  });
});

describe('renting with backend_api openai (a vLLM template)', () => {
  it('a job on the marketplace accepts openai, with or without a template hash (the vLLM template is then found by name)', () => {
    expect(issues(BenchmarkRequestSchema, { marketplace: true, template_hash: 't', max_dph: 1, model: 'm', question: 'q', backend_api: 'openai' })).toEqual([]);
    expect(issues(BenchmarkRequestSchema, { marketplace: true, max_dph: 1, model: 'm', question: 'q', backend_api: 'openai' })).toEqual([]);
    // Without openai a template is still required: an Ollama template has no one name to find it by.
    expect(issues(BenchmarkRequestSchema, { marketplace: true, max_dph: 1, model: 'm', question: 'q', backend_api: 'auto' })).toEqual([expect.stringMatching(/^template_hash: required when marketplace is true/)]);
  });

  it('a sweep accepts openai with one model, and says why it takes only one', () => {
    const base = { name: 's', gpus: ['RTX 4090'], max_total_cost_usd: 5, serving: {}, backend_api: 'openai' };
    expect(issues(SweepRequestSchema, { ...base, models: ['Qwen/Qwen2.5-0.5B-Instruct'] })).toEqual([]);
    expect(issues(SweepRequestSchema, { ...base, models: ['a', 'b'] })).toEqual([expect.stringMatching(/^models: a vLLM machine serves the one model it starts with/)]);
    expect(issues(SweepRequestSchema, { ...base, models: ['m'], backend_api: 'ollama' })).toEqual([expect.stringMatching(/^template_hash: required/)]);
  });
});
