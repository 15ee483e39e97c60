import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_REQUEST_SCHEMAS, OPERATIONS, OPERATION_NAMES, STREAM_OPERATION_NAMES, pathFields, type OperationDef } from '../../shared';
import { TOKENS, makeBench, removeDir, type TestBench } from '../helpers/bench';
import { rawExchange } from '../security/raw-http';
import { compileIn, deref, parametersOf, tableRoutes, type Document, type Json, type Operation } from './openapi-document';

/**
 * Issue 25 items 14-17: rules the OpenAPI document keeps for every operation of the table,
 * including operations added later (each rule loops over the table or the document, never a
 * list of routes): bodies, parameters, headers and statuses declared; descriptions; the real
 * origin in `servers`; the job requests' rules as JSON Schema; Spectral's `spectral:oas` with no
 * warning (Redocly: test/security/openapi.test.ts).
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SPECTRAL = path.join(ROOT, 'node_modules', '@stoplight', 'spectral-cli', 'dist', 'index.js');

let t: TestBench;
let base: string;
let port: number;
let doc: Document;
let dir: string;

beforeAll(async () => {
  // A driver from the environment: the document lists the agents this server knows.
  t = await makeBench({ start: true, env: { BENCHDESK_DRIVER_MYAGENT: '/bin/true' } });
  port = (t.bd.app.server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}`;
  const res = await fetch(`${base}/v1/openapi.json`, { headers: { authorization: `Bearer ${TOKENS.default}` } });
  expect(res.status).toBe(200);
  doc = (await res.json()) as Document;
  dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-openapi-rules-'));
});
afterAll(async () => {
  await t.close();
  await removeDir(t.dir);
  await rm(dir, { recursive: true, force: true });
});

function operations(): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).map(([method, op]) => ({ method, path: p, op })));
}

/** The document's operation for a route of the table (a stream sharing a path with a unary operation is that route). */
function documented(method: string, p: string): Operation {
  const op = doc.paths[p]?.[method];
  if (!op) throw new Error(`${method.toUpperCase()} ${p} is not in the document`);
  return op;
}

describe('the document as a whole', () => {
  it("names the origin it was fetched from in servers; the server's own copy is relative", async () => {
    expect(doc.servers).toEqual([{ url: base, description: expect.any(String) }]);
    const viaLocalhost = await rawExchange(port, `GET /v1/openapi.json HTTP/1.1\r\nHost: localhost:${port}\r\nAuthorization: Bearer ${TOKENS.default}\r\nConnection: close\r\n\r\n`);
    expect(viaLocalhost.status).toBe(200);
    expect(/"servers":\[\{"url":"([^"]+)"/.exec(viaLocalhost.raw)?.[1]).toBe(`http://localhost:${port}`);
    expect((t.bd.app.swagger() as unknown as Document).servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(JSON.stringify(doc)).not.toContain('127.0.0.1:8080');
  });

  it('has a contact, and every operation an operationId, a summary, a description and a tag', () => {
    expect(doc.info.contact).toMatchObject({ name: expect.any(String), url: expect.stringMatching(/^https:\/\//) });
    for (const { method, path: p, op } of operations()) {
      const where = `${method.toUpperCase()} ${p}`;
      expect(op.operationId, where).toMatch(/^[A-Za-z][A-Za-z0-9]*$/);
      expect(op.summary?.trim(), where).toBeTruthy();
      expect(op.description?.trim().length ?? 0, where).toBeGreaterThan(20);
      expect(op.tags?.length ?? 0, where).toBeGreaterThan(0);
    }
    for (const name of OPERATION_NAMES) expect((OPERATIONS[name] as OperationDef).description.trim().length, name).toBeGreaterThan(20);
  });

  it("describes its own answer (GET /v1/openapi.json), and this document matches that", () => {
    const own = documented('get', '/v1/openapi.json');
    const schema = deref<Json>(doc, (own.responses['200']?.content as Record<string, { schema: Json }>)['application/json']?.schema);
    expect(Object.keys((schema.properties as Json | undefined) ?? {})).toEqual(expect.arrayContaining(['openapi', 'info', 'paths', 'components']));
    const validate = compileIn(new Ajv2020({ strict: false }), doc, schema);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  });

  it('passes Spectral (spectral:oas) with no error and no warning', async () => {
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc, null, 2));
    const res = spawnSync(process.execPath, [SPECTRAL, 'lint', file, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet'], {
      encoding: 'utf8',
      timeout: 60_000,
      cwd: dir,
    });
    expect(res.error).toBeUndefined();
    const problems = JSON.parse(res.stdout || '[]') as { code: string; message: string; path: string[] }[];
    expect(problems.map((p) => `${p.code}: ${p.message} at ${p.path.join('.')}`)).toEqual([]);
  }, 60_000);
});

describe('every operation of the table', () => {
  it('declares its body, its path, query and header parameters, typed', () => {
    for (const route of tableRoutes()) {
      const def: OperationDef = OPERATIONS[route.name];
      const op = documented(route.method, route.path);
      const where = `${route.method.toUpperCase()} ${route.path}`;
      if (def.body !== undefined) {
        const schema = deref<Json>(doc, op.requestBody?.content?.['application/json']?.schema);
        expect(schema, `${where}: request body`).toBeDefined();
        expect(Object.keys(schema).length, `${where}: an empty body schema`).toBeGreaterThan(0);
      }
      const params = parametersOf(doc, op);
      const named = (where: string, name: string) => params.find((p) => p.in === where && p.name?.toLowerCase() === name.toLowerCase());
      for (const field of def.query ?? []) {
        expect(named('query', field)?.schema?.type, `${where}: ?${field}`).toBeDefined();
      }
      const inPath = route.name === 'createJob' ? [] : pathFields(route.name);
      for (const field of inPath) expect(named('path', field)?.schema?.type, `${where}: {${field}}`).toBeDefined();
      for (const header of Object.values(def.headers ?? {})) expect(named('header', header), `${where}: ${header} header`).toBeDefined();
      if (!def.public) expect(named('header', 'X-Tenant-ID'), `${where}: X-Tenant-ID`).toBeDefined();
    }
  });

  it('declares every status it can answer: its own (the table), and the ones every route can', () => {
    for (const route of tableRoutes()) {
      const def: OperationDef = OPERATIONS[route.name];
      const op = documented(route.method, route.path);
      const declared = Object.keys(op.responses);
      const where = `${route.method.toUpperCase()} ${route.path}`;
      expect(declared, where).toEqual(expect.arrayContaining([String(def.status), '400', '403', '408', '431', '500', '503', ...Object.keys(def.errors ?? {})]));
      if (!def.public) expect(declared, where).toEqual(expect.arrayContaining(['401', '404']));
      if (def.method === 'POST') expect(declared, where).toEqual(expect.arrayContaining(['413', '415', '422', '507']));
      for (const [code, why] of Object.entries(def.errors ?? {})) {
        const response = deref<Json>(doc, op.responses[code]);
        expect(String(response.description), `${where} ${code}`).toContain(why);
        expect(Object.keys((response.content as Json | undefined) ?? {}), `${where} ${code}`).toEqual(['application/problem+json']);
      }
    }
    // The ones the issue names, on the routes it names (aliases included).
    for (const p of ['/v1/llm/models', '/v1/llmserver/models', '/v1/models/llmserver', '/v1/marketplace/instances']) expect(Object.keys(documented('get', p).responses), p).toContain('502');
    expect(Object.keys(documented('post', '/v1/marketplace/instances/{instance_id}/release').responses)).toContain('502');
    expect(Object.keys(documented('get', '/v1/events').responses)).toContain('406');
    // The tenant checks (the app's own tenant only): their 403 says so.
    const appTenantOnly = tableRoutes().filter((r) => (OPERATIONS[r.name] as OperationDef).appTenantOnly);
    expect(appTenantOnly.map((r) => r.path)).toEqual(expect.arrayContaining(['/v1/settings', '/v1/settings/marketplace-key', '/v1/settings/marketplace-key/test']));
    for (const route of appTenantOnly) {
      expect(String(deref<Json>(doc, documented(route.method, route.path).responses['403']).description), route.path).toMatch(/tenant/);
    }
  });

  it('documents streams as text/event-stream with their event names, retry and the schema of each event', () => {
    for (const name of STREAM_OPERATION_NAMES) {
      const def: OperationDef = OPERATIONS[name];
      const media = (documented(def.method.toLowerCase(), def.path).responses['200']?.content as Record<string, Json>)['text/event-stream'];
      expect(media, name).toBeDefined();
      const schema = media?.schema as Json;
      expect(String(schema.description), name).toMatch(/retry: \d+/);
      expect(String(schema.description), name).toMatch(/`reset`/);
      expect(deref<Json>(doc, schema.contentSchema), name).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/JobEvent' }, { $ref: '#/components/schemas/StreamReset' }] });
      expect(media?.['x-sse-events'], name).toEqual({ message: { $ref: '#/components/schemas/JobEvent' }, reset: { $ref: '#/components/schemas/StreamReset' } });
    }
  });
});

describe('rules that used to be learnt from 422s', () => {
  function component(name: string): Json {
    const schema = doc.components.schemas[name];
    if (!schema) throw new Error(`no component ${name}`);
    return schema;
  }

  it('the marketplace rules of the job requests are in the schema, and agree with the server on every combination', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const options = {
      marketplace: [undefined, true, false],
      template_hash: [undefined, 'tmpl'],
      max_dph: [undefined, 0, 0.5],
      min_dph: [undefined, 0.2, 0.8],
      backend_url: [undefined, 'http://127.0.0.1:11434'],
      model: [undefined, 'llama3:8b'],
      // openai on the marketplace: the vLLM template is found by name, so template_hash may be absent.
      backend_api: [undefined, 'openai'],
    } as const;
    for (const kind of ['llm-instance', 'benchmark'] as const) {
      const validate = compileIn(ajv, doc, component(kind === 'benchmark' ? 'BenchmarkRequestInput' : 'LlmInstanceRequestInput'));
      let compared = 0;
      let onlyMinRule = 0;
      const combos: Record<string, unknown>[] = [{}];
      for (const [field, values] of Object.entries(options)) {
        const next: Record<string, unknown>[] = [];
        for (const combo of combos) for (const value of values) next.push(value === undefined ? combo : { ...combo, [field]: value });
        combos.splice(0, combos.length, ...next);
      }
      for (const combo of combos) {
        const body = kind === 'benchmark' ? { question: 'q', ...combo } : combo;
        const schemaSays = validate(body) === true;
        const server = JOB_REQUEST_SCHEMAS[kind].safeParse(body);
        const where = `${kind} ${JSON.stringify(body)}`;
        if (schemaSays && !server.success && server.error.issues.every((i) => i.message === 'must be >= min_dph')) {
          // The one rule JSON Schema cannot state (two fields compared): said in max_dph's description.
          onlyMinRule++;
          continue;
        }
        expect(schemaSays, `${where}: the schema says ${schemaSays}, the server ${server.success}`).toBe(server.success);
        compared++;
      }
      expect(compared).toBeGreaterThan(150);
      expect(onlyMinRule).toBeGreaterThan(0);
      expect(String((component('LlmInstanceRequestInput').properties as Record<string, Json>).max_dph?.description)).toMatch(/at least min_dph/);
    }
  });

  it('agent is an enum of the agents the server knows; backend_url is a URI; instance_id an integer; the Idempotency-Key ASCII', () => {
    for (const name of ['AgenticAgentRequestInput', 'BenchmarkRequestInput']) {
      const agent = (component(name).properties as Record<string, Json>).agent;
      expect(agent?.enum, name).toEqual(['builtin', 'holmes', 'k8sgpt', 'myagent']);
    }
    for (const name of ['AgenticAgentRequestInput', 'BenchmarkRequestInput', 'LlmInstanceRequestInput']) {
      expect((component(name).properties as Record<string, Json>).backend_url?.format, name).toBe('uri');
    }
    const llmModels = parametersOf(doc, documented('get', '/v1/llm/models'));
    expect(llmModels.find((p) => p.name === 'backend_url')?.schema?.format).toBe('uri');
    const release = parametersOf(doc, documented('post', '/v1/marketplace/instances/{instance_id}/release'));
    expect(release.find((p) => p.name === 'instance_id')?.schema).toMatchObject({ type: 'integer', minimum: 1 });
    const key = parametersOf(doc, documented('post', '/v1/jobs/benchmark')).find((p) => p.name === 'Idempotency-Key');
    const pattern = new RegExp(String(key?.schema?.pattern));
    for (const ok of ['k-1', '"quoted-key"', 'a'.repeat(255)]) expect(pattern.test(ok), ok).toBe(true);
    for (const bad of ['with space', 'ü', 'tab\there', '']) expect(pattern.test(bad), bad).toBe(false);
  });

  it('?after=, ?limit= and Last-Event-ID are whole numbers, declared alike', () => {
    const events = parametersOf(doc, documented('get', '/v1/jobs/{job_id}/events'));
    const feed = parametersOf(doc, documented('get', '/v1/events'));
    const jobs = parametersOf(doc, documented('get', '/v1/jobs'));
    for (const p of [events.find((x) => x.name === 'after'), feed.find((x) => x.name === 'after'), events.find((x) => x.name === 'Last-Event-ID'), feed.find((x) => x.name === 'Last-Event-ID')]) {
      expect(p?.schema).toMatchObject({ type: 'integer', minimum: 0 });
    }
    expect(jobs.find((p) => p.name === 'limit')?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
  });
});

describe('405', () => {
  /** A concrete path for a documented one. */
  const concrete = (p: string) => p.replace('{job_id}', 'some-job').replace('{instance_id}', '7');

  it('Allow is the same for OPTIONS, a method the server does not know and every other wrong method, on every documented path', async () => {
    const auth = { authorization: `Bearer ${TOKENS.default}` };
    for (const [p, item] of Object.entries(doc.paths)) {
      const documentedMethods = Object.keys(item).map((m) => m.toUpperCase());
      const expected = [...new Set([...documentedMethods, ...(documentedMethods.includes('GET') ? ['HEAD'] : [])])].sort().join(', ');
      const url = `${base}${concrete(p)}`;
      const wrong = ['OPTIONS', 'QUERY', 'PUT', 'DELETE', 'PATCH', 'GET', 'POST'].filter((m) => !documentedMethods.includes(m));
      for (const method of wrong) {
        const res = await fetch(url, { method, headers: auth });
        await res.body?.cancel();
        expect(res.status, `${method} ${p}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${p}`).toBe(expected);
      }
      const unknown = await rawExchange(port, `FROB ${concrete(p)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKENS.default}\r\n\r\n`);
      expect(unknown.status, `FROB ${p}`).toBe(405);
      expect(unknown.headers.allow, `FROB ${p}`).toBe(expected);
    }
  }, 60_000);
});
