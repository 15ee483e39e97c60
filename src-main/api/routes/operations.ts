import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodObject, z } from 'zod';
import {
  JOB_KINDS,
  JOB_KIND_ALIASES,
  JOB_REQUEST_SCHEMAS,
  OPERATIONS,
  ProblemSchema,
  STREAM_OPERATION_NAMES,
  UNARY_OPERATION_NAMES,
  fastifyPath,
  pathFields,
  REST_BODY,
  type OperationDef,
  type OperationName,
  type StreamOperationName,
  type UnaryOperationName,
} from '../../../shared';
import { ProblemError } from '../../app/problem-error';
import type { OperationContext, OperationHandlers } from '../../adapter';
import { createEventStreamWriter, type EventStreamLimits, type EventStreamRegistry } from '../sse';

const problems = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema, 413: ProblemSchema, 415: ProblemSchema, 422: ProblemSchema };
const JOB_KIND_PATH_NAMES = new Set<string>([...JOB_KINDS, ...JOB_KIND_ALIASES.map((a) => a.path.split('/').pop() ?? '')]);

export type OperationRouteOptions = {
  handlers: OperationHandlers;
  sseHeartbeatMs: number;
  /** Open streams register here so a server shutdown can end them. */
  streams: EventStreamRegistry;
  streamLimits: EventStreamLimits;
  /** The methods a path answers: every 405 says the same. */
  allowedMethods(path: string): readonly string[];
  /**
   * Operations whose JSON body is handed to the handler as the request's byte stream, unparsed
   * (a 64 MiB snapshot is read piece by piece, never as one string): the handler reads and checks it.
   */
  streamedBodies?: ReadonlySet<UnaryOperationName>;
  /**
   * HTTP answers sent as they are produced instead of the handler's value (a snapshot export is
   * written piece by piece); IPC and the in-process client still call the handler.
   */
  byteResponses?: Partial<Record<UnaryOperationName, ByteResponder>>;
};

/** Produces an answer's text in pieces; a ProblemError before the first piece is an ordinary problem answer. */
export type ByteResponder = (ctx: OperationContext, input: unknown) => Promise<AsyncIterable<string>>;

/** A stalled reader of a byte answer is dropped after this long without progress. */
const BYTE_ANSWER_IDLE_MS = 60_000;

/** Sends a byte answer with backpressure: the producer is pulled only as fast as the client reads. */
function sendPieces(request: FastifyRequest, reply: FastifyReply, status: number, pieces: AsyncIterable<string>): FastifyReply {
  const socket = request.raw.socket as Partial<Socket> | undefined;
  // (A fastify inject has no real socket.)
  if (typeof socket?.setTimeout === 'function') {
    socket.setTimeout(BYTE_ANSWER_IDLE_MS, () => socket.destroy?.());
    reply.raw.once('close', () => socket.setTimeout?.(0));
  }
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(Readable.from(pieces, { objectMode: false }));
}

type Route = { path: string; successor?: string; kind?: (typeof JOB_KINDS)[number] };

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) throw new ProblemError(400, 'bad_request', `send one ${name} header, not several`);
  return value;
}

/** Assembles an operation's input from the path, query, headers and body, as the table maps them. */
function inputOf(name: OperationName, request: FastifyRequest, route: Route): unknown {
  const op: OperationDef = OPERATIONS[name];
  if (op.body === '*') return request.body;
  const input: Record<string, unknown> = {};
  const params = (request.params ?? {}) as Record<string, string>;
  if (route.kind) input.kind = route.kind;
  for (const field of pathFields(name)) {
    if (field in input) continue;
    // `/v1/jobs/` (an empty segment) names nothing: an unknown path, not a bad id.
    if (!params[field]) throw new ProblemError(404, 'not_found', `unknown path: ${request.url.split('?')[0]?.slice(0, 200)}`);
    input[field] = params[field];
  }
  // Operations that take a query see all of it, so an unknown parameter is a 422 like an unknown field.
  if (op.query) Object.assign(input, request.query as Record<string, unknown>);
  for (const [field, headerName] of Object.entries(op.headers ?? {})) {
    const value = header(request, headerName);
    if (value !== undefined) input[field] = value;
  }
  if (op.body === REST_BODY) {
    // The fields outside the path, as one optional JSON object (a non-object was refused as a 400 already).
    const body = (request.body ?? {}) as Record<string, unknown>;
    for (const [field, value] of Object.entries(body)) {
      if (field in input) throw ProblemError.validation([{ path: field, message: `${field} is given by the path, not the body` }], 'request body');
      input[field] = value;
    }
  } else if (op.body !== undefined) input[op.body] = request.body;
  return input;
}

function deprecate(reply: FastifyReply, successor: string): void {
  reply.header('deprecation', 'true').header('link', `<${successor}>; rel="successor-version"`);
}

function routesOf(name: OperationName): Route[] {
  const op: OperationDef = OPERATIONS[name];
  if (name === 'createJob') {
    return [
      ...JOB_KINDS.map((kind) => ({ path: `/v1/jobs/${kind}`, kind })),
      ...JOB_KIND_ALIASES.map((a) => ({ path: a.path, kind: a.kind, successor: a.successor })),
    ];
  }
  return [{ path: op.path }, ...(op.aliases ?? []).map((path) => ({ path, successor: op.path }))];
}

/** The fields of an operation's input named in `fields`, as the schema of that part of the request. */
function pick(op: OperationDef, fields: readonly string[]): z.ZodObject | undefined {
  if (fields.length === 0 || !(op.input instanceof ZodObject)) return undefined;
  const shape = op.input.shape as Record<string, z.ZodType>;
  const picked = Object.fromEntries(fields.filter((f) => f in shape).map((f) => [f, shape[f] as z.ZodType]));
  return Object.keys(picked).length > 0 ? z.object(picked) : undefined;
}

/** What the OpenAPI document says of a route: its body, path and query parameters, from the operation table. */
function docsSchema(name: OperationName, route: Route) {
  const op: OperationDef = OPERATIONS[name];
  const input = op.input instanceof ZodObject ? (op.input.shape as Record<string, z.ZodType>) : {};
  const body = route.kind
    ? JOB_REQUEST_SCHEMAS[route.kind]
    : (op.docs?.body ?? (op.body === '*' ? op.input : op.body !== undefined ? input[op.body] : undefined));
  const querystring = op.docs?.querystring ?? pick(op, op.query ?? []);
  const params = route.kind ? undefined : pick(op, pathFields(name));
  return {
    summary: route.successor ? `Deprecated alias of ${route.successor}` : route.kind ? `Submit a ${route.kind} job` : op.summary,
    tags: [...op.tags],
    ...(route.successor ? { deprecated: true } : {}),
    ...(body ? { body } : {}),
    ...(querystring ? { querystring } : {}),
    ...(params ? { params } : {}),
    // A 204 has no body to describe.
    response: (op.status === 204 ? { ...problems } : { ...problems, [op.status]: op.output }) as Record<number, z.ZodType>,
  };
}

/**
 * The JSON "parser" of routes that read their body themselves: the request's stream, unread (its
 * route reads and checks the limit, the syntax and the depth piece by piece). A body whose
 * Content-Length is over the route's limit is refused before a byte of it is read.
 */
function streamedJsonParser(request: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: unknown) => void): void {
  const limit = request.routeOptions.bodyLimit;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    done(new ProblemError(413, 'payload_too_large', `the body is ${declared} bytes; this route takes at most ${limit}`));
    return;
  }
  done(null, payload);
}

type RouteOptions = Parameters<FastifyInstance['route']>[0];

/** Registers `route` in a child context of its own, whose JSON body is handed over unread. */
function registerStreamedRoute(app: FastifyInstance, route: RouteOptions): void {
  void app.register(async (child) => {
    child.removeContentTypeParser('application/json');
    child.addContentTypeParser('application/json', streamedJsonParser);
    child.route(route);
  });
}

/**
 * Registers one route per operation of the table (plus its documented aliases). Every handler
 * assembles the operation's input and calls the same handler IPC and the in-process client use.
 */
export function registerOperationRoutes(app: FastifyInstance, options: OperationRouteOptions): void {
  const { handlers } = options;
  const streamSharing = new Map<string, StreamOperationName>();
  for (const name of STREAM_OPERATION_NAMES) streamSharing.set(`${OPERATIONS[name].method} ${OPERATIONS[name].path}`, name);

  async function stream(name: StreamOperationName, request: FastifyRequest, reply: FastifyReply, route: Route): Promise<void> {
    const abort = new AbortController();
    const writer = createEventStreamWriter({ request, reply, abort, heartbeatMs: options.sseHeartbeatMs, limits: options.streamLimits, streams: options.streams });
    const ctx: OperationContext = {
      tenantId: request.tenantId,
      signal: abort.signal,
      streamLimit: { maxQueued: options.streamLimits.maxQueuedEvents, maxQueuedBytes: options.streamLimits.maxQueuedBytes, onOverflow: writer.overflow },
    };
    // Opening the stream fails (404, 422) before any byte is written: the caller gets a problem body.
    const source = await handlers[name](ctx, inputOf(name, request, route));
    await writer.run(source);
  }

  for (const name of UNARY_OPERATION_NAMES) {
    const op: OperationDef = OPERATIONS[name];
    const sharedStream = streamSharing.get(`${op.method} ${op.path}`);
    const handler = handlers[name] as (c: OperationContext, i: unknown) => Promise<unknown>;
    const streamed = options.streamedBodies?.has(name) ?? false;
    const register = (opts: RouteOptions) => (streamed ? registerStreamedRoute(app, opts) : void app.route(opts));
    for (const route of routesOf(name)) {
      register({
        method: op.method,
        url: fastifyPath(route.path),
        schema: docsSchema(name, route),
        ...(op.bodyLimit ? { bodyLimit: op.bodyLimit } : {}),
        handler: async (request, reply) => {
          if (route.successor) deprecate(reply, route.successor);
          if (route.path.includes('{')) {
            // A path that names a fixed route (`/v1/jobs/benchmark`, `/v1/snapshots/import`) is that route's, not an
            // id: another method there is a 405 with its Allow, never "not found".
            const path = request.url.split('?')[0] ?? '';
            const allowedList = options.allowedMethods(path);
            if (allowedList.length > 0 && !allowedList.includes(request.method) && !(request.method === 'HEAD' && allowedList.includes('GET'))) {
              const allowed = allowedList.join(', ');
              reply.header('allow', allowed);
              const hint = name === 'getJob' && JOB_KIND_PATH_NAMES.has((request.params as { job_id?: string }).job_id ?? '') ? ' (submit a job)' : '';
              throw new ProblemError(405, 'method_not_allowed', `${request.method} is not allowed on ${path}; allowed: ${allowed}${hint}`);
            }
          }
          // HEAD answers headers only: never hold a stream open for it.
          if (sharedStream && request.method === 'GET' && (request.headers.accept ?? '').includes('text/event-stream')) {
            await stream(sharedStream, request, reply, route);
            return reply;
          }
          const ctx: OperationContext = { tenantId: request.tenantId, responseHeaders: {} };
          const bytes = options.byteResponses?.[name];
          if (bytes) return sendPieces(request, reply, op.status, await bytes(ctx, inputOf(name, request, route)));
          const result = await handler(ctx, inputOf(name, request, route));
          if (op.status === 204) return reply.code(204).headers(ctx.responseHeaders ?? {}).send();
          // An answer that is a document of its own (a report as Markdown or CSV): sent as it is, with the media type the handler set.
          if (typeof result === 'string' && ctx.responseHeaders?.['content-type']) {
            return reply.code(op.status).headers(ctx.responseHeaders).serializer((text: string) => text).send(result);
          }
          return reply.code(op.status).headers(ctx.responseHeaders ?? {}).send(result);
        },
      });
    }
  }

  for (const name of STREAM_OPERATION_NAMES) {
    const op: OperationDef = OPERATIONS[name];
    if (UNARY_OPERATION_NAMES.some((u: UnaryOperationName) => OPERATIONS[u].method === op.method && OPERATIONS[u].path === op.path)) continue;
    for (const route of routesOf(name)) {
      app.route({
        method: op.method,
        url: fastifyPath(route.path),
        schema: { ...docsSchema(name, route), response: { 200: op.output, ...problems } },
        handler: async (request, reply) => {
          if (!(request.headers.accept ?? '').includes('text/event-stream')) {
            throw new ProblemError(406, 'not_acceptable', `${route.path} is a Server-Sent Events stream: send Accept: text/event-stream`);
          }
          if (request.method === 'HEAD') return reply.code(200).header('content-type', 'text/event-stream').send();
          await stream(name, request, reply, route);
          return reply;
        },
      });
    }
  }
}
