import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOCKOUT_THRESHOLD } from '../../src-main/api/auth';
import { TOKENS, json, makeBench, removeDir, waitForStatus, type TestBench } from '../helpers/bench';
import { bodies } from '../helpers/handlers';
import { portOf, rawExchange, type RawResponse } from '../security/raw-http';

/**
 * `GET /v1/jobs/{id}` of a job in memory is answered before fastify (src-main/api/fast-job-read.ts).
 * These requests go over real sockets: inject() enters fastify directly and would never reach it.
 */

const benches: TestBench[] = [];
afterEach(async () => {
  for (const t of benches.splice(0)) {
    await t.close();
    await removeDir(t.dir);
  }
});

async function benchWithJob(): Promise<{ t: TestBench; port: number; jobId: string }> {
  const t = await makeBench({ start: true });
  benches.push(t);
  const res = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm() });
  expect(res.statusCode).toBe(202);
  const jobId = json(res).job_id as string;
  // A finished job does not change between two requests that are compared.
  await waitForStatus(t.bd, jobId, 'succeeded');
  return { t, port: portOf(t.bd.app), jobId };
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return rawExchange(port, `${lines.join('\r\n')}\r\n\r\n`);
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('the fast job read', () => {
  it('answers a job in memory with the very bytes and headers the fastify route gives', async () => {
    const { t, port, jobId } = await benchWithJob();
    const peek = vi.spyOn(t.bd.store, 'peekJob');
    const fast = await get(port, `/v1/jobs/${jobId}`, bearer(TOKENS.default));
    expect(peek).toHaveBeenCalledTimes(1);
    expect(peek.mock.results[0]?.value).toMatchObject({ job_id: jobId });
    // A request with a body (even an empty one) is left to fastify.
    const ordinary = await get(port, `/v1/jobs/${jobId}`, { ...bearer(TOKENS.default), 'Content-Length': '0' });
    expect(peek).toHaveBeenCalledTimes(1);
    expect(fast.status).toBe(200);
    expect(ordinary.status).toBe(200);
    expect(fast.body).toBe(ordinary.body);
    const { date: _fastDate, ...fastHeaders } = fast.headers;
    const { date: _ordinaryDate, ...ordinaryHeaders } = ordinary.headers;
    expect(fastHeaders).toEqual(ordinaryHeaders);
    expect(JSON.parse(fast.body)).toMatchObject({ job_id: jobId, tenant_id: 'default', kind: 'llm-instance' });
  });

  it.each([
    ['no credentials', {}, 401, 'unauthorized'],
    ['a wrong token', bearer('wrong-token-000000'), 401, 'unauthorized'],
    ['another tenant (its own valid token)', { ...bearer(TOKENS.acme), 'X-Tenant-ID': 'acme' }, 404, 'job_not_found'],
    ['a foreign Host (DNS rebinding)', { ...bearer(TOKENS.default), Host: 'evil.example' }, 400, 'forbidden_host'],
    ['another Origin', { ...bearer(TOKENS.default), Origin: 'https://evil.example' }, 403, 'forbidden_origin'],
    ['a cross-site browser load', { ...bearer(TOKENS.default), 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' }, 403, 'forbidden_origin'],
  ] as const)('refuses %s exactly as every other route does', async (_what, headers, status, code) => {
    const { port, jobId } = await benchWithJob();
    const { Host: host, ...rest } = headers as Record<string, string>;
    const res = host
      ? await rawExchange(port, `GET /v1/jobs/${jobId} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n${Object.entries(rest).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`)
      : await get(port, `/v1/jobs/${jobId}`, rest);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(res.body)).toMatchObject({ code });
  });

  it('counts a wrong token once; a blocked address is refused without the right token, and served with it', async () => {
    const { t, port, jobId } = await benchWithJob();
    for (let i = 0; i < LOCKOUT_THRESHOLD - 1; i++) expect((await get(port, `/v1/jobs/${jobId}`, bearer('wrong-token-000000'))).status).toBe(401);
    // Counted twice (once by the fast read, once by fastify) the address would be blocked by now.
    expect((await get(port, `/v1/jobs/${jobId}`, bearer(TOKENS.default))).status).toBe(200);
    expect((await get(port, `/v1/jobs/${jobId}`, bearer('wrong-token-000000'))).status).toBe(401);
    expect(t.bd.auth.blockedFor('127.0.0.1')).toBeGreaterThan(0);
    const blocked = await get(port, `/v1/jobs/${jobId}`, bearer('wrong-token-000001'));
    expect(blocked.status).toBe(401);
    expect(JSON.parse(blocked.body)).toMatchObject({ code: 'auth_blocked' });
    expect((await get(port, `/v1/jobs/${jobId}`, bearer(TOKENS.default))).status).toBe(200);
  });

  it('leaves HEAD, event streams, queries and sub-paths to fastify', async () => {
    const { t, port, jobId } = await benchWithJob();
    const peek = vi.spyOn(t.bd.store, 'peekJob');
    const head = await get(port, `/v1/jobs/${jobId}`, bearer(TOKENS.default), 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const query = await get(port, `/v1/jobs/${jobId}?x=1`, bearer(TOKENS.default));
    expect(query.status).toBe(200);
    const events = await get(port, `/v1/jobs/${jobId}/events`, bearer(TOKENS.default));
    expect(events.status).toBe(200);
    const kind = await get(port, '/v1/jobs/llm-instance', bearer(TOKENS.default));
    expect(kind.status).toBe(405);
    expect(peek).toHaveBeenCalledTimes(1); // only the kind name reached the lookup, and found no job
  });

  it('answers a job that is not in memory through fastify, from its file', async () => {
    const { t, port, jobId } = await benchWithJob();
    vi.spyOn(t.bd.store, 'peekJob').mockReturnValue(undefined);
    const res = await get(port, `/v1/jobs/${jobId}`, bearer(TOKENS.default));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ job_id: jobId });
  });
});
