import { problemType, type Problem } from '../../shared';
import { ProblemError } from '../app/problem-error';
import { InsufficientStorageError } from '../store/types';

export const INTERNAL_PROBLEM: Problem = {
  type: problemType('internal_error'),
  title: 'Internal Server Error',
  status: 500,
  detail: 'internal error; see the benchdesk log',
  error: 'internal error; see the benchdesk log',
  code: 'internal_error',
};

/** What a caller may see of an error: a ProblemError's body, a full disk's 507, else a bare 500 (never a stack). */
export function problemOf(err: unknown): Problem {
  if (err instanceof ProblemError) return err.toProblem();
  if (err instanceof InsufficientStorageError) return new ProblemError(507, 'insufficient_storage', err.message).toProblem();
  return INTERNAL_PROBLEM;
}
