import { JobRequestsInputSchema, JobRequestsOutputSchema } from '../serving-results';

/**
 * The serving benchmark's operations (design §13b), spread among the job operations (./jobs.ts)
 * and so into OPERATIONS (../operations.ts).
 */
export const SERVING_OPERATIONS = {
  getJobRequests: {
    summary: "A serving job's per-request records, as JSONL or CSV",
    description:
      'One row per measured request of a serving-benchmark job: `{level, started_at_ms (from the level’s start), ttft_ms, e2e_ms, output_tokens, itl_count, finish_reason, error}`. ' +
      '`format=jsonl` (the default) answers `application/x-ndjson`; `format=csv` answers `text/csv` with a header row, every text cell that a spreadsheet would read as a formula (`= + - @`) made inert with a leading `\'`. ' +
      'A job still running answers the requests measured so far. Another tenant’s job, and a job that is not a serving benchmark, answer 404.',
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/jobs/{job_id}/requests',
    input: JobRequestsInputSchema,
    output: JobRequestsOutputSchema,
    status: 200,
    query: ['format'],
    errors: { 404: 'No such job for this tenant, or the job is not a serving benchmark (`not_found`)' },
  },
} as const;
