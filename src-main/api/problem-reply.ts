import type { FastifyReply } from 'fastify';
import { ProblemError } from '../app/problem-error';
import { InsufficientStorageError } from '../store/types';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export function sendProblem(reply: FastifyReply, problem: ProblemError): FastifyReply {
  for (const [name, value] of Object.entries(problem.headers ?? {})) reply.header(name, value);
  if (problem.status === 401) reply.header('www-authenticate', 'Bearer').header('cache-control', 'no-store');
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem.toProblem());
}

/** Maps fastify's own request errors (body parsing, limits) to our problem codes. */
export function problemFromFastifyError(err: { code?: string; statusCode?: number; message: string }): ProblemError | undefined {
  // A full data dir is the caller's to know about (nothing was stored; retry once space is freed).
  if (err instanceof InsufficientStorageError) return new ProblemError(507, 'insufficient_storage', err.message);
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError(413, 'payload_too_large', 'request body exceeds the 1 MiB limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ProblemError(415, 'unsupported_media_type', 'request body must be JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProblemError(400, 'invalid_json', 'Content-Type is application/json but the body is empty');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ProblemError(400, 'bad_request', 'Content-Length does not match the body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ProblemError(400, 'invalid_json', 'request body is not valid JSON');
    default:
      break;
  }
  if (err.statusCode === 400 && /JSON|Unexpected|token/i.test(err.message)) {
    return new ProblemError(400, 'invalid_json', `request body is not valid JSON: ${err.message.slice(0, 200)}`);
  }
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new ProblemError(err.statusCode === 404 ? 404 : 400, err.statusCode === 404 ? 'not_found' : 'bad_request', err.message.slice(0, 300));
  }
  return undefined;
}

/**
 * The JSON body parser that says what is wrong. fastify's default parser turns a refused
 * "__proto__" key into the same FST_ERR_CTP_INVALID_JSON_BODY as broken JSON, so the caller was
 * told "not valid JSON" about well-formed JSON. Register with
 * `app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser)`.
 */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new ProblemError(400, 'invalid_json', 'Content-Type is application/json but the body is empty');
  let value: unknown;
  try {
    // The reviver (slower) only when a poisoning key can be there at all, as secure-json-parse does.
    value = /__proto__|constructor/.test(text) ? JSON.parse(text, refusePrototypeKeys) : JSON.parse(text);
  } catch (err) {
    if (err instanceof ProblemError) throw err;
    throw new ProblemError(400, 'invalid_json', `request body is not valid JSON: ${err instanceof Error ? err.message.slice(0, 200) : 'parse error'}`);
  }
  return value;
}

function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') {
    throw new ProblemError(400, 'bad_request', 'request body contains a "__proto__" key, which is refused because it could alter object prototypes; remove it');
  }
  if (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')) {
    throw new ProblemError(400, 'bad_request', 'request body contains a "constructor" key holding "prototype", which is refused because it could alter object prototypes; remove it');
  }
  return value;
}

export function jsonBodyParser(_request: unknown, body: string | Buffer, done: (err: Error | null, value?: unknown) => void): void {
  try {
    done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')));
  } catch (err) {
    done(err as Error, undefined);
  }
}
