import type { FastifyReply } from 'fastify';
import { ProblemError } from '../app/problem-error';
import { InsufficientStorageError } from '../store/types';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** What an unexpected error is answered with: its details go to the server log only. */
export const INTERNAL_ERROR = new ProblemError(500, 'internal_error', 'internal error; see the server log');

/** The headers a problem answer carries besides its content type (one list for fastify and the fast lanes). */
export function problemHeaders(problem: ProblemError): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(problem.headers ?? {})) headers[name.toLowerCase()] = value;
  if (problem.status === 401) {
    headers['www-authenticate'] = 'Bearer';
    headers['cache-control'] = 'no-store';
  }
  return headers;
}

export function sendProblem(reply: FastifyReply, problem: ProblemError): FastifyReply {
  return reply.code(problem.status).headers(problemHeaders(problem)).type(PROBLEM_CONTENT_TYPE).send(problem.toProblem());
}

/**
 * The problem a thrown error is answered with: a ProblemError as it is, fastify's own request
 * errors and a full data dir mapped; undefined for an unexpected error (a 500, logged).
 */
export function problemOfError(err: unknown): ProblemError | undefined {
  if (err instanceof ProblemError) return err;
  if (!(err instanceof Error)) return undefined;
  return problemFromFastifyError(err as Error & { code?: string; statusCode?: number });
}

/** Maps fastify's own request errors (body parsing, limits) to our problem codes. */
export function problemFromFastifyError(err: { code?: string; statusCode?: number; message: string }): ProblemError | undefined {
  // A full data dir is the caller's to know about (nothing was stored; retry once space is freed).
  if (err instanceof InsufficientStorageError) return new ProblemError(507, 'insufficient_storage', err.message);
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError(413, 'payload_too_large', 'request body exceeds the limit (1 MiB; 64 MiB for a snapshot import)');
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

/** A JSON body must be an object before any route sees it ("not an object" is a 400). */
export function nonObjectBodyProblem(body: unknown): ProblemError | undefined {
  if (body === undefined || (body !== null && typeof body === 'object' && !Array.isArray(body))) return undefined;
  return new ProblemError(400, 'bad_request', `request body must be a JSON object, not ${Array.isArray(body) ? 'an array' : body === null ? 'null' : typeof body}`);
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
