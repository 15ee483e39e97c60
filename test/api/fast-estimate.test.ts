import { afterEach, describe, expect, it } from 'vitest';
import { LOCKOUT_THRESHOLD } from '../../src-main/api/auth';
import { BODY_LIMIT_BYTES } from '../../src-main/api/server';
import { ProblemError } from '../../src-main/app/problem-error';
import { TOKENS, makeBench, removeDir, stubEstimate, stubProviders, type TestBench } from '../helpers/bench';
import { openSocket, parseResponse, portOf, rawExchange, type RawResponse } from '../security/raw-http';

/**
 * `POST /v1/estimates` with an ordinary JSON body is answered before fastify
 * (src-main/api/fast-estimate.ts). These requests go over real sockets: inject() enters fastify
 * directly, so it gives the answer of the fastify route to compare with.
 */

const benches: TestBench[] = [];
afterEach(async () => {
  for (const t of benches.splice(0)) {
    await t.close();
    await removeDir(t.dir);
  }
});

type EstimateCall = { viaFastLane: boolean };

/** A bench whose estimate provider notes, for every call, whether the fast lane made it (from the call stack). */
async function estimateBench(estimate: () => Promise<typeof stubEstimate> = async () => stubEstimate): Promise<{ t: TestBench; port: number; calls: EstimateCall[] }> {
  const calls: EstimateCall[] = [];
  const providers = {
    ...stubProviders(),
    estimate: () => {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 50;
      const stack = new Error().stack ?? '';
      Error.stackTraceLimit = limit;
      calls.push({ viaFastLane: /src-main[/\\]api[/\\]fast-estimate\.ts/.test(stack) });
      return estimate();
    },
  };
  const t = await makeBench({ start: true, extra: { providers } });
  benches.push(t);
  return { t, port: portOf(t.bd.app), calls };
}

function post(port: number, body: string, headers: Record<string, string> = {}, path = '/v1/estimates'): Promise<RawResponse> {
  const all: Record<string, string> = { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers };
  const lines = [`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', ...Object.entries(all).map(([k, v]) => `${k}: ${v}`)];
  return rawExchange(port, `${lines.join('\r\n')}\r\n\r\n${body}`);
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The answer of the fastify route for the same body. */
async function viaFastify(t: TestBench, body: string): Promise<{ status: number; contentType: string; body: string }> {
  const res = await t.req({ method: 'POST', url: '/v1/estimates', headers: { 'content-type': 'application/json' }, payload: body });
  return { status: res.statusCode, contentType: String(res.headers['content-type']), body: res.body };
}

function answerOf(res: RawResponse): { status: number; contentType: string; body: string } {
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  return { status: res.status, contentType: res.headers['content-type'] ?? '', body: res.body };
}

describe('the fast estimate', () => {
  it('answers with the bytes and headers of the fastify route, through the same handler', async () => {
    const { t, port, calls } = await estimateBench();
    const body = JSON.stringify({ marketplace: false, estimated_duration_seconds: 7200 });
    const fast = await post(port, body, bearer(TOKENS.default));
    expect(calls).toEqual([{ viaFastLane: true }]);
    expect(answerOf(fast)).toEqual(await viaFastify(t, body));
    expect(calls[1]).toEqual({ viaFastLane: false });
    expect(fast.status).toBe(200);
    expect(JSON.parse(fast.body)).toEqual(stubEstimate);
    // The same with a charset parameter, and over a kept-alive connection as scripts send it.
    expect(answerOf(await post(port, body, { ...bearer(TOKENS.default), 'Content-Type': 'application/json; charset=utf-8' }))).toEqual(answerOf(fast));
    expect(calls[2]).toEqual({ viaFastLane: true });
  });

  it.each([
    ['broken JSON', '{"marketplace":', 400, 'invalid_json'],
    ['a __proto__ key', '{"__proto__":{"x":1}}', 400, 'bad_request'],
    ['an array', '[1,2]', 400, 'bad_request'],
    ['null', 'null', 400, 'bad_request'],
    ['an unknown field', '{"marketplace":false,"colour":"red"}', 422, 'validation_failed'],
    ['max_dph below min_dph', '{"min_dph":2,"max_dph":1}', 422, 'validation_failed'],
  ] as const)('answers %s with the problem fastify gives', async (_what, body, status, code) => {
    const { t, port, calls } = await estimateBench();
    const fast = await post(port, body, bearer(TOKENS.default));
    expect(answerOf(fast)).toEqual(await viaFastify(t, body));
    expect(fast.status).toBe(status);
    expect(fast.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(fast.body)).toMatchObject({ code });
    expect(calls).toEqual([]); // refused before the provider
  });

  it('answers the provider’s problems and unexpected errors as the fastify route does', async () => {
    const upstream = new ProblemError(502, 'upstream_error', 'Vast.ai answered 500');
    const { t, port, calls } = await estimateBench(() => Promise.reject(upstream));
    const body = '{"marketplace":true}';
    const fast = await post(port, body, bearer(TOKENS.default));
    expect(fast.status).toBe(502);
    expect(answerOf(fast)).toEqual(await viaFastify(t, body));
    expect(calls.map((c) => c.viaFastLane)).toEqual([true, false]);

    const crash = await estimateBench(() => Promise.reject(new TypeError('boom: secret detail')));
    const crashed = await post(crash.port, body, bearer(TOKENS.default));
    expect(crashed.status).toBe(500);
    expect(crashed.body).not.toContain('secret');
    expect(answerOf(crashed)).toEqual(await viaFastify(crash.t, body));
    expect(crash.calls.map((c) => c.viaFastLane)).toEqual([true, false]);
  });

  it('decodes UTF-8 split across TCP packets as fastify does', async () => {
    const { t, port, calls } = await estimateBench();
    const body = Buffer.from('{"marketplace":false,"café":1}');
    const split = body.indexOf(Buffer.from('é')) + 1; // between the two bytes of é
    const s = await openSocket(port);
    s.socket.write(`POST /v1/estimates HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nAuthorization: Bearer ${TOKENS.default}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    s.socket.write(body.subarray(0, split));
    await new Promise((r) => setTimeout(r, 50));
    s.socket.write(body.subarray(split));
    expect(await s.closedWithin(5_000)).toBe(true);
    // The socket data is read as latin1: turn it back into the UTF-8 text it is.
    const fast = parseResponse(Buffer.from(s.received(), 'latin1').toString('utf8'));
    expect(fast.status).toBe(422);
    expect(fast.body).toContain('café');
    expect({ status: fast.status, contentType: fast.headers['content-type'], body: fast.body }).toEqual(await viaFastify(t, body.toString()));
    expect(calls).toEqual([]);
  });

  it.each([
    ['no credentials', '{}', {}, 401],
    ['a text/plain body', '{}', { ...bearer(TOKENS.default), 'Content-Type': 'text/plain' }, 415],
    ['an empty body', '', { ...bearer(TOKENS.default) }, 400],
    ['a declared size over the limit', '{}', { ...bearer(TOKENS.default), 'Content-Length': String(BODY_LIMIT_BYTES + 1) }, 413],
  ] as const)('leaves %s to fastify', async (_what, body, headers, status) => {
    const { port, calls } = await estimateBench();
    const res = await post(port, body, headers);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(calls).toEqual([]);
  });

  it('leaves a query string and a chunked body to fastify', async () => {
    const { port, calls } = await estimateBench();
    expect((await post(port, '{}', bearer(TOKENS.default), '/v1/estimates?verbose=1')).status).toBe(200);
    const chunked = await rawExchange(
      port,
      `POST /v1/estimates HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nAuthorization: Bearer ${TOKENS.default}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(200);
    expect(calls).toEqual([{ viaFastLane: false }, { viaFastLane: false }]);
  });

  it('counts a wrong token once toward the lockout', async () => {
    const { t, port } = await estimateBench();
    for (let i = 0; i < LOCKOUT_THRESHOLD - 1; i++) expect((await post(port, '{}', bearer('wrong-token-000000'))).status).toBe(401);
    // Counted twice (once by the fast lane, once by fastify) the address would be blocked by now.
    expect((await post(port, '{}', bearer(TOKENS.default))).status).toBe(200);
    expect((await post(port, '{}', bearer('wrong-token-000000'))).status).toBe(401);
    expect(t.bd.auth.blockedFor('127.0.0.1')).toBeGreaterThan(0);
  });
});
