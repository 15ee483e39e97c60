import { z } from 'zod';
import { AgenticAgentRequestSchema, BenchmarkRequestSchema, LlmInstanceRequestSchema, ServingBenchmarkRequestSchema, SuiteRequestSchema } from './requests';
import { AgenticAgentResultSchema, BenchmarkResultSchema, LlmInstanceResultSchema, SuiteResultSchema } from './results';
import { ServingBenchmarkResultSchema } from './serving-results';

/** The job kinds of design §4, §12 (`suite`) and §13 (`serving-benchmark`). Deprecated route aliases map onto these. */
export const JOB_KINDS = ['agentic-agent', 'benchmark', 'llm-instance', 'suite', 'serving-benchmark'] as const;
export const JobKindSchema = z.enum(JOB_KINDS);
export type JobKind = z.infer<typeof JobKindSchema>;

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export const JobStatusSchema = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatusSchema>;

/**
 * The only allowed status changes. queued→failed covers start-up recovery and a kind with no
 * handler; queued→cancelled is a cancel before the job ever ran.
 */
export const JOB_TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ['running', 'cancelled', 'failed'],
  running: ['succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

export const TERMINAL_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return JOB_TRANSITIONS[from].includes(to);
}

export class InvalidTransitionError extends Error {
  constructor(
    readonly from: JobStatus,
    readonly to: JobStatus,
  ) {
    super(`invalid job status transition ${from} -> ${to}`);
    this.name = 'InvalidTransitionError';
  }
}

/** Throws unless from→to is in JOB_TRANSITIONS: the one place transitions are enforced. */
export function assertTransition(from: JobStatus, to: JobStatus): void {
  if (!canTransition(from, to)) throw new InvalidTransitionError(from, to);
}

export const Rfc3339Schema = z.iso.datetime({ offset: true });

export const JobProgressSchema = z.object({
  phase: z.string(),
  detail: z.string().nullable().optional(),
  percent: z.number().min(0).max(100).nullable().optional(),
  /** While the job holds a rented machine: its cost so far ($) and rate ($/h). */
  cost_usd: z.number().nonnegative().nullable().optional(),
  dph_total: z.number().nonnegative().nullable().optional(),
});
export type JobProgress = z.infer<typeof JobProgressSchema>;

/**
 * What a job holds that costs money or needs cleaning up after a crash. Recovery hooks read it.
 */
export const JobResourcesSchema = z.object({
  marketplace_instance_id: z.number().int().nullable().optional(),
  marketplace_instance_released: z.boolean().nullable().optional(),
  marketplace_stop_instance: z.boolean().nullable().optional(),
  dph_total: z.number().nullable().optional(),
  rented_at: Rfc3339Schema.nullable().optional(),
  /** What the model downloads on the machine cost ($, at the host's price per GB): billed once, on top of machine time. */
  download_usd: z.number().nonnegative().nullable().optional(),
  /** Why the last release of the job's machine failed (e.g. the key was refused); null once one succeeded. */
  marketplace_release_error: z.string().nullable().optional(),
  /** What the machine cost in the end (the ledger's figure: machine time up to its release and its downloads), once it was released. */
  cost_usd: z.number().nonnegative().nullable().optional(),
  /** When the machine stopped billing (its release was confirmed). */
  released_at: Rfc3339Schema.nullable().optional(),
});
export type JobResources = z.infer<typeof JobResourcesSchema>;

/**
 * The request as stored in a job: the request schema's output (defaults applied, `ollama` stored
 * as `llmserver`), secrets redacted. Cross-field rules were checked at submit and are not re-run
 * on read, and unknown keys are kept, so a record written by an older version still reads.
 */
function storedRequest<S extends z.ZodRawShape>(shape: S) {
  return z.looseObject({ ...shape, backend_type: z.literal('llmserver').default('llmserver') });
}
export const StoredRequestSchemas = {
  'agentic-agent': storedRequest(AgenticAgentRequestSchema.shape),
  benchmark: storedRequest(BenchmarkRequestSchema.shape),
  'llm-instance': storedRequest(LlmInstanceRequestSchema.shape),
  suite: storedRequest(SuiteRequestSchema.shape),
  'serving-benchmark': storedRequest(ServingBenchmarkRequestSchema.shape),
} as const;

/** The fields every job record has, in the order they are written. */
function jobRecordOf<K extends JobKind, Req extends z.ZodType, Res extends z.ZodType>(kind: K, request: Req, result: Res) {
  return z.object({
    job_id: z.string().min(1),
    tenant_id: z.string().min(1),
    kind: z.literal(kind),
    status: JobStatusSchema,
    message: z.string(),
    created_at: Rfc3339Schema,
    started_at: Rfc3339Schema.nullable(),
    finished_at: Rfc3339Schema.nullable(),
    updated_at: Rfc3339Schema,
    /** The request as validated, secrets redacted. */
    request,
    progress: JobProgressSchema.nullable(),
    /** Set when the job succeeded; null before and on failure or cancellation. */
    result: result.nullable(),
    error: z.string().nullable(),
    error_code: z.string().nullable(),
    resources: JobResourcesSchema.nullable(),
  });
}

export const AgenticAgentJobRecordSchema = jobRecordOf('agentic-agent', StoredRequestSchemas['agentic-agent'], AgenticAgentResultSchema);
export const BenchmarkJobRecordSchema = jobRecordOf('benchmark', StoredRequestSchemas.benchmark, BenchmarkResultSchema);
export const LlmInstanceJobRecordSchema = jobRecordOf('llm-instance', StoredRequestSchemas['llm-instance'], LlmInstanceResultSchema);
export const SuiteJobRecordSchema = jobRecordOf('suite', StoredRequestSchemas.suite, SuiteResultSchema);
export const ServingBenchmarkJobRecordSchema = jobRecordOf('serving-benchmark', StoredRequestSchemas['serving-benchmark'], ServingBenchmarkResultSchema);

/** A job: request and result typed by `kind`. */
export const JobRecordSchema = z.discriminatedUnion('kind', [AgenticAgentJobRecordSchema, BenchmarkJobRecordSchema, LlmInstanceJobRecordSchema, SuiteJobRecordSchema, ServingBenchmarkJobRecordSchema]);
export type JobRecord = z.infer<typeof JobRecordSchema>;
export type JobRecordOf<K extends JobKind> = Extract<JobRecord, { kind: K }>;

export const EVENT_STATUSES = ['started', 'ok', 'error', 'info'] as const;
export const EventStatusSchema = z.enum(EVENT_STATUSES);
export type EventStatus = z.infer<typeof EventStatusSchema>;

export const EventLabelsSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));
export type EventLabels = z.infer<typeof EventLabelsSchema>;

export const JobEventSchema = z.object({
  /** Global monotonic integer across all jobs; the SSE `id:`. */
  seq: z.number().int().positive(),
  job_id: z.string(),
  /** Dotted name: job.queued, phase.provision, marketplace.offer_search, agent.tool_call, ... */
  event: z.string().min(1),
  status: EventStatusSchema,
  message: z.string().nullable(),
  duration_ms: z.number().nonnegative().nullable(),
  error_type: z.string().nullable(),
  labels: EventLabelsSchema,
  recorded_at: Rfc3339Schema,
});
export type JobEvent = z.infer<typeof JobEventSchema>;

/**
 * Sent on an event stream instead of events the server can no longer replay: the client asked to
 * resume after a seq older than what the server still holds (the feed's replay window, or events
 * from before the server restarted). Whatever changed meanwhile must be fetched again; the stream
 * goes on live from `seq`. Over SSE it is an `event: reset` message whose `id:` is `seq`.
 */
export const StreamResetSchema = z
  .object({
    reset: z.literal(true),
    /** The stream's position after the reset: resume after this seq. */
    seq: z.number().int().min(0).describe('the position the stream continues from (its SSE id)'),
    /** The seq the client asked to resume after. */
    after: z.number().int().min(0).describe('the seq the client asked to resume after'),
    /** The oldest seq the server could still replay; null when it holds none. */
    oldest_seq: z.number().int().min(0).nullable().describe('the oldest seq the server could still replay'),
    message: z.string(),
  })
  .strict();
export type StreamReset = z.infer<typeof StreamResetSchema>;

/** What an event stream yields: events, and a reset where events were lost to the client. */
export const JobStreamItemSchema = z.union([JobEventSchema, StreamResetSchema]);
export type JobStreamItem = z.infer<typeof JobStreamItemSchema>;

export function isStreamReset(item: JobStreamItem): item is StreamReset {
  return 'reset' in item && item.reset === true;
}

export const JobAcceptedSchema = z.object({
  job_id: z.string(),
  status: z.literal('accepted'),
});
export type JobAccepted = z.infer<typeof JobAcceptedSchema>;

/**
 * A whole number as a query string or header carries it: decimal digits only ("1e3", "0x10", " 5",
 * "-1" and "" are refused, not read as a number), or a number from IPC and the in-process client.
 * `?after=`, `?limit=` and `Last-Event-ID` are all read with this, so they are equally strict.
 */
export function wholeNumberParam(min: number, max: number) {
  const schema = z
    // A sign is read too, so "-1" says what a -1 from IPC says (too small), not that it is not a number.
    .union([z.number(), z.string().regex(/^-?\d{1,16}$/).transform(Number)], { error: 'expected a whole number' })
    .pipe(
      z
        .number()
        .int('expected a whole number')
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max}`),
    );
  WHOLE_NUMBER_PARAMS.set(schema, { min, max });
  return schema;
}

/**
 * Every wholeNumberParam with its bounds: JSON Schema cannot see through the transform, so the
 * OpenAPI document describes each of these as the integer it is.
 */
export const WHOLE_NUMBER_PARAMS = new Map<z.ZodType, { min: number; max: number }>();

/** An event seq as a position to resume after (`?after=`, `Last-Event-ID`). */
export const SeqParamSchema = wholeNumberParam(0, Number.MAX_SAFE_INTEGER);

export const JOB_LIST_MAX_LIMIT = 200;
export const JOB_LIST_DEFAULT_LIMIT = 50;

/**
 * Orders of the job list: by creation time, by how long the job ran (start to end), or by what it
 * cost (a machine still billing counts what it has cost so far). A leading `-` is newest, longest
 * or dearest first; jobs without the figure (not finished, nothing rented) come last either way.
 */
export const JOB_SORTS = ['-created', 'created', '-duration', 'duration', '-cost', 'cost'] as const;
export const JobSortSchema = z.enum(JOB_SORTS);
export type JobSort = z.infer<typeof JobSortSchema>;

/** Words to find in a job's id, model, backend (URL or rented GPU), message or error, and error code; every word must occur. */
export const JobSearchSchema = z
  .string()
  .max(200)
  .describe('words that must all occur (any case) in the job id, model, backend URL or rented GPU, message or error, error code, question or agent');

export const JobListQuerySchema = z
  .object({
    status: JobStatusSchema.optional(),
    kind: JobKindSchema.optional(),
    q: JobSearchSchema.optional(),
    sort: JobSortSchema.default('-created'),
    limit: wholeNumberParam(1, JOB_LIST_MAX_LIMIT).default(JOB_LIST_DEFAULT_LIMIT).describe(`jobs per page (default ${JOB_LIST_DEFAULT_LIMIT})`),
    cursor: z.string().min(1).max(512).optional(),
  })
  .strict();
export type JobListQuery = z.infer<typeof JobListQuerySchema>;

export const JobListResponseSchema = z.object({
  jobs: z.array(JobRecordSchema),
  next_cursor: z.string().nullable(),
});
export type JobListResponse = z.infer<typeof JobListResponseSchema>;

export const JobEventsQuerySchema = z
  .object({
    after: SeqParamSchema.optional(),
  })
  .strict();
export type JobEventsQuery = z.infer<typeof JobEventsQuerySchema>;

export const JobEventsResponseSchema = z.object({
  job_id: z.string(),
  events: z.array(JobEventSchema),
});
export type JobEventsResponse = z.infer<typeof JobEventsResponseSchema>;

export const JobIdParamsSchema = z.object({ id: z.string().min(1).max(128) });

export const JobCountsQuerySchema = z.object({ kind: JobKindSchema.optional(), q: JobSearchSchema.optional() }).strict();
export type JobCountsQuery = z.infer<typeof JobCountsQuerySchema>;

/** How many of the tenant's jobs are in each status and of each kind (the Jobs page's filter tabs). */
export const JobCountsSchema = z.object({
  total: z.number().int().nonnegative(),
  by_status: z.record(JobStatusSchema, z.number().int().nonnegative()),
  by_kind: z.record(JobKindSchema, z.number().int().nonnegative()),
});
export type JobCounts = z.infer<typeof JobCountsSchema>;
