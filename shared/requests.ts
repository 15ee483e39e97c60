import { z } from 'zod';
import { SnapshotIdSchema } from './snapshots';
import { ScenarioIdSchema, SuiteIdSchema } from './suite-ids';
import {
  AgentNameSchema,
  DEFAULT_RELIABILITY,
  DphSchema,
  KubeconfigPathSchema,
  ModelNameSchema,
  ReliabilitySchema,
  UrlStringSchema,
  addIssues,
  backendApiFields,
  backendFields,
  marketplaceFields,
  marketplaceIssues,
  type Issue,
} from './request-fields';
import { ServingBenchmarkRequestSchema, type ServingBenchmarkRequest } from './serving-request';

export * from './request-fields';
export * from './serving-request';

/**
 * Request records of design §3/§4/§6. All are strict: an unknown field is a 422, and types are
 * checked as sent ("true" is not a boolean).
 */

/** A job reads one cluster: the kubeconfig's, or a recorded one served for the job's life (design §11). */
function clusterIssues(v: { kubeconfig?: string | undefined; snapshot?: string | undefined }): Issue[] {
  if (v.kubeconfig !== undefined && v.snapshot !== undefined) {
    return [{ path: ['snapshot'], message: 'give either kubeconfig (a live cluster) or snapshot (a recorded one), not both' }];
  }
  return [];
}

const snapshotField = SnapshotIdSchema.optional().describe('a recorded cluster to run on instead of a kubeconfig: the job serves it as a read-only Kubernetes API while it runs (exactly one of kubeconfig and snapshot; neither = the default kubeconfig)');


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
    ...backendApiFields,
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
