import http from 'node:http';
import type { Socket } from 'node:net';
import { ProblemError } from '../app/problem-error';

/**
 * Socket-level limits of the API server. Without them a client that sends headers and then
 * trickles (or never ends) its body keeps a socket forever, and a few hundred such sockets use up
 * the process's file descriptors, /healthz included.
 */
export type HttpLimits = {
  /** Time to receive a whole request, body included (node `requestTimeout`): then 408 and close. */
  requestTimeoutMs: number;
  /** Time to receive the request headers (node `headersTimeout`). */
  headersTimeoutMs: number;
  /**
   * Open connections from one source (every loopback address is one source). At the cap a new
   * connection replaces an idle one (a stranger's first, else the biggest tenant's); only when all
   * are busy is it answered 503, past a small reserve for /healthz (see ConnectionGuard).
   */
  maxConnectionsPerIp: number;
  /** Connections one tenant may hold from one source: the rest of the cap stays for other tenants. */
  maxConnectionsPerTenant: number;
  /** Connections accepted above the cap, when every one is busy, for /healthz probes only. */
  healthReserve: number;
  /** A connection that has not authenticated is closed after this long without a request in progress. */
  idleUnauthenticatedMs: number;
};

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 5_000,
  maxConnectionsPerIp: 128,
  maxConnectionsPerTenant: 96,
  healthReserve: 8,
  idleUnauthenticatedMs: 5_000,
};

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** A complete HTTP/1.1 response with a problem body, for places below fastify (raw sockets). */
export function rawProblemResponse(problem: ProblemError): string {
  const body = JSON.stringify(problem.toProblem());
  const reason = http.STATUS_CODES[problem.status] ?? 'Error';
  return (
    `HTTP/1.1 ${problem.status} ${reason}\r\n` +
    `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\n' +
    Object.entries(problem.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    'Connection: close\r\n\r\n' +
    body
  );
}

function problemForClientError(err: NodeJS.ErrnoException): ProblemError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ProblemError(408, 'request_timeout', 'the request (headers and body) was not received in time; the connection is closed');
    case 'HPE_HEADER_OVERFLOW':
      return new ProblemError(431, 'request_header_too_large', 'the request headers are too large');
    case 'HPE_INVALID_METHOD':
      return new ProblemError(400, 'bad_request', 'unknown HTTP method; this API answers GET, HEAD and POST');
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new ProblemError(400, 'bad_request', 'send either Content-Length or Transfer-Encoding: chunked, not both (or an unsupported Transfer-Encoding)');
    case 'HPE_INVALID_CONTENT_LENGTH':
      return new ProblemError(400, 'bad_request', 'the Content-Length header is invalid');
    default:
      return new ProblemError(400, 'bad_request', 'malformed HTTP request');
  }
}

type SocketWithMessage = Socket & { _httpMessage?: { headersSent?: boolean } | null };

/** The methods a path answers (empty: no such path), as the 405s of the router say them. */
export type AllowedMethods = (path: string) => readonly string[];

/** The request line of a request node's parser refused, when it has one: `METHOD SP target SP HTTP/1.x`. */
function requestLineOf(err: NodeJS.ErrnoException): { method: string; path: string } | undefined {
  const raw = (err as { rawPacket?: unknown }).rawPacket;
  if (!Buffer.isBuffer(raw)) return undefined;
  const line = raw.subarray(0, 8192).toString('latin1').split('\r\n', 1)[0] ?? '';
  // RFC 9110 token characters: a method name node does not know, not garbage.
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) (\/\S*) HTTP\/1\.[01]$/.exec(line);
  if (!match) return undefined;
  return { method: match[1] as string, path: (match[2] as string).split('?')[0] as string };
}

/**
 * A method node's parser does not know (QUERY, PROPFIND…) on a path that exists is a 405 naming
 * the methods it answers, as any other wrong method is; on an unknown path, a 404.
 */
function unknownMethodProblem(err: NodeJS.ErrnoException, allowedMethods: AllowedMethods | undefined): ProblemError | undefined {
  if (err.code !== 'HPE_INVALID_METHOD' || !allowedMethods) return undefined;
  const request = requestLineOf(err);
  if (!request) return undefined;
  const allowed = allowedMethods(request.path);
  if (allowed.length === 0) return new ProblemError(404, 'not_found', `unknown path: ${request.path.slice(0, 200)}`);
  return new ProblemError(405, 'method_not_allowed', `${request.method} is not allowed on ${request.path.slice(0, 200)}; allowed: ${allowed.join(', ')}`, undefined, {
    allow: allowed.join(', '),
  });
}

/**
 * fastify `clientErrorHandler`: requests that node's HTTP parser refuses (unknown method,
 * Content-Length with Transfer-Encoding, header overflow, timeouts) get a problem+json answer too,
 * then the socket is closed.
 */
export function makeClientErrorHandler(allowedMethods?: AllowedMethods) {
  return (err: NodeJS.ErrnoException, socket: Socket) => clientErrorHandler(err, socket, allowedMethods);
}

function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket, allowedMethods: AllowedMethods | undefined): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // A response already under way (e.g. a 401 sent before the body arrived) cannot get a second one.
  const started = (socket as SocketWithMessage)._httpMessage?.headersSent === true;
  if (socket.writable && !started) {
    socket.end(rawProblemResponse(unknownMethodProblem(err, allowedMethods) ?? problemForClientError(err)));
    socket.once('finish', () => socket.destroy());
    setTimeout(() => socket.destroy(), 1000).unref();
  } else {
    socket.destroy();
  }
}

/** The fastify constructor options that apply `limits`. */
export function fastifyHttpOptions(limits: HttpLimits, allowedMethods?: AllowedMethods) {
  const shortest = Math.min(limits.requestTimeoutMs, limits.headersTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    clientErrorHandler: makeClientErrorHandler(allowedMethods),
    http: {
      // A missing Host is refused by our own guard, with a problem body (node's answer is an empty 400).
      requireHostHeader: false,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      // Node checks the two timeouts on this interval (default 30 s): keep it a fraction of them.
      connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(shortest / 4))),
    },
  } as const;
}
