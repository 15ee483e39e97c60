import { z } from 'zod';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import {
  JOB_KINDS,
  JOB_KIND_ALIASES,
  JOB_REQUEST_SCHEMAS,
  JobEventSchema,
  JobRecordSchema,
  NON_OPERATION_ROUTES,
  OPERATIONS,
  OPERATION_NAMES,
  ProblemSchema,
  type OperationDef,
  type OperationName,
} from '../../shared';

/**
 * The OpenAPI document, made to tell the truth: named schemas instead of inline copies, an
 * operationId per operation named after the operation table, the real security (public /healthz,
 * X-Tenant-ID), every error as application/problem+json, the Location / Idempotent-Replayed
 * headers, and SSE described as text/event-stream. The route schemas give the shapes; this module
 * adds what fastify-swagger cannot know.
 */

type Json = Record<string, unknown>;
type OpenApiDoc = Json & { info?: Json; paths?: Record<string, Record<string, Json>>; components?: Json & { schemas?: Record<string, Json> } };

/** Component names: a private registry, so z.toJSONSchema elsewhere is not affected. */
export const openApiRegistry = z.registry<{ id: string }>();

function pascal(text: string): string {
  return text.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep: string, c: string) => c.toUpperCase());
}

function register(schema: z.ZodType, id: string): void {
  if (openApiRegistry.has(schema) || openApiRegistry._idmap.has(id)) return;
  openApiRegistry.add(schema, { id });
}

const KNOWN: readonly [z.ZodType, string][] = [
  [ProblemSchema, 'Problem'],
  [JobRecordSchema, 'JobRecord'],
  [JobEventSchema, 'JobEvent'],
];

function registerSchemas(): void {
  for (const [schema, id] of KNOWN) register(schema, id);
  for (const kind of JOB_KINDS) register(JOB_REQUEST_SCHEMAS[kind], `${pascal(kind)}Request`);
  for (const name of OPERATION_NAMES) {
    const op: OperationDef = OPERATIONS[name];
    register(op.output, op.stream ? `${pascal(name)}Item` : `${pascal(name)}Response`);
    if (op.docs?.body) register(op.docs.body, `${pascal(name)}Request`);
    else if (op.body === '*') register(op.input, `${pascal(name)}Request`);
  }
}
registerSchemas();

export const openApiTransform = createJsonSchemaTransform({ schemaRegistry: openApiRegistry });
const addComponentSchemas = createJsonSchemaTransformObject({ schemaRegistry: openApiRegistry });

type RouteInfo = { operationId: string; name: OperationName | null; alias: boolean; kind?: string };

/** (METHOD path) → the operation it serves, with its documented operationId. */
function routeTable(): Map<string, RouteInfo> {
  const table = new Map<string, RouteInfo>();
  const key = (method: string, path: string) => `${method.toLowerCase()} ${path}`;
  for (const name of OPERATION_NAMES) {
    const op: OperationDef = OPERATIONS[name];
    if (name === 'createJob') {
      for (const kind of JOB_KINDS) table.set(key('post', `/v1/jobs/${kind}`), { operationId: `${name}${pascal(kind)}`, name, alias: false, kind });
      for (const alias of JOB_KIND_ALIASES) {
        table.set(key('post', alias.path), { operationId: `${name}Alias${pascal(alias.path.replace(/^\/v1\//, ''))}`, name, alias: true, kind: alias.kind });
      }
      continue;
    }
    // A stream sharing its path with a unary operation is the same route (Accept picks SSE).
    if (!table.has(key(op.method, op.path))) table.set(key(op.method, op.path), { operationId: name, name, alias: false });
    for (const alias of op.aliases ?? []) {
      table.set(key(op.method, alias), { operationId: `${name}Alias${pascal(alias.replace(/^\/v1\//, ''))}`, name, alias: true });
    }
  }
  for (const route of NON_OPERATION_ROUTES) {
    table.set(key(route.method, route.path), { operationId: route.path === '/v1/openapi.json' ? 'getOpenApiDocument' : `${route.method.toLowerCase()}${pascal(route.path)}`, name: null, alias: false });
  }
  return table;
}

const PROBLEM_CONTENT = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

/** Every error status the API answers, with when. */
const ERROR_RESPONSES: Record<string, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'Malformed request: invalid JSON, a body that is not an object, a bad Host, a malformed URL or HTTP framing' },
  401: { name: 'Unauthorized', description: 'Missing or invalid credentials (`unauthorized`), or this address is locked out after 10 failures in 60 s (`auth_blocked`, with Retry-After)' },
  403: { name: 'Forbidden', description: 'A browser request from another origin or site (Origin, Sec-Fetch-Site, Sec-Fetch-Mode): refused before authentication' },
  404: { name: 'NotFound', description: 'Unknown job (or another tenant\'s), unknown path, or authentication not configured (`auth_not_configured`)' },
  405: { name: 'MethodNotAllowed', description: 'The path exists with other methods (see Allow)' },
  409: { name: 'Conflict', description: 'The resource is not in a state that allows this (job already ended, idempotent request still in flight, …)' },
  413: { name: 'PayloadTooLarge', description: 'The body is over 1 MiB' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not application/json' },
  422: { name: 'ValidationFailed', description: 'The input does not validate: `errors` lists up to 20 issues and says how many more there are' },
  500: { name: 'InternalError', description: 'Unexpected server error (details only in the server log)' },
  503: { name: 'Unavailable', description: 'The server is shutting down, or this address has too many open connections' },
  507: { name: 'InsufficientStorage', description: 'The data directory is full: nothing was stored' },
};

/** The 403 of an app-tenant operation (`appTenantOnly` in the operation table): another tenant, or a foreign browser request. */
const FORBIDDEN_TENANT_RESPONSE = {
  name: 'ForbiddenTenant',
  description:
    "The caller's tenant is not the app's own (`default`): settings, the marketplace key and the app token belong to it (`forbidden_tenant`); " +
    'or a browser request from another origin or site, refused before authentication (`forbidden_origin`)',
};

function errorStatuses(info: RouteInfo, op: OperationDef | null, method: string, path: string): string[] {
  const statuses = new Set(['400', '403', '500', '503']);
  if (!op?.public) statuses.add('401').add('404');
  if (method === 'post') statuses.add('413').add('415').add('422').add('507');
  if (op?.query || path.includes('{')) statuses.add('422');
  if (path.includes('{')) statuses.add('404');
  if (info.name === 'createJob' || info.name === 'cancelJob' || info.name === 'releaseInstance' || info.name === 'setMarketplaceKey') statuses.add('409');
  // /v1/jobs/{job_id} names a submit path for the job kinds: GET/HEAD there is a 405.
  if (info.name === 'getJob') statuses.add('405');
  return [...statuses].sort();
}

const SSE_DESCRIPTION =
  'Server-Sent Events: one `id: <seq>` / `data: <JobEvent as JSON>` message per event, `: heartbeat` comments while idle; ' +
  'reconnect with Last-Event-ID to resume after that seq.';

function sseContent(): Json {
  return { 'text/event-stream': { schema: { type: 'string', description: SSE_DESCRIPTION } } };
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finishOperation(doc: OpenApiDoc, method: string, path: string, operation: Json, info: RouteInfo | undefined): void {
  const op: OperationDef | null = info?.name ? OPERATIONS[info.name] : null;
  const routeInfo: RouteInfo = info ?? { operationId: `${method}${pascal(path)}`, name: null, alias: false };
  operation.operationId = routeInfo.operationId;
  if (routeInfo.alias) operation.deprecated = true;
  if (op?.public) operation.security = [];

  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []) as Json[];
  if (!op?.public) parameters.push({ $ref: '#/components/parameters/TenantId' });
  if (op?.headers) {
    for (const header of Object.values(op.headers)) {
      if (header === 'idempotency-key') parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    }
  }
  const inPath = new Set([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
  if (parameters.length > 0) operation.parameters = parameters.filter((p) => !(p.in === 'query' && inPath.has(String(p.name)))).filter((p) => !(p.in === 'header' && typeof p.name === 'string' && /^(idempotency-key|x-tenant-id)$/i.test(p.name)) || '$ref' in p);

  const responses: Record<string, Json> = {};
  const existing = (isJson(operation.responses) ? operation.responses : {}) as Record<string, Json>;
  const status = String(op?.status ?? 200);
  const success = existing[status] ?? existing['200'] ?? { description: 'OK' };
  if (routeInfo.operationId === 'getOpenApiDocument') success.content = { 'application/json': { schema: { type: 'object', description: 'OpenAPI 3.1 document' } } };
  success.description = typeof success.description === 'string' && success.description !== 'Default Response' ? success.description : (op?.summary ?? 'OK');
  const sameRouteStream = op && !op.stream
    ? OPERATION_NAMES.find((n) => (OPERATIONS[n] as OperationDef).stream === true && OPERATIONS[n].method === op.method && OPERATIONS[n].path === op.path)
    : undefined;
  if (op?.stream) {
    success.content = sseContent();
  } else if (sameRouteStream) {
    success.content = { ...(isJson(success.content) ? success.content : {}), ...sseContent() };
    success.description = `${String(success.description)}. With \`Accept: text/event-stream\`: ${OPERATIONS[sameRouteStream].summary}`;
  }
  const headers: Json = {};
  if (routeInfo.name === 'createJob') {
    headers.Location = { $ref: '#/components/headers/Location' };
    headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
  }
  if (routeInfo.alias) {
    headers.Deprecation = { $ref: '#/components/headers/Deprecation' };
    headers.Link = { $ref: '#/components/headers/SuccessorLink' };
  }
  if (Object.keys(headers).length > 0) success.headers = headers;
  responses[status] = success;
  for (const code of errorStatuses(routeInfo, op, method, path)) {
    const name = code === '403' && op?.appTenantOnly ? FORBIDDEN_TENANT_RESPONSE.name : (ERROR_RESPONSES[code]?.name ?? 'InternalError');
    responses[code] = { $ref: `#/components/responses/${name}` };
  }
  operation.responses = responses;
}

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
  settings: 'App settings, the API token and the marketplace key',
  agents: 'The agents a job can ask',
};

/** fastify-swagger `transformObject`: named schemas, then everything above. */
export function finishOpenApi(document: Parameters<typeof addComponentSchemas>[0]): ReturnType<typeof addComponentSchemas> {
  const doc = addComponentSchemas(document) as OpenApiDoc;
  doc.info = { ...doc.info, license: { name: 'MIT', identifier: 'MIT' } };
  const table = routeTable();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch', 'head', 'options'].includes(method) || !isJson(operation)) continue;
      finishOperation(doc, method, path, operation, table.get(`${method} ${path}`));
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
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Retry-safe submit: the same key and body within 24 h answer the same job_id (with Idempotent-Replayed: true)',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    },
  };
  components.headers = {
    Location: { description: 'The new job: /v1/jobs/{job_id}', required: true, schema: { type: 'string' } },
    IdempotentReplayed: { description: '`true` when this answer replays an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
    Deprecation: { description: 'This path is a deprecated alias', schema: { type: 'string', enum: ['true'] } },
    SuccessorLink: { description: '`<path>; rel="successor-version"`: the path to use instead', schema: { type: 'string' } },
    RetryAfter: { description: 'Seconds until the lockout (or the overload) ends', schema: { type: 'string' } },
    Allow: { description: 'The methods this path answers', schema: { type: 'string' } },
  };
  components.responses = Object.fromEntries(
    [...Object.entries(ERROR_RESPONSES), ['403', FORBIDDEN_TENANT_RESPONSE] as const].map(([code, { name, description }]) => {
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
}
