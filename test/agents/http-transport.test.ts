import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../src-main/agents/errors';
import { HttpDriverTransport } from '../../src-main/agents/http-transport';

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
let handler: Handler = () => {};
const seen: { method: string; url: string; headers: http.IncomingHttpHeaders }[] = [];
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const json = (res: http.ServerResponse, code: number, body: unknown): void => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function failure(p: Promise<unknown>): Promise<AgentError> {
  const err = await p.then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AgentError);
  return err as AgentError;
}

describe('HttpDriverTransport', () => {
  it('posts the action with auth headers and returns the job result', async () => {
    handler = (req, body, res) => {
      if (req.method === 'POST') return json(res, 202, { job_id: 'j/1', echo: JSON.parse(body) });
      return json(res, 200, { status: 'completed', result: { name: 'remote', version: '2', actions: ['ask'] } });
    };
    seen.length = 0;
    const t = new HttpDriverTransport({ url, token: 'tok', tenant: 'acme', pollIntervalMs: 50 });
    expect(await t.call('info', {})).toEqual({ name: 'remote', version: '2', actions: ['ask'] });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/actions/info' });
    expect(seen[0]?.headers).toMatchObject({ authorization: 'Bearer tok', 'x-api-key': 'tok', 'x-tenant-id': 'acme' });
    expect(seen[1]?.url).toBe('/v1/jobs/j%2F1');
  });

  it('a failed job carries its error', async () => {
    handler = (req, _b, res) => (req.method === 'POST' ? json(res, 200, { job_id: 'j2' }) : json(res, 200, { status: 'failed', error: 'no GPU' }));
    const err = await failure(new HttpDriverTransport({ url, pollIntervalMs: 20 }).call('ask', {}));
    expect(err.code).toBe('driver_error');
    expect(err.message).toMatch(/reported job failed: no GPU/);
  });

  it('HTTP errors, non-JSON and wrong shapes are clear', async () => {
    handler = (_r, _b, res) => json(res, 500, { detail: 'boom' });
    expect((await failure(new HttpDriverTransport({ url }).call('ask', {}))).message).toMatch(/answered HTTP 500 to POST \/v1\/actions\/ask: \{"detail":"boom"\}/);
    handler = (_r, _b, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>');
    };
    expect((await failure(new HttpDriverTransport({ url }).call('ask', {}))).code).toBe('invalid_json');
    handler = (_r, _b, res) => json(res, 200, { id: 'no job_id' });
    expect((await failure(new HttpDriverTransport({ url }).call('ask', {}))).code).toBe('invalid_response');
    handler = (_r, _b, res) => json(res, 200, { job_id: 'x', pad: 'x'.repeat(5000) });
    expect((await failure(new HttpDriverTransport({ url, maxResponseBytes: 1000 }).call('ask', {}))).code).toBe('output_too_large');
  });

  it('times out and passes a cancel on to the sidecar', async () => {
    handler = (req, _b, res) => (req.method === 'POST' && req.url?.endsWith('/cancel') ? json(res, 202, {}) : req.method === 'POST' ? json(res, 200, { job_id: 'slow' }) : json(res, 200, { status: 'running' }));
    seen.length = 0;
    const err = await failure(new HttpDriverTransport({ url, timeoutMs: 300, pollIntervalMs: 50 }).call('ask', {}));
    expect(err.code).toBe('timeout');
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.some((s) => s.url === '/v1/jobs/slow/cancel')).toBe(true);

    const controller = new AbortController();
    const p = new HttpDriverTransport({ url, pollIntervalMs: 50 }).call('ask', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 150);
    expect((await failure(p)).code).toBe('cancelled');
  });

  it('an unreachable sidecar and a bad URL', async () => {
    const err = await failure(new HttpDriverTransport({ url: 'http://127.0.0.1:9' }).call('ask', {}));
    expect(err.code).toBe('http');
    expect(err.message).toMatch(/is unreachable/);
    expect(() => new HttpDriverTransport({ url: 'ftp://x' })).toThrow(/must be http/);
  });
});
