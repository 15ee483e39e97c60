import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  API_PATHS,
  CATALOG_ALIASES,
  CatalogResponseSchema,
  CostEstimationResponseSchema,
  HealthSchema,
  JOB_ROUTES,
  JobEventsResponseSchema,
  JobListResponseSchema,
  JobRecordSchema,
  LLM_MODELS_ALIASES,
  LlmModelsResponseSchema,
  MetricsSummarySchema,
  type JobEvent,
  type JobListResponse,
  type MetricsRow,
} from '../../shared';
import { bodies } from '../helpers/handlers';
import { json, makeBench, removeDir, waitFor, waitForStatus, type TestBench } from '../helpers/bench';

let t: TestBench;

beforeEach(async () => {
  t = await makeBench();
});
afterEach(async () => {
  await t.close();
  await removeDir(t.dir);
});

async function submit(path: string, body: Record<string, unknown>, tenant: 'default' | 'acme' = 'default'): Promise<string> {
  const res = await t.req({ method: 'POST', url: path, payload: body, tenant });
  expect(res.statusCode, res.body).toBe(202);
  return json<{ job_id: string }>(res).job_id;
}

describe('GET /healthz', () => {
  it('answers without credentials and says auth is enabled', async () => {
    const res = await t.req({ method: 'GET', url: API_PATHS.health, noAuth: true });
    expect(res.statusCode).toBe(200);
    const body = HealthSchema.parse(json(res));
    expect(body).toMatchObject({ status: 'ok', auth: 'enabled' });
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
    // Where to find a token (SERVICE_API_TOKENS here), never the token or its hash.
    expect(body.token_sources).toEqual(['environment']);
    expect(res.body).not.toMatch(/[0-9a-f]{64}/);
  });
});

describe('POST /v1/estimates', () => {
  it('returns the provider estimate for a valid request', async () => {
    const res = await t.req({ method: 'POST', url: API_PATHS.estimates, payload: { marketplace: true, min_dph: 0.1, max_dph: 1, model: 'llama3:8b' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(CostEstimationResponseSchema.parse(json(res)).projected_cost_usd).toBe(0.5);
  });

  it('validates the request (422 with errors)', async () => {
    const res = await t.req({ method: 'POST', url: API_PATHS.estimates, payload: { min_dph: 2, max_dph: 1 } });
    expect(res.statusCode).toBe(422);
    expect(json(res)).toMatchObject({ code: 'validation_failed', errors: [{ path: 'max_dph' }] });
  });
});

describe('POST job routes', () => {
  const bodyFor = { 'llm-instance': bodies.llm, 'agentic-agent': bodies.agent, benchmark: bodies.benchmark, suite: bodies.suite, 'serving-benchmark': bodies.serving } as const;

  for (const route of JOB_ROUTES) {
    it(`${route.path} accepts a valid ${route.kind} request with 202 + Location${route.successor ? ' + Deprecation/Link' : ''}`, async () => {
      const res = await t.req({ method: 'POST', url: route.path, payload: bodyFor[route.kind]() });
      expect(res.statusCode, res.body).toBe(202);
      const accepted = json<{ job_id: string; status: string }>(res);
      expect(Object.keys(accepted).sort()).toEqual(['job_id', 'status']);
      expect(accepted.status).toBe('accepted');
      expect(res.headers.location).toBe(`/v1/jobs/${accepted.job_id}`);
      if (route.successor) {
        expect(res.headers.deprecation).toBe('true');
        expect(res.headers.link).toBe(`<${route.successor}>; rel="successor-version"`);
      } else {
        expect(res.headers.deprecation).toBeUndefined();
        expect(res.headers.link).toBeUndefined();
      }
      // Durable before the 202: the record is in the store with the right kind.
      const stored = await t.bd.store.getJob(accepted.job_id);
      expect(stored).toMatchObject({ kind: route.kind, tenant_id: 'default' });
      const done = await waitForStatus(t.bd, accepted.job_id, 'succeeded');
      const expected = {
        'llm-instance': { mode: 'existing', models: [{ name: 'echo' }] },
        suite: { suite_id: 'starter', scenarios: [{ answer: 'echo' }] },
        'serving-benchmark': { model: 'echo', levels: [{ concurrency: 1 }, { concurrency: 2 }] },
      } as const;
      expect(done.result).toMatchObject(route.kind === 'llm-instance' || route.kind === 'suite' || route.kind === 'serving-benchmark' ? expected[route.kind] : { answer: 'echo', result_type: 'text' });
    });

    it(`${route.path} answers 422 for an invalid body, and creates no job`, async () => {
      const res = await t.req({ method: 'POST', url: route.path, payload: { nope: 1 } });
      expect(res.statusCode).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(t.bd.store.count()).toBe(0);
    });
  }

  it('stores the request as validated (defaults applied, ollama → llmserver)', async () => {
    const id = await submit('/v1/jobs/llm-instance', { backend_url: ' http://ok:11434 ', backend_type: 'ollama' });
    const res = await t.req({ method: 'GET', url: API_PATHS.job(id) });
    const job = JobRecordSchema.parse(json(res));
    expect(job.request).toEqual({
      backend_url: 'http://ok:11434',
      backend_type: 'llmserver',
      backend_api: 'auto',
      backend_warmup: true,
      backend_warmup_timeout: 300,
      marketplace: false,
      min_dph: 0,
      reliability: 0.99,
    });
  });

  it('runs the handler validate hook: issues → 422 naming the field', async () => {
    await t.close();
    await removeDir(t.dir);
    t = await makeBench({ validateAgents: ['builtin'] });
    const res = await t.req({ method: 'POST', url: '/v1/jobs/agentic-agent', payload: { ...bodies.agent(), agent: 'ghost' } });
    expect(res.statusCode).toBe(422);
    expect(json(res)).toMatchObject({ code: 'validation_failed', errors: [{ path: 'agent', message: 'unknown agent ghost' }] });
    expect(t.bd.store.count()).toBe(0);
    expect((await t.req({ method: 'POST', url: '/v1/jobs/agentic-agent', payload: bodies.agent() })).statusCode).toBe(202);
  });
});

describe('GET /v1/jobs/{id}', () => {
  it('returns the JobRecord with RFC 3339 times, result on success', async () => {
    const id = await submit('/v1/jobs/benchmark', bodies.benchmark('steps'));
    await waitForStatus(t.bd, id, 'succeeded');
    const res = await t.req({ method: 'GET', url: API_PATHS.job(id) });
    expect(res.statusCode).toBe(200);
    const job = JobRecordSchema.parse(json(res));
    expect(job).toMatchObject({ job_id: id, tenant_id: 'default', kind: 'benchmark', status: 'succeeded', error: null, error_code: null });
    expect(job.result).toMatchObject({ answer: 'provisioned answered', model_name: 'llama3:8b', phases: [] });
    expect(job.progress).toMatchObject({ phase: 'analysis' });
    for (const at of [job.created_at, job.started_at, job.finished_at, job.updated_at]) expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(Date.parse(job.finished_at ?? '')).toBeGreaterThanOrEqual(Date.parse(job.started_at ?? ''));
  });

  it('records error and error_code on failure', async () => {
    const failed = await submit('/v1/jobs/llm-instance', bodies.llm('fail'));
    const crashed = await submit('/v1/jobs/llm-instance', bodies.llm('crash'));
    const f = await waitForStatus(t.bd, failed, 'failed');
    expect(f).toMatchObject({ error: 'the test handler failed on purpose', error_code: 'test_failure', result: null });
    const c = await waitForStatus(t.bd, crashed, 'failed');
    expect(c.error_code).toBe('internal');
    expect(c.error).toBeTruthy();
  });

  it('404 job_not_found for an unknown id', async () => {
    const res = await t.req({ method: 'GET', url: API_PATHS.job('00000000-0000-4000-8000-000000000000') });
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ status: 404, code: 'job_not_found' });
  });
});

describe('GET /v1/jobs (list)', () => {
  it('lists newest first with cursor pagination and status/kind filters', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await submit('/v1/jobs/llm-instance', bodies.llm('ok')));
    const failing = await submit('/v1/jobs/benchmark', bodies.benchmark('fail'));
    ids.push(failing);
    for (const id of ids) await waitForStatus(t.bd, id, ['succeeded', 'failed']);
    await submit('/v1/jobs/llm-instance', bodies.llm('ok'), 'acme'); // another tenant: never listed

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v1/jobs?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await t.req({ method: 'GET', url });
      expect(res.statusCode, res.body).toBe(200);
      const page: JobListResponse = JobListResponseSchema.parse(json(res));
      expect(page.jobs.length).toBeLessThanOrEqual(2);
      seen.push(...page.jobs.map((j) => j.job_id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(seen).toEqual([...ids].reverse());
    expect(pages).toBeGreaterThanOrEqual(3);

    const byStatus = JobListResponseSchema.parse(json(await t.req({ method: 'GET', url: '/v1/jobs?status=failed' })));
    expect(byStatus.jobs.map((j) => j.job_id)).toEqual([failing]);
    const byKind = JobListResponseSchema.parse(json(await t.req({ method: 'GET', url: '/v1/jobs?kind=llm-instance&limit=200' })));
    expect(byKind.jobs.map((j) => j.job_id)).toEqual(ids.slice(0, 5).reverse());
    expect(byKind.next_cursor).toBeNull();
    const acme = JobListResponseSchema.parse(json(await t.req({ method: 'GET', url: '/v1/jobs', tenant: 'acme' })));
    expect(acme.jobs).toHaveLength(1);
    expect(acme.jobs[0]?.tenant_id).toBe('acme');
  });

  it('rejects bad query parameters with 422', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=abc', 'status=done', 'kind=other', 'foo=1', 'cursor=not-a-cursor']) {
      const res = await t.req({ method: 'GET', url: `/v1/jobs?${q}` });
      expect(res.statusCode, `${q}: ${res.body}`).toBe(422);
      expect(json(res)).toMatchObject({ code: 'validation_failed' });
    }
  });
});

describe('POST /v1/jobs/{id}/cancel', () => {
  it('202 for a live job, 409 once it has ended, 404 for unknown ids', async () => {
    const id = await submit('/v1/jobs/agentic-agent', bodies.agent('hang'));
    await t.recorder.startedJob(id);
    const res = await t.req({ method: 'POST', url: API_PATHS.jobCancel(id) });
    expect(res.statusCode, res.body).toBe(202);
    expect(json(res)).toMatchObject({ job_id: id });
    await waitForStatus(t.bd, id, 'cancelled');
    const again = await t.req({ method: 'POST', url: API_PATHS.jobCancel(id) });
    expect(again.statusCode).toBe(409);
    expect(json(again)).toMatchObject({ code: 'job_not_cancellable' });
    const missing = await t.req({ method: 'POST', url: API_PATHS.jobCancel('nope') });
    expect(missing.statusCode).toBe(404);
  });
});

describe('GET /v1/jobs/{id}/events', () => {
  it('lists the events with global seq, timed steps, and ?after=', async () => {
    const id = await submit('/v1/jobs/benchmark', bodies.benchmark('steps'));
    await waitForEnd(id, 'succeeded');
    const res = await t.req({ method: 'GET', url: API_PATHS.jobEvents(id) });
    expect(res.statusCode).toBe(200);
    const { job_id, events } = JobEventsResponseSchema.parse(json(res));
    expect(job_id).toBe(id);
    expect(events.map((e) => `${e.event}:${e.status}`)).toEqual([
      'job.queued:info',
      'job.running:info',
      'phase.provision:started',
      'phase.provision:ok',
      'marketplace.note:info',
      'agent.ask:started',
      'agent.ask:ok',
      'job.succeeded:ok',
    ]);
    const seqs = events.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    const provisionOk = events.find((e) => e.event === 'phase.provision' && e.status === 'ok') as JobEvent;
    expect(provisionOk.duration_ms).toBeGreaterThanOrEqual(0);
    expect(provisionOk.labels).toEqual({ gpu: 'test' });
    expect(events.find((e) => e.status === 'started')?.duration_ms).toBeNull();

    const after = seqs[3] as number;
    const tail = JobEventsResponseSchema.parse(json(await t.req({ method: 'GET', url: `${API_PATHS.jobEvents(id)}?after=${after}` })));
    expect(tail.events.map((e) => e.seq)).toEqual(seqs.slice(4));
    const none = JobEventsResponseSchema.parse(json(await t.req({ method: 'GET', url: `${API_PATHS.jobEvents(id)}?after=${seqs.at(-1) ?? 0}` })));
    expect(none.events).toEqual([]);
  });

  it('seq is global and monotonic across jobs', async () => {
    const a = await submit('/v1/jobs/llm-instance', bodies.llm('ok'));
    await waitForStatus(t.bd, a, 'succeeded');
    const b = await submit('/v1/jobs/llm-instance', bodies.llm('ok'));
    await waitForStatus(t.bd, b, 'succeeded');
    const ea = JobEventsResponseSchema.parse(json(await t.req({ method: 'GET', url: API_PATHS.jobEvents(a) }))).events;
    const eb = JobEventsResponseSchema.parse(json(await t.req({ method: 'GET', url: API_PATHS.jobEvents(b) }))).events;
    expect(Math.min(...eb.map((e) => e.seq))).toBeGreaterThan(Math.max(...ea.map((e) => e.seq)));
  });

  it('a failing step emits started then error with duration and error_type', async () => {
    const id = await submit('/v1/jobs/benchmark', bodies.benchmark('stepfail'));
    const job = await waitForStatus(t.bd, id, 'failed');
    expect(job.error_code).toBe('no_offers');
    // The failed status is stored just before the job.failed event: wait for the event too.
    const events = await waitFor(async () => {
      const page = JobEventsResponseSchema.parse(json(await t.req({ method: 'GET', url: API_PATHS.jobEvents(id) })));
      return page.events.some((e) => e.event === 'job.failed') ? page.events : undefined;
    }, 'the job.failed event');
    const err = events.find((e) => e.event === 'phase.provision' && e.status === 'error');
    expect(err).toMatchObject({ message: 'no offer fits', error_type: 'no_offers' });
    expect(err?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(events.at(-1)).toMatchObject({ event: 'job.failed', status: 'error', labels: { error_code: 'no_offers' } });
  });

  it('rejects a bad ?after= with 422 and unknown jobs with 404', async () => {
    const id = await submit('/v1/jobs/llm-instance', bodies.llm('ok'));
    for (const q of ['after=-1', 'after=x', 'other=1']) {
      const res = await t.req({ method: 'GET', url: `${API_PATHS.jobEvents(id)}?${q}` });
      expect(res.statusCode, q).toBe(422);
    }
    expect((await t.req({ method: 'GET', url: API_PATHS.jobEvents('missing') })).statusCode).toBe(404);
  });
});

describe('catalog and llm model routes', () => {
  it('GET /v1/catalog/marketplace-models and its deprecated alias', async () => {
    const res = await t.req({ method: 'GET', url: API_PATHS.catalog });
    expect(res.statusCode).toBe(200);
    expect(CatalogResponseSchema.parse(json(res)).models[0]?.name).toBe('llama3:8b');
    expect(res.headers.deprecation).toBeUndefined();
    for (const alias of CATALOG_ALIASES) {
      const a = await t.req({ method: 'GET', url: alias });
      expect(a.statusCode).toBe(200);
      expect(json(a)).toEqual(json(res));
      expect(a.headers.deprecation).toBe('true');
      expect(a.headers.link).toBe(`<${API_PATHS.catalog}>; rel="successor-version"`);
    }
  });

  it('GET /v1/llm/models and its deprecated aliases', async () => {
    const url = `${API_PATHS.llmModels}?backend_url=${encodeURIComponent('http://127.0.0.1:11434')}&backend_type=ollama`;
    const res = await t.req({ method: 'GET', url });
    expect(res.statusCode, res.body).toBe(200);
    expect(LlmModelsResponseSchema.parse(json(res))).toMatchObject({ backend_url: 'http://127.0.0.1:11434', backend_type: 'llmserver', models: [{ name: 'llama3:8b' }], running_models: [] });
    for (const alias of LLM_MODELS_ALIASES) {
      const a = await t.req({ method: 'GET', url: url.replace(API_PATHS.llmModels, alias) });
      expect(a.statusCode).toBe(200);
      expect(json(a)).toEqual(json(res));
      expect(a.headers.deprecation).toBe('true');
      expect(a.headers.link).toBe(`<${API_PATHS.llmModels}>; rel="successor-version"`);
    }
    const missing = await t.req({ method: 'GET', url: API_PATHS.llmModels });
    expect(missing.statusCode).toBe(422);
    expect(json(missing)).toMatchObject({ code: 'validation_failed', errors: [{ path: 'backend_url' }] });
  });
});

/** A job's end as the events see it: the engine stores the status first and its terminal event right after. */
async function waitForEnd(id: string, status: 'succeeded' | 'failed'): Promise<void> {
  await waitForStatus(t.bd, id, status);
  await waitFor(async () => (await t.bd.store.listEvents(id)).some((e) => e.event === `job.${status}`), `the job.${status} event of ${id}`);
}

describe('GET /v1/metrics/summary', () => {
  it('aggregates the tenant\'s ok/error events with p95_ms, per job with job_id', async () => {
    const a = await submit('/v1/jobs/benchmark', bodies.benchmark('steps'));
    const b = await submit('/v1/jobs/benchmark', bodies.benchmark('stepfail'));
    await waitForEnd(a, 'succeeded');
    await waitForEnd(b, 'failed');
    const res = await t.req({ method: 'GET', url: API_PATHS.metricsSummary });
    expect(res.statusCode).toBe(200);
    const rows = MetricsSummarySchema.parse(json(res)).events;
    const by = new Map(rows.map((r) => [r.event, r]));
    expect(by.get('phase.provision')).toMatchObject({ total: 2, ok: 1, error: 1 });
    expect(by.get('agent.ask')).toMatchObject({ total: 1, ok: 1, error: 0 });
    expect(by.get('job.succeeded')).toMatchObject({ total: 1, ok: 1 });
    expect(by.get('job.failed')).toMatchObject({ total: 1, error: 1 });
    expect(by.has('job.queued')).toBe(false); // info events are not outcomes
    for (const row of rows) expect(row.p95_ms).toBeGreaterThanOrEqual(row.min_ms);

    const one = MetricsSummarySchema.parse(json(await t.req({ method: 'GET', url: `${API_PATHS.metricsSummary}?job_id=${a}` }))).events;
    expect(one.find((r: MetricsRow) => r.event === 'phase.provision')).toMatchObject({ total: 1, ok: 1, error: 0 });
    expect(one.some((r) => r.event === 'job.failed')).toBe(false);
    // An unknown job id is a 404, as for GET /v1/jobs/{id} (another tenant's job looks the same).
    const unknown = await t.req({ method: 'GET', url: `${API_PATHS.metricsSummary}?job_id=nope` });
    expect(unknown.statusCode).toBe(404);
    expect(json(unknown).code).toBe('job_not_found');
    expect((await t.req({ method: 'GET', url: `${API_PATHS.metricsSummary}?x=1` })).statusCode).toBe(422);
  });
});

describe('GET /v1/openapi.json', () => {
  it('is OpenAPI 3.1 and lists every path of api-paths.ts and JOB_ROUTES', async () => {
    const res = await t.req({ method: 'GET', url: API_PATHS.openapi });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const doc = json<{ openapi: string; paths: Record<string, Record<string, { deprecated?: boolean }>> }>(res);
    expect(doc.openapi).toMatch(/^3\.1/);
    const expected: [string, string][] = [
      [API_PATHS.health, 'get'],
      [API_PATHS.estimates, 'post'],
      [API_PATHS.jobs, 'get'],
      ['/v1/jobs/{job_id}', 'get'],
      ['/v1/jobs/{job_id}/cancel', 'post'],
      ['/v1/jobs/{job_id}/events', 'get'],
      [API_PATHS.events, 'get'],
      [API_PATHS.catalog, 'get'],
      [API_PATHS.llmModels, 'get'],
      [API_PATHS.metricsSummary, 'get'],
      [API_PATHS.openapi, 'get'],
      ...JOB_ROUTES.map((r): [string, string] => [r.path, 'post']),
      ...CATALOG_ALIASES.map((p): [string, string] => [p, 'get']),
      ...LLM_MODELS_ALIASES.map((p): [string, string] => [p, 'get']),
    ];
    for (const [path, method] of expected) expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    for (const route of JOB_ROUTES) expect(doc.paths[route.path]?.post?.deprecated ?? false).toBe(route.successor !== undefined);
  });
});

