import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock, parseKeepAlive, startFakeOllama, type FakeOllama } from '../fakes/ollama';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${fake?.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
type Answer = Record<string, unknown> & { message: { tool_calls: unknown[] } & Record<string, unknown>; response?: string };
const json = async (res: Response) => (await res.json()) as Answer;
const ndjson = async (res: Response) => (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('fake Ollama: wire behaviour', () => {
  it('answers the liveness probe, version, and unknown routes like Ollama', async () => {
    fake = await startFakeOllama();
    const root = await fetch(`${fake.url}/`);
    expect(await root.text()).toBe('Ollama is running');
    expect((await fetch(`${fake.url}/`, { method: 'HEAD' })).status).toBe(200);
    expect(await (await fetch(`${fake.url}/api/version`)).json()).toEqual({ version: '0.15.2' });
    const missing = await fetch(`${fake.url}/api/nope`);
    expect([missing.status, await missing.text()]).toEqual([404, '404 page not found']);
    expect((await fetch(`${fake.url}/api/chat`)).status).toBe(405);
    const noBody = await fetch(`${fake.url}/api/chat`, { method: 'POST' });
    expect([noBody.status, await noBody.json()]).toEqual([400, { error: 'missing request body' }]);
  });

  it('lists seeded models with full fields, and {"models":[]} when empty', async () => {
    fake = await startFakeOllama();
    const { models } = (await (await fetch(`${fake.url}/api/tags`)).json()) as { models: Record<string, unknown>[] };
    expect(models[0]).toEqual({
      name: 'llama3.1:8b', model: 'llama3.1:8b', modified_at: '2025-05-04T17:37:44.706015396-07:00', size: 4_920_753_328,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      details: { parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '8.0B', quantization_level: 'Q4_K_M' },
    });
    await fake.close();
    fake = await startFakeOllama({ models: [] });
    expect(await (await fetch(`${fake.url}/api/tags`)).json()).toEqual({ models: [] });
  });

  it('pull accepts `model`, answers stream:false with one success object, and 500s unknown models', async () => {
    fake = await startFakeOllama();
    const single = await post('/api/pull', { model: 'qwen3:0.6b', stream: false, insecure: false });
    expect(await single.json()).toEqual({ status: 'success' });
    expect(fake.state.installed.has('qwen3:0.6b')).toBe(true);
    const unknown = await post('/api/pull', { model: 'nope' });
    expect([unknown.status, await unknown.json()]).toEqual([500, { error: 'pull model manifest: file does not exist' }]);
    const streamed = await post('/api/pull', { name: 'qwen3:0.6b' });
    expect(streamed.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = await ndjson(streamed);
    expect(lines.map((l) => l.status)).toContain('verifying sha256 digest');
    expect(lines.at(-1)).toEqual({ status: 'success' });
  });

  it('a mid-stream pull error keeps status 200 and ends with an {"error"} line', async () => {
    fake = await startFakeOllama({ knobs: { pullMidStreamError: 'boom' } });
    const res = await post('/api/pull', { model: 'qwen3:0.6b' });
    expect(res.status).toBe(200);
    expect((await ndjson(res)).at(-1)).toEqual({ error: 'boom' });
  });

  it('generate: load/unload with keep_alive forms, 404 for unknown, canned text with ns metrics, model echoed', async () => {
    const clock = createManualClock();
    fake = await startFakeOllama({ now: clock.now });
    const load = await (await post('/api/generate', { model: 'TinyLlama', keep_alive: '1h30m', format: 'json', think: false })).json();
    expect(load).toMatchObject({ model: 'TinyLlama', response: '', done: true, done_reason: 'load' });
    expect(fake.state.loaded.get('tinyllama:latest')?.expiresAt).toBe(clock.now() + 90 * 60_000);
    const stop = await (await post('/api/generate', { model: 'tinyllama', keep_alive: 0 })).json();
    expect(stop).toMatchObject({ done_reason: 'unload' });
    expect(fake.state.loaded.size).toBe(0);

    const missing = await post('/api/generate', { model: 'ghost' });
    expect([missing.status, await missing.json()]).toEqual([404, { error: "model 'ghost' not found" }]);
    const bad = await post('/api/generate', { model: 'tinyllama', keep_alive: 'soon' });
    expect(bad.status).toBe(400);

    const streamed = await ndjson(await post('/api/generate', { model: 'tinyllama', prompt: 'hello' }));
    const final = streamed.at(-1) ?? {};
    expect(streamed.slice(0, -1).map((c) => c.response).join('')).toBe('Fake completion from tinyllama:latest.');
    expect(final).toMatchObject({ done: true, done_reason: 'stop', load_duration: 2_969_184_542 });
    expect(Number(final.eval_duration)).toBeGreaterThan(1_000_000);
    const warm = await json(await post('/api/generate', { model: 'tinyllama', prompt: 'again', stream: false }));
    expect(warm).not.toHaveProperty('load_duration');
    expect(warm.response).toBe('Fake completion from tinyllama:latest.');
  });

  it('/api/show: a tool-capable model\'s template mentions .Tools (LiteLLM reads it), others\' do not; capabilities agree', async () => {
    fake = await startFakeOllama();
    const show = async (model: string) => (await (await post('/api/show', { model })).json()) as { template: string; modelfile: string; capabilities: string[]; model_info: Record<string, unknown> };
    for (const model of ['llama3.1:8b', 'qwen2.5:7b']) {
      const info = await show(model);
      expect(info.template, model).toContain('.Tools');
      // LiteLLM's check: "tools" in the lower-cased template.
      expect(info.template.toLowerCase()).toContain('tools');
      expect(info.modelfile).toContain(info.template);
      expect(info.capabilities).toEqual(['completion', 'tools']);
    }
    for (const model of ['gemma:2b', 'tinyllama']) {
      const info = await show(model);
      expect(info.template.toLowerCase(), model).not.toContain('tools');
      expect(info.capabilities).toEqual(['completion']);
    }
    // `name` is accepted as well as `model` (older clients), and an unknown model is a 404.
    expect(((await (await post('/api/show', { name: 'llama3.1:8b' })).json()) as { template: string }).template).toContain('.Tools');
    const unknown = await post('/api/show', { model: 'nope:1b' });
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: "model 'nope:1b' not found" }]);
  });

  it('parses keep_alive like Ollama', () => {
    expect(parseKeepAlive(undefined)).toBe(300_000);
    expect(parseKeepAlive(3600)).toBe(3_600_000);
    expect(parseKeepAlive(-1)).toBe(-1);
    expect(parseKeepAlive('-1m')).toBe(-1);
    expect(parseKeepAlive('10m')).toBe(600_000);
    expect(parseKeepAlive('1.5h')).toBe(5_400_000);
    expect(parseKeepAlive('0')).toBe(0);
    expect(parseKeepAlive(0)).toBe(0);
    expect(parseKeepAlive('300ms')).toBe(300);
    expect(parseKeepAlive('10')).toEqual({ error: 'time: invalid duration "10"' });
  });

  it('scripts: refuses wrong tool results and an exhausted script, and records the violation', async () => {
    fake = await startFakeOllama({ scripts: { 'llama3.1:8b': [{ tool_calls: [{ name: 'a', arguments: {} }] }] } });
    const user = { role: 'user', content: 'q' };
    const first = await json(await post('/api/chat', { model: 'llama3.1:8b', messages: [user], stream: false, tool_call_id: 'x' }));
    expect(first.message.tool_calls[0]).toEqual({ id: expect.stringMatching(/^call_[a-z0-9]{8}$/), function: { index: 0, name: 'a', arguments: {} } });
    const wrongName = await post('/api/chat', { model: 'llama3.1:8b', stream: false, messages: [user, first.message, { role: 'tool', tool_name: 'b', content: '1' }] });
    expect(wrongName.status).toBe(400);
    const exhausted = await post('/api/chat', { model: 'llama3.1:8b', stream: false, messages: [user, first.message, { role: 'tool', tool_name: 'a', content: '1' }] });
    expect(exhausted.status).toBe(500);
    expect(fake.state.violations).toEqual([
      expect.stringContaining('tool result for "b"'),
      expect.stringContaining('has no turn 2'),
    ]);
  });

  it('records every call, including ones the proxy refused', async () => {
    fake = await startFakeOllama({ knobs: { proxyToken: 'tok' } });
    const refused = await fetch(`${fake.url}/api/tags?x=1`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Basic realm="restricted"');
    expect(refused.headers.get('content-type')).toMatch(/^text\/plain/);
    const basic = await fetch(`${fake.url}/api/tags`, { headers: { authorization: `Basic ${Buffer.from('vastai:tok').toString('base64')}` } });
    expect(basic.status).toBe(200);
    expect(fake.calls.map((c) => [c.method, c.path, c.status])).toEqual([['GET', '/api/tags', 401], ['GET', '/api/tags', 200]]);
    expect(fake.calls[0]?.query).toEqual({ x: '1' });
  });
});
