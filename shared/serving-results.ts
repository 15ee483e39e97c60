import { z } from 'zod';
import { SpokenBackendApiSchema } from './backend-api';
import { ManifestSchema } from './manifest';
import { BenchmarkCostSchema, BenchmarkInstanceSchema, Count, PhaseRecordSchema, TeardownSchema } from './results';
import { RequestRateSchema, ServingDatasetSchema, ServingSloSchema } from './serving-request';

// ---------------------------------------------------------------------------------------------
// serving-benchmark (design §13, §13b): each level's latencies, throughput, goodput and what a
// million output tokens cost on the rented machine. Fields added after the first version have
// defaults, so a result stored by an older version still reads.

/** Mean, standard deviation and percentiles (linear interpolation, numpy's default) of one latency, ms. */
export const LatencyStatsSchema = z.object({
  mean: z.number().nonnegative(),
  /** Population standard deviation (numpy's np.std, as vllm bench serve prints). */
  std: z.number().nonnegative().nullable().default(null),
  p50: z.number().nonnegative(),
  p90: z.number().nonnegative(),
  p95: z.number().nonnegative().nullable().default(null),
  p99: z.number().nonnegative(),
});
export type LatencyStats = z.infer<typeof LatencyStatsSchema>;

export const ServingLevelSchema = z.object({
  /** Requests in flight of a concurrency level; null for a rate level. */
  concurrency: z.number().int().positive().nullable(),
  /** The rate asked of a rate level (req/s, or "inf"); null for a concurrency level. */
  request_rate: RequestRateSchema.nullable().default(null),
  /** A rate level's cap on requests in flight; null without one. */
  max_concurrency: z.number().int().positive().nullable().default(null),
  /** Requests started ÷ the time over which they were started (req/s); null with fewer than 2 requests. */
  achieved_request_rate: z.number().nonnegative().nullable().default(null),
  /** Measured requests that succeeded (warm-up requests excluded). */
  requests: Count,
  /** Measured requests that failed; never part of the latencies. */
  failed: Count,
  /** The first failure's message, null when none failed. */
  first_error: z.string().nullable(),
  /** From the first measured request sent to the last one finished, s. */
  duration_s: z.number().nonnegative(),
  /** Succeeded requests / duration, req/s. */
  request_throughput: z.number().nonnegative(),
  /** Σ output tokens / duration, tok/s. */
  output_tokens_per_s: z.number().nonnegative(),
  /** Σ (prompt + output tokens) / duration, tok/s. */
  total_tokens_per_s: z.number().nonnegative(),
  /** Σ output tokens (Ollama's eval_count, OpenAI's usage.completion_tokens) and Σ prompt tokens of the succeeded requests. */
  output_tokens: Count,
  prompt_tokens: Count,
  /** Output tokens per succeeded request; null without one. */
  mean_output_tokens: z.number().nonnegative().nullable().default(null),
  /** Succeeded requests that generated fewer tokens than they asked for (the model stopped early). */
  early_stop_requests: Count.default(0),
  /** Succeeded requests meeting every SLO, per second of the level; null without an slo. */
  goodput_rps: z.number().nonnegative().nullable().default(null),
  /** Share of the succeeded requests meeting every SLO (0–1); null without an slo. */
  slo_attainment: z.number().min(0).max(1).nullable().default(null),
  /** null when no request of the level produced a sample (all failed; TPOT and ITL need 2 tokens or more). */
  ttft_ms: LatencyStatsSchema.nullable(),
  tpot_ms: LatencyStatsSchema.nullable(),
  itl_ms: LatencyStatsSchema.nullable(),
  e2e_ms: LatencyStatsSchema.nullable(),
  /** Σ eval_count / Σ eval_duration: Ollama's own generation speed per request stream, tok/s (null elsewhere). */
  server_tokens_per_s: z.number().nonnegative().nullable(),
  /** $/h ÷ (output tok/s × 3600) × 10⁶ on a rented machine; null on an existing backend or without output. */
  usd_per_million_output_tokens: z.number().nonnegative().nullable(),
  /** What a reader must know about the level's figures: shorter answers than asked, a level stopped early… */
  warnings: z.array(z.string()).default([]),
  /** Why the level stopped before starting all its requests (its first requests all failed, its deadline); null when it ran through. */
  stopped: z.string().nullable().default(null),
});
export type ServingLevel = z.infer<typeof ServingLevelSchema>;

export const SERVING_PHASES = ['provision', 'warmup', 'load', 'teardown'] as const;
export const ServingPhaseSchema = z.enum(SERVING_PHASES);
export type ServingPhase = z.infer<typeof ServingPhaseSchema>;
export const ServingPhaseRecordSchema = PhaseRecordSchema.extend({ name: ServingPhaseSchema });
export type ServingPhaseRecord = z.infer<typeof ServingPhaseRecordSchema>;

/** The highest-throughput level whose slo_attainment ≥ 0.99, with its price. */
export const ServingBestBySloSchema = z.object({
  /** 0-based index into `levels`. */
  level: Count,
  concurrency: z.number().int().positive().nullable(),
  request_rate: RequestRateSchema.nullable(),
  output_tokens_per_s: z.number().nonnegative(),
  goodput_rps: z.number().nonnegative(),
  slo_attainment: z.number().min(0).max(1),
  usd_per_million_output_tokens: z.number().nonnegative().nullable(),
});
export type ServingBestBySlo = z.infer<typeof ServingBestBySloSchema>;

export const ServingBestSchema = z.object({
  /** The concurrency of the level with the most output tokens/s (null when that level is a rate level or none succeeded). */
  by_throughput: z.number().int().positive().nullable(),
  /** The concurrency of the cheapest level per million output tokens (null when not rented). */
  by_cost: z.number().int().positive().nullable(),
  /** The same two as 0-based indexes into `levels` (rate levels included). */
  by_throughput_level: Count.nullable().default(null),
  by_cost_level: Count.nullable().default(null),
  /** null without an slo, or when no level met it for 99% of its requests. */
  by_slo: ServingBestBySloSchema.nullable().default(null),
});

/** One measured request (design §13b): what `GET /v1/jobs/{id}/requests` answers, one row each. */
export const ServingRequestRecordSchema = z.object({
  /** 1-based level number, as the serving.level events count. */
  level: z.number().int().positive(),
  /** When it was sent, ms from the level's start (its first measured request). */
  started_at_ms: z.number().nonnegative(),
  ttft_ms: z.number().nonnegative().nullable(),
  e2e_ms: z.number().nonnegative().nullable(),
  output_tokens: Count.nullable(),
  /** Gaps between streamed chunks with text (the ITL samples this request gave). */
  itl_count: Count,
  /** The engine's reason: "stop", "length", "tool_calls"…; null when it failed. */
  finish_reason: z.string().nullable(),
  error: z.string().nullable(),
});
export type ServingRequestRecord = z.infer<typeof ServingRequestRecordSchema>;
export const SERVING_REQUEST_COLUMNS = Object.keys(ServingRequestRecordSchema.shape) as (keyof ServingRequestRecord)[];

export const ServingBenchmarkResultSchema = z.object({
  model: z.string(),
  /** The llmserver that was measured (normalised, no credentials). */
  backend_url: z.string(),
  /** The API spoken (after `auto` detection). */
  backend_api: SpokenBackendApiSchema.default('ollama'),
  /** Median round trip of 10 small requests to the backend before the first level, ms: the network's share of TTFT. */
  network_rtt_ms: z.number().nonnegative().nullable().default(null),
  prompt_tokens: z.number().int().positive(),
  output_tokens: z.number().int().positive(),
  /** As asked; null when each level took its default (several waves of its concurrency) or ran for duration_s. */
  requests_per_level: z.number().int().positive().nullable(),
  duration_s: z.number().positive().nullable().default(null),
  warmup_requests: Count,
  dataset: ServingDatasetSchema.nullable().default(null),
  slo: ServingSloSchema.nullable().default(null),
  levels: z.array(ServingLevelSchema),
  best: ServingBestSchema,
  /** What applies to the whole run (the network could not be measured…). */
  warnings: z.array(z.string()).default([]),
  contract_id: z.number().int().nullable(),
  phases: z.array(ServingPhaseRecordSchema),
  cost: BenchmarkCostSchema,
  instance: BenchmarkInstanceSchema.nullable(),
  teardown: TeardownSchema.nullable(),
  /** What the run needs to be reproduced (design §12b); null in results stored before it existed. */
  manifest: ManifestSchema.nullable().default(null),
});
export type ServingBenchmarkResult = z.infer<typeof ServingBenchmarkResultSchema>;

/** `GET /v1/jobs/{id}/requests`: the job and the format; the answer is the JSONL or CSV text. */
export const JobRequestsInputSchema = z
  .object({
    job_id: z.string().min(1).max(128),
    format: z.enum(['jsonl', 'csv']).default('jsonl'),
  })
  .strict();
export const JobRequestsOutputSchema = z.string();
