import type { FastifyReply } from 'fastify';
import { ProblemError } from '../app/problem-error';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export function sendProblem(reply: FastifyReply, problem: ProblemError): FastifyReply {
  for (const [name, value] of Object.entries(problem.headers ?? {})) reply.header(name, value);
  if (problem.status === 401) reply.header('www-authenticate', 'Bearer').header('cache-control', 'no-store');
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem.toProblem());
}

/** Maps fastify's own request errors (body parsing, limits) to our problem codes. */
export function problemFromFastifyError(err: { code?: string; statusCode?: number; message: string }): ProblemError | undefined {
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
  if (err.statusCode === 400 && /JSON|Unexpected|token|prototype/i.test(err.message)) {
    return new ProblemError(400, 'invalid_json', `request body is not valid JSON: ${err.message.slice(0, 200)}`);
  }
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new ProblemError(err.statusCode === 404 ? 404 : 400, err.statusCode === 404 ? 'not_found' : 'bad_request', err.message.slice(0, 300));
  }
  return undefined;
}
