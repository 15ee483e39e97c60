import { ProblemError } from './problem-error';
import {
  InvalidBackendUrlError,
  LlmAbortedError,
  LlmError,
  LlmServerUnreachableError,
  UnknownBackendTypeError,
} from '../llm/errors';

/**
 * The HTTP answer for an llmserver failure met while serving a request (GET /v1/llm/models):
 * bad input is ours to report (422); anything the llmserver did is a gateway failure (502), never
 * a 401/404 of our own API, which would read as "your token is wrong" or "no such route".
 * Returns undefined for errors that are not from the llm module (which throws only its own
 * typed errors, never problems: mapping them to HTTP is this layer's job).
 */
export function llmErrorToProblem(error: unknown): ProblemError | undefined {
  if (!(error instanceof LlmError)) return undefined;
  if (error instanceof InvalidBackendUrlError) {
    return new ProblemError(422, 'validation_failed', error.message, [{ path: 'backend_url', message: error.message }]);
  }
  if (error instanceof UnknownBackendTypeError) {
    return new ProblemError(422, 'validation_failed', error.message, [{ path: 'backend_type', message: error.message }]);
  }
  if (error instanceof LlmServerUnreachableError) return new ProblemError(502, 'upstream_unreachable', error.message);
  if (error instanceof LlmAbortedError) return new ProblemError(503, 'shutting_down', error.message);
  return new ProblemError(502, 'upstream_error', error.message);
}
