import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPERATIONS } from '../../shared';
import type { OperationContext, UnaryHandler } from '../adapter/types';
import { INTERNAL_ERROR, nonObjectBodyProblem, parseJsonBody, problemOfError } from './problem-reply';
import { writeJsonReply, writeProblemReply } from './raw-reply';
import type { ScreenVerdict, ScreenedRequest } from './request-guards';

const ESTIMATE = OPERATIONS.createEstimate;
/** The JSON content types fastify's parser takes the same way (utf-8 text). */
const JSON_CONTENT_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

export type FastEstimateOptions = {
  screen(request: ScreenedRequest, ip: string, countFailures: boolean): ScreenVerdict;
  /** The operation's handler: the same one the fastify route, IPC and the in-process client call. */
  estimate: UnaryHandler<'createEstimate'>;
  bodyLimitBytes: number;
  isClosing(): boolean;
  /** Where an unexpected error is reported (the caller sees only "internal error"). */
  logError(err: unknown): void;
};

/**
 * `POST /v1/estimates` is what scripts call in loops to price plans. A request that passes the
 * screen and carries a JSON body of a declared size within the limit is answered here, before
 * fastify's request lifecycle, with the same body parser, the same "must be an object" rule and
 * the same handler. Everything decided before the body is read goes to fastify (returns false):
 * every refusal, another content type, a chunked or empty or over-limit body, a query string,
 * aliases. Once the body is read, its problems (bad JSON, a `__proto__` key, not an object, 422)
 * are written here with the bytes fastify writes for them (a test compares both).
 */
export function makeFastEstimate(options: FastEstimateOptions): (request: IncomingMessage, response: ServerResponse) => boolean {
  return function answer(request, response) {
    if (request.method !== ESTIMATE.method || request.url !== ESTIMATE.path) return false;
    const { headers } = request;
    const contentType = headers['content-type'];
    if (contentType === undefined || !JSON_CONTENT_TYPES.has(contentType.toLowerCase())) return false;
    const declared = headers['content-length'];
    if (declared === undefined || headers['transfer-encoding'] !== undefined || !/^[1-9]\d{0,9}$/.test(declared)) return false;
    if (Number(declared) > options.bodyLimitBytes || options.isClosing()) return false;
    const verdict = options.screen(request, request.socket.remoteAddress ?? '', false);
    if (!verdict.ok || verdict.tenantId === undefined) return false;
    const ctx: OperationContext = { tenantId: verdict.tenantId, responseHeaders: {} };

    // Node's parser delivers exactly Content-Length bytes; utf-8 decoding across chunk borders
    // is the stream's, as in fastify's parser.
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      let body: unknown;
      try {
        body = parseJsonBody(text);
      } catch (err) {
        writeProblemReply(response, problemOfError(err) ?? INTERNAL_ERROR);
        return;
      }
      const shapeProblem = nonObjectBodyProblem(body);
      if (shapeProblem) {
        writeProblemReply(response, shapeProblem);
        return;
      }
      options.estimate(ctx, body).then(
        (result) => writeJsonReply(response, ESTIMATE.status, result, ctx.responseHeaders),
        (err: unknown) => {
          const problem = problemOfError(err);
          if (!problem) options.logError(err);
          writeProblemReply(response, problem ?? INTERNAL_ERROR);
        },
      );
    });
    // An aborted upload: node destroys the socket, there is no one left to answer.
    request.on('error', () => undefined);
    return true;
  };
}
