import { z } from 'zod';
import { ScoredStatementSchema } from './scenario-score';
import { VerdictScoreSchema } from './verdict';

/**
 * A suite run's per-scenario records and summary (design §12, §12b). The whole result record
 * (`SuiteResultSchema`, with phases, cost and the manifest) is in results.ts beside the other kinds.
 */

const Count = z.number().int().nonnegative();

/** The judge's own reading of the answer's diagnosis, in the taxonomy. */
export const JudgeReadingSchema = z.object({
  healthy: z.boolean(),
  causes: z.array(z.object({ category: z.string().max(100), objects: z.array(z.string().max(400)).max(20) })).max(10),
});
export type JudgeReading = z.infer<typeof JudgeReadingSchema>;

export const JudgeVerdictSchema = z.object({
  score: z.number().min(0).max(1),
  passed: z.boolean(),
  reasoning: z.string(),
  /** The judge's reading of the diagnosis (null from judges that did not give one, and from records before §12b). */
  verdict: JudgeReadingSchema.nullable().optional(),
  model: z.string(),
  duration_ms: z.number().nonnegative(),
  prompt_tokens: Count.nullable(),
  completion_tokens: Count.nullable(),
  /** The judge's share of the machine's cost when it ran on the suite's rented machine; 0 on an existing backend. */
  cost_usd: z.number().nonnegative(),
});
export type JudgeVerdict = z.infer<typeof JudgeVerdictSchema>;

export const ScenarioResultSchema = z.object({
  scenario_id: z.string(),
  /** 1-based: which of the `repeat` runs this is. */
  run: z.number().int().min(1),
  /** What decided: the judge when one was asked (and graded), else the rules. */
  passed: z.boolean(),
  /** The rules' decision (findings in affirmed statements, no affirmed wrong claim, a right verdict where present). */
  rules_passed: z.boolean().optional(),
  method: z.enum(['rules', 'judge']).optional(),
  score: z.number().min(0).max(1),
  /** The expected findings (by their words) that the answer matched. */
  matched: z.array(z.string()),
  missed: z.array(z.string()),
  /** The must_not patterns the answer affirmed (each one fails the scenario), and on a healthy scenario each fault claimed. */
  must_not_matched: z.array(z.string()),
  /** The answer's structured verdict against the ground truth; null when it has none and the scenario no ground truth. */
  verdict: VerdictScoreSchema.nullable().optional(),
  /** The answer as the rules read it: which statements counted and why. */
  statements: z.array(ScoredStatementSchema).optional(),
  judge: JudgeVerdictSchema.nullable().optional(),
  answer: z.string(),
  duration_ms: z.number().nonnegative(),
  prompt_tokens: Count.nullable(),
  completion_tokens: Count.nullable(),
  tool_calls: Count.nullable(),
  /** The seed sent with this run's requests (each repeat its own when temperature > 0); null when none was sent. */
  seed: z.number().int().nullable().optional(),
  /** Why there is no score: the agent gave no answer, or scoring or the judge failed (the run counts as an error, not a failure). */
  error: z.string().nullable().optional(),
});
export type ScenarioResult = z.infer<typeof ScenarioResultSchema>;

export const ScenarioPassRateSchema = z.object({
  scenario_id: z.string(),
  runs: Count,
  passed: Count,
  errors: Count,
  /** passed ÷ (runs − errors); null when every run was an error. */
  pass_rate: z.number().min(0).max(1).nullable(),
});
export type ScenarioPassRate = z.infer<typeof ScenarioPassRateSchema>;

export const SuiteSummaryFiguresSchema = z.object({
  passed: Count,
  total: Count,
  /** Runs with no score: the agent, scoring or the judge failed (counted apart from the failures; absent on records before §12b). */
  errors: Count.optional(),
  /** passed ÷ (total − errors), 0–1. */
  accuracy: z.number().min(0).max(1),
  /** 95% Wilson interval of the accuracy: how far it can be trusted on this many answers. */
  accuracy_ci95: z.array(z.number().min(0).max(1)).length(2).optional().describe('[low, high]'),
  mean_score: z.number().min(0).max(1),
  /** Each scenario's pass rate over its repeats. */
  per_scenario: z.array(ScenarioPassRateSchema).optional(),
  latency_ms: z.object({ p50: z.number().nonnegative().nullable(), p95: z.number().nonnegative().nullable() }),
  /** Completion tokens over the agents' time, all scenarios together. */
  tokens_per_second: z.number().nonnegative().nullable(),
  cost_usd: z.number().nonnegative(),
  /** cost_usd / passed; null when nothing passed. */
  cost_per_correct_usd: z.number().nonnegative().nullable(),
  /** The judge's own totals, apart from the agent's; `disagreements` counts runs where judge and rules decided differently. */
  judge: z
    .object({
      mean_score: z.number().min(0).max(1),
      passed: Count,
      disagreements: Count.optional(),
      duration_ms: z.number().nonnegative(),
      prompt_tokens: Count,
      completion_tokens: Count,
    })
    .nullable()
    .optional(),
});
export type SuiteSummaryFigures = z.infer<typeof SuiteSummaryFiguresSchema>;
