import type { Ajv2020 } from 'ajv/dist/2020.js';
import { JOB_KINDS, JOB_KIND_ALIASES, OPERATIONS, OPERATION_NAMES, type OperationDef, type OperationName } from '../../shared';

/** The OpenAPI document as the tests read it, and the routes the operation table says it has. */

export type Json = Record<string, unknown>;
export type Parameter = { $ref?: string; name?: string; in?: string; required?: boolean; schema?: Json; description?: string };
export type Operation = Json & {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Json }> };
  responses: Record<string, Json>;
};
export type Document = Json & {
  servers?: { url: string }[];
  info: Json;
  paths: Record<string, Record<string, Operation>>;
  components: Json & { schemas: Record<string, Json>; parameters?: Record<string, Parameter>; responses?: Record<string, Json> };
};

/** Every route of the table: its method, its OpenAPI path and the operation it serves. */
export function tableRoutes(): { name: OperationName; method: string; path: string; alias: boolean }[] {
  const routes: { name: OperationName; method: string; path: string; alias: boolean }[] = [];
  for (const name of OPERATION_NAMES) {
    const op: OperationDef = OPERATIONS[name];
    if (name === 'createJob') {
      for (const kind of JOB_KINDS) routes.push({ name, method: 'post', path: `/v1/jobs/${kind}`, alias: false });
      for (const alias of JOB_KIND_ALIASES) routes.push({ name, method: 'post', path: alias.path, alias: true });
      continue;
    }
    for (const [i, path] of [op.path, ...(op.aliases ?? [])].entries()) routes.push({ name, method: op.method.toLowerCase(), path, alias: i > 0 });
  }
  return routes;
}

/** Follows `$ref`s inside the document. */
export function deref<T = Json>(doc: Document, value: unknown): T {
  let node = value as Json | undefined;
  for (let i = 0; i < 10 && node && typeof node.$ref === 'string'; i++) {
    let target: unknown = doc;
    for (const part of node.$ref.replace(/^#\//, '').split('/')) target = (target as Json | undefined)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    node = target as Json | undefined;
  }
  return node as T;
}

/** The parameters of an operation with their `$ref`s followed. */
export function parametersOf(doc: Document, operation: Operation): Parameter[] {
  return (operation.parameters ?? []).map((p) => deref<Parameter>(doc, p));
}

/** An ajv validator for a schema of the document (refs to its components resolved). */
export function compileIn(ajv: Ajv2020, doc: Document, schema: Json) {
  if (!ajv.getSchema('openapi')) ajv.addSchema({ $id: 'openapi', components: doc.components } as Json);
  return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as Json);
}
