import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmServerAuthError, LlmServerHttpError, LlmServerUnreachableError, LlmStreamError, ModelNotFoundError, ToolsUnsupportedError } from '../../src-main/llm/errors';
import { listBackendModels } from '../../src-main/llm/list-models';
import { detectBackendApi, openBackend } from '../../src-main/llm/open-backend';
import { OpenAiClient } from '../../src-main/llm/openai-client';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai';

/**
 * The OpenAI-compatible client against the fake vLLM (and a few hand-made servers): detection,
 * models with max_model_len, chat streamed and not, vLLM's error shapes as typed errors, and the
 * readiness wait of a server that loads its model at start.
 */

const MODEL = 'Qwen/Qwen2.5-7B-Instruct';
let vllm: FakeOpenAi;
let ollama: FakeOllama;
const servers: http.Server[] = [];
beforeAll(async () => {
  [vllm, ollama] = await Promise.all([startFakeOpenAi({ models: [{ id: MODEL, max_model_len: 8192 }] }), startFakeOllama()]);
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  await Promise.all([vllm.close(), ollama.close()]);
});

async function server(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

describe('detecting the API (backend_api auto)', () => {
  it('Ollama answers /api/version; vLLM answers /v1/models; neither is a clear error naming both', async () => {
    expect(await detectBackendApi({ backendUrl: ollama.url })).toBe('ollama');
    expect(await detectBackendApi({ backendUrl: vllm.url })).toBe('openai');
    const other = await server((_req, res) => res.writeHead(404).end('nope'));
    await expect(detectBackendApi({ backendUrl: other })).rejects.toThrow(/neither Ollama \(GET \/api\/version: .*\) nor an OpenAI-compatible server \(GET \/v1\/models: .*\) answered/);
    const refused = await detectBackendApi({ backendUrl: 'http://127.0.0.1:1' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LlmServerUnreachableError);
  });

  it('a vLLM with --api-key is OpenAI-compatible: without the key the answer is the auth error, with it the server', async () => {
    vllm.setKnobs({ apiKey: 'sk-detect-123456' });
    try {
      const refused = await detectBackendApi({ backendUrl: vllm.url }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LlmServerAuthError);
      expect(String(refused)).toMatch(/wants an API key; set backend_api_key/);
      const backend = await openBackend({ backendUrl: vllm.url, apiKey: 'sk-detect-123456' });
      expect(backend.api).toBe('openai');
      expect((await backend.listModels()).map((m) => m.name)).toEqual([MODEL]);
    } finally {
      vllm.setKnobs({ apiKey: null });
    }
  });

  it('GET /v1/llm/models (listBackendModels) speaks either API and says which', async () => {
    expect(await listBackendModels({ backend_url: `${vllm.url}/v1` })).toMatchObject({ backend_api: 'openai', backend_url: vllm.url, models: [{ name: MODEL, context_length: 8192 }], running_models: [{ name: MODEL }] });
    expect((await listBackendModels({ backend_url: ollama.url, backend_api: 'ollama' })).backend_api).toBe('ollama');
  });
});

describe('OpenAiClient', () => {
  const client = () => new OpenAiClient({ baseUrl: vllm.url });

  it('describes a model from /v1/models (max_model_len, engine) and reads vLLM’s version', async () => {
    expect(await client().describeModel(MODEL)).toEqual({ context_length: 8192, digest: null, supports_tools: null, engine: 'vllm' });
    expect(await client().version()).toBe('0.11.0');
    expect(await new OpenAiClient({ baseUrl: ollama.url }).version()).toBeNull();
  });

  it('chats streamed and not, with usage as the metrics', async () => {
    const streamed = await client().chat({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(streamed).toMatchObject({ message: { role: 'assistant', content: `Fake answer from ${MODEL}.` }, done_reason: 'stop' });
    expect(streamed.metrics.eval_count).toBeGreaterThan(0);
    const whole = await client().chat({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(whole.message.content).toBe(`Fake answer from ${MODEL}.`);
    const body = vllm.callsTo('/v1/chat/completions').at(-2)?.body;
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('maps vLLM’s errors: unknown model 404, prompt over max_model_len 400, tools without a parser', async () => {
    await expect(client().chat({ model: 'nope', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(ModelNotFoundError);
    const long = await client().chat({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(40_000) }], options: { num_predict: 100 } }).catch((e: unknown) => e);
    expect(long).toBeInstanceOf(LlmServerHttpError);
    expect(String(long)).toMatch(/maximum context length is 8192 tokens/);
    vllm.setKnobs({ autoToolChoice: false });
    try {
      const tools = [{ type: 'function' as const, function: { name: 't', description: 'd', parameters: { type: 'object' as const, properties: {} } } }];
      await expect(client().chat({ model: MODEL, messages: [{ role: 'user', content: 'x' }], tools })).rejects.toBeInstanceOf(ToolsUnsupportedError);
    } finally {
      vllm.setKnobs({ autoToolChoice: true });
    }
  });

  it('an error event in the stream is an LlmStreamError with the server’s message', async () => {
    const url = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\ndata: {"object":"error","message":"CUDA out of memory","type":"InternalServerError"}\n\n');
    });
    const error = await new OpenAiClient({ baseUrl: url }).chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmStreamError);
    expect(String(error)).toMatch(/CUDA out of memory/);
  });

  it('waitUntilServing: waits through 503s while the model loads, until /v1/models lists it', async () => {
    let calls = 0;
    const url = await server((_req, res) => {
      calls++;
      if (calls < 3) res.writeHead(503, { 'content-type': 'application/json' }).end('{"object":"error","message":"loading"}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model', owned_by: 'vllm', max_model_len: 4096 }] }));
    });
    const entry = await new OpenAiClient({ baseUrl: url }).waitUntilServing('m', { timeoutMs: 10_000, pollIntervalMs: 10 });
    expect(entry).toEqual({ name: 'm', context_length: 4096 });
    expect(calls).toBe(3);
    await expect(new OpenAiClient({ baseUrl: url }).waitUntilServing('other', { timeoutMs: 50, pollIntervalMs: 10 })).rejects.toThrow(/timed out/);
  });
});
