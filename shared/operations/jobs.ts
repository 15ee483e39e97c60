import { z } from 'zod';
import {
  JobAcceptedSchema,
  JobCountsQuerySchema,
  JobCountsSchema,
  JobEventsResponseSchema,
  JobKindSchema,
  JobListQuerySchema,
  JobListResponseSchema,
  JobRecordSchema,
  JobStatusSchema,
  JobStreamItemSchema,
  SeqParamSchema,
} from '../jobs';
import { CostEstimationRequestSchema, CostEstimationResponseSchema } from '../requests';
import type { OperationDef } from './common';
import { SERVING_OPERATIONS } from './serving';

const JobIdSchema = z.string().min(1).max(128);

export const JobRefSchema = z.object({ job_id: JobIdSchema }).strict();
export const CancelJobResponseSchema = z.object({ job_id: z.string(), status: JobStatusSchema });
export type CancelJobResponse = z.infer<typeof CancelJobResponseSchema>;

export const CreateJobInputSchema = z
  .object({
    kind: JobKindSchema,
    /** Checked by the service with the kind's own schema (JOB_REQUEST_SCHEMAS), for every transport alike. */
    request: z.unknown(),
    idempotency_key: z.string().min(1).max(512).optional(),
  })
  .strict();

/** Events after `last_event_id` (the SSE Last-Event-ID header) when set, else after `after`. */
export const JobEventsInputSchema = z.object({ job_id: JobIdSchema, after: SeqParamSchema.optional(), last_event_id: SeqParamSchema.optional() }).strict();

export const EventFeedInputSchema = z.object({ after: SeqParamSchema.optional(), last_event_id: SeqParamSchema.optional() }).strict();

/**
 * Jobs: pricing one before it runs, submitting, listing, following and cancelling them, and the
 * live event feeds (the serving benchmark's own operation, in ./serving, sits among them).
 */
export const JOB_OPERATIONS = {
  createEstimate: {
    summary: 'Estimate what renting marketplace GPUs will cost',
    description:
      'Prices a job before it runs: with a marketplace key, from the live offers that fit the model and the price range (`basis: live_offers`, or `no_offers` with the nearest offer); ' +
      'without one, or when the marketplace does not answer, from the price range alone (`price_range`, with a warning). Answers synchronously; nothing is rented.',
    tags: ['marketplace'],
    method: 'POST',
    path: '/v1/estimates',
    // The service checks the body with CostEstimationRequestSchema (400 if not an object, 422 if invalid).
    input: z.unknown(),
    docs: { body: CostEstimationRequestSchema },
    output: CostEstimationResponseSchema,
    status: 200,
    body: '*',
  },
  createJob: {
    summary: 'Submit a job; durable before the 202',
    description:
      'Validates the request of the kind in the path, stores the job and answers 202 with its id and a `Location`; the job then runs in the background (follow it with the events stream). ' +
      'With an `Idempotency-Key`, a retry with the same body answers the same job (`Idempotent-Replayed: true`) instead of running it again.',
    tags: ['jobs'],
    method: 'POST',
    path: '/v1/jobs/{kind}',
    input: CreateJobInputSchema,
    output: JobAcceptedSchema,
    status: 202,
    body: 'request',
    headers: { idempotency_key: 'idempotency-key' },
    errors: { 409: 'A request with the same Idempotency-Key is still being accepted (`idempotency_in_flight`): retry it' },
  },
  listJobs: {
    summary: 'List jobs, newest first, with cursor paging',
    description:
      "The caller's jobs, newest first (or by `sort`), filtered by status and kind, and by `q`: words that must all occur in the job's id, model, backend, message, error code, question or agent. `next_cursor` is null on the last page; pass it as `cursor` for the next one.",
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/jobs',
    input: JobListQuerySchema,
    output: JobListResponseSchema,
    status: 200,
    query: ['status', 'kind', 'q', 'sort', 'limit', 'cursor'],
  },
  getJobCounts: {
    summary: "How many of the caller's jobs are in each status and of each kind",
    description: 'Counts for the status and kind filters of a job list, optionally within one kind; cheap enough to refresh on every status change.',
    tags: ['jobs'],
    method: 'GET',
    // Not under /v1/jobs/: that segment is a job id.
    path: '/v1/job-counts',
    input: JobCountsQuerySchema,
    output: JobCountsSchema,
    status: 200,
    query: ['kind', 'q'],
  },
  getJob: {
    summary: 'Get one job',
    description: "The job's record: status, request (secrets redacted), progress, result or error. Another tenant's job answers 404, as a missing one does.",
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/jobs/{job_id}',
    input: JobRefSchema,
    output: JobRecordSchema,
    status: 200,
    errors: { 405: 'The id is the name of a job kind: `/v1/jobs/<kind>` only takes POST (submit a job)' },
  },
  cancelJob: {
    summary: 'Cancel a job; it ends `cancelled` after its cleanup (rented machines released)',
    description:
      'A queued job is cancelled at once; a running one is stopped, releases what it rented, then ends `cancelled` (the answer says the status at the time of the answer). ' +
      'A job that has already ended answers 409.',
    tags: ['jobs'],
    method: 'POST',
    path: '/v1/jobs/{job_id}/cancel',
    input: JobRefSchema,
    output: CancelJobResponseSchema,
    status: 202,
    errors: { 409: 'The job has already ended (`job_not_cancellable`)' },
  },
  getJobEvents: {
    summary: "A job's events so far (`after` = only events with a greater seq)",
    description:
      "The job's append-only event list, oldest first (`seq` is a global, increasing number). With `Accept: text/event-stream` the same path is the live stream (streamJobEvents).",
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/jobs/{job_id}/events',
    input: JobEventsInputSchema,
    output: JobEventsResponseSchema,
    status: 200,
    query: ['after'],
    headers: { last_event_id: 'last-event-id' },
    errors: { 422: 'A malformed `after` or Last-Event-ID, or one beyond the newest event (`unknown_event_id`)' },
  },
  ...SERVING_OPERATIONS,
  streamJobEvents: {
    summary: "A job's events as a live stream (SSE: id = seq, Last-Event-ID resumes); ends after the terminal event",
    description:
      "Server-Sent Events: the job's events from `after` (or `Last-Event-ID`) on, then live, ending after the job's terminal event. " +
      'A client that reads too slowly is disconnected and resumes with Last-Event-ID.',
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/jobs/{job_id}/events',
    input: JobEventsInputSchema,
    output: JobStreamItemSchema,
    status: 200,
    query: ['after'],
    headers: { last_event_id: 'last-event-id' },
    stream: true,
    errors: { 422: 'A malformed `after` or Last-Event-ID, or one beyond the newest event (`unknown_event_id`)' },
  },
  streamEvents: {
    summary: "Live feed of every job of the caller's tenant: status changes and events (SSE)",
    description:
      "Server-Sent Events of every job of the caller's tenant. Resuming with Last-Event-ID replays what was missed; when that is older than the server still holds " +
      '(a long disconnection, a restart), a `reset` event says so and the stream goes on live: fetch the jobs again. A client that reads too slowly is disconnected.',
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/events',
    input: EventFeedInputSchema,
    output: JobStreamItemSchema,
    status: 200,
    query: ['after'],
    headers: { last_event_id: 'last-event-id' },
    stream: true,
    errors: {
      406: 'The request does not accept `text/event-stream`: this path is only a stream',
      422: 'A malformed `after` or Last-Event-ID, or one beyond the newest event (`unknown_event_id`)',
    },
  },
} as const satisfies Record<string, OperationDef>;
