import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../shared';
import { bodies } from '../helpers/handlers';
import { TOKENS, makeBench, removeDir, waitForStatus, type TestBench } from '../helpers/bench';
import { createContractChecker, type Observed, type OpenApiDoc } from './openapi-contract';
import { startPrismProxy, violationsOf, type Prism, type Violation } from './prism';
import { portOf } from './raw-http';

/**
 * Issue 14 item 7: the OpenAPI document tells the truth. It passes `redocly lint` (recommended
 * rules) without a warning, says what the issue lists, and real answers of a running server,
 * sent through Prism in proxy mode, match it (plus the same check with a JSON-schema validator).
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const REDOCLY = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

let t: TestBench;
let base: string;
let doc: OpenApiDoc;
let dir: string;
let specFile: string;

beforeAll(async () => {
  t = await makeBench({ start: true });
  base = `http://127.0.0.1:${portOf(t.bd.app)}`;
  const res = await fetch(`${base}/v1/openapi.json`, { headers: { authorization: `Bearer ${TOKENS.default}` } });
  expect(res.status).toBe(200);
  doc = (await res.json()) as OpenApiDoc;
  dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-openapi-'));
  specFile = path.join(dir, 'openapi.json');
  await writeFile(specFile, JSON.stringify(doc, null, 2));
});
afterAll(async () => {
  await t.close();
  await removeDir(t.dir);
  await rm(dir, { recursive: true, force: true });
});

type Op = Record<string, unknown> & { operationId?: string; security?: unknown[]; parameters?: { $ref?: string; name?: string }[]; responses: Record<string, Record<string, unknown>> };
function operations(): { method: string; path: string; op: Op }[] {
  return Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).map(([method, op]) => ({ method, path: p, op: op as Op })));
}

describe('the OpenAPI document', () => {
  it('passes redocly lint with the recommended rules: no error, no warning', () => {
    const res = spawnSync(process.execPath, [REDOCLY, 'lint', specFile, '--format=json', '--extends=recommended'], { encoding: 'utf8', timeout: 60_000 });
    const report = JSON.parse(res.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('has a license, an operationId per operation named after the operation table, and named schemas', () => {
    expect(doc.info).toMatchObject({ license: { name: 'MIT' } });
    const ids = operations().map(({ op }) => op.operationId ?? '');
    expect(ids.every((id) => /^[A-Za-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const name of OPERATION_NAMES) {
      if (name === 'streamJobEvents') continue; // same route as getJobEvents (Accept picks the stream)
      expect(ids.some((id) => id === name || id.startsWith(`${name}`)), name).toBe(true);
    }
    expect(ids).toEqual(expect.arrayContaining(['getHealth', 'listJobs', 'getJob', 'createJobLlmInstance', 'streamEvents', 'listCatalogAliasModelsMarketplace']));
    const schemas = Object.keys(doc.components.schemas);
    expect(schemas).toEqual(expect.arrayContaining(['Problem', 'JobRecord', 'JobEvent', 'ListJobsResponse', 'LlmInstanceRequestInput']));
    // Responses refer to named schemas instead of repeating them inline.
    const getJob = doc.paths['/v1/jobs/{job_id}']?.get as Op;
    expect(JSON.stringify(getJob.responses['200'])).toContain('#/components/schemas/JobRecord');
  });

  it('/healthz and this document are public; everything else needs a token, for the tenant in X-Tenant-ID', () => {
    for (const { path: p, op } of operations()) {
      if (p === '/healthz' || p === '/v1/openapi.json') expect(op.security).toEqual([]);
      else {
        expect(op.security, p).toBeUndefined(); // the document-wide bearer / X-API-Key applies
        expect(op.parameters?.some((param) => param.$ref === '#/components/parameters/TenantId'), p).toBe(true);
      }
    }
    expect(doc.components.parameters).toMatchObject({ TenantId: { name: 'X-Tenant-ID', in: 'header' } });
  });

  it('describes errors as application/problem+json with the statuses the server answers', () => {
    const statuses = new Set(operations().flatMap(({ op }) => Object.keys(op.responses)));
    for (const status of ['401', '404', '405', '409', '413', '415', '422', '500', '507']) expect(statuses.has(status), status).toBe(true);
    const responses = doc.components.responses as Record<string, { content: Record<string, unknown> }>;
    for (const [name, response] of Object.entries(responses)) expect(Object.keys(response.content), name).toEqual(['application/problem+json']);
  });

  it('documents Location and Idempotent-Replayed, and SSE as text/event-stream', () => {
    const submit = doc.paths['/v1/jobs/llm-instance']?.post as Op;
    expect(Object.keys(submit.responses['202']?.headers as object)).toEqual(expect.arrayContaining(['Location', 'Idempotent-Replayed']));
    expect(submit.parameters?.some((p) => p.$ref === '#/components/parameters/IdempotencyKey')).toBe(true);
    const feed = doc.paths['/v1/events']?.get as Op;
    expect(Object.keys(feed.responses['200']?.content as object)).toEqual(['text/event-stream']);
    const events = doc.paths['/v1/jobs/{job_id}/events']?.get as Op;
    expect(Object.keys(events.responses['200']?.content as object)).toEqual(['application/json', 'text/event-stream']);
  });
});

/** Requests covering success and error answers of the main operations; `invalid` ones break the document on purpose. */
type Exchange = { method: string; path: string; headers?: Record<string, string>; body?: string; invalid?: boolean; expect: number };

async function exchanges(): Promise<Exchange[]> {
  const json = { 'content-type': 'application/json' };
  const created = await fetch(`${base}/v1/jobs/llm-instance`, { method: 'POST', headers: { ...json, authorization: `Bearer ${TOKENS.default}` }, body: JSON.stringify(bodies.llm('ok')) });
  const id = ((await created.json()) as { job_id: string }).job_id;
  await waitForStatus(t.bd, id, 'succeeded');
  return [
    { method: 'GET', path: '/healthz', expect: 200 },
    { method: 'GET', path: '/v1/jobs', expect: 200 },
    { method: 'GET', path: '/v1/jobs?limit=0', invalid: true, expect: 422 },
    { method: 'GET', path: '/v1/jobs', headers: { authorization: 'Bearer wrong' }, invalid: true, expect: 401 },
    { method: 'POST', path: '/v1/jobs/llm-instance', headers: { ...json, 'idempotency-key': 'k-1' }, body: JSON.stringify(bodies.llm('ok')), expect: 202 },
    { method: 'POST', path: '/v1/jobs/llm-instance', headers: { ...json, 'idempotency-key': 'k-1' }, body: JSON.stringify(bodies.llm('ok')), expect: 202 },
    { method: 'POST', path: '/v1/jobs/llm-instance', headers: json, body: JSON.stringify({ backend_url: 'http://ok', colour: 'red' }), invalid: true, expect: 422 },
    { method: 'POST', path: '/v1/jobs/llm-instance', headers: { 'content-type': 'text/plain' }, body: 'x', invalid: true, expect: 415 },
    { method: 'POST', path: '/v1/jobs/llmserver', headers: json, body: JSON.stringify(bodies.llm('ok')), expect: 202 },
    { method: 'GET', path: `/v1/jobs/${id}`, expect: 200 },
    { method: 'GET', path: '/v1/jobs/no-such-job', expect: 404 },
    { method: 'POST', path: `/v1/jobs/${id}/cancel`, expect: 409 },
    { method: 'GET', path: `/v1/jobs/${id}/events`, expect: 200 },
    { method: 'GET', path: `/v1/jobs/${id}/events`, headers: { accept: 'text/event-stream' }, expect: 200 },
    { method: 'GET', path: `/v1/metrics/summary?job_id=${id}`, expect: 200 },
    { method: 'GET', path: `/v1/metrics/summary?job_id=${id}`, headers: { 'x-tenant-id': 'acme', authorization: `Bearer ${TOKENS.acme}` }, expect: 404 },
    { method: 'GET', path: '/v1/catalog/marketplace-models', expect: 200 },
    { method: 'GET', path: '/v1/models/marketplace', expect: 200 },
    { method: 'GET', path: `/v1/llm/models?backend_url=${encodeURIComponent('http://127.0.0.1:11434')}`, expect: 200 },
    { method: 'GET', path: '/v1/openapi.json', expect: 200 },
  ];
}

async function send(url: string, e: Exchange): Promise<{ observed: Observed; headers: Headers }> {
  const res = await fetch(`${url}${e.path}`, {
    method: e.method,
    headers: { authorization: `Bearer ${TOKENS.default}`, ...e.headers },
    ...(e.body === undefined ? {} : { body: e.body }),
  });
  const body = await res.text();
  expect(res.status, `${e.method} ${e.path}: ${body.slice(0, 300)}`).toBe(e.expect);
  return { observed: { method: e.method, path: e.path.split('?')[0] ?? e.path, status: res.status, contentType: res.headers.get('content-type') ?? '', body }, headers: res.headers };
}

describe('real answers match the document', () => {
  it('the validator notices an undocumented status and a body that does not match', () => {
    const broken = JSON.parse(JSON.stringify(doc)) as OpenApiDoc;
    const getJob = broken.paths['/v1/jobs/{job_id}']?.get as Op;
    delete getJob.responses['404'];
    const check = createContractChecker(broken);
    expect(check({ method: 'GET', path: '/v1/jobs/x', status: 404, contentType: 'application/problem+json', body: '{}' })[0]).toMatch(/status not documented/);
    expect(check({ method: 'GET', path: '/v1/jobs', status: 200, contentType: 'application/json', body: '{"jobs":3}' })[0]).toMatch(/does not match/);
    expect(check({ method: 'GET', path: '/v1/jobs', status: 200, contentType: 'text/html', body: '' })[0]).toMatch(/media type/);
  });

  it('checked by a JSON-schema validator (ajv) against the documented schemas', async () => {
    const check = createContractChecker(doc);
    const problems: string[] = [];
    for (const e of await exchanges()) problems.push(...check((await send(base, e)).observed));
    expect(problems).toEqual([]);
  });

  describe('through Prism in proxy mode', () => {
    let prism: Prism;
    beforeAll(async () => {
      prism = await startPrismProxy(specFile, base);
    }, 60_000);
    afterAll(async () => {
      await prism?.close();
    });

    it('reports no violation on any answer (and none on requests that follow the document)', async () => {
      const found: string[] = [];
      for (const e of await exchanges()) {
        const { headers } = await send(prism.url, e);
        const violations: Violation[] = violationsOf(headers).filter((v) => v.location[0] === 'response' || !e.invalid);
        for (const v of violations) found.push(`${e.method} ${e.path}: ${v.location.join('.')} ${v.severity} ${v.message}`);
      }
      expect(found).toEqual([]);
    }, 60_000);
  });
});
