import http from 'node:http';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { API_PATHS, type JobRecord, type UnaryOperationName } from '../../shared';
import { ProblemError } from '../app/problem-error';
import type { Authenticator } from './auth';
import { INTERNAL_ERROR, jsonBodyParser, nonObjectBodyProblem, problemOfError, sendProblem } from './problem-reply';
import { ConnectionGuard } from './connection-guard';
import { DEFAULT_HTTP_LIMITS, fastifyHttpOptions, type HttpLimits } from './http-limits';
import { registerOpenApiDocument, registerOpenApiRoute } from './openapi-route';
import { createRouteTable } from './route-table';
import { registerUi, UI_PREFIX } from './ui-static';
import { makeFastEstimate } from './fast-estimate';
import { makeFastJobRead } from './fast-job-read';
import { makeRequestGuard, makeRequestScreen, type GuardOptions } from './request-guards';
import type { OperationHandlers } from '../adapter';
import { registerOperationRoutes, type OperationRouteOptions } from './routes/operations';
import { serializeResponse } from './serialize';
import { DEFAULT_EVENT_STREAM_LIMITS, EventStreamRegistry, type EventStreamLimits } from './sse';

declare module 'fastify' {
  interface FastifyInstance {
    /** The open event streams (SSE) and what they hold. */
    eventStreams: EventStreamRegistry;
    /** Open connections per source, and the idle strangers closed to make room. */
    connections: ConnectionGuard;
  }
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Heartbeat of the event streams. A client that hears nothing for a few of these knows the server
 * stopped or the connection is dead: the app's browser mode notices a stopped server within 3 s
 * (it gives up after 2.5 s of silence). One comment line per open stream a second costs nothing
 * measurable; proxies keep a stream open on it as on a 15 s one.
 */
export const SSE_HEARTBEAT_MS = 1_000;

export type ApiServerOptions = {
  handlers: OperationHandlers;
  auth: Authenticator;
  version: string;
  logger?: FastifyServerOptions['logger'];
  /** Serve the built renderer at /ui/ (browser mode: dev and e2e). */
  uiDir?: string | undefined;
  extraHosts?: readonly string[];
  /** How often an idle event stream sends a heartbeat comment (default SSE_HEARTBEAT_MS). */
  sseHeartbeatMs?: number;
  /** What an event stream may hold for a client that does not read (defaults: DEFAULT_EVENT_STREAM_LIMITS). */
  streamLimits?: Partial<EventStreamLimits>;
  /** Request/header timeouts and the per-IP connection cap (defaults: DEFAULT_HTTP_LIMITS). */
  httpLimits?: Partial<HttpLimits>;
  /**
   * The tenant's job when its latest version is in memory: `GET /v1/jobs/{id}` is then answered
   * before fastify's request lifecycle (see fast-job-read.ts). Without it every request goes through fastify.
   */
  cachedJob?: (tenantId: string, jobId: string) => JobRecord | undefined;
  /** The agents the server knows: the OpenAPI document lists them as the values of `agent`. */
  agentNames?: () => readonly string[];
  /** HTTP answers written piece by piece instead of the handler's value (a snapshot export). */
  byteResponses?: OperationRouteOptions['byteResponses'];
};

/** Operations that read their own JSON body, piece by piece: a 64 MiB snapshot is never one string. */
const STREAMED_BODIES: ReadonlySet<UnaryOperationName> = new Set(['importSnapshot']);

/** A setting fastify resolved (its defaults included) and hands the server factory. */
function numberOption(opts: Record<string, unknown>, name: string): number | undefined {
  const value = opts[name];
  return typeof value === 'number' ? value : undefined;
}

/**
 * Builds the /v1 API (not listening). Request bodies and queries are validated by the service with
 * the shared zod schemas (so HTTP and IPC share one path); the route schemas feed OpenAPI.
 */
export async function buildApiServer(options: ApiServerOptions): Promise<FastifyInstance> {
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.httpLimits };
  const routeTable = createRouteTable();
  const allowedMethods = routeTable.allowedMethods;
  const httpOptions = fastifyHttpOptions(limits, allowedMethods);
  const connections = new ConnectionGuard({
    maxPerSource: limits.maxConnectionsPerIp,
    // A share of the source's cap (three quarters by default), so others always have room.
    maxPerTenant: Math.max(1, Math.min(limits.maxConnectionsPerTenant, Math.floor((limits.maxConnectionsPerIp * 3) / 4))),
    healthReserve: limits.healthReserve,
    idleUnauthenticatedMs: limits.idleUnauthenticatedMs,
  });
  const guardOptions: GuardOptions = {
    auth: options.auth,
    onAuthenticated: (socket, tenantId) => connections.markAuthenticated(socket, tenantId),
    // The OpenAPI document holds no secret: code generators fetch it without a token.
    isPublic: (path) => path === API_PATHS.health || path === API_PATHS.openapi || (options.uiDir !== undefined && (path === '/ui' || path.startsWith(UI_PREFIX))),
    ...(options.extraHosts ? { extraHosts: options.extraHosts } : {}),
  };
  let closing = false;
  const isClosing = () => closing;
  const screen = makeRequestScreen(guardOptions);
  // The hot paths scripts call in loops, answered before fastify's request lifecycle when the
  // request is an ordinary one (fast-job-read.ts, fast-estimate.ts); each returns false otherwise.
  const fastLanes = [
    ...(options.cachedJob ? [makeFastJobRead({ screen, cachedJob: options.cachedJob, isClosing })] : []),
    makeFastEstimate({
      screen,
      estimate: options.handlers.createEstimate,
      bodyLimitBytes: BODY_LIMIT_BYTES,
      isClosing,
      logError: (err) => app.log.error({ err }, 'unhandled error'),
    }),
  ];
  const app: FastifyInstance = Fastify({
    ...httpOptions,
    // The server fastify would create, with the fast lanes in front of fastify's handler.
    // It applies the settings fastify applies to its own (lib/server.js), from fastify's resolved options.
    serverFactory: (fastifyHandler, opts) => {
      const server = http.createServer(httpOptions.http, (req, res) => {
        for (const lane of fastLanes) if (lane(req, res)) return;
        fastifyHandler(req, res);
      });
      const keepAliveTimeout = numberOption(opts, 'keepAliveTimeout');
      if (keepAliveTimeout !== undefined) server.keepAliveTimeout = keepAliveTimeout;
      server.requestTimeout = numberOption(opts, 'requestTimeout') ?? limits.requestTimeoutMs;
      server.setTimeout(numberOption(opts, 'connectionTimeout') ?? 0);
      const maxRequestsPerSocket = numberOption(opts, 'maxRequestsPerSocket') ?? 0;
      if (maxRequestsPerSocket > 0) server.maxRequestsPerSocket = maxRequestsPerSocket;
      return server;
    },
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    // Tokens are never logged: the default request serializer logs method/url/ip only.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: false,
    return503OnClosing: true,
    // Router-level rejections (a malformed %-escape, an over-long path segment) answer with a
    // problem body too, instead of fastify's own JSON shape.
    frameworkErrors: (err, _request, reply) => {
      sendProblem(
        reply,
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ProblemError(404, 'not_found', 'unknown path: a path segment is too long')
          : new ProblemError(400, 'bad_request', 'the request URL is malformed'),
      );
    },
  });

  connections.attach(app.server);
  app.decorate('connections', connections);

  // Only JSON bodies are parsed: anything else (text/plain included) is a 415, not a 400 later.
  app.removeContentTypeParser('text/plain');
  // Our JSON parser says why a body was refused (e.g. a __proto__ key), where fastify's says only "invalid JSON".
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser);

  // Validation happens in the service (one code path for HTTP and IPC); schemas are for docs.
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  // Typed as returning a string, but fastify sends a Buffer payload as it is (reply.js onSendEnd):
  // records' cached UTF-8 bytes are written without being encoded again.
  app.setSerializerCompiler(() => serializeResponse as (data: unknown) => string);

  app.addHook('onRoute', (route) => routeTable.add(route.method, route.url));

  await registerOpenApiDocument(app, { version: options.version, ...(options.agentNames ? { agentNames: options.agentNames } : {}) });

  app.addHook('onRequest', makeRequestGuard(screen));

  // A JSON body must be an object before any route sees it ("not an object" is a 400).
  // A callback hook: an async one costs a promise and a microtask turn on every request.
  app.addHook('preValidation', (request, reply, done) => {
    const problem = request.method === 'POST' ? nonObjectBodyProblem(request.body) : undefined;
    if (problem) sendProblem(reply, problem);
    else done();
  });

  app.setErrorHandler((err, request, reply) => {
    const problem = problemOfError(err);
    if (problem) return sendProblem(reply, problem);
    request.log.error({ err }, 'unhandled error');
    return sendProblem(reply, INTERNAL_ERROR);
  });

  const answerUnknownRoute = (request: FastifyRequest, reply: FastifyReply) => routeTable.answerUnknown(request, reply);
  // A method or path with no route is answered before its body is read (a QUERY or PUT would
  // otherwise be refused for its Content-Type first): the same 405 and Allow whatever the method.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404) answerUnknownRoute(request, reply);
    else done();
  });
  app.setNotFoundHandler(answerUnknownRoute);

  // Live SSE streams never finish on their own while a job runs: end them when the server closes,
  // or close() would wait for every client to hang up.
  const streams = new EventStreamRegistry();
  app.decorate('eventStreams', streams);
  app.addHook('preClose', async () => {
    closing = true;
    streams.endAll();
  });
  registerOperationRoutes(app, {
    handlers: options.handlers,
    allowedMethods,
    sseHeartbeatMs: options.sseHeartbeatMs ?? SSE_HEARTBEAT_MS,
    streams,
    streamLimits: { ...DEFAULT_EVENT_STREAM_LIMITS, ...options.streamLimits },
    streamedBodies: STREAMED_BODIES,
    ...(options.byteResponses ? { byteResponses: options.byteResponses } : {}),
  });

  registerOpenApiRoute(app);
  if (options.uiDir) await registerUi(app, options.uiDir);

  return app;
}
