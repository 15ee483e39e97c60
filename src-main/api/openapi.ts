import { addComponentSchemas, setAgentNames, type Json, type OpenApiDoc } from './openapi-registry';
import { ERROR_RESPONSES, FORBIDDEN_TENANT_RESPONSE, HEADER_PARAMETERS, PROBLEM_CONTENT, finishOperation, isJson, routeTable } from './openapi-operations';

export { openApiRegistry, openApiTransform } from './openapi-registry';

/**
 * The OpenAPI document, made to tell the truth: named schemas instead of inline copies, an
 * operationId and a description per operation from the operation table, the real security (public
 * /healthz, X-Tenant-ID), every status the server answers (the table names each operation's own),
 * every error as application/problem+json, the headers it reads and sends, the cross-field rules
 * of the job requests, and SSE described as text/event-stream with its event names. The route
 * schemas give the shapes; this module adds what fastify-swagger cannot know.
 */


/**
 * zod writes a record keyed by an enum (`z.record(JobStatusSchema, …)`) as `propertyNames` +
 * `required` without `properties`; spell the properties out so the schema says what it requires.
 */
function describeRecordKeys(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) describeRecordKeys(item);
    return;
  }
  if (!isJson(node)) return;
  const required = node.required;
  const values = node.additionalProperties;
  if (Array.isArray(required) && isJson(values)) {
    const properties = (isJson(node.properties) ? node.properties : {}) as Json;
    for (const name of required) if (typeof name === 'string' && !(name in properties)) properties[name] = values;
    node.properties = properties;
  }
  for (const value of Object.values(node)) describeRecordKeys(value);
}

/** Drops component schemas nothing refers to (the transform emits an input and an output copy of each). */
function pruneSchemas(doc: OpenApiDoc): void {
  const components = doc.components;
  if (!components?.schemas) return;
  for (;;) {
    const schemas: Record<string, Json> = components.schemas ?? {};
    const text = JSON.stringify({ ...doc, components: { ...components, schemas: undefined } }) + JSON.stringify(Object.values(schemas));
    const kept = Object.entries(schemas).filter(([name]) => text.includes(`"#/components/schemas/${name}"`));
    if (kept.length === Object.keys(schemas).length) return;
    components.schemas = Object.fromEntries(kept);
  }
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  meta: 'Liveness and this document',
  jobs: 'Submit, list, follow and cancel jobs; their events and metrics',
  marketplace: 'GPU marketplace: estimates, the model catalog, rented machines',
  llmserver: 'llmserver (Ollama) backends',
  settings: "App settings, the API token and the marketplace key (the app's own tenant, `default`)",
  agents: 'The agents a job can ask',
  snapshots: 'Recorded clusters: record, list, export, import and delete read-only snapshots that jobs replay as a Kubernetes API',
};

export type OpenApiOptions = {
  /** The agents the server knows (the enum of `agent`); read when the document is built. */
  agentNames?: () => readonly string[];
};

type SwaggerDocument = Parameters<typeof addComponentSchemas>[0];

/** fastify-swagger `transformObject`: named schemas, then everything above. */
export function makeFinishOpenApi(options: OpenApiOptions = {}): (document: SwaggerDocument) => ReturnType<typeof addComponentSchemas> {
  return (document) => {
    setAgentNames(options.agentNames?.() ?? []);
    const doc = addComponentSchemas(document) as OpenApiDoc;
    doc.info = {
      ...doc.info,
      contact: { name: 'benchdesk', url: 'https://benchdesk.dev' },
      license: { name: 'MIT', identifier: 'MIT' },
    };
    const table = routeTable();
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, operation] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'delete', 'patch', 'head', 'options'].includes(method) || !isJson(operation)) continue;
        finishOperation(method, path, operation, table.get(`${method} ${path}`));
      }
    }
    const components = (doc.components ??= {});
    components.parameters = {
      TenantId: {
        name: 'X-Tenant-ID',
        in: 'header',
        required: false,
        description: 'The tenant the token belongs to (default `default`); jobs of other tenants are invisible',
        schema: { type: 'string', minLength: 1, default: 'default' },
      },
      ...Object.fromEntries(Object.values(HEADER_PARAMETERS).map(({ component, parameter }) => [component, parameter])),
    };
    components.headers = {
      Location: { description: 'The new job: /v1/jobs/{job_id}', required: true, schema: { type: 'string' } },
      IdempotentReplayed: { description: '`true` when this answer replays an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
      Deprecation: { description: 'This path is a deprecated alias', schema: { type: 'string', enum: ['true'] } },
      SuccessorLink: { description: '`<path>; rel="successor-version"`: the path to use instead', schema: { type: 'string' } },
      RetryAfter: { description: 'Seconds until the lockout (or the overload) ends', schema: { type: 'string' } },
      Allow: { description: 'The methods this path answers', schema: { type: 'string' } },
    };
    const usedResponses = new Set(JSON.stringify(doc.paths).match(/#\/components\/responses\/\w+/g)?.map((r) => r.split('/').pop() ?? '') ?? []);
    components.responses = Object.fromEntries(
      [...Object.entries(ERROR_RESPONSES), ['403', FORBIDDEN_TENANT_RESPONSE] as const]
        .filter(([, { name }]) => usedResponses.has(name))
        .map(([code, { name, description }]) => {
          const headers = code === '401' || code === '503' ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : code === '405' ? { Allow: { $ref: '#/components/headers/Allow' } } : undefined;
          return [name, { description, ...(headers ? { headers } : {}), content: PROBLEM_CONTENT }];
        }),
    );
    const used = new Set<string>();
    for (const item of Object.values(doc.paths ?? {})) {
      for (const operation of Object.values(item)) if (isJson(operation) && Array.isArray(operation.tags)) for (const tag of operation.tags) used.add(String(tag));
    }
    doc.tags = [...used].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `${name} operations` }));
    describeRecordKeys(doc);
    pruneSchemas(doc);
    return doc as ReturnType<typeof addComponentSchemas>;
  };
}
