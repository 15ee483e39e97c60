import { z } from 'zod';
import { Rfc3339Schema } from './jobs';
import { ManifestSchema } from './manifest';
import { AgentNameSchema, DEFAULT_RELIABILITY, JudgeRequestSchema, sameModel, selfJudgeIssues } from './requests';
import { BackendApiSchema } from './backend-api';

/**
 * Sweeps (design §14): one request runs models × GPUs, renting one machine per GPU name, and
 * answers with every cell scored and costed, ranked. Records shared by the API, the CLI and the
 * Sweeps page.
 */

const SweepModelSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, 'model names use letters, digits and . _ : / -');
/** A GPU name as the marketplace spells it (`RTX 4090`, `A100 SXM4`). */
const GpuNameSchema = z.string().trim().min(1).max(100);
const DphSchema = z.number().nonnegative().max(1000);

/** A sweep id names a file: `sw-` then 20 lower-case letters and digits. */
export const SweepIdSchema = z.string().min(1).max(64).regex(/^[a-z0-9][a-z0-9-]*$/, 'a sweep id is lower-case letters, digits and -');

export const MAX_SWEEP_MODELS = 20;
export const MAX_SWEEP_GPUS = 10;
export const MAX_MACHINES_AT_ONCE = 8;

export const SweepServingSchema = z
  .object({
    concurrency: z.array(z.number().int().min(1).max(256)).min(1).max(8).default([1, 2, 4, 8]).describe('the concurrency levels, one load run each'),
    requests_per_level: z.number().int().min(1).max(10_000).default(32).describe('requests per level (at least the level’s concurrency)'),
    prompt_tokens: z.number().int().min(1).max(32_768).default(256),
    output_tokens: z.number().int().min(1).max(32_768).default(128),
  })
  .strict();
export type SweepServing = z.infer<typeof SweepServingSchema>;

/** What a cell must reach for the report's headline (design §12b): the cheapest cell that meets them all. */
export const SweepConstraintsSchema = z
  .object({
    min_accuracy: z.number().min(0).max(1).optional().describe('the lowest accuracy (0–1) a cell may have'),
    max_ttft_p99_ms: z.number().positive().optional().describe('the highest time to first token, 99th percentile, of the serving benchmark’s best level (ms)'),
    max_usd_per_correct: z.number().nonnegative().optional().describe('the highest $ per correct answer (the suite’s time only)'),
    max_usd_per_million_output_tokens: z.number().nonnegative().optional().describe('the highest $ per million output tokens'),
  })
  .strict();
export type SweepConstraints = z.infer<typeof SweepConstraintsSchema>;

function unique(list: readonly string[]): boolean {
  return new Set(list.map((s) => s.toLowerCase())).size === list.length;
}

const SweepRequestShape = {
    name: z.string().trim().min(1).max(200).describe('what the sweep is for, shown in lists and reports'),
    models: z.array(SweepModelSchema).min(1).max(MAX_SWEEP_MODELS).refine(unique, 'each model once').describe('models from the marketplace catalog'),
    gpus: z.array(GpuNameSchema).min(1).max(MAX_SWEEP_GPUS).refine(unique, 'each GPU name once').describe('GPU names as the marketplace spells them; one machine is rented per name'),
    agent: AgentNameSchema.default('builtin').describe('the agent that answers the suite’s scenarios'),
    suite_id: z.string().trim().min(1).max(64).optional().describe('the suite every model runs (accuracy, cost per correct answer)'),
    serving: SweepServingSchema.optional().describe('the serving benchmark every model runs (throughput, TTFT, $ per million output tokens)'),
    repeat: z.number().int().min(1).max(10).default(1).describe('how many times each scenario is asked'),
    min_dph: DphSchema.default(0).describe('the lowest price per hour of the machines to consider ($/h)'),
    max_dph: DphSchema.positive().optional().describe('the highest price per hour to pay ($/h); default: max_total_cost_usd'),
    reliability: z.number().min(0).max(1).default(DEFAULT_RELIABILITY),
    template_hash: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9_-]+$/, 'template_hash is an identifier of letters, digits, _ and -')
      .optional()
      .describe('the marketplace template the machines run (Ollama); required unless backend_api is `openai` (then the template named `vLLM` is found by name)'),
    max_total_cost_usd: z.number().positive().max(1_000_000).describe('the sweep’s spend limit ($): reaching it releases every machine and stops the sweep'),
    machines_at_once: z.number().int().min(1).max(MAX_MACHINES_AT_ONCE).default(1).describe('how many GPUs (machines) run at the same time'),
    judge: JudgeRequestSchema.optional().describe('a model that decides each suite answer (it sees the ground truth and the wrong claims); refused when it is one of the models unless allow_self_judge'),
    constraints: SweepConstraintsSchema.optional().describe('what a cell must reach: the report’s headline names the cheapest cell that meets them all, or which constraint nothing met'),
    backend_api: BackendApiSchema.optional().describe('the API of the machines’ llmserver (design §13b; absent or `auto` = `ollama`, the template decides): `openai` rents vLLM machines (a vLLM template, the model as MODEL_NAME), one model per sweep since a vLLM machine serves the model it starts with'),
};

export const SweepRequestSchema = z
  .object(SweepRequestShape)
  .strict()
  .superRefine((v, ctx) => {
    if (v.suite_id === undefined && v.serving === undefined) {
      ctx.addIssue({ code: 'custom', path: ['suite_id'], message: 'give suite_id (a suite to score), serving (a load profile), or both' });
    }
    const vllm = v.backend_api === 'openai';
    if (!v.template_hash && !vllm) ctx.addIssue({ code: 'custom', path: ['template_hash'], message: 'required: the marketplace template the machines run (with backend_api "openai" the vLLM template is found by name)' });
    // A vLLM machine serves the one model it was started with (MODEL_NAME): it cannot take the sweep's models in turn.
    if (vllm && v.models.length > 1) ctx.addIssue({ code: 'custom', path: ['models'], message: 'a vLLM machine serves the one model it starts with (MODEL_NAME), so a sweep with backend_api "openai" takes one model: run one sweep per model, or use "ollama"' });
    if (vllm && v.judge && !v.judge.backend_url && !v.models.some((m) => sameModel(m, v.judge?.model ?? ''))) {
      ctx.addIssue({ code: 'custom', path: ['judge', 'backend_url'], message: 'a vLLM machine serves only the sweep’s model: give the judge its own backend_url' });
    }
    if (v.max_dph !== undefined && v.max_dph < v.min_dph) ctx.addIssue({ code: 'custom', path: ['max_dph'], message: 'must be >= min_dph' });
    for (const issue of selfJudgeIssues(v.models, v.judge)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    if (v.judge && v.suite_id === undefined) ctx.addIssue({ code: 'custom', path: ['judge'], message: 'a judge grades suite answers: give suite_id too' });
    if (v.serving) {
      const top = Math.max(...v.serving.concurrency);
      if (v.serving.requests_per_level < top) ctx.addIssue({ code: 'custom', path: ['serving', 'requests_per_level'], message: `must be at least the highest concurrency (${top})` });
    }
  });
export type SweepRequest = z.infer<typeof SweepRequestSchema>;
export type SweepRequestInput = z.input<typeof SweepRequestSchema>;

export const SWEEP_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export const SweepStatusSchema = z.enum(SWEEP_STATUSES);
export type SweepStatus = z.infer<typeof SweepStatusSchema>;

export const CELL_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled', 'budget_exceeded'] as const;
export const CellStatusSchema = z.enum(CELL_STATUSES);
export type CellStatus = z.infer<typeof CellStatusSchema>;

export const FINISHED_CELL_STATUSES: readonly CellStatus[] = ['succeeded', 'failed', 'skipped', 'cancelled', 'budget_exceeded'];
export function isCellFinished(status: CellStatus): boolean {
  return FINISHED_CELL_STATUSES.includes(status);
}
export function isSweepFinished(status: SweepStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled';
}

export const TagAccuracySchema = z.object({ passed: z.number().int().nonnegative(), total: z.number().int().nonnegative(), accuracy: z.number().min(0).max(1) });
export type TagAccuracy = z.infer<typeof TagAccuracySchema>;

export const SweepCellSchema = z.object({
  model: z.string(),
  gpu: z.string(),
  status: CellStatusSchema,
  /** Why the cell was skipped, failed or not run. */
  reason: z.string().optional(),
  /** The jobs the cell ran (suite and/or serving-benchmark), oldest first. */
  job_ids: z.array(z.string()),
  /** Suite: passed ÷ (total − errors). */
  accuracy: z.number().min(0).max(1).optional(),
  /** The accuracy's 95% Wilson interval [low, high]. */
  accuracy_ci95: z.array(z.number().min(0).max(1)).length(2).optional().describe('[low, high]: the accuracy’s 95% Wilson interval'),
  passed: z.number().int().nonnegative().optional(),
  total: z.number().int().nonnegative().optional(),
  /** Suite runs with no score (agent, scoring or judge failed), left out of the accuracy. */
  errors: z.number().int().nonnegative().optional(),
  /** Shared by the cells whose interval overlaps the tier leader's (1 = best): ties are ties. */
  rank_tier: z.number().int().positive().optional(),
  /** The machine's $/h × the suite job's own time, plus its model's download ($): what $ per correct answer divides. */
  suite_cost_usd: z.number().nonnegative().optional(),
  /** The serving benchmark failed after the suite succeeded: the cell keeps its suite figures. */
  serving_error: z.string().optional(),
  /** What pulling the cell's model onto the machine cost ($: GB × the host's $/GB); part of cost_usd and suite_cost_usd. */
  download_usd: z.number().nonnegative().optional().describe('what pulling the model onto the machine cost ($): part of cost_usd and suite_cost_usd'),
  /** The machine's $/h × the time the cell held it, plus its model's download ($). */
  cost_usd: z.number().nonnegative().describe('the machine’s $/h × the time this cell held it, plus its model’s download ($)'),
  cost_per_correct_usd: z.number().nonnegative().optional().describe('cost_usd ÷ correct answers ($)'),
  output_tokens_per_s: z.number().nonnegative().optional().describe('the serving benchmark’s best level (tokens/s)'),
  ttft_p50_ms: z.number().nonnegative().optional().describe('time to first token at that level, median (ms)'),
  ttft_p99_ms: z.number().nonnegative().optional().describe('time to first token at that level, 99th percentile (ms)'),
  usd_per_million_output_tokens: z.number().nonnegative().optional().describe('$/h ÷ (output tokens/s × 3600) × 10⁶ ($)'),
  /** Suite accuracy per scenario tag. */
  tags: z.record(z.string(), TagAccuracySchema).optional(),
  /** The suite job's manifest (or the serving job's when there is no suite): model digest, backend version, hashes. */
  manifest: ManifestSchema.optional(),
  /** The cell did not run because its GPU's machine could not be rented (a `failed` cell). */
  unrented: z.boolean().optional().describe('true: the cell did not run because its GPU’s machine could not be rented'),
  started_at: Rfc3339Schema.optional(),
  finished_at: Rfc3339Schema.optional(),
});
export type SweepCell = z.infer<typeof SweepCellSchema>;

export const MACHINE_STATUSES = ['pending', 'renting', 'running', 'released', 'skipped', 'failed'] as const;
export const SweepMachineStatusSchema = z.enum(MACHINE_STATUSES);

/** One GPU name's machine: rented once, every model of the sweep in turn, then released. */
export const SweepMachineSchema = z.object({
  gpu: z.string(),
  status: SweepMachineStatusSchema,
  /** The id in the machine's label (`benchdesk:<install>:<machine_id>`). */
  machine_id: z.string(),
  instance_id: z.number().int().optional(),
  offer_id: z.number().int().optional(),
  num_gpus: z.number().int().optional(),
  gpu_ram_mb: z.number().optional(),
  dph_total: z.number().nonnegative().optional().describe('$/h'),
  rented_at: Rfc3339Schema.optional(),
  released_at: Rfc3339Schema.optional(),
  /** False when a release could not be confirmed: the machine may still bill. */
  released: z.boolean().optional(),
  release_error: z.string().optional(),
  cost_usd: z.number().nonnegative().describe('$/h × the time it was held, plus the models it downloaded ($, the ledger’s figure)'),
  /** The cell it is running now (index into cells). */
  current_cell: z.number().int().optional(),
  reason: z.string().optional(),
});
export type SweepMachine = z.infer<typeof SweepMachineSchema>;

/**
 * How a finished sweep went beyond its status: a sweep that `succeeded` with cells that failed or
 * could not rent, or a machine whose release is not confirmed yet, is not a clean success.
 */
export const SweepOutcomeSchema = z.object({
  cells_succeeded: z.number().int().nonnegative(),
  cells_failed: z.number().int().nonnegative().describe('cells whose jobs failed (those that could not rent included)'),
  cells_unrented: z.number().int().nonnegative().describe('cells that never ran because their GPU’s machine could not be rented'),
  cells_skipped: z.number().int().nonnegative(),
  cells_not_run: z.number().int().nonnegative().describe('cells cancelled or stopped by the spend limit'),
  machines_unreleased: z.number().int().nonnegative().describe('machines whose release is not confirmed yet (benchdesk keeps trying; they count in spend_usd)'),
  /** Every cell succeeded or was skipped for a stated reason, and every machine is confirmed released. */
  clean: z.boolean().describe('true when every cell succeeded (or was skipped for its stated reason) and every machine is confirmed released'),
  /** One line per problem, for a front end to show. */
  problems: z.array(z.string()),
});
export type SweepOutcome = z.infer<typeof SweepOutcomeSchema>;

export const SweepRecordSchema = z.object({
  sweep_id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  status: SweepStatusSchema,
  message: z.string(),
  created_at: Rfc3339Schema,
  started_at: Rfc3339Schema.nullable(),
  finished_at: Rfc3339Schema.nullable(),
  updated_at: Rfc3339Schema,
  /** The request as validated (defaults applied). */
  request: z.looseObject(SweepRequestShape),
  /** The sum of its machines' costs: machine time and the models they downloaded ($, the ledger's figures). */
  spend_usd: z.number().nonnegative().describe('the sum of its machines’ costs: machine time and the models they downloaded ($)'),
  max_total_cost_usd: z.number().positive(),
  cells: z.array(SweepCellSchema),
  machines: z.array(SweepMachineSchema),
  /** Machines of an earlier run of this sweep (before a server stop), released then; their cost stays in spend_usd. */
  earlier_machines: z.array(SweepMachineSchema).default([]),
  /** Cell indexes, best first (finished, scored cells only). */
  ranking: z.array(z.number().int().nonnegative()),
  error: z.string().nullable(),
  error_code: z.string().nullable(),
  /** Set when the sweep ends: its cells and machines counted (null before; absent in records of earlier versions). */
  outcome: SweepOutcomeSchema.nullable().optional(),
});
export type SweepRecord = z.infer<typeof SweepRecordSchema>;

export const SweepAcceptedSchema = z.object({ sweep_id: z.string(), status: z.literal('accepted') });
export type SweepAccepted = z.infer<typeof SweepAcceptedSchema>;

export const SweepListSchema = z.object({ sweeps: z.array(SweepRecordSchema) });
export type SweepList = z.infer<typeof SweepListSchema>;

export const SweepRefSchema = z.object({ sweep_id: SweepIdSchema }).strict();
export const CancelSweepResponseSchema = z.object({ sweep_id: z.string(), status: SweepStatusSchema });

export const REPORT_FORMATS = ['json', 'md', 'csv'] as const;
export const SweepReportInputSchema = z.object({ sweep_id: SweepIdSchema, format: z.enum(REPORT_FORMATS).default('json') }).strict();
export type SweepReportFormat = (typeof REPORT_FORMATS)[number];

/** One row of the ranked table. */
export const ReportRowSchema = z.object({
  rank: z.number().int().positive().nullable().describe('the rank tier: 1 = best; cells whose accuracy intervals overlap share it; null for cells without a score'),
  cell: z.number().int().nonnegative(),
  model: z.string(),
  gpu: z.string(),
  status: CellStatusSchema,
  reason: z.string().nullable(),
  accuracy: z.number().nullable(),
  accuracy_ci95: z.array(z.number()).length(2).nullable().describe('[low, high]'),
  passed: z.number().int().nullable(),
  total: z.number().int().nullable(),
  errors: z.number().int().nullable(),
  cost_usd: z.number(),
  suite_cost_usd: z.number().nullable(),
  cost_per_correct_usd: z.number().nullable(),
  output_tokens_per_s: z.number().nullable(),
  ttft_p50_ms: z.number().nullable(),
  ttft_p99_ms: z.number().nullable(),
  usd_per_million_output_tokens: z.number().nullable(),
  pareto: z.boolean().describe('on the Pareto front of accuracy against cost'),
  serving_error: z.string().nullable(),
  model_digest: z.string().nullable(),
});
export type ReportRow = z.infer<typeof ReportRowSchema>;

export const SweepReportSchema = z.object({
  sweep_id: z.string(),
  name: z.string(),
  status: SweepStatusSchema,
  /** `accuracy`: ranked by accuracy then cost per correct answer; `serving`: by $ per million output tokens. */
  ranked_by: z.enum(['accuracy', 'serving']),
  spend_usd: z.number(),
  max_total_cost_usd: z.number(),
  /** The time of the sweep record the report was made from. */
  as_of: Rfc3339Schema,
  rows: z.array(ReportRowSchema),
  /** Accuracy per scenario tag, per scored cell. */
  tags: z.array(z.object({ tag: z.string(), cells: z.array(z.object({ cell: z.number().int(), model: z.string(), gpu: z.string(), passed: z.number().int(), total: z.number().int(), accuracy: z.number() })) })),
  /** Cells with a correct answer that no other cell beats on both accuracy (higher) and the suite's cost (lower), cheapest first. */
  pareto: z.array(z.object({ cell: z.number().int(), model: z.string(), gpu: z.string(), accuracy: z.number(), cost_usd: z.number() })),
  constraints: SweepConstraintsSchema.nullable(),
  /** The answer to the constraints: the cheapest cell that meets them all, or which constraint nothing met. */
  headline: z.object({ met: z.boolean(), cell: z.number().int().nullable(), text: z.string(), unmet: z.array(z.string()) }).nullable(),
  manifest: ManifestSchema,
});
export type SweepReport = z.infer<typeof SweepReportSchema>;

/** The report operation's answer: the JSON report, or the Markdown/CSV text (over HTTP, the body itself). */
export const SweepReportOutputSchema = z.union([SweepReportSchema, z.string()]);
