import { z } from 'zod';
import { addIssues, type Issue } from './requests';
import { SnapshotDocumentSchema, SnapshotIdSchema } from './snapshots';
import { ScenarioIdSchema, SuiteIdSchema } from './suite-ids';

export { ScenarioIdSchema, SuiteIdSchema } from './suite-ids';

/**
 * Suites and scoring (design §12): a suite is a list of scenarios, each a question asked on a
 * recorded cluster with what a correct answer must contain; a `suite` job asks every scenario and
 * scores each answer. docs/suites.md describes the format and the scoring rule.
 */

export const SUITE_FORMAT = 'benchdesk.suite/v1' as const;
/** The suite shipped with benchdesk: always present, read-only. */
export const STARTER_SUITE_ID = 'starter';

/** Whether `pattern` compiles as a JavaScript regular expression (the scorer adds the `i` flag). */
export function regexError(pattern: string): string | null {
  try {
    new RegExp(pattern, 'i');
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A regular expression as text: refused at creation when it does not compile, so a scorer never meets one. */
/** A regular expression that compiles (the OpenAPI document says `format: regex`). */
export const RegexSchema = z
  .string()
  .min(1)
  .max(1000)
  .superRefine((pattern, ctx) => {
    const problem = regexError(pattern);
    if (problem) ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${problem}` });
  });

export const ExpectedFindingSchema = z
  .object({
    /** What a correct answer must say, in words (shown beside the score, given to the judge). */
    finding: z.string().trim().min(1).max(500),
    /** The finding is matched when any of these matches the answer (case-insensitive). */
    any_of: z.array(RegexSchema).min(1).max(50),
  })
  .strict();
export type ExpectedFinding = z.infer<typeof ExpectedFindingSchema>;

export const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;

/**
 * The taxonomy of causes (design §12b): one list for the ground truth of every scenario, the
 * built-in agent's structured verdict and the judge's. `none` is the healthy cluster's only cause.
 */
export const CAUSE_CATEGORIES = [
  'crash-loop',
  'bad-config',
  'image-pull',
  'oom-killed',
  'unschedulable-resources',
  'unschedulable-volume',
  'probe-failure',
  'service-no-endpoints',
  'network-policy',
  'dns',
  'node-pressure',
  'job-failure',
  'quota',
  'rbac',
  'none',
] as const;
export const CauseCategorySchema = z.enum(CAUSE_CATEGORIES);
export type CauseCategory = z.infer<typeof CauseCategorySchema>;

/** An object a cause names, as `kind/namespace/name` (`kind/name` for cluster-scoped ones, e.g. `node/ip-10-0-1-21`). */
export const ObjectRefSchema = z
  .string()
  .trim()
  .min(3)
  .max(400)
  .regex(/^[a-z][a-z0-9]*\/[^/\s]+(\/[^/\s]+)?$/, 'an object is written kind/namespace/name, or kind/name for a cluster-scoped one');

export const VerdictCauseSchema = z.object({ category: CauseCategorySchema, objects: z.array(ObjectRefSchema).max(20) }).strict();
export type VerdictCause = z.infer<typeof VerdictCauseSchema>;

/** A scenario's ground truth: healthy, or the causes a correct diagnosis names (all of them: two-cause scenarios need both). */
export const GroundTruthVerdictSchema = z
  .object({ healthy: z.boolean(), causes: z.array(VerdictCauseSchema).max(10) })
  .strict()
  .superRefine((v, ctx) => {
    if (v.healthy && v.causes.some((c) => c.category !== 'none')) ctx.addIssue({ code: 'custom', path: ['causes'], message: 'a healthy verdict names no cause (or only "none")' });
    if (!v.healthy && v.causes.length === 0) ctx.addIssue({ code: 'custom', path: ['causes'], message: 'an unhealthy verdict names at least one cause' });
  });
export type GroundTruthVerdict = z.infer<typeof GroundTruthVerdictSchema>;

/** A labelled answer that tests the scorer (design §12b): the rules must agree with the label. */
export const FixtureSchema = z
  .object({
    answer: z.string().min(1).max(20_000),
    label: z.enum(['correct', 'wrong']),
    /** Why it is labelled so: which probe it is (other words, keywords in a wrong diagnosis, negation, raw output, false alarm). */
    note: z.string().trim().max(500).default(''),
  })
  .strict();
export type Fixture = z.infer<typeof FixtureSchema>;

export const ScenarioSchema = z
  .object({
    scenario_id: ScenarioIdSchema,
    title: z.string().trim().min(1).max(200),
    snapshot_id: SnapshotIdSchema,
    question: z.string().trim().min(1).max(8000),
    /** Empty = any answer that claims nothing in must_not passes (e.g. a healthy cluster). */
    expected: z.array(ExpectedFindingSchema).max(50),
    /** Claims a correct answer must not make (case-insensitive regexes). */
    must_not: z.array(RegexSchema).max(50).default([]),
    tags: z.array(z.string().trim().min(1).max(50)).max(20).default([]),
    difficulty: z.enum(DIFFICULTIES),
    /** The ground truth the structured verdict is scored against (every starter scenario has one). */
    verdict: GroundTruthVerdictSchema.optional(),
    /** Labelled answers the rules are tested against. */
    fixtures: z.array(FixtureSchema).max(100).optional(),
  })
  .strict();
export type Scenario = z.infer<typeof ScenarioSchema>;
export type ScenarioInput = z.input<typeof ScenarioSchema>;

function uniqueScenarioIssues(scenarios: readonly { scenario_id: string }[]): Issue[] {
  const seen = new Set<string>();
  const issues: Issue[] = [];
  scenarios.forEach((s, i) => {
    if (seen.has(s.scenario_id)) issues.push({ path: ['scenarios', i, 'scenario_id'], message: `scenario ${s.scenario_id} appears twice in the suite` });
    seen.add(s.scenario_id);
  });
  return issues;
}

const suiteFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(4000).default(''),
  scenarios: z.array(ScenarioSchema).min(1).max(1000),
};

/** `POST /v1/suites`: a suite to store; `suite_id` is chosen from the name when absent. */
export const CreateSuiteInputSchema = z
  .object({ suite_id: SuiteIdSchema.optional(), ...suiteFields })
  .strict()
  .superRefine((v, ctx) => addIssues(ctx, uniqueScenarioIssues(v.scenarios)));
export type CreateSuiteInput = z.input<typeof CreateSuiteInputSchema>;

export const SuiteSchema = z.object({
  suite_id: SuiteIdSchema,
  ...suiteFields,
  description: z.string(),
  /** The shipped suite: it cannot be deleted. */
  read_only: z.boolean(),
  created_at: z.iso.datetime({ offset: true }),
});
export type Suite = z.infer<typeof SuiteSchema>;

export const SuiteSummarySchema = SuiteSchema.omit({ scenarios: true }).extend({
  scenario_count: z.number().int().nonnegative(),
  tags: z.array(z.string()),
});
export type SuiteSummary = z.infer<typeof SuiteSummarySchema>;

export const SuiteListSchema = z.object({ suites: z.array(SuiteSummarySchema) });
export type SuiteList = z.infer<typeof SuiteListSchema>;

export const SuiteRefSchema = z.object({ suite_id: SuiteIdSchema }).strict();

/** What `GET /v1/suites/{id}/export` writes and `POST /v1/suites/import` reads: the suite and every snapshot it names. */
export const SuiteDocumentSchema = z
  .object({
    format: z.literal(SUITE_FORMAT, { error: () => `format must be "${SUITE_FORMAT}"` }),
    suite: z
      .object({ suite_id: SuiteIdSchema.optional(), ...suiteFields })
      .strict()
      .superRefine((v, ctx) => addIssues(ctx, uniqueScenarioIssues(v.scenarios))),
    snapshots: z.array(SnapshotDocumentSchema).max(1000),
  })
  .strict()
  .superRefine((v, ctx) => {
    const carried = new Set(v.snapshots.map((s) => s.snapshot_id).filter((id): id is string => id !== undefined));
    v.suite.scenarios.forEach((s, i) => {
      if (!carried.has(s.snapshot_id)) {
        ctx.addIssue({ code: 'custom', path: ['suite', 'scenarios', i, 'snapshot_id'], message: `snapshot ${s.snapshot_id} is not among the document's snapshots` });
      }
    });
  });
export type SuiteDocumentInput = z.input<typeof SuiteDocumentSchema>;

