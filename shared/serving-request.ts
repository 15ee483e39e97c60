import { z } from 'zod';
import { addIssues, backendFields, marketplaceFields, marketplaceIssues, ModelNameSchema, type Issue } from './request-fields';

// ---------------------------------------------------------------------------------------------
// serving-benchmark (design §13, §13b): streamed requests at each level, a level being a number
// of requests in flight (concurrency) or an arrival rate (request_rate), as `vllm bench serve`.

export const SERVING_DEFAULTS = {
  concurrency: [1, 2, 4, 8],
  /** A level's default request count: at least this, and at least WAVES × its concurrency. */
  requests_per_level: 32,
  waves: 3,
  prompt_tokens: 256,
  output_tokens: 128,
  warmup_requests: 2,
  burstiness: 1,
  request_timeout_s: 600,
  level_timeout_s: 3600,
} as const;
/** Bounds that keep one job finite on any machine (a level of 1,024 streams is already far past what one GPU serves). */
export const SERVING_LIMITS = {
  concurrency: 1024,
  levels: 16,
  requests_per_level: 100_000,
  prompt_tokens: 32_768,
  output_tokens: 32_768,
  warmup_requests: 1_000,
  request_rate: 10_000,
  duration_s: 24 * 3600,
} as const;

const Tokens = (max: number) => z.number().int().min(1).max(max);

/** Requests per second, or `"inf"`: every request of the level sent at once. */
export const RequestRateSchema = z.union([z.number().positive().max(SERVING_LIMITS.request_rate), z.literal('inf')]);
export type RequestRate = z.infer<typeof RequestRateSchema>;

export const RandomDatasetSchema = z
  .object({
    kind: z.literal('random'),
    input_tokens: Tokens(SERVING_LIMITS.prompt_tokens).optional().describe('prompt length (default prompt_tokens)'),
    output_tokens: Tokens(SERVING_LIMITS.output_tokens).optional().describe('tokens asked of each request (default output_tokens)'),
    range_ratio: z.number().min(0).max(1).default(0).describe('lengths drawn uniformly from [n·(1 − r), n·(1 + r)], as vllm bench serve --random-range-ratio'),
  })
  .strict();
export const ShippedDatasetSchema = z.object({ kind: z.literal('shipped') }).strict().describe('the shipped corpus of project-written prompts of varied length');
export const FileDatasetSchema = z
  .object({
    kind: z.literal('file'),
    path: z
      .string()
      .trim()
      .min(1)
      .max(4096)
      .regex(/\.jsonl?$/i, 'a .json (ShareGPT) or .jsonl file'),
  })
  .strict()
  .describe('a ShareGPT JSON file or a JSONL file of {prompt, output_tokens?}, read on the server');
export const ServingDatasetSchema = z.discriminatedUnion('kind', [RandomDatasetSchema, ShippedDatasetSchema, FileDatasetSchema]);
export type ServingDataset = z.infer<typeof ServingDatasetSchema>;

export const ServingSloSchema = z
  .object({
    ttft_ms: z.number().positive().max(3_600_000).optional(),
    tpot_ms: z.number().positive().max(3_600_000).optional(),
    e2e_ms: z.number().positive().max(86_400_000).optional(),
  })
  .strict()
  .refine((v) => v.ttft_ms !== undefined || v.tpot_ms !== undefined || v.e2e_ms !== undefined, 'give at least one of ttft_ms, tpot_ms, e2e_ms')
  .describe('service-level objectives: a request meets them when each given latency is at or under its bound (goodput counts those)');
export type ServingSlo = z.infer<typeof ServingSloSchema>;

const levelsList = <T extends z.ZodType>(item: T, example: string) =>
  z
    .array(item, { error: (issue) => (issue.input === undefined ? undefined : `is a list of levels, e.g. ${example}`) })
    .min(1, 'needs at least one level')
    .max(SERVING_LIMITS.levels);

export const ServingBenchmarkRequestSchema = z
  .object({
    ...marketplaceFields,
    ...backendFields,
    model: ModelNameSchema,
    concurrency: levelsList(z.number().int().min(1).max(SERVING_LIMITS.concurrency), '[1, 2, 4, 8]')
      .optional()
      .describe('requests in flight at each level, run one level after another in this order (default [1, 2, 4, 8] unless request_rate is given)'),
    request_rate: levelsList(RequestRateSchema, '[1, 4, "inf"]')
      .optional()
      .describe('instead of concurrency: requests started per second at each level (gamma-distributed gaps, see burstiness); "inf" starts them all at once'),
    burstiness: z.number().positive().max(100).optional().describe('with request_rate: the gamma shape of the gaps between requests (1 = Poisson, lower = burstier); default 1'),
    max_concurrency: z.number().int().min(1).max(SERVING_LIMITS.concurrency).optional().describe('with request_rate: at most this many requests in flight (the rest wait)'),
    requests_per_level: z
      .number()
      .int()
      .min(1)
      .max(SERVING_LIMITS.requests_per_level)
      .optional()
      .describe('measured requests of each level (at least its concurrency); default: at least 32 and 3 × the level’s concurrency'),
    duration_s: z.number().positive().max(SERVING_LIMITS.duration_s).optional().describe('instead of requests_per_level: how long each level starts requests (s)'),
    prompt_tokens: Tokens(SERVING_LIMITS.prompt_tokens).default(SERVING_DEFAULTS.prompt_tokens).describe('about how many tokens each prompt of the random dataset has'),
    output_tokens: Tokens(SERVING_LIMITS.output_tokens)
      .default(SERVING_DEFAULTS.output_tokens)
      .describe('tokens each request asks for: Ollama options.num_predict, OpenAI max_tokens'),
    dataset: ServingDatasetSchema.default({ kind: 'random', range_ratio: 0 }).describe('the prompts: random lengths (default), the shipped corpus, or a file'),
    ignore_eos: z.boolean().default(true).describe('ask the engine to generate every token asked for (vLLM, SGLang and llama.cpp honour it; Ollama cannot, and short answers are reported as warnings)'),
    min_tokens: z.number().int().min(0).max(SERVING_LIMITS.output_tokens).optional().describe('the least tokens a request may generate (vLLM, SGLang)'),
    num_ctx: z.number().int().min(256).max(1_048_576).optional().describe('Ollama context window sent as options.num_ctx; default: the longest prompt + output tokens + a margin'),
    temperature: z.number().min(0).max(2).optional().describe('sampling temperature sent with every request (the engine’s default when absent)'),
    seed: z.number().int().min(0).max(2 ** 31 - 1).optional().describe('seeds the random dataset and the arrival schedule (default 0), and is sent to the engine'),
    endpoint: z.enum(['chat', 'completions']).default('chat').describe('OpenAI-compatible servers: /v1/chat/completions (default) or /v1/completions'),
    slo: ServingSloSchema.optional(),
    warmup_requests: z.number().int().min(0).max(SERVING_LIMITS.warmup_requests).default(SERVING_DEFAULTS.warmup_requests).describe('requests run before each level and left out of its figures'),
    request_timeout_s: z.number().int().min(1).max(86_400).default(SERVING_DEFAULTS.request_timeout_s).describe('the longest one request may take, first byte to last (s)'),
    level_timeout_s: z.number().int().min(1).max(7 * 86_400).default(SERVING_DEFAULTS.level_timeout_s).describe('the longest one level may take (s): requests still running then are stopped and the level says so'),
    marketplace_stop_instance: z.boolean().default(true),
  })
  .strict()
  .superRefine((v, ctx) => addIssues(ctx, [...marketplaceIssues(v), ...servingIssues(v)]));
export type ServingBenchmarkRequest = z.infer<typeof ServingBenchmarkRequestSchema>;
export type ServingBenchmarkRequestInput = z.input<typeof ServingBenchmarkRequestSchema>;

type ServingRules = Pick<
  ServingBenchmarkRequest,
  'concurrency' | 'request_rate' | 'burstiness' | 'max_concurrency' | 'requests_per_level' | 'duration_s' | 'min_tokens' | 'output_tokens' | 'endpoint' | 'backend_api' | 'dataset'
>;

function duplicates<T>(list: readonly T[] | undefined, path: string, what: (x: T) => string): Issue[] {
  const seen = new Set<T>();
  const issues: Issue[] = [];
  list?.forEach((x, i) => {
    if (seen.has(x)) issues.push({ path: [path, i], message: `lists ${what(x)} twice` });
    seen.add(x);
  });
  return issues;
}

/** The serving request's cross-field rules (design §13b). */
export function servingIssues(v: ServingRules): Issue[] {
  const issues: Issue[] = [...duplicates(v.concurrency, 'concurrency', (c) => `level ${c}`), ...duplicates(v.request_rate, 'request_rate', (r) => `rate ${r}`)];
  if (v.request_rate && v.concurrency) issues.push({ path: ['concurrency'], message: 'give concurrency or request_rate, not both (a level is one or the other; max_concurrency caps a rate level)' });
  if (!v.request_rate) {
    if (v.burstiness !== undefined) issues.push({ path: ['burstiness'], message: 'applies to request_rate levels only' });
    if (v.max_concurrency !== undefined) issues.push({ path: ['max_concurrency'], message: 'applies to request_rate levels only (concurrency levels set their own)' });
  }
  if (v.duration_s !== undefined && v.requests_per_level !== undefined) issues.push({ path: ['duration_s'], message: 'give requests_per_level or duration_s, not both' });
  if (v.duration_s !== undefined && v.request_rate?.includes('inf')) issues.push({ path: ['duration_s'], message: 'a request_rate of "inf" sends a number of requests at once: give requests_per_level instead of duration_s' });
  // Without levels of its own a request runs the default concurrency levels.
  const top = Math.max(...(v.concurrency ?? (v.request_rate ? [] : SERVING_DEFAULTS.concurrency)), 0);
  if (v.requests_per_level !== undefined && v.requests_per_level < top) {
    issues.push({ path: ['requests_per_level'], message: `must be at least the largest concurrency level: level ${top} keeps ${top} requests in flight` });
  }
  const asked = v.dataset.kind === 'random' ? (v.dataset.output_tokens ?? v.output_tokens) : v.output_tokens;
  if (v.min_tokens !== undefined && v.min_tokens > asked) issues.push({ path: ['min_tokens'], message: `must be at most the output tokens asked (${asked})` });
  if (v.endpoint === 'completions' && v.backend_api === 'ollama') issues.push({ path: ['endpoint'], message: '"completions" is an OpenAI-compatible endpoint: use backend_api "openai" or "auto"' });
  return issues;
}

/** One level as asked: a number of requests in flight, or an arrival rate (capped by max_concurrency). */
export type ServingLevelSpec =
  | { kind: 'concurrency'; concurrency: number }
  | { kind: 'rate'; rate: RequestRate; burstiness: number; maxConcurrency: number | null };

/** The levels a request asks for, in order: its rates, else its concurrency levels (default [1, 2, 4, 8]). */
export function servingLevels(request: Pick<ServingBenchmarkRequest, 'concurrency' | 'request_rate' | 'burstiness' | 'max_concurrency'>): ServingLevelSpec[] {
  if (request.request_rate) {
    return request.request_rate.map((rate) => ({ kind: 'rate', rate, burstiness: request.burstiness ?? SERVING_DEFAULTS.burstiness, maxConcurrency: request.max_concurrency ?? null }));
  }
  return (request.concurrency ?? SERVING_DEFAULTS.concurrency).map((concurrency) => ({ kind: 'concurrency', concurrency }));
}

/** How many requests a level starts when the request gives neither requests_per_level nor duration_s: several waves of its concurrency. */
export function defaultRequestsForLevel(level: ServingLevelSpec): number {
  const inFlight = level.kind === 'concurrency' ? level.concurrency : (level.maxConcurrency ?? (level.rate === 'inf' ? SERVING_DEFAULTS.requests_per_level : Math.ceil(level.rate * 10)));
  return Math.min(SERVING_LIMITS.requests_per_level, Math.max(SERVING_DEFAULTS.requests_per_level, SERVING_DEFAULTS.waves * inFlight));
}

/** A level's label for people: "concurrency 8", "4 req/s", "all at once". */
export function levelLabel(level: { concurrency: number | null; request_rate?: RequestRate | null }): string {
  if (level.concurrency !== null) return `concurrency ${level.concurrency}`;
  if (level.request_rate === 'inf') return 'all at once';
  return level.request_rate != null ? `${level.request_rate} req/s` : 'level';
}
