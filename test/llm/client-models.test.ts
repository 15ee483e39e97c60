import { afterEach, describe, expect, it } from 'vitest';
import { LlmServerClient } from '../../src-main/llm/llmserver-client';
import { listBackendModels } from '../../src-main/llm/list-models';
import { InvalidBackendUrlError, LlmResponseShapeError, ModelNotFoundError, UnknownBackendTypeError } from '../../src-main/llm/errors';
import { createManualClock, startFakeOllama, type FakeOllama } from '../fakes/ollama';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('listing models', () => {
  it('maps /api/tags to ModelEntry objects, sorted by name', async () => {
    fake = await startFakeOllama();
    const client = new LlmServerClient({ baseUrl: fake.url });
    const models = await client.listModels();
    expect(models.map((m) => m.name)).toEqual(['gemma:2b', 'llama3.1:8b', 'qwen2.5:7b', 'tinyllama:latest']);
    expect(models.find((m) => m.name === 'llama3.1:8b')).toEqual({
      name: 'llama3.1:8b',
      size: 4_920_753_328,
      family: 'llama',
      parameter_size: '8.0B',
      quantization: 'Q4_K_M',
      modified_at: '2025-05-04T17:37:44.706015396-07:00',
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('maps /api/ps with size_vram, expires_at and context_length, and follows expiry', async () => {
    const clock = createManualClock();
    fake = await startFakeOllama({ now: clock.now, knobs: { sizeVramRatio: 0.5 } });
    const client = new LlmServerClient({ baseUrl: fake.url });
    expect(await client.runningModels()).toEqual([]);

    await client.load('llama3.1:8b', { keepAlive: '10m' });
    await client.load('tinyllama', { keepAlive: 60 });
    const running = await client.runningModels();
    expect(running.map((m) => m.name)).toEqual(['llama3.1:8b', 'tinyllama:latest']);
    const [llama] = running;
    expect(llama?.expires_at).toBe(new Date(clock.now() + 600_000).toISOString().replace('Z', '000000Z'));
    expect(llama?.size_vram).toBe(Math.round((llama?.size ?? 0) * 0.5));
    expect(llama?.context_length).toBe(4096);

    clock.advance(61_000);
    expect((await client.runningModels()).map((m) => m.name)).toEqual(['llama3.1:8b']);
    clock.advance(600_000);
    expect(await client.runningModels()).toEqual([]);
  });

  it('keeps a negative keep_alive model loaded "forever" and unloads on keep_alive 0', async () => {
    const clock = createManualClock();
    fake = await startFakeOllama({ now: clock.now });
    const client = new LlmServerClient({ baseUrl: fake.url });
    await client.load('gemma:2b', { keepAlive: -1 });
    clock.advance(365 * 24 * 3600 * 1000);
    const [entry] = await client.runningModels();
    expect(entry?.name).toBe('gemma:2b');
    expect(Number(entry?.expires_at?.slice(0, 4))).toBeGreaterThan(2300);
    await client.unload('gemma:2b');
    expect(await client.runningModels()).toEqual([]);
    expect(fake.callsTo('/api/generate').at(-1)?.body).toMatchObject({ model: 'gemma:2b', keep_alive: 0 });
  });

  it('listBackendModels answers GET /v1/llm/models with the normalised URL', async () => {
    fake = await startFakeOllama();
    const client = new LlmServerClient({ baseUrl: fake.url });
    await client.load('qwen2.5:7b');
    const answer = await listBackendModels({ backend_url: `${fake.url.replace('http://', '')}/`, backend_type: 'ollama' });
    expect(answer.backend_url).toBe(fake.url);
    expect(answer.backend_type).toBe('llmserver');
    expect(answer.models).toHaveLength(4);
    expect(answer.running_models).toEqual([expect.objectContaining({ name: 'qwen2.5:7b', size_vram: expect.any(Number), expires_at: expect.any(String) })]);
  });

  it('listBackendModels refuses bad URLs and types before any call', async () => {
    await expect(listBackendModels({ backend_url: 'ftp://x' })).rejects.toBeInstanceOf(InvalidBackendUrlError);
    await expect(listBackendModels({ backend_url: 'http://127.0.0.1:9', backend_type: 'vllm' })).rejects.toBeInstanceOf(UnknownBackendTypeError);
  });

  it('never shows credentials from the URL, but sends them as Basic auth', async () => {
    fake = await startFakeOllama({ knobs: { proxyToken: 's3cret' } });
    const withCreds = fake.url.replace('http://', 'http://vastai:s3cret@');
    const answer = await listBackendModels({ backend_url: withCreds });
    expect(answer.backend_url).toBe(fake.url);
    expect(fake.calls[0]?.headers.authorization).toBe(`Basic ${Buffer.from('vastai:s3cret').toString('base64')}`);
  });
});

describe('version and show', () => {
  it('reads the version', async () => {
    fake = await startFakeOllama({ version: '0.15.2' });
    expect(await new LlmServerClient({ baseUrl: fake.url }).version()).toBe('0.15.2');
  });

  it('reports capabilities and context length from model_info', async () => {
    fake = await startFakeOllama();
    const client = new LlmServerClient({ baseUrl: fake.url });
    expect(await client.show('llama3.1:8b')).toEqual({
      model: 'llama3.1:8b', capabilities: ['completion', 'tools'], supports_tools: true, context_length: 131_072,
      architecture: 'llama', family: 'llama', parameter_size: '8.0B', quantization: 'Q4_K_M',
    });
    const gemma = await client.show('gemma:2b');
    expect(gemma.supports_tools).toBe(false);
    expect(gemma.context_length).toBe(8192);
    expect((await client.show('tinyllama')).model).toBe('tinyllama');
    await expect(client.show('nope:1b')).rejects.toBeInstanceOf(ModelNotFoundError);
  });

  it('rejects a server that is not Ollama with a clear shape error', async () => {
    const notOllama = async () => new Response('<html>hello</html>', { status: 200, headers: { 'content-type': 'text/html' } });
    const client = new LlmServerClient({ baseUrl: 'http://127.0.0.1:9', fetch: notOllama });
    await expect(client.listModels()).rejects.toThrow(LlmResponseShapeError);
    await expect(client.listModels()).rejects.toThrow(/unexpected GET \/api\/tags payload: not JSON/);
    const wrongShape = async () => Response.json({ tags: [] });
    const client2 = new LlmServerClient({ baseUrl: 'http://127.0.0.1:9', fetch: wrongShape });
    await expect(client2.listModels()).rejects.toThrow(/unexpected GET \/api\/tags payload.*models/s);
  });
});
