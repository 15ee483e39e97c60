import { MetricsSummaryQuerySchema, MetricsSummarySchema } from '../metrics';
import type { OperationDef } from './common';

/** The timed steps of the tenant's jobs, summed up. */
export const METRICS_OPERATIONS = {
  getMetricsSummary: {
    summary: 'Event metrics of the tenant, or of one job',
    description: "Counts and durations (average, min, max, p95) of the timed steps (`ok`/`error` events) of the tenant's jobs, or of one job with `job_id`.",
    tags: ['jobs'],
    method: 'GET',
    path: '/v1/metrics/summary',
    input: MetricsSummaryQuerySchema,
    output: MetricsSummarySchema,
    status: 200,
    query: ['job_id'],
  },
} as const satisfies Record<string, OperationDef>;
