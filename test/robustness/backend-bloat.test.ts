import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltinAgent } from '../../src-main/agents/builtin/agent';
import type { KubeReader } from '../../src-main/agents/builtin/kube-client';
import { LlmResponseTooLargeError, LlmServerUnreachableError } from '../../src-main/llm/errors';
import { LlmServerClient } from '../../src-main/llm/llmserver-client';
import { OpenAiClient } from '../../src-main/llm/openai-client';
import { startServingFakes, type BenchApi, type ServingFakes } from '../../src-main/bench/serving-fakes';
import type { Misbehaviour } from '../fakes/misbehave';
import { startHarness, submit, waitForEnd, type Harness } from '../workflows/harness';

/**
 * Issue 34 item 2: no backend can bloat the server. A backend that streams forever, one that sends
 * bytes without a newline, and one that never answers, against the serving benchmark (a job through
 * the API), the built-in agent's chat (both APIs) and a pull: each ends with a clear error, and the
 * process's resident memory grows by less than 50 MB across the case. The backends run in a child
 * process (as a real one is elsewhere): the growth measured is the product's alone.
 */

const MB = 1024 * 1024;
const MODELS: Record<BenchApi, string> = { ollama: 'llama3.1:8b', openai: 'bench-model' };
let h: Harness;
let fakes: ServingFakes;
beforeAll(async () => {
  [h, fakes] = await Promise.all([startHarness(), startServingFakes()]);
  // A first serving job: the worker thread's code and the engine are warm before anything is measured.
  const warm = await submit(h, 'serving-benchmark', { backend_url: fakes.urls.ollama, model: MODELS.ollama, concurrency: [2], requests_per_level: 2, output_tokens: 4, warmup_requests: 0 });
  await waitForEnd(h, warm, 30_000);
}, 60_000);
afterAll(async () => {
  fakes?.stop();
  await h?.close();
});

/** Makes one fake misbehave (null: behave) for the duration of `work`. */
async function misbehaving<T>(api: BenchApi, kind: Misbehaviour, work: () => Promise<T>): Promise<T> {
  const knobs = (k: Misbehaviour | null) => (api === 'ollama' ? { chatFailure: k ?? 'none' } : { failure: k ?? 'none' });
  await fakes.setKnobs(api, knobs(kind));
  try {
    return await work();
  } finally {
    await fakes.setKnobs(api, knobs(null));
  }
}

// A full collection before each reading: what is measured is what the case keeps, not the garbage V8 has not
// collected yet (an unbounded reader keeps its buffers alive; a bounded one leaves only garbage).
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

async function rssGrowth<T>(work: () => Promise<T>): Promise<{ value: T; growthMb: number }> {
  gc();
  const before = process.memoryUsage().rss;
  const value = await work();
  gc();
  return { value, growthMb: (process.memoryUsage().rss - before) / MB };
}

const CASES: readonly { kind: Misbehaviour; error: RegExp }[] = [
  { kind: 'stream_forever', error: /more than \d+ chunks of text for the tokens asked/ },
  { kind: 'no_newlines', error: /a line of the answer passed 1048576 bytes without an end/ },
  { kind: 'never_answer', error: /no complete answer within 2 s/ },
];

describe.each(CASES)('a backend that misbehaves ($kind)', ({ kind, error }) => {
  it.each(['ollama', 'openai'] as const)('the serving job (%s) ends with a clear error, its level stopped after its first requests; RSS grows < 50 MB', async (api) => {
    await misbehaving(api, kind, async () => {
      const { value: job, growthMb } = await rssGrowth(async () => {
        const id = await submit(h, 'serving-benchmark', {
          backend_url: fakes.urls[api],
          model: MODELS[api],
          concurrency: [8, 16],
          requests_per_level: 64,
          output_tokens: 32,
          warmup_requests: 0,
          backend_warmup: false,
          request_timeout_s: 2,
        });
        return (await waitForEnd(h, id, 30_000)).job;
      });
      expect(job).toMatchObject({ status: 'failed', error_code: 'serving_failed' });
      expect(job.error).toMatch(error);
      expect(job.error).toMatch(/the level stopped early: its first 8 requests all failed/);
      expect(growthMb).toBeLessThan(50);
    });
  }, 40_000);
});

const kube: KubeReader = new Proxy({} as KubeReader, { get: () => () => Promise.resolve([]) });

describe.each(['stream_forever', 'no_newlines', 'never_answer'] as const)('the built-in agent against a backend that misbehaves (%s)', (kind) => {
  it.each(['ollama', 'openai'] as const)('its turn ends with a clear error (%s); RSS grows < 50 MB', async (api) => {
    await misbehaving(api, kind, async () => {
      const llm = api === 'ollama' ? new LlmServerClient({ baseUrl: fakes.urls.ollama }) : new OpenAiClient({ baseUrl: fakes.urls.openai });
      const { value: failure, growthMb } = await rssGrowth(() =>
        runBuiltinAgent('Why is the pod failing?', { llm, kube, model: MODELS[api], chatTimeoutMs: 1500, turnDeadlineMs: 3000 }).then(
          () => null,
          (e: unknown) => e,
        ),
      );
      if (kind === 'never_answer') {
        expect(failure).toBeInstanceOf(LlmServerUnreachableError);
        expect(String(failure)).toMatch(/no data for 1500 ms|did not complete within 3 s/);
      } else {
        expect(failure).toBeInstanceOf(LlmResponseTooLargeError);
        expect(String(failure)).toMatch(kind === 'no_newlines' ? /a line longer than 1024 KiB/ : /more than 4 MiB/);
      }
      expect(growthMb).toBeLessThan(50);
    });
  }, 30_000);
});

describe('a pull that misbehaves', () => {
  it.each(['stream_forever', 'no_newlines'] as const)('%s: the pull ends at the cap; RSS grows < 50 MB', async (kind) => {
    await fakes.setKnobs('ollama', { pullFailure: kind });
    try {
      const client = new LlmServerClient({ baseUrl: fakes.urls.ollama });
      const { value: failure, growthMb } = await rssGrowth(() => client.pull('qwen3:0.6b').then(() => null, (e: unknown) => e));
      expect(failure).toBeInstanceOf(LlmResponseTooLargeError);
      expect(growthMb).toBeLessThan(50);
    } finally {
      await fakes.setKnobs('ollama', { pullFailure: null });
    }
  }, 30_000);
});
