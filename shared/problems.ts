import { z } from 'zod';

/** RFC 9457 problem types. `type` is a stable URI; `code` a short machine-readable string. */
export const PROBLEM_BASE = 'https://benchdesk.dev/problems/';

export const PROBLEM_CODES = [
  'bad_request',
  'invalid_json',
  'unauthorized',
  'auth_blocked',
  'auth_not_configured',
  'not_found',
  'job_not_found',
  'method_not_allowed',
  'idempotency_in_flight',
  'payload_too_large',
  'unsupported_media_type',
  'validation_failed',
  'idempotency_key_reused',
  'forbidden_origin',
  'forbidden_host',
  'job_not_cancellable',
  'upstream_unreachable',
  'upstream_error',
  'shutting_down',
  'internal_error',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

export const ValidationIssueSchema = z.object({ path: z.string(), message: z.string() });
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

export const ProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  /** Repeats `detail` for clients that read a plain `error` string. */
  error: z.string(),
  code: z.string(),
  errors: z.array(ValidationIssueSchema).optional(),
});
export type Problem = z.infer<typeof ProblemSchema>;

export function problemType(code: ProblemCode): string {
  return `${PROBLEM_BASE}${code.replaceAll('_', '-')}`;
}

/** Turns zod issues into `errors:[{path,message}]` with dotted paths ("" for the body itself). */
export function zodIssuesToValidation(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : issue.message,
  }));
}
