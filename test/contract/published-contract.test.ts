import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_REQUEST_SCHEMAS, type JobRecord } from '../../shared';
import { json, makeBench, removeDir, type TestBench } from '../helpers/bench';
import { compileIn, type Document, type Json } from './openapi-document';

/**
 * Issue 34 item 9: the published contract says what the server does. The sweep report's text
 * answers are declared; a bare host:port backend_url comes back as the URL it is read as; the
 * rules the server keeps that JSON Schema can state are in the schema, not only in descriptions;
 * the document is served without a token (it holds no secret). (A namespace the cluster does not
 * have is a 422: test/snapshots/api.test.ts.)
 */

let t: TestBench;
let doc: Document;
beforeAll(async () => {
  t = await makeBench();
  // No credentials: the document is public.
  const res = await t.req({ method: 'GET', url: '/v1/openapi.json', noAuth: true });
  expect(res.statusCode).toBe(200);
  doc = json<Document>(res);
});
afterAll(async () => {
  await t.close();
  await removeDir(t.dir);
});

const component = (name: string): Json => {
  const schema = doc.components.schemas[name];
  if (!schema) throw new Error(`no component ${name}`);
  return schema;
};

describe('the published contract', () => {
  it('the document is served without a token, says so (security: []), and still refuses another site', async () => {
    const op = doc.paths['/v1/openapi.json']?.get;
    expect(op?.security).toEqual([]);
    expect(Object.keys(op?.responses ?? {})).not.toContain('401');
    const foreign = await t.req({ method: 'GET', url: '/v1/openapi.json', noAuth: true, headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' } });
    expect(foreign.statusCode).toBe(403);
    // Unconfigured auth (no tokens): the document is there too.
    const bare = await makeBench({ env: { SERVICE_API_TOKENS: '' } });
    try {
      expect((await bare.req({ method: 'GET', url: '/v1/openapi.json', noAuth: true })).statusCode).toBe(200);
    } finally {
      await bare.close();
      await removeDir(bare.dir);
    }
  });

  it("the sweep report's Markdown and CSV answers are declared with their media types", () => {
    const content = (doc.paths['/v1/sweeps/{sweep_id}/report']?.get?.responses['200'] as { content: Record<string, Json> }).content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'text/csv', 'text/markdown']);
    expect(content['text/csv']).toMatchObject({ schema: { type: 'string' } });
  });

  it('a bare host:port backend_url is read as http:// and echoed as that URL (format: uri)', async () => {
    const res = await t.req({ method: 'POST', url: '/v1/jobs/llm-instance', payload: { backend_url: '127.0.0.1:11434' } });
    expect(res.statusCode, res.body).toBe(202);
    const job = json<JobRecord>(await t.req({ method: 'GET', url: `/v1/jobs/${json<{ job_id: string }>(res).job_id}` }));
    expect((job.request as { backend_url: string }).backend_url).toBe('http://127.0.0.1:11434');
    expect(new URL((job.request as { backend_url: string }).backend_url).protocol).toBe('http:');
  });

  it('rules the server keeps that JSON Schema can state are in the schema: one cluster, distinct levels, patterns that compile', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const [kind, name, base] of [
      ['agentic-agent', 'AgenticAgentRequestInput', { question: 'q', model: 'm', backend_url: 'http://127.0.0.1:11434' }],
      ['benchmark', 'BenchmarkRequestInput', { question: 'q', model: 'm', backend_url: 'http://127.0.0.1:11434' }],
    ] as const) {
      const validate = compileIn(ajv, doc, component(name));
      for (const cluster of [{}, { kubeconfig: '/k' }, { snapshot: 'shop-1' }, { kubeconfig: '/k', snapshot: 'shop-1' }]) {
        const body = { ...base, ...cluster };
        expect(validate(body) === true, `${kind} ${JSON.stringify(cluster)}`).toBe(JOB_REQUEST_SCHEMAS[kind].safeParse(body).success);
      }
    }
    const serving = compileIn(ajv, doc, component('ServingBenchmarkRequestInput'));
    for (const concurrency of [[1, 2, 4], [1, 2, 2]]) {
      const body = { model: 'm', backend_url: 'http://127.0.0.1:11434', concurrency, requests_per_level: 8 };
      expect(serving(body) === true, JSON.stringify(concurrency)).toBe(JOB_REQUEST_SCHEMAS['serving-benchmark'].safeParse(body).success);
    }
    expect(JSON.stringify(doc.components.schemas)).toContain('"format":"regex"');
  });
});
