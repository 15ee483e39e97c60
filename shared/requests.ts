import { z } from 'zod';
import { SnapshotIdSchema } from './snapshots';
import { ScenarioIdSchema, SuiteIdSchema } from './suite-ids';

/**
 * Request records of design §3/§4/§6. All are strict: an unknown field is a 422, and types are
 * checked as sent ("true" is not a boolean).
 */

export const BACKEND_TYPES = ['llmserver', 'ollama'] as const;
/** `ollama` is accepted as a synonym and stored as `llmserver`. */
export const BackendTypeSchema = z
  .enum(BACKEND_TYPES, {
    error: () => `unknown backend_type; known types: ${BACKEND_TYPES.join(', ')}`,
  })
  .transform((): 'llmserver' => 'llmserver');
export type BackendType = 'llmserver';

export const ModelNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, 'model names use letters, digits and . _ : / -');

/** An llmserver URL (`http(s)://host[:port][/prefix]`); a bare `host[:port]` is read as `http://` (port 11434 when none). */
export const BackendUrlSchema = z.string().trim().min(1, 'a URL is required').max(2048);
const UrlStringSchema = BackendUrlSchema;
/** The OpenAPI document's word for a backend URL (the bare-host convenience is left out of it). */
export const BACKEND_URL_DESCRIPTION = 'the llmserver (Ollama) base URL, http:// or https://; a bare host[:port] is read as http:// (port 11434 when none)';
const TemplateHashSchema = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/, 'template_hash is an identifier of letters, digits, _ and -');
const DphSchema = z.number().nonnegative().max(1000);
const ReliabilitySchema = z.number().min(0).max(1);
const KubeconfigPathSchema = z.string().trim().min(1).max(4096);
/** An agent's name; the OpenAPI document lists the agents the server knows. */
export const AgentNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'agent names are lower-case letters, digits, _ and -');

export const DEFAULT_RELIABILITY = 0.99;
export const DEFAULT_WARMUP_TIMEOUT_S = 300;

export const marketplaceFields = {
  marketplace: z.boolean().default(false),
  template_hash: TemplateHashSchema.optional(),
  min_dph: DphSchema.default(0).describe('the lowest price per hour of the machines to consider ($/h)'),
  /** Required with marketplace; at least min_dph (a rule JSON Schema cannot state: see MARKETPLACE_RULES_JSON_SCHEMA). */
  max_dph: DphSchema.optional().describe('the highest price per hour to pay ($/h); required with marketplace, above 0 and at least min_dph'),
  reliability: ReliabilitySchema.default(DEFAULT_RELIABILITY),
  /** Spend limit ($) for the rented machine while the job holds it; absent = the max_cost_usd_default setting (off unless set). */
  max_cost_usd: z.number().positive().max(1_000_000).optional().describe('spend limit ($): the job is stopped, its machine released, and it fails budget_exceeded when its running cost reaches this; default: the default_max_cost_usd setting'),
  /** How long the job is expected to hold the machine: the pre-flight check of max_cost_usd prices this (default 3600 s). */
  estimated_duration_seconds: z.number().int().min(1).max(30 * 24 * 3600).optional().describe('how long the machine is expected to be held; the pre-rent check prices the offer for this (default 3600)'),
};

export const backendFields = {
  backend_url: UrlStringSchema.optional(),
  backend_type: BackendTypeSchema.default('llmserver'),
  backend_warmup: z.boolean().default(true),
  backend_warmup_timeout: z.number().int().min(1).max(3600).default(DEFAULT_WARMUP_TIMEOUT_S),
};

/**
 * marketplaceIssues as JSON Schema, for the OpenAPI document of the llm-instance and benchmark
 * requests: with `marketplace: true`, template_hash, max_dph (> 0) and model are required and
 * backend_url must be absent; otherwise backend_url is required. `max_dph >= min_dph` compares two
 * fields, which JSON Schema cannot: max_dph's description says it. A test checks that this schema
 * and the zod rules agree on every combination.
 */
export const MARKETPLACE_RULES_JSON_SCHEMA = {
  if: { properties: { marketplace: { const: true } }, required: ['marketplace'] },
  then: {
    properties: { template_hash: {}, max_dph: { exclusiveMinimum: 0 }, model: {} },
    required: ['template_hash', 'max_dph', 'model'],
    not: { properties: { backend_url: {} }, required: ['backend_url'] },
  },
  else: { properties: { backend_url: {} }, required: ['backend_url'] },
} as const;

export type Issue = { path: (string | number)[]; message: string };

/** Cross-field rules for the marketplace/existing-backend choice, shared by llm-instance and benchmark. */
export function marketplaceIssues(v: {
  marketplace: boolean;
  template_hash?: string | undefined;
  min_dph: number;
  max_dph?: number | undefined;
  backend_url?: string | undefined;
  model?: string | undefined;
}): Issue[] {
  const issues: Issue[] = [];
  if (v.marketplace) {
    if (!v.template_hash) issues.push({ path: ['template_hash'], message: 'required when marketplace is true' });
    if (v.max_dph === undefined) issues.push({ path: ['max_dph'], message: 'required when marketplace is true (the spend ceiling in $/hour)' });
    else if (v.max_dph < v.min_dph) issues.push({ path: ['max_dph'], message: 'must be >= min_dph' });
    else if (v.max_dph === 0) issues.push({ path: ['max_dph'], message: 'must be > 0' });
    if (!v.model) issues.push({ path: ['model'], message: 'required when marketplace is true (it sizes the GPU)' });
    if (v.backend_url) issues.push({ path: ['backend_url'], message: 'must not be set when marketplace is true' });
  } else if (!v.backend_url) {
    issues.push({ path: ['backend_url'], message: 'required when marketplace is false' });
  }
  return issues;
}

/** A job reads one cluster: the kubeconfig's, or a recorded one served for the job's life (design §11). */
function clusterIssues(v: { kubeconfig?: string | undefined; snapshot?: string | undefined }): Issue[] {
  if (v.kubeconfig !== undefined && v.snapshot !== undefined) {
    return [{ path: ['snapshot'], message: 'give either kubeconfig (a live cluster) or snapshot (a recorded one), not both' }];
  }
  return [];
}

const snapshotField = SnapshotIdSchema.optional().describe('a recorded cluster to run on instead of a kubeconfig: the job serves it as a read-only Kubernetes API while it runs (exactly one of kubeconfig and snapshot; neither = the default kubeconfig)');

export function addIssues(ctx: z.RefinementCtx, issues: Issue[]): void {
  for (const issue of issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
}

export const LlmInstanceRequestSchema = z
  .object({
    ...marketplaceFields,
    ...backendFields,
    model: ModelNameSchema.optional(),
  })
  .strict()
  .superRefine((v, ctx) => addIssues(ctx, marketplaceIssues(v)));
export type LlmInstanceRequest = z.infer<typeof LlmInstanceRequestSchema>;
export type LlmInstanceRequestInput = z.input<typeof LlmInstanceRequestSchema>;

export const AgenticAgentRequestSchema = z
  .object({
    question: z.string().trim().min(1).max(8000),
    model: ModelNameSchema,
    agent: AgentNameSchema,
    kubeconfig: KubeconfigPathSchema.optional(),
    snapshot: snapshotField,
    backend_url: UrlStringSchema,
    backend_type: backendFields.backend_type,
    backend_warmup: backendFields.backend_warmup,
    backend_warmup_timeout: backendFields.backend_warmup_timeout,
  })
  .strict()
  .superRefine((v, ctx) => addIssues(ctx, clusterIssues(v)));
export type AgenticAgentRequest = z.infer<typeof AgenticAgentRequestSchema>;
export type AgenticAgentRequestInput = z.input<typeof AgenticAgentRequestSchema>;

export const BenchmarkRequestSchema = z
  .object({
    ...marketplaceFields,
    ...backendFields,
    question: z.string().trim().min(1).max(8000),
    model: ModelNameSchema,
    agent: AgentNameSchema.default('builtin'),
    kubeconfig: KubeconfigPathSchema.optional(),
    snapshot: snapshotField,
    marketplace_stop_instance: z.boolean().default(true),
  })
  .strict()
  .superRefine((v, ctx) => addIssues(ctx, [...marketplaceIssues(v), ...clusterIssues(v)]));
export type BenchmarkRequest = z.infer<typeof BenchmarkRequestSchema>;
export type BenchmarkRequestInput = z.input<typeof BenchmarkRequestSchema>;

export const DEFAULT_ESTIMATED_DURATION_S = 3600;

export const CostEstimationRequestSchema = z
  .object({
    marketplace: z.boolean().default(false),
    min_dph: DphSchema.default(0),
    max_dph: DphSchema.default(0).describe('the highest price per hour to consider ($/h); 0 = no ceiling; otherwise at least min_dph'),
    reliability: ReliabilitySchema.default(DEFAULT_RELIABILITY),
    model: ModelNameSchema.optional(),
    estimated_duration_seconds: z.number().int().min(1).max(30 * 24 * 3600).default(DEFAULT_ESTIMATED_DURATION_S),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.max_dph > 0 && v.max_dph < v.min_dph) ctx.addIssue({ code: 'custom', path: ['max_dph'], message: 'must be >= min_dph' });
  });
export type CostEstimationRequest = z.infer<typeof CostEstimationRequestSchema>;

export const OfferSummarySchema = z.object({
  id: z.number().int(),
  gpu_name: z.string(),
  num_gpus: z.number().int(),
  gpu_ram: z.number(),
  dph_total: z.number(),
  reliability: z.number(),
  geolocation: z.string().nullable(),
  /** The host's download price ($/GB), as the marketplace reports it. */
  inet_down_cost: z.number().nullable().optional().describe('download price of the host ($/GB)'),
  /** The model's download on this host: its pull size × inet_down_cost ($). */
  download_usd: z.number().nullable().optional().describe("the model's download on this host ($)"),
});
export type OfferSummary = z.infer<typeof OfferSummarySchema>;

export const MarketplaceStatusSchema = z.object({
  state: z.enum(['no_key', 'unreachable', 'key_refused', 'failed']),
  message: z.string(),
  api_url: z.string().nullable(),
});
export type MarketplaceStatus = z.infer<typeof MarketplaceStatusSchema>;

/** How many fitting offers an estimate lists in `offers.items`. */
export const ESTIMATE_OFFER_ITEMS = 50;

export const CostEstimationResponseSchema = z.object({
  projected_cost_usd: z.number(),
  cost_driver: z.enum(['marketplace', 'unknown']),
  resource_impact: z.enum(['low', 'medium', 'high']),
  local_energy_kwh: z.number(),
  confidence_score: z.number().min(0).max(1),
  warning: z.string().nullable(),
  /**
   * live_offers: priced from offers that fit; no_offers: the live search worked but no offer fits (no cost is
   * given for a machine that does not exist: see nearest_offer); price_range: no key, the range alone; none: no
   * cost driver.
   */
  basis: z.enum(['live_offers', 'no_offers', 'price_range', 'none']),
  hours: z.number(),
  cost_range_usd: z.object({ low: z.number(), expected: z.number(), high: z.number() }),
  offers: z
    .object({
      count: z.number().int(),
      min_dph: z.number(),
      median_dph: z.number(),
      max_dph: z.number(),
      cheapest: OfferSummarySchema,
      /** The fitting offers, cheapest first (at most ESTIMATE_OFFER_ITEMS): the Estimate page's table. */
      items: z.array(OfferSummarySchema).optional(),
    })
    .nullable()
    .optional(),
  /**
   * With basis no_offers: the cheapest offer (by total cost) that fits everything but the price range — what
   * raising max_dph to its dph_total would get; null when nothing fits the model at any price.
   */
  nearest_offer: OfferSummarySchema.nullable().optional(),
  /**
   * With basis price_range on a marketplace request: why there are no live prices. `no_key`: no marketplace key;
   * `unreachable`: the marketplace did not answer (timeout, connection refused, 5xx); `key_refused`: it refused the
   * key; `failed`: another answer. `api_url` is where it asked, `message` what happened.
   */
  marketplace_status: MarketplaceStatusSchema.optional(),
});
export type CostEstimationResponse = z.infer<typeof CostEstimationResponseSchema>;

// ---------------------------------------------------------------------------------------------
// The `suite` job kind

export const JudgeRequestSchema = z
  .object({
    model: ModelNameSchema.describe('the model that grades each answer; it decides `passed` (the rules are reported beside it)'),
    backend_url: UrlStringSchema.optional().describe("the judge's llmserver; absent = the suite's own backend"),
    allow_self_judge: z.boolean().default(false).describe('let the tested model grade its own answers (refused by default)'),
  })
  .strict();
export type JudgeRequest = z.infer<typeof JudgeRequestSchema>;

/** The same model under two spellings (`qwen2.5:7b` and `Qwen2.5:7B`, `llama3` and `llama3:latest`). */
export function sameModel(a: string, b: string): boolean {
  const norm = (m: string) => m.trim().toLowerCase().replace(/:latest$/, '');
  return norm(a) === norm(b);
}

/** A judge that is the model under test grades its own answers: refused unless asked for (design §12b). */
export function selfJudgeIssues(models: readonly string[], judge: { model: string; allow_self_judge?: boolean | undefined } | undefined): Issue[] {
  if (!judge || judge.allow_self_judge) return [];
  const self = models.find((m) => sameModel(m, judge.model));
  return self ? [{ path: ['judge', 'model'], message: `is the model under test (${self}): a model may not grade its own answers; choose another judge or set judge.allow_self_judge: true` }] : [];
}

/** Sampling temperature sent to the backend (0 = greedy, comparable runs). */
export const TemperatureSchema = z.number().min(0).max(2);
/** A seed sent to the backend with every request. */
export const SeedSchema = z.number().int().min(0).max(2 ** 31 - 1);

export const MAX_SUITE_REPEAT = 10;

export const SuiteRequestSchema = z
  .object({
    ...marketplaceFields,
    ...backendFields,
    suite_id: SuiteIdSchema,
    scenario_ids: z.array(ScenarioIdSchema).min(1).max(1000).optional().describe('run only these scenarios of the suite (default: all)'),
    agent: AgentNameSchema.default('builtin'),
    model: ModelNameSchema,
    repeat: z.number().int().min(1).max(MAX_SUITE_REPEAT).default(1).describe('how many times each scenario is asked'),
    judge: JudgeRequestSchema.optional().describe('a second model that grades each answer, seeing the ground truth and the wrong claims; when given it decides `passed`'),
    temperature: TemperatureSchema.default(0).describe('sampling temperature sent with every request of the agent (recorded in the manifest)'),
    seed: SeedSchema.optional().describe('seed sent with every request; with repeat > 1 and temperature > 0 each repeat gets seed + run − 1 (one is chosen and recorded when absent)'),
    marketplace_stop_instance: z.boolean().default(true),
  })
  .strict()
  .superRefine((v, ctx) => addIssues(ctx, [...marketplaceIssues(v), ...selfJudgeIssues([v.model], v.judge)]));
export type SuiteRequest = z.infer<typeof SuiteRequestSchema>;
export type SuiteRequestInput = z.input<typeof SuiteRequestSchema>;

// ---------------------------------------------------------------------------------------------
// serving-benchmark (design §13): concurrent streamed requests at each concurrency level

export const SERVING_DEFAULTS = {
  concurrency: [1, 2, 4, 8],
  requests_per_level: 32,
  prompt_tokens: 256,
  output_tokens: 128,
  warmup_requests: 2,
} as const;
/** Bounds that keep one job finite on any machine (a level of 1,024 streams is already far past what one GPU serves). */
export const SERVING_LIMITS = { concurrency: 1024, levels: 16, requests_per_level: 100_000, prompt_tokens: 32_768, output_tokens: 32_768, warmup_requests: 1_000 } as const;

export const ServingBenchmarkRequestSchema = z
  .object({
    ...marketplaceFields,
    ...backendFields,
    model: ModelNameSchema,
    concurrency: z
      .array(z.number().int().min(1).max(SERVING_LIMITS.concurrency), {
        error: (issue) => (issue.input === undefined ? undefined : 'is a list of levels, e.g. [1, 2, 4, 8]'),
      })
      .min(1, 'needs at least one level')
      .max(SERVING_LIMITS.levels)
      .default([...SERVING_DEFAULTS.concurrency])
      .describe('requests in flight at each level, run one level after another in this order'),
    requests_per_level: z
      .number()
      .int()
      .min(1)
      .max(SERVING_LIMITS.requests_per_level)
      .default(SERVING_DEFAULTS.requests_per_level)
      .describe('measured requests of each level, at least the largest concurrency'),
    prompt_tokens: z.number().int().min(1).max(SERVING_LIMITS.prompt_tokens).default(SERVING_DEFAULTS.prompt_tokens).describe('about how many tokens each prompt has'),
    output_tokens: z
      .number()
      .int()
      .min(1)
      .max(SERVING_LIMITS.output_tokens)
      .default(SERVING_DEFAULTS.output_tokens)
      .describe('tokens each request generates: sent as options.num_predict'),
    warmup_requests: z.number().int().min(0).max(SERVING_LIMITS.warmup_requests).default(SERVING_DEFAULTS.warmup_requests).describe('requests run before each level and left out of its figures'),
    marketplace_stop_instance: z.boolean().default(true),
  })
  .strict()
  .superRefine((v, ctx) => {
    const issues = marketplaceIssues(v);
    const seen = new Set<number>();
    v.concurrency.forEach((c, i) => {
      if (seen.has(c)) issues.push({ path: ['concurrency', i], message: `lists level ${c} twice` });
      seen.add(c);
    });
    const top = Math.max(...v.concurrency);
    if (v.requests_per_level < top) {
      issues.push({ path: ['requests_per_level'], message: `must be at least the largest concurrency level: level ${top} keeps ${top} requests in flight` });
    }
    addIssues(ctx, issues);
  });
export type ServingBenchmarkRequest = z.infer<typeof ServingBenchmarkRequestSchema>;
export type ServingBenchmarkRequestInput = z.input<typeof ServingBenchmarkRequestSchema>;

export const JOB_REQUEST_SCHEMAS = {
  'agentic-agent': AgenticAgentRequestSchema,
  benchmark: BenchmarkRequestSchema,
  'llm-instance': LlmInstanceRequestSchema,
  suite: SuiteRequestSchema,
  'serving-benchmark': ServingBenchmarkRequestSchema,
} as const;

export type JobRequestByKind = {
  'agentic-agent': AgenticAgentRequest;
  benchmark: BenchmarkRequest;
  'llm-instance': LlmInstanceRequest;
  suite: SuiteRequest;
  'serving-benchmark': ServingBenchmarkRequest;
};
