import type { z } from 'zod';
import { capValidationIssues, problemType, zodIssuesToValidation, type Problem, type ProblemCode, type ValidationIssue } from '../../shared';
import { redactUrlCredentials } from '../engine/redact';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
};

const SUMMARY_ISSUES = 3;

function clip(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

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

  /** The body sent to callers. Text goes through URL-credential redaction: a detail may quote user input. */
  toProblem(): Problem {
    const detail = redactUrlCredentials(this.message);
    return {
      type: problemType(this.code),
      title: TITLES[this.status] ?? 'Error',
      status: this.status,
      detail,
      error: detail,
      code: this.code,
      ...(this.errors ? { errors: this.errors.map((e) => ({ path: e.path, message: redactUrlCredentials(e.message) })) } : {}),
    };
  }

  static validation(issues: readonly z.core.$ZodIssue[] | ValidationIssue[], what = 'request'): ProblemError {
    const fromZod = issues.length > 0 && 'code' in (issues[0] as object);
    const errors = fromZod ? zodIssuesToValidation(issues as readonly z.core.$ZodIssue[]) : capValidationIssues(issues as ValidationIssue[]);
    // The detail names the first few issues, short (three unknown keys at most); `errors` is the
    // bounded list, so a long key list appears once.
    const head = fromZod ? zodIssuesToValidation((issues as readonly z.core.$ZodIssue[]).slice(0, SUMMARY_ISSUES), SUMMARY_ISSUES, 3) : errors.slice(0, SUMMARY_ISSUES);
    const shown = head.map((e) => clip(e.path ? `${e.path}: ${e.message}` : e.message));
    const rest = issues.length - Math.min(issues.length, SUMMARY_ISSUES);
    const summary = `${shown.join('; ')}${rest > 0 ? `; ${rest} more issue(s)${errors.length < issues.length ? ', the first ones listed in errors' : ' listed in errors'}` : ''}`;
    return new ProblemError(422, 'validation_failed', `invalid ${what}: ${summary}`, errors);
  }
}
