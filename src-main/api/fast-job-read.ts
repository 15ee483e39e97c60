import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JobRecord } from '../../shared';
import type { ScreenVerdict, ScreenedRequest } from './request-guards';
import { writeJsonReply } from './raw-reply';

const JOB_PATH_PREFIX = '/v1/jobs/';

export type FastJobReadOptions = {
  screen(request: ScreenedRequest, ip: string, countFailures: boolean): ScreenVerdict;
  /** The tenant's job when its latest version is in memory; undefined sends the request the ordinary way. */
  cachedJob(tenantId: string, jobId: string): JobRecord | undefined;
  /** True once the server is closing (fastify then answers 503). */
  isClosing(): boolean;
};

/**
 * `GET /v1/jobs/{id}` is what scripts poll while their jobs run. When the request passes the
 * screen every request passes and the record is in memory, it is answered here, before fastify's
 * request lifecycle (routing, hooks, reply, a logger per request), which cost more than the rest
 * of the request together. Anything else returns false and goes to fastify: every refusal, a
 * record that is not in memory, another tenant's or an unknown job, HEAD, a query string,
 * `Accept: text/event-stream`. Errors and edge cases so keep one implementation; the answer here
 * is byte-for-byte the one fastify gives (a test compares them).
 */
export function makeFastJobRead(options: FastJobReadOptions): (request: IncomingMessage, response: ServerResponse) => boolean {
  return function answer(request, response) {
    if (request.method !== 'GET' || request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined) return false;
    const url = request.url ?? '';
    if (!url.startsWith(JOB_PATH_PREFIX)) return false;
    const jobId = url.slice(JOB_PATH_PREFIX.length);
    // An id is one plain segment: no query, no further path, nothing percent-encoded.
    if (jobId.length === 0 || jobId.length > 64 || /[^A-Za-z0-9_-]/.test(jobId)) return false;
    if ((request.headers.accept ?? '').includes('text/event-stream') || options.isClosing()) return false;
    const verdict = options.screen(request, request.socket.remoteAddress ?? '', false);
    if (!verdict.ok || verdict.tenantId === undefined) return false;
    const job = options.cachedJob(verdict.tenantId, jobId);
    if (!job) return false;
    writeJsonReply(response, 200, job);
    return true;
  };
}
