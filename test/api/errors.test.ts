import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_PATHS, ProblemSchema, problemType, type Problem } from '../../shared';
import { bodies } from '../helpers/handlers';
import { json, makeBench, removeDir, waitForStatus, type TestBench } from '../helpers/bench';

let t: TestBench;

beforeEach(async () => {
  t = await makeBench();
});
afterEach(async () => {
  await t.close();
  await removeDir(t.dir);
});

type Res = { statusCode: number; headers: Record<string, unknown>; body: string };

/** Every error is application/problem+json with type/title/status/detail/error/code and no stack. */
function problem(res: Res, status: number, code: string): Problem {
  expect(res.statusCode, res.body).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = ProblemSchema.parse(JSON.parse(res.body));
  expect(body.status).toBe(status);
  expect(body.code).toBe(code);
  expect(body.error).toBe(body.detail);
  expect(body.type).toBe(problemType(code as Parameters<typeof problemType>[0]));
  expect(body.title).toBeTruthy();
  expect(res.body).not.toMatch(/\bat .+\.(ts|js):\d+/); // no stack frames
  expect(res.body).not.toContain('node_modules');
  return body;
}

const post = (url: string, payload: string | Buffer, contentType = 'application/json', extra: Record<string, string> = {}) =>
  t.req({ method: 'POST', url, payload, headers: { 'content-type': contentType, ...extra } });

describe('error statuses', () => {
  it('400 malformed JSON', async () => {
    const res = await post('/v1/jobs/llm-instance', '{"backend_url": ');
    problem(res, 400, 'invalid_json');
  });

  it('400 empty JSON body', async () => {
    problem(await post('/v1/jobs/llm-instance', ''), 400, 'invalid_json');
  });

  it('400 a JSON value that is not an object (array, string, number, null)', async () => {
    for (const payload of ['[]', '[{"backend_url":"http://ok"}]', '"str"', '42', 'null', 'true']) {
      const p = problem(await post('/v1/jobs/llm-instance', payload), 400, 'bad_request');
      expect(p.detail).toMatch(/JSON object/);
    }
    problem(await post(API_PATHS.estimates, '[1,2]'), 400, 'bad_request');
    expect(t.bd.store.count()).toBe(0);
  });

  it('400 no body at all on a job route', async () => {
    const res = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance' });
    problem(res, 400, 'bad_request');
  });

  it('401 without or with wrong credentials, with WWW-Authenticate: Bearer', async () => {
    const missing = await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true });
    problem(missing, 401, 'unauthorized');
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    const wrong = await t.req({ method: 'GET', url: API_PATHS.jobs, headers: { authorization: 'Bearer nope' } });
    problem(wrong, 401, 'unauthorized');
    expect(wrong.headers['www-authenticate']).toBe('Bearer');
  });

  it('404 unknown route and unknown job', async () => {
    const p = problem(await t.req({ method: 'GET', url: '/v1/nothing-here' }), 404, 'not_found');
    expect(p.detail).toContain('/v1/nothing-here');
    problem(await t.req({ method: 'GET', url: '/' }), 404, 'not_found');
    problem(await t.req({ method: 'GET', url: API_PATHS.job('no-such-job') }), 404, 'job_not_found');
    // (inject normalises dot segments the way a URL parser does: either 404 is right)
    for (const url of ['/v1/jobs/%2E%2E', '/v1/jobs/.']) expect((await t.req({ method: 'GET', url })).statusCode).toBe(404);
    // …and '/v1/jobs/../events' is the all-jobs feed, which answers only clients that accept a stream.
    problem(await t.req({ method: 'GET', url: '/v1/jobs/%2E%2E/events' }), 406, 'not_acceptable');
    problem(await t.req({ method: 'GET', url: `/v1/jobs/${encodeURIComponent('../../etc/passwd')}` }), 404, 'job_not_found');
    problem(await t.req({ method: 'GET', url: `/v1/jobs/${'x'.repeat(100)}` }), 404, 'job_not_found');
    problem(await t.req({ method: 'GET', url: `/v1/jobs/${'x'.repeat(300)}` }), 404, 'not_found');
    problem(await t.req({ method: 'POST', url: `/v1/jobs/${'x'.repeat(300)}/cancel` }), 404, 'not_found');
  });

  it('400 a malformed URL escape', async () => {
    problem(await t.req({ method: 'GET', url: '/v1/jobs/%zz' }), 400, 'bad_request');
    problem(await t.req({ method: 'GET', url: '/v1/jobs/%E0%A4%A' }), 400, 'bad_request');
  });

  it('405 wrong method, with Allow', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/v1/jobs/abc', 'GET'],
      ['PUT', API_PATHS.jobs, 'GET'],
      ['GET', '/v1/jobs/llm-instance/cancel', 'POST'],
      ['GET', API_PATHS.estimates, 'POST'],
      ['POST', API_PATHS.health, 'GET'],
      ['PATCH', '/v1/jobs/abc/events', 'GET'],
    ];
    for (const [method, url, allowed] of cases) {
      const res = await t.req({ method: method as 'GET', url });
      problem(res, 405, 'method_not_allowed');
      expect(String(res.headers.allow).split(', '), `${method} ${url}`).toContain(allowed);
    }
  });

  it('409 cancelling a finished job', async () => {
    const res = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm('ok') });
    const id = json<{ job_id: string }>(res).job_id;
    await waitForStatus(t.bd, id, 'succeeded');
    problem(await t.req({ method: 'POST', url: API_PATHS.jobCancel(id) }), 409, 'job_not_cancellable');
  });

  it('413 body over 1 MiB (declared or streamed)', async () => {
    const big = JSON.stringify({ backend_url: 'http://ok', pad: 'x'.repeat(1024 * 1024 + 10) });
    problem(await post('/v1/jobs/llm-instance', big), 413, 'payload_too_large');
    problem(await post(API_PATHS.estimates, big), 413, 'payload_too_large');
    expect(t.bd.store.count()).toBe(0);
  });

  it('415 a POST body that is not JSON', async () => {
    problem(await post('/v1/jobs/llm-instance', 'backend_url=http://ok', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
    problem(await post('/v1/jobs/llm-instance', '{"backend_url":"http://ok"}', 'text/plain'), 415, 'unsupported_media_type');
    problem(await post('/v1/jobs/llm-instance', '<a/>', 'application/xml'), 415, 'unsupported_media_type');
    problem(await post(API_PATHS.estimates, 'x', 'text/plain'), 415, 'unsupported_media_type');
    expect(t.bd.store.count()).toBe(0);
  });

  it('422 validation: unknown fields are named, types are checked as sent', async () => {
    const unknown = problem(await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: { backend_url: 'http://ok', colour: 'red', size: 2 } }), 422, 'validation_failed');
    expect(unknown.detail).toContain('colour');
    expect(unknown.errors?.some((e) => e.message.includes('colour') && e.message.includes('size'))).toBe(true);

    const wrongType = problem(await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: { backend_url: 'http://ok', backend_warmup: 'true' } }), 422, 'validation_failed');
    expect(wrongType.errors).toEqual([expect.objectContaining({ path: 'backend_warmup' })]);

    const marketplace = problem(await t.req({ method: 'POST', url: '/v1/jobs/benchmark', payload: { question: 'q', model: 'm', marketplace: 'yes' } }), 422, 'validation_failed');
    expect(marketplace.errors?.map((e) => e.path)).toContain('marketplace');

    const missing = problem(await t.req({ method: 'POST', url: '/v1/jobs/agentic-agent', payload: { question: 'q' } }), 422, 'validation_failed');
    expect(missing.errors?.map((e) => e.path).sort()).toEqual(['agent', 'backend_url', 'model']);

    const range = problem(await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: { marketplace: true, template_hash: 't', max_dph: 1, model: 'm', reliability: 99 } }), 422, 'validation_failed');
    expect(range.errors?.map((e) => e.path)).toEqual(['reliability']);

    const numberAsString = problem(await t.req({ method: 'POST', url: API_PATHS.estimates, payload: { max_dph: '1.5' } }), 422, 'validation_failed');
    expect(numberAsString.errors?.map((e) => e.path)).toEqual(['max_dph']);
    expect(t.bd.store.count()).toBe(0);
  });

  it('422 an Idempotency-Key reused with another body; 400 a malformed key', async () => {
    const first = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm('ok'), headers: { 'idempotency-key': 'k1' } });
    expect(first.statusCode).toBe(202);
    problem(await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm('fail'), headers: { 'idempotency-key': 'k1' } }), 422, 'idempotency_key_reused');
    problem(await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm('ok'), headers: { 'idempotency-key': 'has spaces' } }), 400, 'bad_request');
    problem(await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm('ok'), headers: { 'idempotency-key': 'x'.repeat(300) } }), 400, 'bad_request');
  });
});

describe('awkward bodies', () => {
  it('deeply nested JSON is a 4xx, never a 500', async () => {
    const depth = 100_000;
    const nestedArrays = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const nestedObjects = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    for (const payload of [
      nestedArrays,
      nestedObjects,
      `{"backend_url":"http://ok","extra":${nestedObjects}}`,
      `{"backend_url":${nestedArrays}}`,
      `{"question":${nestedObjects},"model":"m","agent":"builtin","backend_url":"x"}`,
    ]) {
      expect(payload.length).toBeLessThan(1024 * 1024);
      for (const url of ['/v1/jobs/llm-instance', '/v1/jobs/agentic-agent', API_PATHS.estimates]) {
        const res = await post(url, payload);
        expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode).toBeLessThan(500);
        expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      }
    }
    expect(t.bd.store.count()).toBe(0);
    expect((await t.req({ method: 'GET', url: API_PATHS.health })).statusCode).toBe(200);
  });

  it('__proto__ and constructor keys are rejected, not merged', async () => {
    const res = await post('/v1/jobs/llm-instance', '{"backend_url":"http://ok","__proto__":{"admin":true}}');
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    const res2 = await post('/v1/jobs/llm-instance', '{"backend_url":"http://ok","constructor":{"prototype":{"x":1}}}');
    expect(res2.statusCode).toBeGreaterThanOrEqual(400);
    expect(res2.statusCode).toBeLessThan(500);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('unicode is accepted and round-tripped in the stored request', async () => {
    const question = 'ok — Warum stürzt der Pod ab? 为什么 🚀 \u{1F9EA} ZWJ:\u200d RTL:\u202e end';
    const res = await t.req({ method: 'POST', url: '/v1/jobs/agentic-agent', payload: { ...bodies.agent(), question } });
    expect(res.statusCode, res.body).toBe(202);
    const id = json<{ job_id: string }>(res).job_id;
    await waitForStatus(t.bd, id, 'succeeded');
    const got = json<{ request: { question: string } }>(await t.req({ method: 'GET', url: API_PATHS.job(id) }));
    expect(got.request.question).toBe(question);
    // also after a reopen of the store (what is on disk)
    const dir = t.dir;
    await t.close();
    t = await makeBench({ dir });
    expect((await t.bd.store.getJob(id))?.request.question).toBe(question);
  });

  it('a body sent with a charset and odd casing of the media type is still JSON', async () => {
    const res = await post('/v1/jobs/llm-instance', JSON.stringify(bodies.llm('ok')), 'Application/JSON; charset=utf-8');
    expect(res.statusCode, res.body).toBe(202);
  });
});

describe('Host and Origin guards, no CORS', () => {
  it('accepts loopback Host names with ports', async () => {
    for (const host of ['127.0.0.1', '127.0.0.1:8080', 'localhost', 'localhost:1234', 'LOCALHOST:1', '[::1]', '[::1]:8080']) {
      const res = await t.req({ method: 'GET', url: API_PATHS.jobs, headers: { host } });
      expect(res.statusCode, host).toBe(200);
    }
  });

  it('refuses other Host names (DNS rebinding) with 400 forbidden_host, even on /healthz', async () => {
    for (const host of ['evil.example', 'evil.example:8080', '127.0.0.1.nip.io', 'localhost.evil.example', '0.0.0.0:8080', '10.0.0.1', '[::2]:8080']) {
      problem(await t.req({ method: 'GET', url: API_PATHS.jobs, headers: { host } }), 400, 'forbidden_host');
      problem(await t.req({ method: 'GET', url: API_PATHS.health, headers: { host }, noAuth: true }), 400, 'forbidden_host');
    }
  });

  it('refuses a browser Origin other than the server\'s own, and sends no CORS headers', async () => {
    for (const origin of ['https://evil.example', 'null', 'http://localhost:3000', 'http://127.0.0.1:9']) {
      const res = await t.req({ method: 'GET', url: API_PATHS.jobs, headers: { host: '127.0.0.1:8080', origin } });
      problem(res, 403, 'forbidden_origin');
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      const post = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm('ok'), headers: { host: '127.0.0.1:8080', origin } });
      problem(post, 403, 'forbidden_origin');
    }
    expect(t.bd.store.count()).toBe(0);
    const same = await t.req({ method: 'GET', url: API_PATHS.jobs, headers: { host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' } });
    expect(same.statusCode).toBe(200);
    expect(Object.keys(same.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('a CORS preflight gets no CORS headers', async () => {
    const res = await t.req({
      method: 'OPTIONS',
      url: '/v1/jobs/llm-instance',
      headers: { host: '127.0.0.1:8080', origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      noAuth: true,
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });
});
