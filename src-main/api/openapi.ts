import { z } from 'zod';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import {
  AgentNameSchema,
  BACKEND_URL_DESCRIPTION,
  BackendUrlSchema,
  JOB_KINDS,
  JOB_KIND_DOCS,
  JOB_KIND_ALIASES,
  JOB_REQUEST_SCHEMAS,
  JobEventSchema,
  JobRecordSchema,
  JobStreamItemSchema,
  MARKETPLACE_RULES_JSON_SCHEMA,
  NON_OPERATION_ROUTES,
  OPERATIONS,
  OPERATION_NAMES,
  ProblemSchema,
  StreamResetSchema,
  WHOLE_NUMBER_PARAMS,
  type JobKind,
  type OperationDef,
  type OperationName,
} from '../../shared';
import { SSE_RETRY_MS } from './sse';

/**
 * The OpenAPI document, made to tell the truth: named schemas instead of inline copies, an
 * operationId and a description per operation from the operation table, the real security (public
 * /healthz, X-Tenant-ID), every status the server answers (the table names each operation's own),
 * every error as application/problem+json, the headers it reads and sends, the cross-field rules
 * of the job requests, and SSE described as text/event-stream with its event names. The route
 * schemas give the shapes; this module adds what fastify-swagger cannot know.
 */

type Json = Record<string, unknown>;
type OpenApiDoc = Json & { info?: Json; paths?: Record<string, Record<string, Json>>; components?: Json & { schemas?: Record<string, Json> } };
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

function pascal(text: string): string {
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

function registerSchemas(): void {
  // Query and header numbers arrive as text and are read as whole numbers: describe them as such.
  for (const [schema, { min, max }] of WHOLE_NUMBER_PARAMS) register(schema, { type: 'integer', minimum: min, maximum: max, anyOf: undefined });
  register(BackendUrlSchema, { format: 'uri', description: BACKEND_URL_DESCRIPTION });
  for (const [schema, id] of KNOWN) register(schema, { id });
  for (const kind of JOB_KINDS) {
    const rules = kind === 'agentic-agent' ? {} : MARKETPLACE_RULES_JSON_SCHEMA;
    register(JOB_REQUEST_SCHEMAS[kind], { id: `${pascal(kind)}Request`, ...structuredClone(rules) });
  }
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
function setAgentNames(names: readonly string[]): void {
  if (names.length === 0) return;
  openApiRegistry.remove(AgentNameSchema);
  openApiRegistry.add(AgentNameSchema, { enum: [...names].sort(), description: 'an agent this server knows (see docs/agents.md to add one)' });
}

export const openApiTransform = createJsonSchemaTransform({ schemaRegistry: openApiRegistry });
const addComponentSchemas = createJsonSchemaTransformObject({ schemaRegistry: openApiRegistry });

type RouteInfo = { operationId: string; name: OperationName | null; alias: boolean; kind?: string; successor?: string; description?: string };

/** (METHOD path) → the operation it serves, with its documented operationId. */
function routeTable(): Map<string, RouteInfo> {
  const table = new Map<string, RouteInfo>();
  const key = (method: string, path: string) => `${method.toLowerCase()} ${path}`;
  for (const name of OPERATION_NAMES) {
    const op: OperationDef = OPERATIONS[name];
    if (name === 'createJob') {
      for (const kind of JOB_KINDS) table.set(key('post', `/v1/jobs/${kind}`), { operationId: `${name}${pascal(kind)}`, name, alias: false, kind });
      for (const alias of JOB_KIND_ALIASES) {
        table.set(key('post', alias.path), { operationId: `${name}Alias${pascal(alias.path.replace(/^\/v1\//, ''))}`, name, alias: true, kind: alias.kind, successor: alias.successor });
      }
      continue;
    }
    // A stream sharing its path with a unary operation is the same route (Accept picks SSE).
    if (!table.has(key(op.method, op.path))) table.set(key(op.method, op.path), { operationId: name, name, alias: false });
    for (const alias of op.aliases ?? []) {
      table.set(key(op.method, alias), { operationId: `${name}Alias${pascal(alias.replace(/^\/v1\//, ''))}`, name, alias: true, successor: op.path });
    }
  }
  for (const route of NON_OPERATION_ROUTES) {
    table.set(key(route.method, route.path), {
      operationId: route.path === '/v1/openapi.json' ? 'getOpenApiDocument' : `${route.method.toLowerCase()}${pascal(route.path)}`,
      name: null,
      alias: false,
      description: route.why,
    });
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
  406: { name: 'NotAcceptable', description: 'The request does not accept the media type this path answers' },
  408: { name: 'RequestTimeout', description: 'The request (headers and body) did not arrive in time; the connection is closed' },
  409: { name: 'Conflict', description: 'The resource is not in a state that allows this (job already ended, idempotent request still in flight, snapshot in use, …)' },
  413: { name: 'PayloadTooLarge', description: 'The body is over 1 MiB (64 MiB for a snapshot import)' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not application/json' },
  422: { name: 'ValidationFailed', description: 'The input does not validate: `errors` lists up to 20 issues and says how many more there are' },
  431: { name: 'RequestHeaderFieldsTooLarge', description: 'The request headers are too large; the connection is closed' },
  500: { name: 'InternalError', description: 'Unexpected server error (details only in the server log)' },
  502: { name: 'BadGateway', description: 'A service the server asked on the caller\'s behalf (a Kubernetes cluster, the marketplace, an llmserver) could not be reached or answered an error: the problem names it' },
  503: { name: 'Unavailable', description: 'The server is shutting down, or this address has too many open connections' },
  507: { name: 'InsufficientStorage', description: 'The data directory is full: nothing was stored' },
};

/** The 403 of an app-tenant operation (`appTenantOnly` in the operation table): another tenant, or a foreign browser request. */
const FORBIDDEN_TENANT_RESPONSE = {
  name: 'ForbiddenTenant',
  description:
    "The caller's tenant is not the app's own (`default`): settings, the marketplace key, the app token and changes to the install's snapshots belong to it (`forbidden_tenant`); " +
    'or a browser request from another origin or site, refused before authentication (`forbidden_origin`)',
};

/** The statuses every route of this kind can answer, whatever the operation. */
function commonErrorStatuses(op: OperationDef | null, method: string, path: string): Set<string> {
  // 400 (framing, Host), 403 (browser origins), 408 and 431 (node's HTTP limits), 500, 503 (shutdown, connection cap).
  const statuses = new Set(['400', '403', '408', '431', '500', '503']);
  if (!op?.public) statuses.add('401').add('404');
  if (method === 'post') statuses.add('413').add('415').add('422').add('507');
  if (op?.query || path.includes('{')) statuses.add('422');
  if (path.includes('{')) statuses.add('404');
  return statuses;
}

const SSE_DESCRIPTION =
  `Server-Sent Events. The stream starts with \`retry: ${SSE_RETRY_MS}\` (reconnect after that many ms). Events: ` +
  '`message` (no `event:` line): `data` is a JobEvent (see `x-sse-events`), `id` its seq; ' +
  '`reset`: `data` is a StreamReset — events after the position asked for are no longer held (fetch again), `id` is the seq the stream continues from. ' +
  '`: heartbeat` comments keep an idle stream open. Reconnect with Last-Event-ID to resume after the last id received.';

function componentOf(schema: z.ZodType): string {
  const id = openApiRegistry.get(schema)?.id;
  if (id === undefined) throw new Error('a stream item schema without a component name');
  return id;
}

/** `itemSchema`: the component that describes the JSON `data` of each event (the stream's items in the operation table). */
function sseContent(itemSchema: string): Json {
  return {
    'text/event-stream': {
      // contentSchema annotates what the text carries; validators treat the body as the string it is.
      schema: { type: 'string', description: SSE_DESCRIPTION, contentMediaType: 'text/event-stream', contentSchema: { $ref: `#/components/schemas/${itemSchema}` } },
      example: `retry: ${SSE_RETRY_MS}\n\nid: 42\ndata: {"seq":42,"job_id":"…","event":"job.running","status":"info",…}\n\n: heartbeat\n\n`,
      'x-sse-events': {
        message: { $ref: '#/components/schemas/JobEvent' },
        reset: { $ref: '#/components/schemas/StreamReset' },
      },
    },
  };
}

/** Headers an operation reads, as named parameters; a header without one here is described from its input schema. */
const HEADER_PARAMETERS: Record<string, { component: string; parameter: Json }> = {
  'idempotency-key': {
    component: 'IdempotencyKey',
    parameter: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Retry-safe submit: the same key and body within 24 h answer the same job_id (with Idempotent-Replayed: true). 1-255 printable ASCII characters without spaces, optionally in double quotes',
      schema: { type: 'string', minLength: 1, maxLength: 257, pattern: '^(?:[!-~]{1,255}|"[!-~]{1,255}")$' },
    },
  },
  'last-event-id': {
    component: 'LastEventId',
    parameter: {
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description: 'Resume a stream after this seq (what an SSE client sends when it reconnects); wins over `after`. One this server never handed out is a 422',
      schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    },
  },
};

function headerParameter(op: OperationDef, field: string, header: string): Json {
  const known = HEADER_PARAMETERS[header];
  if (known) return { $ref: `#/components/parameters/${known.component}` };
  const shape = op.input instanceof z.ZodObject ? (op.input.shape as Record<string, z.ZodType>) : {};
  const schema = shape[field] ? z.toJSONSchema(shape[field], { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) : { type: 'string' };
  delete (schema as Json).$schema;
  return { name: header, in: 'header', required: false, schema };
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether the server answers the operation without a body (it reads a missing one as `{}`). */
function bodyOptional(op: OperationDef): boolean {
  const body = op.docs?.body ?? (op.body === '*' ? op.input : undefined);
  if (!body?.safeParse({}).success) return false;
  // A body that is the whole input may be left out only if the input may be empty.
  return op.body !== '*' || op.input.safeParse({}).success;
}

/** The stream operation answering the same route as a unary one (Accept: text/event-stream). */
function sameRouteStream(op: OperationDef): OperationName | undefined {
  if (op.stream) return undefined;
  return OPERATION_NAMES.find((n) => (OPERATIONS[n] as OperationDef).stream === true && OPERATIONS[n].method === op.method && OPERATIONS[n].path === op.path);
}

function describeOperation(op: OperationDef | null, info: RouteInfo): string {
  const own = op?.description ?? info.description ?? '';
  const stream = op ? sameRouteStream(op) : undefined;
  const withStream = stream ? `${own} With \`Accept: text/event-stream\`: ${(OPERATIONS[stream] as OperationDef).description}` : own;
  if (info.kind && !info.alias) {
    const kindDocs = JOB_KIND_DOCS[info.kind as JobKind];
    return `Submit a \`${info.kind}\` job. ${kindDocs ? `${kindDocs.description} ` : ''}${withStream}`;
  }
  if (info.successor) return `Deprecated alias of \`${info.successor}\` (answers with Deprecation and a successor Link); same behaviour. ${withStream}`;
  return withStream;
}

function finishOperation(method: string, path: string, operation: Json, info: RouteInfo | undefined): void {
  const op: OperationDef | null = info?.name ? OPERATIONS[info.name] : null;
  const routeInfo: RouteInfo = info ?? { operationId: `${method}${pascal(path)}`, name: null, alias: false };
  operation.operationId = routeInfo.operationId;
  operation.description = describeOperation(op, routeInfo);
  if (routeInfo.alias) operation.deprecated = true;
  if (op?.public) operation.security = [];
  const stream = op ? sameRouteStream(op) : undefined;
  const streamOp: OperationDef | null = stream ? OPERATIONS[stream] : null;

  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []) as Json[];
  if (!op?.public) parameters.push({ $ref: '#/components/parameters/TenantId' });
  for (const source of [op, streamOp]) {
    for (const [field, header] of Object.entries(source?.headers ?? {})) {
      const parameter = headerParameter(source as OperationDef, field, header);
      if (!parameters.some((p) => p.$ref === parameter.$ref && p.name === parameter.name)) parameters.push(parameter);
    }
  }
  const inPath = new Set([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
  if (parameters.length > 0) {
    operation.parameters = parameters
      .filter((p) => !(p.in === 'query' && inPath.has(String(p.name))))
      .filter((p) => !(p.in === 'header' && typeof p.name === 'string' && p.name.toLowerCase() in HEADER_PARAMETERS) || '$ref' in p)
      .filter((p) => !(p.in === 'header' && typeof p.name === 'string' && /^x-tenant-id$/i.test(p.name)));
  }

  // A body-taking operation whose input may be left out entirely (all its fields optional) answers a request without one.
  if (isJson(operation.requestBody) && op && !routeInfo.kind && bodyOptional(op)) operation.requestBody.required = false;

  const responses: Record<string, Json> = {};
  const existing = (isJson(operation.responses) ? operation.responses : {}) as Record<string, Json>;
  const status = String(op?.status ?? 200);
  const success = existing[status] ?? existing['200'] ?? { description: 'OK' };
  if (routeInfo.operationId === 'getOpenApiDocument') success.content = { 'application/json': { schema: OPENAPI_DOCUMENT_SCHEMA } };
  success.description = typeof success.description === 'string' && success.description !== 'Default Response' ? success.description : (op?.summary ?? 'OK');
  if (op?.status === 204) {
    delete success.content;
  } else if (op?.stream) {
    success.content = sseContent(componentOf(op.output));
  } else if (streamOp) {
    success.content = { ...(isJson(success.content) ? success.content : {}), ...sseContent(componentOf(streamOp.output)) };
    success.description = `${String(success.description)}. With \`Accept: text/event-stream\`: ${streamOp.summary}`;
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

  const statuses = commonErrorStatuses(op, method, path);
  const specific = new Map<string, string[]>();
  const kindErrors = routeInfo.kind && !routeInfo.alias ? JOB_KIND_DOCS[routeInfo.kind as JobKind]?.errors : undefined;
  for (const source of [op, streamOp, kindErrors ? { errors: kindErrors } : null]) {
    for (const [code, why] of Object.entries(source?.errors ?? {})) {
      statuses.add(code);
      specific.set(code, [...(specific.get(code) ?? []), why]);
    }
  }
  for (const code of [...statuses].sort()) {
    const component = code === '403' && op?.appTenantOnly ? FORBIDDEN_TENANT_RESPONSE : (ERROR_RESPONSES[code] ?? { name: 'InternalError', description: '' });
    const whys = specific.get(code);
    if (!whys) {
      responses[code] = { $ref: `#/components/responses/${component.name}` };
      continue;
    }
    // The operation's own reason first; what any route answers with this status still applies.
    const generic = commonErrorStatuses(op, method, path).has(code) ? ` Also: ${component.description}` : '';
    responses[code] = { description: `${[...new Set(whys)].join('; ')}.${generic}`, ...(code === '405' ? { headers: { Allow: { $ref: '#/components/headers/Allow' } } } : {}), content: PROBLEM_CONTENT };
  }
  operation.responses = responses;
}

/** What GET /v1/openapi.json answers, in outline (the document itself describes the rest). */
const OPENAPI_DOCUMENT_SCHEMA: Json = {
  type: 'object',
  description: 'An OpenAPI 3.1 document: this one',
  required: ['openapi', 'info', 'paths', 'components'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.' },
    info: { type: 'object', required: ['title', 'version'], properties: { title: { type: 'string' }, version: { type: 'string' } } },
    servers: { type: 'array', items: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } } },
    paths: { type: 'object' },
    components: { type: 'object' },
  },
};

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
