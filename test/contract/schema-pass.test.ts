import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodies } from '../helpers/handlers';
import { TOKENS, makeBench, removeDir, waitFor, type TestBench } from '../helpers/bench';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { FAKE_VAST_KEY, startFakeVast, type FakeVast } from '../fakes/vast';
import { createContractChecker } from '../security/openapi-contract';
import { invalidBodies, invalidFor, valid, type Context } from './schema-arbitraries';
import { compileIn, deref, parametersOf, type Document, type Json, type Operation, type Parameter } from './openapi-document';

/**
 * A bounded Schemathesis-like pass with the project's own tools (Schemathesis itself needs PyPI;
 * docs/http-api.md says how to run it elsewhere). For every operation of the OpenAPI document it
 * makes requests from the schemas — valid ones (fast-check arbitraries) and invalid ones (one
 * field, parameter or header broken) — sends them to a real server on loopback (with the fake
 * marketplace and a fake llmserver behind it), and checks every answer as Schemathesis's checks
 * do: no 500, the status is declared for the operation, the media type is declared, the body
 * matches the declared schema, and an invalid request gets a 4xx. Job ids and instance ids the
 * server hands out are used again (its stateful links). Bounded in count (SCHEMA_PASS_CASES per
 * operation and kind) and time (SCHEMA_PASS_SECONDS); the seed (SCHEMA_PASS_SEED) replays a run.
 */

const SEED = Number(process.env.SCHEMA_PASS_SEED ?? 20_250_601);
const CASES = Number(process.env.SCHEMA_PASS_CASES ?? 6);
const SECONDS = Number(process.env.SCHEMA_PASS_SECONDS ?? 90);

let t: TestBench;
let vast: FakeVast;
let ollama: FakeOllama;
let base: string;
let doc: Document;
const jobIds: string[] = [];

beforeAll(async () => {
  vast = await startFakeVast({});
  ollama = await startFakeOllama({});
  // The real providers (marketplace, llmserver) against the fakes; jobs run with the test handlers.
  // The test handlers refuse unknown agents as the real workflows do (the document's enum).
  t = await makeBench({
    start: true,
    env: { MARKETPLACE_API_URL: vast.url, VAST_API_KEY: FAKE_VAST_KEY },
    extra: { providers: {} },
    validateAgents: ['builtin', 'holmes', 'k8sgpt'],
  });
  base = `http://127.0.0.1:${(t.bd.app.server.address() as { port: number }).port}`;
  doc = (await (await fetch(`${base}/v1/openapi.json`, { headers: { authorization: `Bearer ${TOKENS.default}` } })).json()) as Document;
  for (const body of [bodies.llm('ok'), bodies.benchmark('ok')]) {
    const res = await fetch(`${base}/v1/jobs/${'question' in body ? 'benchmark' : 'llm-instance'}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.default}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    jobIds.push(((await res.json()) as { job_id: string }).job_id);
  }
}, 60_000);
afterAll(async () => {
  await t?.close();
  await removeDir(t.dir);
  await vast?.close();
  await ollama?.close();
});

type Case = {
  method: string;
  template: string;
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  accept: string;
  invalid?: string;
  anonymous?: boolean;
};

type Parts = { path: Parameter[]; query: Parameter[]; header: Parameter[]; body: Json | undefined; bodyRequired: boolean };

function partsOf(op: Operation): Parts {
  const params = parametersOf(doc, op);
  const body = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
  return {
    path: params.filter((p) => p.in === 'path'),
    query: params.filter((p) => p.in === 'query'),
    header: params.filter((p) => p.in === 'header' && p.name?.toLowerCase() !== 'x-tenant-id'),
    body,
    bodyRequired: op.requestBody?.required === true,
  };
}

function mediaTypes(op: Operation): string[] {
  const ok = Object.entries(op.responses).find(([code]) => code.startsWith('2'))?.[1];
  return Object.keys((deref<Json>(doc, ok)?.content as Json | undefined) ?? {});
}

describe('a Schemathesis-like pass over the OpenAPI document', () => {
  it(`every answer to generated requests is declared and matches its schema (seed ${SEED}, ${CASES} cases per operation and kind)`, { timeout: (SECONDS + 60) * 1000 }, async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });
    const check = createContractChecker(doc);
    const ctx: Context = { doc, uris: [ollama.url, 'http://127.0.0.1:9', `${ollama.url}/prefix`] };
    const deadline = Date.now() + SECONDS * 1000;
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    let invalidSent = 0;
    let seed = SEED;

    const idFor = (param: Parameter): fc.Arbitrary<unknown> => {
      const generated = valid(param.schema, ctx);
      if (param.name === 'job_id') return fc.oneof(fc.constantFrom(...jobIds), generated);
      if (param.name === 'instance_id' && vast.state.instances.size > 0) return fc.oneof(fc.constantFrom(...vast.state.instances.keys()), generated);
      return generated;
    };

    function validCases(method: string, template: string, op: Operation): Case[] {
      const parts = partsOf(op);
      const media = mediaTypes(op);
      const arbitrary = fc.record({
        path: fc.record(Object.fromEntries(parts.path.map((p) => [p.name as string, idFor(p)]))),
        query: fc.record(Object.fromEntries(parts.query.map((p) => [p.name as string, valid(p.schema, ctx)])), { requiredKeys: parts.query.filter((p) => p.required).map((p) => p.name as string) }),
        headers: fc.record(Object.fromEntries(parts.header.map((p) => [p.name as string, valid(p.schema, ctx).map(String)])), { requiredKeys: [] }),
        body: parts.body ? valid(parts.body, ctx) : fc.constant(undefined),
        accept: fc.constantFrom(...(media.length > 0 ? media : ['application/json'])),
      });
      const validateBody = parts.body ? compileIn(ajv, doc, parts.body) : null;
      const out: Case[] = [];
      for (const sample of fc.sample(arbitrary, { seed: seed++, numRuns: CASES * 8 })) {
        // Keep what the whole schema accepts (if/then/else is left to this check).
        if (validateBody && !validateBody(sample.body)) continue;
        // A position after the newest event is refused by design: resume from ones the server handed out.
        const query = { ...sample.query } as Record<string, unknown>;
        if (typeof query.after === 'number' && query.after > t.bd.store.lastSeq) query.after = t.bd.store.lastSeq;
        const headers = { ...sample.headers } as Record<string, string>;
        if (headers['Last-Event-ID'] !== undefined && Number(headers['Last-Event-ID']) > t.bd.store.lastSeq) headers['Last-Event-ID'] = String(t.bd.store.lastSeq);
        out.push({ method, template, path: sample.path, query, headers, ...(parts.body ? { body: sample.body } : {}), accept: sample.accept });
        if (out.length >= CASES) break;
      }
      return out;
    }

    function invalidCases(method: string, template: string, op: Operation, base: Case | undefined): Case[] {
      if (!base) return [];
      const parts = partsOf(op);
      const out: Case[] = [];
      const from = (over: Partial<Case>, what: string): Case => ({ ...base, ...over, invalid: what });
      // Parameters travel as text: only text the parameter's schema refuses is invalid (12345 is a fine string).
      const refusedText = (p: Parameter) => {
        const validate = compileIn(ajv, doc, (p.schema ?? {}) as Json);
        const kind = (p.schema as Json | undefined)?.type;
        const read = (text: string) => ((kind === 'integer' || kind === 'number') && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text);
        return invalidFor(p.schema, ctx)
          .filter((v) => typeof v !== 'object' || v === null)
          .map(String)
          .filter((text) => !validate(read(text)));
      };
      for (const p of parts.query) for (const text of refusedText(p)) out.push(from({ query: { ...base.query, [p.name as string]: text } }, `?${p.name}=${text}`));
      for (const p of parts.path) {
        // An empty segment is another path, not a bad id.
        for (const text of refusedText(p)) if (text !== '') out.push(from({ path: { ...base.path, [p.name as string]: text } }, `{${p.name}}=${text}`));
      }
      for (const p of parts.header) {
        // What a header can carry at all (an empty value is no header).
        for (const text of refusedText(p)) if (/^[\t\x20-\x7e]*$/.test(text) && text.trim() !== '') out.push(from({ headers: { ...base.headers, [p.name as string]: text } }, `${p.name}: ${text}`));
      }
      if (parts.body) {
        const validateBody = compileIn(ajv, doc, parts.body);
        const object = typeof base.body === 'object' && base.body !== null && !Array.isArray(base.body) ? (base.body as Record<string, unknown>) : {};
        for (const { body, what } of invalidBodies(parts.body, object, ctx)) if (!validateBody(body)) out.push(from({ body }, `body ${what}`));
        out.push(from({ rawBody: '{"truncated": ' }, 'body: broken JSON'));
      }
      if (!(op.security && (op.security as unknown[]).length === 0)) out.push({ ...base, anonymous: true, invalid: 'no credentials' });
      // A deterministic sample of them.
      return fc.sample(fc.shuffledSubarray(out, { minLength: Math.min(out.length, CASES), maxLength: Math.min(out.length, CASES) }), { seed: seed++, numRuns: 1 })[0] ?? [];
    }

    async function send(c: Case, op: Operation): Promise<void> {
      let path = c.template;
      for (const [name, value] of Object.entries(c.path)) path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
      const query = new URLSearchParams(Object.entries(c.query).map(([k, v]): [string, string] => [k, String(v)]));
      const headers: Record<string, string> = { accept: c.accept, ...c.headers };
      if (!c.anonymous) headers.authorization = `Bearer ${TOKENS.default}`;
      let payload: string | undefined;
      if (c.rawBody !== undefined) payload = c.rawBody;
      else if (c.body !== undefined) payload = JSON.stringify(c.body);
      if (payload !== undefined) headers['content-type'] = 'application/json';
      const url = `${base}${path}${query.size > 0 ? `?${query}` : ''}`;
      const where = `${c.method.toUpperCase()} ${url.slice(base.length, base.length + 160)}${c.invalid ? ` [invalid: ${c.invalid}]` : ''}`;
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), 15_000);
      try {
        const res = await fetch(url, { method: c.method.toUpperCase(), headers, ...(payload !== undefined ? { body: payload } : {}), signal: abort.signal });
        const contentType = res.headers.get('content-type') ?? '';
        // A live stream never ends: its status and media type are what can be checked.
        const body = contentType.startsWith('text/event-stream') ? '' : await res.text();
        if (contentType.startsWith('text/event-stream')) abort.abort();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        sent++;
        if (c.invalid) invalidSent++;
        if (res.status === 500) problems.push(`${where}: 500 ${body.slice(0, 200)}`);
        for (const v of check({ method: c.method.toUpperCase(), path, status: res.status, contentType, body: body || (contentType.startsWith('text/event-stream') ? '' : body) }).filter((v) => !(contentType.startsWith('text/event-stream') && /does not match/.test(v)))) problems.push(`${where}: ${v}`);
        if (c.invalid && (res.status < 400 || res.status >= 500)) problems.push(`${where}: an invalid request answered ${res.status} (expected a 4xx) ${body.slice(0, 160)}`);
        void op;
      } catch (err) {
        if (!abort.signal.aborted || (err as Error).name !== 'AbortError') problems.push(`${where}: ${(err as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
      if (c.anonymous) t.clock.advance(61_000); // a lockout would turn everything after into 401s
    }

    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (Date.now() > deadline) break;
        // The marketplace answers errors now and then: its 502s must be declared too.
        if (template.startsWith('/v1/marketplace')) vast.setKnob('failNext', { count: 3, status: 500, endpoints: ['list', 'list_v1', 'show', 'destroy'] });
        const cases = validCases(method, template, op);
        for (const c of [...cases, ...invalidCases(method, template, op, cases[0])]) {
          if (Date.now() > deadline) break;
          await send(c, op);
        }
        vast.setKnob('failNext', null);
      }
    }
    // Jobs created along the way are ended before the server closes.
    await waitFor(async () => (await t.bd.store.listJobs({ tenant_id: 'default', status: 'running', limit: 1 })).jobs.length === 0, 'the jobs to end', 30_000).catch(() => undefined);

    const summary = JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])));
    expect(problems, `statuses seen: ${summary}`).toEqual([]);
    // The pass did what it says: many requests, valid and invalid, with real outcomes.
    expect(sent).toBeGreaterThan(Object.keys(doc.paths).length * 4);
    expect(invalidSent).toBeGreaterThan(Object.keys(doc.paths).length);
    for (const status of [200, 202, 401, 404, 422]) expect(statuses.get(status) ?? 0, `status ${status} in ${summary}`).toBeGreaterThan(0);
  });
});
