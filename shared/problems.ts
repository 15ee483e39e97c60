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
  'not_acceptable',
  'unknown_event_id',
  'idempotency_in_flight',
  'payload_too_large',
  'unsupported_media_type',
  'validation_failed',
  'idempotency_key_reused',
  'forbidden_origin',
  'forbidden_host',
  'forbidden_tenant',
  'job_not_cancellable',
  'instance_active',
  'instance_foreign',
  'instance_not_found',
  'snapshot_not_found',
  'snapshot_in_use',
  'suite_not_found',
  'suite_exists',
  'suite_read_only',
  'scenario_not_found',
  'scoring_timeout',
  'marketplace_not_configured',
  'upstream_unreachable',
  'upstream_error',
  'shutting_down',
  'request_timeout',
  'request_header_too_large',
  'too_many_connections',
  'too_many_exports',
  'insufficient_storage',
  'internal_error',
  'sweep_not_found',
  'sweep_not_cancellable',
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

/** At most this many issues are listed in a problem body; the rest are counted. */
export const MAX_LISTED_ISSUES = 20;
/** At most this many unknown keys are named in one issue. */
export const MAX_LISTED_KEYS = 20;
const MAX_TEXT = 300;

function clip(text: string, max = MAX_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Turns zod issues into `errors:[{path,message}]` with dotted paths ("" for the body itself).
 * Bounded: a body with 80,000 unknown keys must not produce a 2 MB answer, so at most
 * MAX_LISTED_ISSUES issues and MAX_LISTED_KEYS unknown keys are named, each text clipped, and
 * a last entry says how many more issues there are.
 */
export function zodIssuesToValidation(issues: readonly z.core.$ZodIssue[], max = MAX_LISTED_ISSUES, maxKeys = MAX_LISTED_KEYS): ValidationIssue[] {
  const listed = issues.slice(0, max).map((issue) => ({
    path: clip(issue.path.map(String).join('.'), 200),
    message: issue.code === 'unrecognized_keys' ? unknownKeysMessage(issue.keys, maxKeys) : clip(issue.message),
  }));
  return withOmitted(listed, issues.length - listed.length);
}

/** Caps an already-converted issue list the same way. */
export function capValidationIssues(issues: readonly ValidationIssue[], max = MAX_LISTED_ISSUES): ValidationIssue[] {
  const listed = issues.slice(0, max).map((e) => ({ path: clip(e.path, 200), message: clip(e.message, 2 * MAX_TEXT) }));
  return withOmitted(listed, issues.length - listed.length);
}

function withOmitted(listed: ValidationIssue[], omitted: number): ValidationIssue[] {
  return omitted > 0 ? [...listed, { path: '', message: `${omitted} more issue(s) not listed` }] : listed;
}

function unknownKeysMessage(keys: readonly string[], max: number): string {
  const named = keys.slice(0, max).map((k) => clip(k, 64)).join(', ');
  const more = keys.length - Math.min(keys.length, max);
  return `unknown field(s): ${named}${more > 0 ? ` and ${more} more` : ''}`;
}
