import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_PATHS } from '../../shared';
import { json, makeBench, removeDir, type TestBench } from '../helpers/bench';

let t: TestBench;
beforeEach(async () => {
  t = await makeBench();
});
afterEach(async () => {
  await t.close();
  await removeDir(t.dir);
});

type Schema = { oneOf?: Schema[]; anyOf?: Schema[]; properties?: Record<string, Schema>; const?: unknown; enum?: unknown[]; $ref?: string; items?: Schema };
type Doc = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>; components?: { schemas?: Record<string, Schema> } };

function resolve(doc: Doc, s: Schema | undefined): Schema | undefined {
  if (!s?.$ref) return s;
  const name = s.$ref.split('/').at(-1) ?? '';
  return resolve(doc, doc.components?.schemas?.[name]);
}

/** kind → the property names of its non-null `result` variants. */
function resultFields(doc: Doc, record: Schema | undefined): Record<string, string[][]> {
  const out: Record<string, string[][]> = {};
  for (const variant of resolve(doc, record)?.oneOf ?? []) {
    const v = resolve(doc, variant);
    const kindSchema = v?.properties?.kind;
    const kind = String(kindSchema?.const ?? kindSchema?.enum?.[0]);
    const result = resolve(doc, v?.properties?.result);
    const options = (result?.anyOf ?? result?.oneOf ?? [result]).map((o) => resolve(doc, o)).filter((o): o is Schema => o !== undefined);
    // llm-instance is itself a union on `mode`.
    const flat = options.flatMap((o) => (o.oneOf ?? o.anyOf ?? [o]).map((x) => resolve(doc, x)));
    out[kind] = flat.filter((o) => o?.properties).map((o) => Object.keys(o?.properties ?? {}).sort());
  }
  return out;
}

describe('GET /v1/openapi.json', () => {
  it("describes each job kind's result on GET /v1/jobs/{id}", async () => {
    const res = await t.req({ method: 'GET', url: API_PATHS.openapi });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const doc = json<Doc>(res);
    const getJob = Object.entries(doc.paths).find(([p]) => /^\/v1\/jobs\/\{[a-z_]+\}$/.test(p))?.[1].get;
    const record = getJob?.responses?.['200']?.content?.['application/json']?.schema;
    const fields = resultFields(doc, record);
    expect(Object.keys(fields).sort()).toEqual(['agentic-agent', 'benchmark', 'llm-instance', 'serving-benchmark', 'suite']);
    expect(fields['serving-benchmark']?.[0]).toEqual(expect.arrayContaining(['model', 'levels', 'best', 'phases', 'cost', 'instance', 'contract_id', 'backend_url']));
    expect(fields['agentic-agent']).toEqual([['answer', 'artifacts', 'metadata', 'result_type']]);
    expect(fields.benchmark?.[0]).toEqual(
      expect.arrayContaining(['answer', 'metadata', 'phases', 'cost', 'instance', 'teardown', 'contract_id', 'backend_url', 'model_name']),
    );
    expect(fields['llm-instance']?.map((f) => f.includes('models') || f.includes('offer'))).toEqual([true, true]);
    expect(fields['llm-instance']?.[1]).toEqual(expect.arrayContaining(['mode', 'backend_url', 'model_name', 'contract_id', 'offer', 'dph_total']));
    expect(fields.suite?.[0]).toEqual(expect.arrayContaining(['suite_id', 'agent', 'model', 'scenarios', 'summary', 'phases', 'cost', 'instance']));
  });
});
