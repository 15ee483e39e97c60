import { z } from 'zod';

export const MetricsSummaryQuerySchema = z.object({ job_id: z.string().min(1).max(128).optional() }).strict();
export type MetricsSummaryQuery = z.infer<typeof MetricsSummaryQuerySchema>;

export const MetricsRowSchema = z.object({
  event: z.string(),
  total: z.number().int(),
  ok: z.number().int(),
  error: z.number().int(),
  avg_ms: z.number(),
  min_ms: z.number(),
  max_ms: z.number(),
  p95_ms: z.number(),
});
export type MetricsRow = z.infer<typeof MetricsRowSchema>;

export const MetricsSummarySchema = z.object({ events: z.array(MetricsRowSchema) });
export type MetricsSummary = z.infer<typeof MetricsSummarySchema>;
