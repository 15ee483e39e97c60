import { z } from 'zod';
import {
  JOB_KINDS,
  JOB_KIND_DOCS,
  JOB_KIND_ALIASES,
  NON_OPERATION_ROUTES,
  OPERATIONS,
  OPERATION_NAMES,
  type JobKind,
  type OperationDef,
  type OperationName,
} from '../../shared';
import { SSE_RETRY_MS } from './sse';

import { openApiRegistry, pascal, type Json } from './openapi-registry';

/** Each operation of the OpenAPI document finished from the operation table (see openapi.ts). */

export type RouteInfo = { operationId: string; name: OperationName | null; alias: boolean; kind?: string; successor?: string; description?: string; public?: boolean };

/** (METHOD path) → the operation it serves, with its documented operationId. */
export function routeTable(): Map<string, RouteInfo> {
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
      ...(route.public ? { public: true } : {}),
    });
  }
  return table;
}

export const PROBLEM_CONTENT = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

/** Every error status the API answers, with when. */
export const ERROR_RESPONSES: Record<string, { name: string; description: string }> = {
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
export const FORBIDDEN_TENANT_RESPONSE = {
  name: 'ForbiddenTenant',
  description:
    "The caller's tenant is not the app's own (`default`): settings, the marketplace key, the app token and changes to the install's snapshots belong to it (`forbidden_tenant`); " +
    'or a browser request from another origin or site, refused before authentication (`forbidden_origin`)',
};

/** The statuses every route of this kind can answer, whatever the operation. */
function commonErrorStatuses(op: OperationDef | null, method: string, path: string, isPublic = op?.public === true): Set<string> {
  // 400 (framing, Host), 403 (browser origins), 408 and 431 (node's HTTP limits), 500, 503 (shutdown, connection cap).
  const statuses = new Set(['400', '403', '408', '431', '500', '503']);
  if (!isPublic) statuses.add('401').add('404');
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
export const HEADER_PARAMETERS: Record<string, { component: string; parameter: Json }> = {
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

export function isJson(value: unknown): value is Json {
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

export function finishOperation(method: string, path: string, operation: Json, info: RouteInfo | undefined): void {
  const op: OperationDef | null = info?.name ? OPERATIONS[info.name] : null;
  const routeInfo: RouteInfo = info ?? { operationId: `${method}${pascal(path)}`, name: null, alias: false };
  operation.operationId = routeInfo.operationId;
  operation.description = describeOperation(op, routeInfo);
  if (routeInfo.alias) operation.deprecated = true;
  const isPublic = op?.public === true || routeInfo.public === true;
  if (isPublic) operation.security = [];
  const stream = op ? sameRouteStream(op) : undefined;
  const streamOp: OperationDef | null = stream ? OPERATIONS[stream] : null;

  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []) as Json[];
  if (!isPublic) parameters.push({ $ref: '#/components/parameters/TenantId' });
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
  // Text answers besides JSON (a report as Markdown or CSV): declared with their media types.
  for (const [mediaType, when] of Object.entries(op?.docs?.media ?? {})) {
    success.content = { ...(isJson(success.content) ? success.content : {}), [mediaType]: { schema: { type: 'string', description: when } } };
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

  const statuses = commonErrorStatuses(op, method, path, isPublic);
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
    const generic = commonErrorStatuses(op, method, path, isPublic).has(code) ? ` Also: ${component.description}` : '';
    responses[code] = { description: `${[...new Set(whys)].join('; ')}.${generic}`, ...(code === '405' ? { headers: { Allow: { $ref: '#/components/headers/Allow' } } } : {}), content: PROBLEM_CONTENT };
  }
  operation.responses = responses;
}
