import type { ServerResponse } from 'node:http';
import type { ProblemError } from '../app/problem-error';
import { PROBLEM_CONTENT_TYPE, problemHeaders } from './problem-reply';
import { serializeResponse } from './serialize';

/**
 * Answers written straight to node's response by the fast lanes (fast-job-read.ts,
 * fast-estimate.ts), with the bytes and headers fastify writes for the same answer.
 */
export function writeJsonReply(response: ServerResponse, status: number, value: unknown, headers?: Record<string, string>): void {
  const body = serializeResponse(value);
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  // The usual answer (no extra headers) builds one small header object per request.
  response.writeHead(
    status,
    headers === undefined
      ? { 'content-type': 'application/json; charset=utf-8', 'content-length': length }
      : { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': length },
  );
  response.end(body);
}

export function writeProblemReply(response: ServerResponse, problem: ProblemError): void {
  const body = JSON.stringify(problem.toProblem());
  response.writeHead(problem.status, { ...problemHeaders(problem), 'content-type': PROBLEM_CONTENT_TYPE, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
