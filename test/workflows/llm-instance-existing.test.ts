import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  llmResult,
  expectInOrder,
  getEvents,
  line,
  startHarness,
  submit,
  waitForEnd,
  type Harness,
} from './harness';

/** llm-instance with `marketplace: false`: an existing llmserver, checked and optionally warmed up. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('llm-instance, existing backend', () => {
  it('lists the models, normalises the URL and warms the requested model up', async () => {
    const port = new URL(h.ollama.url).port;
    const id = await submit(h, 'llm-instance', { backend_url: `  HTTP://127.0.0.1:${port}//  `, model: 'llama3.1:8b', backend_warmup_timeout: 30 });
    const { job, events } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const result = llmResult(job);
    expect(result.mode).toBe('existing');
    expect(result.backend_url).toBe(`http://127.0.0.1:${port}`);
    const models = result.mode === 'existing' ? result.models : [];
    expect(models.map((m) => m.name)).toEqual(['gemma:2b', 'llama3.1:8b', 'qwen2.5:7b', 'tinyllama:latest']);
    expect(models.find((m) => m.name === 'llama3.1:8b')).toMatchObject({ family: 'llama', parameter_size: '8.0B' });

    expectInOrder(events, ['job.queued:info', 'job.running:info', 'llmserver.models:started', 'llmserver.models:ok', 'llmserver.warmup:started', 'llmserver.warmup:ok', 'job.succeeded:ok']);
    const warm = events.find((e) => line(e) === 'llmserver.warmup:ok');
    expect(warm?.labels).toMatchObject({ model: 'llama3.1:8b', backend_url: `http://127.0.0.1:${port}` });
    expect(typeof warm?.duration_ms).toBe('number');

    // The model is loaded: /api/ps (through the API's model listing) shows it running.
    const listing = await h.get(`/v1/llm/models?backend_url=${encodeURIComponent(h.ollama.url)}`);
    expect(listing.status).toBe(200);
    expect((listing.body.running_models as { name: string }[]).map((m) => m.name)).toContain('llama3.1:8b');
    expect(h.ollama.callsTo('/api/generate').some((c) => (c.body as { model?: string }).model === 'llama3.1:8b')).toBe(true);
  });

  it('without a model (or with backend_warmup false) it only lists', async () => {
    const before = h.ollama.callsTo('/api/generate').length;
    const id = await submit(h, 'llm-instance', { backend_url: h.ollama.url });
    const { job } = await waitForEnd(h, id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    const id2 = await submit(h, 'llm-instance', { backend_url: h.ollama.url, model: 'qwen2.5:7b', backend_warmup: false });
    expect((await waitForEnd(h, id2)).job.status).toBe('succeeded');
    expect(h.ollama.callsTo('/api/generate').length).toBe(before);
    expect((await getEvents(h, id2)).map(line)).not.toContain('llmserver.warmup:started');
  });

  it('a model that is not installed fails the job with the installed ones named', async () => {
    const id = await submit(h, 'llm-instance', { backend_url: h.ollama.url, model: 'nope:1b' });
    const { job } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(job.error_code).toBe('model_not_found');
    expect(job.error).toContain('nope:1b');
    expect(job.error).toContain('llama3.1:8b');
  });

  it('an unreachable URL fails the job with a message naming the URL', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const id = await submit(h, 'llm-instance', { backend_url: url });
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    expect(job.error).toContain(url);
    expect(job.error_code).toBeTruthy();
    // backend_api auto: the detection is the first call, and the one that fails.
    const failed = events.find((e) => line(e) === 'llmserver.detect:error' || line(e) === 'llmserver.models:error');
    expect(failed?.message).toContain(url);
    expect(events.at(-1)).toMatchObject({ event: 'job.failed', status: 'error' });
  });

  it('the deprecated alias runs the same workflow', async () => {
    const res = await h.post('/v1/jobs/llmserver-instance', { backend_url: h.ollama.url });
    expect(res.status).toBe(202);
    expect(res.headers.deprecation).toBe('true');
    const { job } = await waitForEnd(h, String(res.body.job_id));
    expect(job.kind).toBe('llm-instance');
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(job.result).toMatchObject({ mode: 'existing', backend_url: h.ollama.url });
  });

  it('a URL with a scheme other than http(s) is a 422 at submit time', async () => {
    const res = await h.post('/v1/jobs/llm-instance', { backend_url: 'ftp://x' });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'backend_url' })]);
    expect(String(res.body.detail)).toContain('ftp');
    // Nothing was stored.
    const list = await h.get('/v1/jobs?limit=200');
    expect((list.body.jobs as { request: { backend_url?: string } }[]).some((j) => j.request.backend_url === 'ftp://x')).toBe(false);
  });
});
