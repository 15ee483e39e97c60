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
  /** Open connections from one IP address; more are answered 503 and closed at once. */
  maxConnectionsPerIp: number;
};

export const DEFAULT_HTTP_LIMITS: HttpLimits = { requestTimeoutMs: 30_000, headersTimeoutMs: 15_000, maxConnectionsPerIp: 128 };

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

/**
 * fastify `clientErrorHandler`: requests that node's HTTP parser refuses (unknown method,
 * Content-Length with Transfer-Encoding, header overflow, timeouts) get a problem+json answer too,
 * then the socket is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // A response already under way (e.g. a 401 sent before the body arrived) cannot get a second one.
  const started = (socket as SocketWithMessage)._httpMessage?.headersSent === true;
  if (socket.writable && !started) {
    socket.end(rawProblemResponse(problemForClientError(err)));
    socket.once('finish', () => socket.destroy());
    setTimeout(() => socket.destroy(), 1000).unref();
  } else {
    socket.destroy();
  }
}

/** Sockets refused by the per-IP cap: a request that still gets parsed on them is ignored. */
export const refusedSockets = new WeakSet<Socket>();

/**
 * Caps open connections per remote address. Over the cap the socket gets a 503 problem and is
 * closed at once, so one local program cannot exhaust the server's file descriptors.
 */
export function capConnectionsPerIp(server: http.Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress ?? 'unknown';
    const count = open.get(ip) ?? 0;
    if (count >= max) {
      refusedSockets.add(socket);
      socket.end(rawProblemResponse(new ProblemError(503, 'too_many_connections', `too many open connections from ${ip} (limit ${max}); close some and retry`, undefined, { 'retry-after': '1' })));
      socket.once('finish', () => socket.destroy());
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    open.set(ip, count + 1);
    socket.once('close', () => {
      const left = (open.get(ip) ?? 1) - 1;
      if (left <= 0) open.delete(ip);
      else open.set(ip, left);
    });
  });
}

/** The fastify constructor options that apply `limits`. */
export function fastifyHttpOptions(limits: HttpLimits) {
  const shortest = Math.min(limits.requestTimeoutMs, limits.headersTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    clientErrorHandler,
    http: {
      // A missing Host is refused by our own guard, with a problem body (node's answer is an empty 400).
      requireHostHeader: false,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      // Node checks the two timeouts on this interval (default 30 s): keep it a fraction of them.
      connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(shortest / 4))),
    },
  } as const;
}
