import { z } from 'zod';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import {
  AgentNameSchema,
  BACKEND_URL_DESCRIPTION,
  BackendUrlSchema,
  JOB_KINDS,
  JOB_REQUEST_SCHEMAS,
  JobEventSchema,
  JobRecordSchema,
  JobStreamItemSchema,
  MARKETPLACE_RULES_JSON_SCHEMA,
  OPERATIONS,
  OPERATION_NAMES,
  ProblemSchema,
  RegexSchema,
  ServingBenchmarkRequestSchema,
  StreamResetSchema,
  WHOLE_NUMBER_PARAMS,
  type OperationDef,
} from '../../shared';


/** The OpenAPI document's named schemas and JSON Schema additions (see openapi.ts). */

export type Json = Record<string, unknown>;
export type OpenApiDoc = Json & { info?: Json; paths?: Record<string, Record<string, Json>>; components?: Json & { schemas?: Record<string, Json> } };
type Meta = { id?: string } & Json;

/**
 * Component names and JSON Schema additions: a private registry, so z.toJSONSchema elsewhere is
 * not affected. It also reads the descriptions the shared schemas carry (`.describe()`), which
 * live in zod's global registry, so the document says what each field means.
 */
class DescribedMap extends WeakMap<z.core.$ZodType, Meta> {
  override get(schema: z.core.$ZodType): Meta | undefined {
    const own = super.get(schema);
    const described = z.globalRegistry._map.get(schema);
    if (!described) return own;
    const { id: _ignored, ...rest } = described as Meta;
    return { ...rest, ...own };
  }

  override has(schema: z.core.$ZodType): boolean {
    return super.has(schema) || z.globalRegistry._map.has(schema);
  }
}

class DocumentRegistry extends z.core.$ZodRegistry<Meta> {
  // fastify-type-provider-zod reads this map (through copies) when it writes the schemas.
  override _map = new DescribedMap();
}
export const openApiRegistry = new DocumentRegistry();

export function pascal(text: string): string {
  return text.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep: string, c: string) => c.toUpperCase());
}

function register(schema: z.ZodType, meta: Meta): void {
  if (meta.id !== undefined && openApiRegistry._idmap.has(meta.id)) return;
  if (openApiRegistry.has(schema)) {
    // A schema registered for its JSON Schema additions first may still get a component name.
    const previous = openApiRegistry.get(schema);
    if (previous?.id !== undefined) return;
    openApiRegistry.remove(schema);
    openApiRegistry.add(schema, { ...previous, ...meta });
    return;
  }
  openApiRegistry.add(schema, meta);
}

const KNOWN: readonly [z.ZodType, string][] = [
  [ProblemSchema, 'Problem'],
  [JobRecordSchema, 'JobRecord'],
  [JobEventSchema, 'JobEvent'],
  [StreamResetSchema, 'StreamReset'],
  [JobStreamItemSchema, 'JobStreamItem'],
];

/** A job reads one cluster: a kubeconfig's or a snapshot's, never both (the server's clusterIssues). */
const CLUSTER_RULE_JSON_SCHEMA = { not: { properties: { kubeconfig: {}, snapshot: {} }, required: ['kubeconfig', 'snapshot'] } } as const;

function registerSchemas(): void {
  // Query and header numbers arrive as text and are read as whole numbers: describe them as such.
  for (const [schema, { min, max }] of WHOLE_NUMBER_PARAMS) register(schema, { type: 'integer', minimum: min, maximum: max, anyOf: undefined });
  register(BackendUrlSchema, { format: 'uri', description: BACKEND_URL_DESCRIPTION });
  for (const [schema, id] of KNOWN) register(schema, { id });
  for (const kind of JOB_KINDS) {
    const rules = { ...(kind === 'agentic-agent' ? {} : MARKETPLACE_RULES_JSON_SCHEMA), ...(kind === 'agentic-agent' || kind === 'benchmark' ? CLUSTER_RULE_JSON_SCHEMA : {}) };
    register(JOB_REQUEST_SCHEMAS[kind], { id: `${pascal(kind)}Request`, ...structuredClone(rules) });
  }
  // Rules the server keeps that JSON Schema can state (they were in descriptions only, issue 34 item 9).
  register(ServingBenchmarkRequestSchema.shape.concurrency, { uniqueItems: true });
  register(RegexSchema, { format: 'regex' });
  for (const name of OPERATION_NAMES) {
    const op: OperationDef = OPERATIONS[name];
    // A 204 answers no body: nothing to name.
    if (op.status !== 204) register(op.output, { id: op.stream ? `${pascal(name)}Item` : `${pascal(name)}Response` });
    if (op.docs?.body) register(op.docs.body, { id: `${pascal(name)}Request` });
    else if (op.body === '*') register(op.input, { id: `${pascal(name)}Request` });
  }
}
registerSchemas();

/** The agents the server knows when it builds the document become the enum of `agent`. */
export function setAgentNames(names: readonly string[]): void {
  if (names.length === 0) return;
  openApiRegistry.remove(AgentNameSchema);
  openApiRegistry.add(AgentNameSchema, { enum: [...names].sort(), description: 'an agent this server knows (see docs/agents.md to add one)' });
}

export const openApiTransform = createJsonSchemaTransform({ schemaRegistry: openApiRegistry });
export const addComponentSchemas = createJsonSchemaTransformObject({ schemaRegistry: openApiRegistry });
