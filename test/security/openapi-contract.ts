import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * Checks real HTTP answers against the OpenAPI document, as a validating proxy would: the status
 * must be documented for that operation, the media type listed, and the body valid against the
 * documented schema ($refs resolved inside the document).
 */

type Json = Record<string, unknown>;
export type OpenApiDoc = Json & { paths: Record<string, Record<string, Json>>; components: Json & { schemas: Record<string, Json> } };

export type Observed = { method: string; path: string; status: number; contentType: string; body: string };

function templateMatches(template: string, path: string): boolean {
  const re = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}|\{[^}]+\}/g, '[^/]+')}$`);
  return re.test(path);
}

/** The operation a request lands on: concrete paths win over templated ones, as in the router. */
export function findOperation(doc: OpenApiDoc, method: string, path: string): { template: string; operation: Json } | undefined {
  const candidates = Object.keys(doc.paths).filter((t) => templateMatches(t, path) && doc.paths[t]?.[method.toLowerCase()]);
  candidates.sort((a, b) => (a.includes('{') ? 1 : 0) - (b.includes('{') ? 1 : 0));
  const template = candidates[0];
  const operation = template ? doc.paths[template]?.[method.toLowerCase()] : undefined;
  return template && operation ? { template, operation } : undefined;
}

function deref(doc: OpenApiDoc, value: unknown): Json | undefined {
  let node = value as Json | undefined;
  for (let i = 0; i < 10 && node && typeof node.$ref === 'string'; i++) {
    const parts = node.$ref.replace(/^#\//, '').split('/');
    let target: unknown = doc;
    for (const part of parts) target = (target as Json | undefined)?.[part];
    node = target as Json | undefined;
  }
  return node;
}

export function createContractChecker(doc: OpenApiDoc) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: doc.components } as Json);

  /** Problems with one observed exchange; empty when it matches the document. */
  return function violations(seen: Observed): string[] {
    const where = `${seen.method} ${seen.path} → ${seen.status}`;
    const found = findOperation(doc, seen.method, seen.path);
    if (!found) return [`${where}: no documented operation`];
    const responses = (found.operation.responses ?? {}) as Json;
    const response = deref(doc, responses[String(seen.status)] ?? responses.default);
    if (!response) return [`${where}: status not documented for ${found.template} (documented: ${Object.keys(responses).join(', ')})`];
    const content = (response.content ?? {}) as Record<string, Json>;
    if (seen.body === '' && seen.method === 'HEAD') return [];
    const mediaType = seen.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const media = content[mediaType];
    if (!media) return [`${where}: media type ${mediaType} not documented (documented: ${Object.keys(content).join(', ')})`];
    if (mediaType !== 'application/json' && mediaType !== 'application/problem+json') return [];
    const schema = JSON.parse(JSON.stringify(media.schema ?? {}).replaceAll('"#/components/', '"openapi#/components/')) as Json;
    const validate = ajv.compile(schema);
    if (validate(JSON.parse(seen.body))) return [];
    return [`${where}: body does not match the schema: ${ajv.errorsText(validate.errors)}`];
  };
}
