import type { z } from 'zod';
import { problemType, zodIssuesToValidation, type Problem, type ProblemCode, type ValidationIssue } from '../../shared';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/**
 * An error that is meant for the caller: HTTP turns it into application/problem+json, IPC into
 * {ok:false, problem}. Anything else thrown is an internal error and is never shown verbatim.
 */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    detail: string,
    readonly errors?: ValidationIssue[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = 'ProblemError';
  }

  toProblem(): Problem {
    return {
      type: problemType(this.code),
      title: TITLES[this.status] ?? 'Error',
      status: this.status,
      detail: this.message,
      error: this.message,
      code: this.code,
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }

  static validation(issues: readonly z.core.$ZodIssue[] | ValidationIssue[], what = 'request'): ProblemError {
    const errors = issues.length > 0 && 'code' in (issues[0] as object)
      ? zodIssuesToValidation(issues as readonly z.core.$ZodIssue[])
      : (issues as ValidationIssue[]);
    const summary = errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
    return new ProblemError(422, 'validation_failed', `invalid ${what}: ${summary}`, errors);
  }
}
