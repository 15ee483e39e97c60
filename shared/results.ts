import { z } from 'zod';
import { ManifestSchema } from './manifest';
import { SpokenBackendApiSchema } from './backend-api';
import { ModelEntrySchema } from './models';
import { ScenarioResultSchema, SuiteSummaryFiguresSchema } from './suite-results';

export * from './suite-results';

/**
 * The `result` of a succeeded job, one schema per job kind. The workflows in
 * src-main/engine/workflows/ return exactly these (their handler type requires it), the store
 * validates them on every write, and the OpenAPI document shows them.
 */

export const Count = z.number().int().nonnegative();
const Timestamp = z.iso.datetime({ offset: true });
const MetadataExtra = z.union([z.string(), z.number(), z.boolean(), z.null()]);

// ---------------------------------------------------------------------------------------------
// agentic-agent: what an agent answered

export const AgentMetadataSchema = z
  .object({
    agent: z.string(),
    model: z.string().nullable(),
    /** LLM rounds (chat calls) the agent made. */
    steps: Count.nullable(),
    tool_calls: Count.nullable(),
    prompt_tokens: Count.nullable(),
    completion_tokens: Count.nullable(),
    tokens_per_second: z.number().nonnegative().nullable(),
    duration_ms: z.number().nonnegative().nullable(),
  })
  // Drivers may add scalar facts of their own (e.g. k8sgpt's problem count).
  .catchall(MetadataExtra);
export type AgentMetadata = z.infer<typeof AgentMetadataSchema>;

/** Free-form, by convention `{kind, title?, data}`. */
export const AgentArtifactSchema = z.record(z.string(), z.unknown());
export type AgentArtifact = z.infer<typeof AgentArtifactSchema>;

export const AgentResultSchema = z.object({
  answer: z.string().min(1),
  result_type: z.literal('text'),
  artifacts: z.array(AgentArtifactSchema),
  metadata: AgentMetadataSchema,
});
export type AgentResult = z.infer<typeof AgentResultSchema>;

export const AgenticAgentResultSchema = AgentResultSchema;
export type AgenticAgentResult = AgentResult;

// ---------------------------------------------------------------------------------------------
// llm-instance: an existing llmserver, or a rented machine running one

/**
 * The offer that was rented, as the marketplace described it. The fields the product shows are
 * typed; the marketplace's other facts about the machine are kept as they came.
 */
export const RentedOfferSchema = z.looseObject({
  id: z.number().int(),
  gpu_name: z.string(),
  num_gpus: z.number().int().nonnegative(),
  /** Per-GPU memory in MB. */
  gpu_ram: z.number().nonnegative(),
  /** $/hour including storage. */
  dph_total: z.number().nonnegative(),
});
export type RentedOffer = z.infer<typeof RentedOfferSchema>;

export const LlmInstanceExistingResultSchema = z.object({
  mode: z.literal('existing'),
  /** Normalised (no trailing slash, no credentials). */
  backend_url: z.string(),
  /** What the llmserver had installed (an OpenAI-compatible server: the models it serves). */
  models: z.array(ModelEntrySchema),
  /** The API the server speaks (after `auto` detection); records written before it existed read as ollama. */
  backend_api: SpokenBackendApiSchema.default('ollama'),
});
export type LlmInstanceExistingResult = z.infer<typeof LlmInstanceExistingResultSchema>;

export const BackendAuthSchema = z.object({
  type: z.literal('bearer'),
  /** A 0600 file holding the token the marketplace's proxy wants; the token itself is never stored in a job. */
  token_file: z.string(),
});
export type BackendAuth = z.infer<typeof BackendAuthSchema>;

export const LlmInstanceMarketplaceResultSchema = z.object({
  mode: z.literal('marketplace'),
  backend_url: z.string(),
  /** The API the rented server speaks: its template's (`openai` for a rented vLLM). Absent in records written before it was said. */
  backend_api: SpokenBackendApiSchema.optional().describe('the API the rented server speaks: `ollama`, or `openai` for a rented vLLM'),
  /** The name the llmserver answers to (what was pulled and warmed). */
  model_name: z.string(),
  /** The catalog entry that sized the GPU. */
  catalog_model: z.string(),
  /** The rented instance's id. */
  contract_id: z.number().int(),
  offer: RentedOfferSchema,
  dph_total: z.number().nonnegative(),
  rented_at: Timestamp,
  instance_running: z.boolean(),
  backend_auth: BackendAuthSchema.nullable(),
  message: z.string(),
});
export type LlmInstanceMarketplaceResult = z.infer<typeof LlmInstanceMarketplaceResultSchema>;

export const LlmInstanceResultSchema = z.discriminatedUnion('mode', [LlmInstanceExistingResultSchema, LlmInstanceMarketplaceResultSchema]);
export type LlmInstanceResult = z.infer<typeof LlmInstanceResultSchema>;

// ---------------------------------------------------------------------------------------------
// benchmark: the agent's answer plus how the run went and what it cost

/** In this order; a phase that did not run is `skipped`. */
export const BENCHMARK_PHASES = ['provision', 'warmup', 'analysis', 'teardown'] as const;
export const BenchmarkPhaseSchema = z.enum(BENCHMARK_PHASES);
export type BenchmarkPhase = z.infer<typeof BenchmarkPhaseSchema>;
export const PhaseStatusSchema = z.enum(['ok', 'error', 'skipped']);

export const PhaseRecordSchema = z.object({
  name: BenchmarkPhaseSchema,
  status: PhaseStatusSchema,
  started_at: Timestamp,
  duration_ms: z.number().nonnegative(),
});
export type PhaseRecord = z.infer<typeof PhaseRecordSchema>;

export const BenchmarkCostSchema = z.object({
  dph_total: z.number().nonnegative(),
  rented_seconds: z.number().nonnegative(),
  /** Machine time (dph_total × rented_seconds) plus the model's download (download_usd). */
  cost_usd: z.number().nonnegative(),
  /** The model's pull size (GB), from the pull stream's totals. */
  download_gb: z.number().nonnegative().optional(),
  /** download_gb × the host's inet_down_cost ($). */
  download_usd: z.number().nonnegative().optional(),
});
export type BenchmarkCost = z.infer<typeof BenchmarkCostSchema>;

export const BenchmarkInstanceSchema = z.object({
  id: z.number().int(),
  gpu_name: z.string().nullable(),
  num_gpus: z.number().int().nullable(),
  released: z.boolean(),
});
export type BenchmarkInstance = z.infer<typeof BenchmarkInstanceSchema>;

export const TeardownSchema = z.object({
  released: z.boolean(),
  /** The instance was read back as gone. */
  verified: z.boolean(),
  message: z.string(),
});
export type Teardown = z.infer<typeof TeardownSchema>;

export const BenchmarkResultSchema = AgentResultSchema.extend({
  model_name: z.string(),
  /** The llmserver the agent used (normalised, no credentials). */
  backend_url: z.string(),
  /** The rented instance's id; null on an existing llmserver. */
  contract_id: z.number().int().nullable(),
  phases: z.array(PhaseRecordSchema),
  cost: BenchmarkCostSchema,
  instance: BenchmarkInstanceSchema.nullable(),
  /** null when nothing was rented or the instance was kept on request. */
  teardown: TeardownSchema.nullable(),
});
export type BenchmarkResult = z.infer<typeof BenchmarkResultSchema>;

// ---------------------------------------------------------------------------------------------
// suite: every scenario's answer scored, and what the run cost (design §12)

export const SuiteResultSchema = z.object({
  suite_id: z.string(),
  agent: z.string(),
  model: z.string(),
  backend_url: z.string(),
  scenarios: z.array(ScenarioResultSchema),
  summary: SuiteSummaryFiguresSchema,
  phases: z.array(PhaseRecordSchema),
  /** Present when a machine was rented. */
  cost: BenchmarkCostSchema.nullable(),
  instance: BenchmarkInstanceSchema.nullable(),
  teardown: TeardownSchema.nullable(),
  /** What the run needs to be reproduced (design §12b); absent on records made before it. */
  manifest: ManifestSchema.optional(),
});
export type SuiteResult = z.infer<typeof SuiteResultSchema>;
