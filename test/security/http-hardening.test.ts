import { afterEach, describe, expect, it } from 'vitest';
import { API_PATHS } from '../../shared';
import { bodies } from '../helpers/handlers';
import { TOKENS, json, makeBench, removeDir, waitFor, type BenchOptions, type TestBench } from '../helpers/bench';
import { openSocket, parseResponse, portOf, rawExchange } from './raw-http';

/**
 * Issue 14 items 1 and 5: sockets with stalled bodies are closed, unauthenticated bodies are not
 * read, one address cannot hold every connection, and HTTP-level errors are problem+json too.
 * Everything talks to a real listening server on 127.0.0.1 through raw sockets.
 */

const benches: TestBench[] = [];
async function server(limits: NonNullable<BenchOptions['extra']>['httpLimits'] = {}, sseHeartbeatMs?: number): Promise<{ t: TestBench; port: number }> {
  const t = await makeBench({ start: true, extra: { httpLimits: limits }, ...(sseHeartbeatMs ? { sseHeartbeatMs } : {}) });
  benches.push(t);
  return { t, port: portOf(t.bd.app) };
}
afterEach(async () => {
  for (const t of benches.splice(0)) {
    await t.close();
    await removeDir(t.dir);
  }
});

const AUTH = `Authorization: Bearer ${TOKENS.default}\r\n`;
const host = (port: number) => `Host: 127.0.0.1:${port}\r\n`;

function expectProblem(res: { status: number; headers: Record<string, string>; body: string }, status: number, code?: string): Record<string, unknown> {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body).toMatchObject({ status, type: expect.stringMatching(/^https:\/\//), title: expect.any(String), detail: expect.any(String) });
  if (code) expect(body.code).toBe(code);
  return body;
}

describe('stalled request bodies', () => {
  it('a trickled body is cut off at the request timeout with a 408 problem', async () => {
    const { port } = await server({ requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 });
    const s = await openSocket(port);
    s.socket.write(`POST /v1/jobs/llm-instance HTTP/1.1\r\n${host(port)}${AUTH}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"backend_url":`);
    const trickle = setInterval(() => s.socket.writable && s.socket.write(' '), 100);
    try {
      // Without a request timeout the socket stays open for as long as the client trickles.
      expect(await s.closedWithin(10_000)).toBe(true);
    } finally {
      clearInterval(trickle);
      s.close();
    }
    expectProblem(parseResponse(s.received()), 408, 'request_timeout');
  });

  it('a chunked body that never ends is cut off too', async () => {
    const { port } = await server({ requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 });
    const s = await openSocket(port);
    s.socket.write(`POST /v1/jobs/llm-instance HTTP/1.1\r\n${host(port)}${AUTH}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"b\r\n`);
    expect(await s.closedWithin(10_000)).toBe(true);
    s.close();
    expectProblem(parseResponse(s.received()), 408, 'request_timeout');
  });

  it('headers that never finish are cut off too', async () => {
    const { port } = await server({ requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 });
    const s = await openSocket(port);
    s.socket.write(`GET /v1/jobs HTTP/1.1\r\n${host(port)}X-Slow: `);
    const trickle = setInterval(() => s.socket.writable && s.socket.write('a'), 100);
    try {
      expect(await s.closedWithin(10_000)).toBe(true);
    } finally {
      clearInterval(trickle);
      s.close();
    }
    expectProblem(parseResponse(s.received()), 408, 'request_timeout');
  });

  it('a live SSE stream is a finished request: the request timeout does not cut it', async () => {
    const { port } = await server({ requestTimeoutMs: 500, headersTimeoutMs: 500 }, 100);
    const s = await openSocket(port);
    s.socket.write(`GET /v1/events HTTP/1.1\r\n${host(port)}${AUTH}Accept: text/event-stream\r\n\r\n`);
    // Several request timeouts long: still open, heartbeats still arriving.
    expect(await s.closedWithin(2_000)).toBe(false);
    const before = s.received().length;
    await waitFor(() => s.received().length > before, 'another heartbeat');
    s.close();
    expect(s.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(s.received()).toMatch(/text\/event-stream/);
  });

  it('an unauthenticated request gets its 401 and the socket is closed without waiting for the body', async () => {
    // A long request timeout: only the 401 path can close this socket within the bound below.
    const { t, port } = await server({ requestTimeoutMs: 60_000, headersTimeoutMs: 60_000 });
    const s = await openSocket(port);
    s.socket.write(`POST /v1/jobs/llm-instance HTTP/1.1\r\n${host(port)}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":`);
    expect(await s.closedWithin(5_000)).toBe(true);
    s.close();
    const res = parseResponse(s.received());
    expectProblem(res, 401, 'unauthorized');
    expect(res.headers.connection).toBe('close');
    expect(t.bd.store.count()).toBe(0);
  });

  it('caps open connections per address: when every one is an authenticated stream, a new request is a 503 problem, /healthz has a reserved place, and there is room again once one closes', async () => {
    const { t, port } = await server({ maxConnectionsPerIp: 4, maxConnectionsPerTenant: 2, healthReserve: 1 });
    const streamOf = (tenant: 'default' | 'acme') => `GET /v1/events HTTP/1.1\r\n${host(port)}Authorization: Bearer ${TOKENS[tenant]}\r\nX-Tenant-ID: ${tenant}\r\nAccept: text/event-stream\r\n\r\n`;
    const held = await Promise.all(Array.from({ length: 4 }, () => openSocket(port)));
    // Live streams of clients with a token, two tenants at their share each: busy, authenticated connections are never pushed out.
    held.forEach((s, i) => s.socket.write(streamOf(i < 2 ? 'default' : 'acme')));
    await waitFor(() => t.bd.app.eventStreams.openCount === 4, 'the four streams to open');
    const refused = await rawExchange(port, `GET /v1/jobs HTTP/1.1\r\n${host(port)}${AUTH}\r\n`);
    expect(refused.closed).toBe(true);
    expectProblem(refused, 503, 'too_many_connections');
    const health = await rawExchange(port, `GET /healthz HTTP/1.1\r\n${host(port)}Connection: close\r\n\r\n`);
    expect(health.status).toBe(200);

    held[0]?.close();
    const ok = await waitFor(async () => {
      const res = await rawExchange(port, `GET /v1/jobs HTTP/1.1\r\n${host(port)}${AUTH}Connection: close\r\n\r\n`);
      return res.status === 200 ? res : undefined;
    }, 'a free connection slot');
    expect(JSON.parse(ok.body)).toMatchObject({ jobs: [] });
    for (const s of held) s.close();
  });
});

describe('HTTP-level errors are problem+json', () => {
  it('an unknown method: 405 naming the methods of a path that exists, 404 for one that does not, 400 for garbage', async () => {
    const { port } = await server();
    const res = await rawExchange(port, `FOO / HTTP/1.1\r\n${host(port)}\r\n`);
    expectProblem(res, 404, 'not_found');
    expect(res.closed).toBe(true);
    const known = await rawExchange(port, `QUERY /v1/jobs HTTP/1.1\r\n${host(port)}${AUTH}\r\n`);
    expectProblem(known, 405, 'method_not_allowed');
    expect(known.headers.allow).toBe('GET, HEAD');
    const garbage = await rawExchange(port, `G\u0001T /v1/jobs HTTP/1.1\r\n${host(port)}\r\n`);
    expectProblem(garbage, 400, 'bad_request');
    expect(JSON.parse(garbage.body).detail).toMatch(/unknown HTTP method|malformed/);
  });

  it('Content-Length together with Transfer-Encoding', async () => {
    const { t, port } = await server();
    const res = await rawExchange(port, `POST /v1/jobs/llm-instance HTTP/1.1\r\n${host(port)}${AUTH}Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    expectProblem(res, 400, 'bad_request');
    expect(t.bd.store.count()).toBe(0);
  });

  it('a missing Host', async () => {
    const { port } = await server();
    expectProblem(await rawExchange(port, `GET /healthz HTTP/1.1\r\n\r\n`), 400, 'forbidden_host');
    expectProblem(await rawExchange(port, `GET /v1/jobs HTTP/1.1\r\n${AUTH}\r\n`), 400, 'forbidden_host');
  });

  it('a duplicate Host header is a 400', async () => {
    const { port } = await server();
    const res = await rawExchange(port, `GET /v1/jobs HTTP/1.1\r\n${host(port)}Host: 127.0.0.1:${port}\r\n${AUTH}\r\n`);
    expectProblem(res, 400, 'bad_request');
    const mixed = await rawExchange(port, `GET /v1/jobs HTTP/1.1\r\n${host(port)}Host: evil.example\r\n${AUTH}\r\n`);
    expectProblem(mixed, 400, 'bad_request');
  });

  it('an absolute-form URI naming another host is a 400', async () => {
    const { port } = await server();
    const res = await rawExchange(port, `GET http://evil.example/v1/jobs HTTP/1.1\r\n${host(port)}${AUTH}\r\n`);
    expectProblem(res, 400, 'forbidden_host');
    const mangled = await rawExchange(port, `GET http://[bad/v1/jobs HTTP/1.1\r\n${host(port)}${AUTH}Connection: close\r\n\r\n`);
    expect(mangled.status).toBe(400);
  });

  it('HEAD on a submit path is a 405 naming POST, not a 404', async () => {
    const { t } = await server();
    for (const kind of ['llm-instance', 'benchmark', 'agentic-agent']) {
      const head = await t.req({ method: 'HEAD', url: `/v1/jobs/${kind}` });
      expect(head.statusCode, kind).toBe(405);
      expect(head.headers.allow).toContain('POST');
      const get = await t.req({ method: 'GET', url: `/v1/jobs/${kind}` });
      expect(get.statusCode).toBe(405);
      expect(json(get).code).toBe('method_not_allowed');
    }
  });

  it("metrics for another tenant's job id are a 404, like the job itself", async () => {
    const { t } = await server();
    const created = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm('ok') });
    expect(created.statusCode).toBe(202);
    const id = json<{ job_id: string }>(created).job_id;
    const own = await t.req({ method: 'GET', url: `${API_PATHS.metricsSummary}?job_id=${id}` });
    expect(own.statusCode).toBe(200);
    const foreign = await t.req({ method: 'GET', url: `${API_PATHS.metricsSummary}?job_id=${id}`, tenant: 'acme' });
    expect(foreign.statusCode).toBe(404);
    expect(json(foreign).code).toBe('job_not_found');
    const missing = await t.req({ method: 'GET', url: `${API_PATHS.metricsSummary}?job_id=no-such-job` });
    expect(missing.statusCode).toBe(404);
  });
});
