import { afterEach, describe, expect, it } from 'vitest';
import { LlmServerClient, type PullProgress } from '../../src-main/llm/llmserver-client';
import { LlmAbortedError, LlmServerHttpError, LlmStreamError, ModelNotFoundError, WarmupTimeoutError } from '../../src-main/llm/errors';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(options: Parameters<typeof startFakeOllama>[0] = {}) {
  fake = await startFakeOllama(options);
  return { fake, client: new LlmServerClient({ baseUrl: fake.url }) };
}

describe('pull', () => {
  it('streams progress with percent and installs the model', async () => {
    const { fake, client } = await setup();
    const progress: PullProgress[] = [];
    await client.pull('qwen3:0.6b', (p) => progress.push(p));
    expect(progress[0]).toEqual({ status: 'pulling manifest' });
    const layer = progress.filter((p) => p.total === 522_653_767);
    expect(layer[0]).toEqual({ status: expect.stringMatching(/^pulling [0-9a-f]{12}$/), digest: expect.stringMatching(/^sha256:/), total: 522_653_767 });
    expect(layer.map((p) => p.percent)).toEqual([undefined, 33.3, 66.7, 100]);
    expect(progress.at(-1)).toEqual({ status: 'success' });
    // ollama-js sends the deprecated `name` field; the fake accepts it like Ollama.
    expect(fake.callsTo('/api/pull')[0]?.body).toMatchObject({ name: 'qwen3:0.6b', stream: true });
    expect((await client.listModels()).map((m) => m.name)).toContain('qwen3:0.6b');
  });

  it('turns an unknown model (500 before streaming) into an HTTP error with Ollama\'s message', async () => {
    const { client } = await setup();
    const error = await client.pull('no-such-model:1b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmServerHttpError);
    expect((error as LlmServerHttpError).status).toBe(500);
    expect((error as LlmServerHttpError).serverMessage).toBe('pull model manifest: file does not exist');
  });

  it('turns a mid-stream {"error"} line into LlmStreamError and leaves the model uninstalled', async () => {
    const { client } = await setup({ knobs: { pullMidStreamError: 'max retries exceeded: unexpected EOF' } });
    const progress: PullProgress[] = [];
    const error = await client.pull('qwen3:0.6b', (p) => progress.push(p)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmStreamError);
    expect((error as LlmStreamError).kind).toBe('error_line');
    expect((error as Error).message).toContain('max retries exceeded: unexpected EOF');
    expect(progress.length).toBeGreaterThan(0);
    expect((await client.listModels()).map((m) => m.name)).not.toContain('qwen3:0.6b');
  });

  it('rejects a stream that ends without success', async () => {
    const { client } = await setup({ knobs: { pullNoSuccess: true } });
    const error = await client.pull('qwen3:0.6b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmStreamError);
    expect((error as LlmStreamError).kind).toBe('incomplete');
  });

  it('stops when the signal aborts', async () => {
    const { fake, client } = await setup({ knobs: { pullLineDelayMs: 200 } });
    const controller = new AbortController();
    const pending = client.pull('qwen3:0.6b', () => controller.abort(), controller.signal);
    await expect(pending).rejects.toBeInstanceOf(LlmAbortedError);
    expect(fake.state.installed.has('qwen3:0.6b')).toBe(false);
  });

  it('bounds the silence between progress lines', async () => {
    const { client } = await setup({ knobs: { pullLineDelayMs: 500 } });
    await expect(client.pull('qwen3:0.6b', undefined, undefined, { idleTimeoutMs: 100 })).rejects.toMatchObject({
      name: 'LlmServerUnreachableError',
      reason: 'timeout',
    });
  });
});

describe('warmup', () => {
  it('loads with keep_alive, then polls /api/ps until the model shows (name ≡ name:latest)', async () => {
    const { fake, client } = await setup({ knobs: { psHiddenPolls: 2 } });
    const result = await client.warmup('tinyllama', { keepAlive: '1h', pollIntervalMs: 10 });
    expect(result.model).toBe('tinyllama:latest');
    expect(result.running).toMatchObject({ name: 'tinyllama:latest', size_vram: expect.any(Number) });
    expect(result.polls).toBe(3);
    expect(fake.callsTo('/api/generate')[0]?.body).toMatchObject({ model: 'tinyllama', prompt: '', keep_alive: '1h', stream: false });
    expect(fake.callsTo('/api/ps')).toHaveLength(3);
  });

  it('defaults keep_alive to 30m and leaves other loaded models alone', async () => {
    const { fake, client } = await setup();
    await client.load('gemma:2b');
    await client.warmup('llama3.1:8b', { pollIntervalMs: 10 });
    expect(fake.callsTo('/api/generate').at(-1)?.body).toMatchObject({ keep_alive: '30m' });
    expect((await client.runningModels()).map((m) => m.name).sort()).toEqual(['gemma:2b', 'llama3.1:8b']);
  });

  it('times out within its budget when the load never finishes', async () => {
    const { client } = await setup({ knobs: { loadLatencyMs: 10_000 } });
    const error = await client.warmup('llama3.1:8b', { timeoutMs: 300, pollIntervalMs: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WarmupTimeoutError);
    expect((error as Error).message).toMatch(/timed out .* llama3\.1:8b/);
  });

  it('times out within its budget when the model never shows in /api/ps', async () => {
    const { client } = await setup({ knobs: { psHiddenPolls: 1_000_000 } });
    await expect(client.warmup('llama3.1:8b', { timeoutMs: 250, pollIntervalMs: 20 })).rejects.toBeInstanceOf(WarmupTimeoutError);
  });

  it('reports an unknown model with Ollama\'s 404 message', async () => {
    const { client } = await setup();
    const error = await client.warmup('nope:7b', { pollIntervalMs: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect((error as ModelNotFoundError).status).toBe(404);
    expect((error as ModelNotFoundError).serverMessage).toBe("model 'nope:7b' not found");
    expect((error as ModelNotFoundError).model).toBe('nope:7b');
  });

  it('stops when the caller aborts, as a cancellation rather than a timeout', async () => {
    const { client } = await setup({ knobs: { loadLatencyMs: 10_000 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await client.warmup('llama3.1:8b', { signal: controller.signal, timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmAbortedError);
    expect((error as Error).name).toBe('AbortError');
  });
});
