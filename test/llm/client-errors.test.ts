import { getEventListeners } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LlmServerClient } from '../../src-main/llm/llmserver-client';
import { listBackendModels } from '../../src-main/llm/list-models';
import {
  LlmAbortedError,
  LlmServerAuthError,
  LlmServerHttpError,
  LlmServerUnreachableError,
  ModelNotFoundError,
} from '../../src-main/llm/errors';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function closedPortUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('unreachable servers', () => {
  it('a refused connection → LlmServerUnreachableError naming the URL', async () => {
    const url = await closedPortUrl();
    const error = await listBackendModels({ backend_url: `${url}/` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmServerUnreachableError);
    expect(error).toMatchObject({ url, reason: 'connection_refused' });
    expect((error as Error).message).toContain(url);
  });

  it('a server that closed after start-up is unreachable too', async () => {
    fake = await startFakeOllama();
    const client = new LlmServerClient({ baseUrl: fake.url });
    await fake.close();
    fake = undefined;
    await expect(client.version()).rejects.toBeInstanceOf(LlmServerUnreachableError);
  });

  it('an unresolvable host → reason dns (or timeout where DNS hangs)', async () => {
    const client = new LlmServerClient({ baseUrl: 'http://no-such-host.invalid:11434', timeoutMs: 3000 });
    const error = await client.version().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmServerUnreachableError);
    expect(['dns', 'timeout']).toContain((error as LlmServerUnreachableError).reason);
    expect((error as Error).message).toContain('http://no-such-host.invalid:11434');
  });

  it('a server that accepts but never answers → timeout within the call timeout', async () => {
    fake = await startFakeOllama({ knobs: { loadLatencyMs: 10_000 } });
    const client = new LlmServerClient({ baseUrl: fake.url, timeoutMs: 100 });
    await expect(client.unload('llama3.1:8b', { timeoutMs: 100 })).resolves.toBeUndefined();
    await expect(client.load('llama3.1:8b', { timeoutMs: 100 })).rejects.toMatchObject({ name: 'LlmServerUnreachableError', reason: 'timeout' });
  });
});

describe('auth proxy vs Ollama errors', () => {
  it('distinguishes a proxy 401 from an Ollama 404', async () => {
    fake = await startFakeOllama({ knobs: { proxyToken: 'open-button-token' } });
    const anonymous = new LlmServerClient({ baseUrl: fake.url });
    const denied = await anonymous.show('missing:1b').catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(LlmServerAuthError);
    expect(denied).not.toBeInstanceOf(LlmServerHttpError);
    expect(denied).toMatchObject({ status: 401, challenge: 'Basic realm="restricted"', url: fake.url });
    expect(fake.calls.at(-1)?.status).toBe(401);

    const wrong = new LlmServerClient({ baseUrl: fake.url, headers: { Authorization: 'Bearer nope' } });
    await expect(wrong.listModels()).rejects.toBeInstanceOf(LlmServerAuthError);

    const authorised = new LlmServerClient({ baseUrl: fake.url, headers: { Authorization: 'Bearer open-button-token' } });
    const missing = await authorised.show('missing:1b').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ModelNotFoundError);
    expect(missing).not.toBeInstanceOf(LlmServerAuthError);
    expect((await authorised.listModels()).length).toBeGreaterThan(0);
    expect(fake.calls.at(-1)?.headers.authorization).toBe('Bearer open-button-token');
  });

  it('sends the configured headers on streamed calls too', async () => {
    fake = await startFakeOllama({ knobs: { proxyToken: 't' } });
    const client = new LlmServerClient({ baseUrl: fake.url, headers: { Authorization: 'Bearer t' } });
    await client.pull('qwen3:0.6b');
    await client.chat({ model: 'qwen3:0.6b', messages: [{ role: 'user', content: 'hi' }] });
    expect(fake.calls.every((c) => c.headers.authorization === 'Bearer t')).toBe(true);
  });
});

describe('cancellation', () => {
  it('a signal aborted before the call rejects without a request', async () => {
    fake = await startFakeOllama();
    const client = new LlmServerClient({ baseUrl: fake.url });
    const controller = new AbortController();
    controller.abort();
    await expect(client.listModels({ signal: controller.signal })).rejects.toBeInstanceOf(LlmAbortedError);
    expect(fake.calls).toHaveLength(0);
  });

  it('aborts a non-streamed call in flight (ollama-js alone cannot)', async () => {
    fake = await startFakeOllama({ knobs: { loadLatencyMs: 10_000 } });
    const client = new LlmServerClient({ baseUrl: fake.url });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(client.load('llama3.1:8b', { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('does not leave listeners on a long-lived signal', async () => {
    fake = await startFakeOllama();
    const client = new LlmServerClient({ baseUrl: fake.url });
    const job = new AbortController();
    for (let i = 0; i < 5; i++) {
      await client.listModels({ signal: job.signal });
      await client.chat({ model: 'llama3.1:8b', messages: [{ role: 'user', content: 'hi' }], signal: job.signal });
    }
    await client.pull('qwen3:0.6b', undefined, job.signal);
    expect(getEventListeners(job.signal, 'abort')).toHaveLength(0);
  });
});
