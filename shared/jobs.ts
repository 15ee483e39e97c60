import { z } from 'zod';

/** The three job kinds of design §4. Deprecated route aliases map onto these. */
export const JOB_KINDS = ['agentic-agent', 'benchmark', 'llm-instance'] as const;
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
});
export type JobResources = z.infer<typeof JobResourcesSchema>;

export const JobRecordSchema = z.object({
  job_id: z.string().min(1),
  tenant_id: z.string().min(1),
  kind: JobKindSchema,
  status: JobStatusSchema,
  message: z.string(),
  created_at: Rfc3339Schema,
  started_at: Rfc3339Schema.nullable(),
  finished_at: Rfc3339Schema.nullable(),
  updated_at: Rfc3339Schema,
  /** The request as validated, secrets redacted. */
  request: z.record(z.string(), z.unknown()),
  progress: JobProgressSchema.nullable(),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  error_code: z.string().nullable(),
  resources: JobResourcesSchema.nullable(),
});
export type JobRecord = z.infer<typeof JobRecordSchema>;

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

export const JobAcceptedSchema = z.object({
  job_id: z.string(),
  status: z.literal('accepted'),
});
export type JobAccepted = z.infer<typeof JobAcceptedSchema>;

export const JOB_LIST_MAX_LIMIT = 200;
export const JOB_LIST_DEFAULT_LIMIT = 50;

export const JobListQuerySchema = z
  .object({
    status: JobStatusSchema.optional(),
    kind: JobKindSchema.optional(),
    limit: z.coerce.number().int().min(1).max(JOB_LIST_MAX_LIMIT).default(JOB_LIST_DEFAULT_LIMIT),
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
    after: z.coerce.number().int().min(0).optional(),
  })
  .strict();
export type JobEventsQuery = z.infer<typeof JobEventsQuerySchema>;

export const JobEventsResponseSchema = z.object({
  job_id: z.string(),
  events: z.array(JobEventSchema),
});
export type JobEventsResponse = z.infer<typeof JobEventsResponseSchema>;

export const JobIdParamsSchema = z.object({ id: z.string().min(1).max(128) });
