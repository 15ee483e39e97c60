import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { API_PATHS, JobListResponseSchema, MetricsSummarySchema } from '../../shared';
import { LOCKOUT_THRESHOLD, LOCKOUT_WINDOW_MS } from '../../src-main/api/auth';
import { bodies } from '../helpers/handlers';
import { TOKENS, json, makeBench, removeDir, waitForStatus, type TestBench } from '../helpers/bench';

const benches: TestBench[] = [];
async function bench(...args: Parameters<typeof makeBench>): Promise<TestBench> {
  const t = await makeBench(...args);
  benches.push(t);
  return t;
}
afterEach(async () => {
  for (const t of benches.splice(0)) {
    await t.close();
    await removeDir(t.dir);
  }
});

describe('credentials', () => {
  it('accepts Authorization: Bearer and X-API-Key, for the tenant named by X-Tenant-ID', async () => {
    const t = await bench();
    const jobs = API_PATHS.jobs;
    expect((await t.req({ method: 'GET', url: jobs })).statusCode).toBe(200);
    expect((await t.req({ method: 'GET', url: jobs, noAuth: true, headers: { 'x-api-key': TOKENS.default } })).statusCode).toBe(200);
    expect((await t.req({ method: 'GET', url: jobs, noAuth: true, headers: { authorization: `bearer   ${TOKENS.default}  ` } })).statusCode).toBe(200);
    expect((await t.req({ method: 'GET', url: jobs, tenant: 'acme' })).statusCode).toBe(200);
    expect((await t.req({ method: 'GET', url: jobs, noAuth: true, headers: { 'x-api-key': TOKENS.acme, 'x-tenant-id': 'acme' } })).statusCode).toBe(200);
    // the pair must match: acme's token for tenant default, default's token for acme, unknown tenant
    const cases: Record<string, string>[] = [
      { authorization: `Bearer ${TOKENS.acme}` },
      { authorization: `Bearer ${TOKENS.default}`, 'x-tenant-id': 'acme' },
      { authorization: `Bearer ${TOKENS.default}`, 'x-tenant-id': 'nobody' },
      { authorization: `Basic ${Buffer.from(`x:${TOKENS.default}`).toString('base64')}` },
      { authorization: `Bearer ${TOKENS.default}x` },
    ];
    for (const headers of cases) {
      const res = await t.req({ method: 'GET', url: jobs, noAuth: true, headers, remoteAddress: '10.9.9.9' });
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('never echoes a token in error bodies', async () => {
    const t = await bench();
    const wrong = 'wrong-secret-token-7f3a';
    const responses = [
      await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, headers: { authorization: `Bearer ${wrong}` } }),
      await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, headers: { 'x-api-key': wrong, 'x-tenant-id': 'acme' } }),
      await t.req({ method: 'GET', url: '/v1/nope' }),
      await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: { x: 1 } }),
    ];
    for (const res of responses) {
      expect(res.body).not.toContain(wrong);
      expect(res.body).not.toContain(TOKENS.default);
      expect(JSON.stringify(res.headers)).not.toContain(TOKENS.default);
    }
  });
});

describe('failed-attempt lockout', () => {
  it('the 10th failure is a normal 401; then requests without a valid token are auth_blocked, and one with a valid token is served (issue 34 item 5)', async () => {
    const t = await bench();
    const ip = '10.1.2.3';
    for (let i = 1; i <= LOCKOUT_THRESHOLD; i++) {
      const res = await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, headers: i % 2 ? { authorization: 'Bearer bad' } : {}, remoteAddress: ip });
      expect(res.statusCode).toBe(401);
      expect(json(res).code, `attempt ${i}`).toBe('unauthorized');
      expect(res.headers['retry-after']).toBeUndefined();
      t.clock.advance(1000);
    }
    const blocked = await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, remoteAddress: ip });
    expect(blocked.statusCode).toBe(401);
    expect(json(blocked)).toMatchObject({ code: 'auth_blocked', status: 401 });
    expect(blocked.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(blocked.headers['www-authenticate']).toBe('Bearer');
    // first failure at t0, now t0+10 s: the block lifts at t0+60 s
    expect(blocked.headers['retry-after']).toBe('50');
    // Ten bad requests from a local program never lock out a client with a valid token.
    expect((await t.req({ method: 'GET', url: API_PATHS.jobs, remoteAddress: ip })).statusCode).toBe(200);

    // every route but /healthz, including unknown ones and POSTs, for a wrong token or none
    for (const [method, url] of [['POST', '/v1/jobs/llm-instance'], ['GET', '/v1/unknown'], ['GET', '/v1/settings']] as const) {
      const res = await t.req({ method, url, noAuth: true, remoteAddress: ip, ...(method === 'POST' ? { payload: bodies.llm() } : {}) });
      expect(json(res).code, url).toBe('auth_blocked');
    }
    const wrong = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', noAuth: true, headers: { authorization: 'Bearer still-guessing' }, payload: bodies.llm(), remoteAddress: ip });
    expect(json(wrong).code).toBe('auth_blocked');
    expect(t.bd.store.count()).toBe(0);
    const health = await t.req({ method: 'GET', url: API_PATHS.health, noAuth: true, remoteAddress: ip });
    expect(health.statusCode).toBe(200);
    // another address is not affected
    expect((await t.req({ method: 'GET', url: API_PATHS.jobs, remoteAddress: '10.1.2.4' })).statusCode).toBe(200);

    // A wrong token while blocked is a guess: it keeps the block going (the last ten guesses decide)…
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++) await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, headers: { authorization: `Bearer guess-${i}` }, remoteAddress: ip });
    t.clock.advance(LOCKOUT_WINDOW_MS - 1);
    expect(json(await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, remoteAddress: ip })).code).toBe('auth_blocked');
    // …requests without a token are not counted: once the guesses age out, the block lifts.
    t.clock.advance(1);
    const after = await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, remoteAddress: ip });
    expect(json(after).code).toBe('unauthorized');
  });

  it('9 failures do not block; failures older than 60 s fall out of the window', async () => {
    const t = await bench();
    const ip = '10.4.4.4';
    for (let i = 0; i < LOCKOUT_THRESHOLD - 1; i++) await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, remoteAddress: ip });
    expect((await t.req({ method: 'GET', url: API_PATHS.jobs, remoteAddress: ip })).statusCode).toBe(200);
    t.clock.advance(LOCKOUT_WINDOW_MS);
    for (let i = 0; i < LOCKOUT_THRESHOLD - 1; i++) await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, remoteAddress: ip });
    expect((await t.req({ method: 'GET', url: API_PATHS.jobs, remoteAddress: ip })).statusCode).toBe(200);
    await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, remoteAddress: ip });
    expect(json(await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, remoteAddress: ip })).code).toBe('auth_blocked');
  });

  it('is enforced over a real socket too', async () => {
    const t = await bench({ start: true });
    const base = `http://127.0.0.1:${(t.bd.app.server.address() as { port: number }).port}`;
    for (let i = 0; i < LOCKOUT_THRESHOLD; i++) expect((await fetch(`${base}${API_PATHS.jobs}`, { headers: { authorization: 'Bearer x' } })).status).toBe(401);
    const blocked = await fetch(`${base}${API_PATHS.jobs}`, { headers: { authorization: 'Bearer y' } });
    expect(blocked.status).toBe(401);
    expect(((await blocked.json()) as { code: string }).code).toBe('auth_blocked');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await fetch(`${base}${API_PATHS.health}`)).status).toBe(200);
    // The valid token is served throughout, on a new connection as on a kept one.
    expect((await fetch(`${base}${API_PATHS.jobs}`, { headers: { authorization: `Bearer ${TOKENS.default}`, connection: 'close' } })).status).toBe(200);
    expect((await fetch(`${base}${API_PATHS.jobs}`, { headers: { authorization: `Bearer ${TOKENS.default}` } })).status).toBe(200);
  });
});

describe('auth modes', () => {
  for (const value of ['1', 'true', 'yes', 'on', 'TRUE', ' On ']) {
    it(`SERVICE_API_AUTH_DISABLED=${JSON.stringify(value)} turns authentication off`, async () => {
      const t = await bench({ env: { SERVICE_API_TOKENS: '', SERVICE_API_AUTH_DISABLED: value } });
      const health = json(await t.req({ method: 'GET', url: API_PATHS.health, noAuth: true }));
      expect(health.auth).toBe('disabled');
      expect((await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true })).statusCode).toBe(200);
      const res = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm(), noAuth: true, headers: { 'x-tenant-id': 'solo' } });
      expect(res.statusCode).toBe(202);
      expect((await t.bd.store.getJob(json<{ job_id: string }>(res).job_id))?.tenant_id).toBe('solo');
    });
  }

  for (const value of ['0', 'false', 'no', 'off', '']) {
    it(`SERVICE_API_AUTH_DISABLED=${JSON.stringify(value)} keeps it on`, async () => {
      const t = await bench({ env: { SERVICE_API_AUTH_DISABLED: value } });
      expect((await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true })).statusCode).toBe(401);
    });
  }

  it('not configured: the server runs, /healthz and the OpenAPI document answer, every other route is a 404 saying how to configure', async () => {
    const t = await bench({ env: { SERVICE_API_TOKENS: ' , ' }, start: true });
    const base = `http://127.0.0.1:${(t.bd.app.server.address() as { port: number }).port}`;
    const health = await fetch(`${base}${API_PATHS.health}`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', auth: 'unconfigured' });
    expect((await fetch(`${base}${API_PATHS.openapi}`)).status).toBe(200);
    const targets: [string, string][] = [
      ['GET', API_PATHS.jobs],
      ['POST', '/v1/jobs/llm-instance'],
      ['GET', '/v1/unknown'],
      ['GET', API_PATHS.catalog],
      ['DELETE', API_PATHS.jobs],
    ];
    for (const [method, path] of targets) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKENS.default}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: JSON.stringify(bodies.llm()) } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).toBe('auth_not_configured');
      expect(body.detail).toContain('SERVICE_API_TOKENS');
      expect(body.detail).toContain('SERVICE_API_AUTH_DISABLED');
    }
    expect(t.bd.store.count()).toBe(0);
  });
});

describe('tenant isolation', () => {
  it('another tenant\'s job, events, cancel and metrics are invisible', async () => {
    const t = await bench();
    const res = await t.req({ method: 'POST', url: '/v1/jobs/benchmark', payload: bodies.benchmark('steps'), tenant: 'acme' });
    const id = json<{ job_id: string }>(res).job_id;
    await waitForStatus(t.bd, id, 'succeeded');
    const hang = json<{ job_id: string }>(await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm('hang'), tenant: 'acme' })).job_id;

    for (const url of [API_PATHS.job(id), API_PATHS.jobEvents(id), API_PATHS.job(hang)]) {
      const other = await t.req({ method: 'GET', url });
      expect(other.statusCode, url).toBe(404);
      expect(json(other).code).toBe('job_not_found');
      expect(other.body).not.toContain('acme');
    }
    const cancel = await t.req({ method: 'POST', url: API_PATHS.jobCancel(hang) });
    expect(cancel.statusCode).toBe(404);
    expect((await t.bd.store.getJob(hang))?.status).not.toBe('cancelled');
    // the same id with the right tenant works
    expect((await t.req({ method: 'GET', url: API_PATHS.job(id), tenant: 'acme' })).statusCode).toBe(200);

    const list = JobListResponseSchema.parse(json(await t.req({ method: 'GET', url: API_PATHS.jobs })));
    expect(list.jobs).toEqual([]);
    const metrics = MetricsSummarySchema.parse(json(await t.req({ method: 'GET', url: API_PATHS.metricsSummary })));
    expect(metrics.events).toEqual([]);
    const byJob = await t.req({ method: 'GET', url: `${API_PATHS.metricsSummary}?job_id=${id}` });
    expect(byJob.statusCode).toBe(404);
    expect(json(byJob).code).toBe('job_not_found');
    const acmeMetrics = MetricsSummarySchema.parse(json(await t.req({ method: 'GET', url: API_PATHS.metricsSummary, tenant: 'acme' })));
    expect(acmeMetrics.events.map((e) => e.event)).toContain('phase.provision');

    expect((await t.req({ method: 'POST', url: API_PATHS.jobCancel(hang), tenant: 'acme' })).statusCode).toBe(202);
    await waitForStatus(t.bd, hang, 'cancelled');
  });

  it('the same Idempotency-Key in two tenants makes two jobs', async () => {
    const t = await bench();
    const headers = { 'idempotency-key': 'shared-key' };
    const a = json<{ job_id: string }>(await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm(), headers }));
    const b = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm(), headers, tenant: 'acme' });
    expect(b.statusCode).toBe(202);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(json<{ job_id: string }>(b).job_id).not.toBe(a.job_id);
  });
});

describe('tokens stay out of logs and job records', () => {
  it('logs failed attempts without the presented or configured tokens', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString('utf8'));
        cb();
      },
    });
    const t = await bench({ extra: { logger: { level: 'trace', stream } } });
    const presented = 'presented-secret-c0ffee';
    await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, headers: { authorization: `Bearer ${presented}` }, remoteAddress: '10.7.7.7' });
    await t.req({ method: 'GET', url: API_PATHS.jobs, noAuth: true, headers: { 'x-api-key': presented }, remoteAddress: '10.7.7.7' });
    const job = json<{ job_id: string }>(await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: bodies.llm('crash') }));
    const record = await waitForStatus(t.bd, job.job_id, 'failed');
    await t.req({ method: 'GET', url: '/v1/jobs/%zz' });
    const log = lines.join('');
    expect(log).toContain('authentication failed');
    expect(log).not.toContain(presented);
    expect(log).not.toContain(TOKENS.default);
    expect(log).not.toContain(TOKENS.acme);
    expect(JSON.stringify(record)).not.toContain(TOKENS.default);
    const events = JSON.stringify(await t.bd.store.listEvents(job.job_id));
    expect(events).not.toContain(TOKENS.default);
  });

  it('redacts secret-looking request fields before storing', async () => {
    // No job schema has a secret field today (they are strict); the engine still redacts recursively.
    const { redactSecrets } = await import('../../src-main/engine/redact');
    expect(redactSecrets({ a: 1, api_key: 'k', nested: { Token: 't', list: [{ password: 'p' }] }, authorization: null })).toEqual({
      a: 1,
      api_key: '[redacted]',
      nested: { Token: '[redacted]', list: [{ password: '[redacted]' }] },
      authorization: null,
    });
  });
});
