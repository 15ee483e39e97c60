import { afterEach, describe, expect, it } from 'vitest';
import { LlmServerClient } from '../../src-main/llm/llmserver-client';
import { runServingLoad, type ServingPlan } from '../../src-main/serving/generator';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';

/**
 * The load generator against the fake Ollama's serving mode (known timing: first token after F
 * ms, then one every G ms): the measured figures land near the known ones. Tolerances are wide on
 * purpose (a shared CI machine); the exact error is what `npm run bench` prints.
 */

const F = 60;
const G = 10;
const N = 20;
const MODEL = 'llama3.1:8b';

let fake: FakeOllama | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function servingFake(parallel?: number): Promise<{ fake: FakeOllama; client: LlmServerClient }> {
  fake = await startFakeOllama({ knobs: { serving: { firstTokenMs: F, tokenIntervalMs: G, ...(parallel ? { parallel } : {}) } } });
  return { fake, client: new LlmServerClient({ baseUrl: fake.url }) };
}

const plan = (over: Partial<ServingPlan> = {}): ServingPlan => ({
  model: MODEL,
  concurrency: [1, 4],
  requestsPerLevel: 8,
  promptTokens: 64,
  outputTokens: N,
  warmupRequests: 1,
  dphTotal: null,
  ...over,
});

const within = (value: number | undefined, low: number, high: number) => {
  expect(value).toBeGreaterThanOrEqual(low);
  expect(value).toBeLessThanOrEqual(high);
};

describe('serving load generator against a backend of known timing', () => {
  it('measures TTFT, TPOT, ITL p50 and output tokens/s near the known values, with output tokens from eval_count', async () => {
    const { fake, client } = await servingFake();
    const seen: number[] = [];
    const levels = await runServingLoad(client, plan(), new AbortController().signal, { onLevel: (l) => void seen.push(l.concurrency) });
    expect(seen).toEqual([1, 4]);
    // Every request (warm-up included) asked for N tokens.
    const chats = fake.callsTo('/api/chat');
    expect(chats).toHaveLength(2 * (8 + 1));
    for (const call of chats) expect(call.body).toMatchObject({ stream: true, options: { num_predict: N } });
    for (const level of levels) {
      expect(level).toMatchObject({ requests: 8, failed: 0, first_error: null, output_tokens: 8 * N });
      within(level.ttft_ms?.p50, F, F * 1.6 + 15);
      within(level.tpot_ms?.p50, G * 0.6, G * 1.6);
      within(level.itl_ms?.p50, G * 0.5, G * 1.6);
      // The fake's own clock: N tokens in N × G ms.
      expect(level.server_tokens_per_s).toBeCloseTo(1000 / G, 6);
      // One request lasts F + (N − 1)·G; c of them run at once.
      const ideal = (level.concurrency * N) / ((F + (N - 1) * G) / 1000);
      within(level.output_tokens_per_s, ideal * 0.5, ideal * 1.05);
      expect(level.total_tokens_per_s).toBeGreaterThan(level.output_tokens_per_s);
      expect(level.usd_per_million_output_tokens).toBeNull();
    }
  });

  it('counts failed requests with the first error, outside the latencies', async () => {
    const { fake, client } = await servingFake();
    fake.setKnobs({ chatFailure: 'queue_full' });
    const [level] = await runServingLoad(client, plan({ concurrency: [2], requestsPerLevel: 4, warmupRequests: 0 }), new AbortController().signal);
    expect(level).toMatchObject({ concurrency: 2, requests: 0, failed: 4, ttft_ms: null, itl_ms: null, e2e_ms: null, output_tokens_per_s: 0 });
    expect(level?.first_error).toMatch(/maximum pending requests exceeded/);
  });

  it('prices each level per million output tokens with the machine’s $/h', async () => {
    const { client } = await servingFake();
    const [level] = await runServingLoad(client, plan({ concurrency: [2], requestsPerLevel: 2, warmupRequests: 0, dphTotal: 0.5 }), new AbortController().signal);
    const tps = level?.output_tokens_per_s ?? 0;
    expect(tps).toBeGreaterThan(0);
    expect(level?.usd_per_million_output_tokens).toBeCloseTo((0.5 / (tps * 3600)) * 1e6, 3);
  });

  it('cancel aborts every request in flight at once and starts no more', async () => {
    const { fake, client } = await servingFake();
    // Long answers: 1,000 tokens would take 10 s each.
    const ac = new AbortController();
    const run = runServingLoad(client, plan({ concurrency: [4], requestsPerLevel: 40, warmupRequests: 0, outputTokens: 1000 }), ac.signal);
    while (fake.callsTo('/api/chat').length < 4) await new Promise((r) => setTimeout(r, 5));
    const t0 = performance.now();
    ac.abort(new Error('cancelled by the test'));
    await expect(run).rejects.toThrow('cancelled by the test');
    // Not a timing figure: an answer takes 10 s, so ending in under half of that means the streams were cut.
    expect(performance.now() - t0).toBeLessThan(5000);
    await new Promise((r) => setTimeout(r, 50));
    expect(fake.callsTo('/api/chat')).toHaveLength(4);
  });
});
