import { llmErrorToProblem } from './llm-problems';
import { isMarketplaceError } from '../marketplace/errors';
import { ProblemError } from './problem-error';

/**
 * Rethrows a provider error (llmserver, marketplace) as the caller-facing problem: bad input is a
 * 422, an unreachable or failing upstream a 502 naming what failed. Anything else is rethrown
 * unchanged (and becomes a generic 500 without details).
 */
export function toUpstreamProblem(err: unknown): never {
  if (err instanceof ProblemError) throw err;
  const llm = llmErrorToProblem(err);
  if (llm) throw llm;
  if (isMarketplaceError(err)) throw new ProblemError(502, 'upstream_error', err.message);
  throw err;
}
