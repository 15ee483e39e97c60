import { z } from 'zod';
import { GroundTruthVerdictSchema } from './causes';
import { backtrackingRisk } from './regex-safety';
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
    /** The finding's main concept: any of these patterns hitting an affirmed statement (case-insensitive). */
    any_of: z.array(RegexSchema).min(1).max(50),
    /**
     * Further concepts the finding needs, each a list of synonyms: every one must also hit an
     * affirmed statement, anywhere in the answer ("ip-10-0-3-17" and "NotReady" said apart).
     */
    all_of: z.array(z.array(RegexSchema).min(1).max(50)).max(5).optional(),
  })
  .strict();
export type ExpectedFinding = z.infer<typeof ExpectedFindingSchema>;

export const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;

export { CAUSE_CATEGORIES, CauseCategorySchema, GroundTruthVerdictSchema, ObjectRefSchema, VerdictCauseSchema } from './causes';
export type { CauseCategory, GroundTruthVerdict, VerdictCause } from './causes';

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

/** Every pattern of a scenario, with its path inside the scenario. */
function patternsOf(s: ScenarioInput): { path: (string | number)[]; pattern: string }[] {
  const out: { path: (string | number)[]; pattern: string }[] = [];
  s.expected.forEach((f, i) => {
    f.any_of.forEach((p, j) => out.push({ path: ['expected', i, 'any_of', j], pattern: p }));
    (f.all_of ?? []).forEach((group, g) => group.forEach((p, j) => out.push({ path: ['expected', i, 'all_of', g, j], pattern: p })));
  });
  (s.must_not ?? []).forEach((p, j) => out.push({ path: ['must_not', j], pattern: p }));
  return out;
}

/**
 * Patterns that could freeze a scorer (shared/regex-safety.ts), refused when a suite is stored or
 * imported: the issue names the scenario and the pattern.
 */
export function riskyPatternIssues(scenarios: readonly ScenarioInput[], prefix: (string | number)[] = ['scenarios']): Issue[] {
  const issues: Issue[] = [];
  scenarios.forEach((s, i) => {
    for (const { path, pattern } of patternsOf(s)) {
      const risk = backtrackingRisk(pattern);
      if (risk) issues.push({ path: [...prefix, i, ...path], message: `scenario ${s.scenario_id}: the pattern /${pattern}/ could take exponential time (${risk}); rewrite it` });
    }
  });
  return issues;
}

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
  .superRefine((v, ctx) => addIssues(ctx, [...uniqueScenarioIssues(v.scenarios), ...riskyPatternIssues(v.scenarios)]));
export type CreateSuiteInput = z.input<typeof CreateSuiteInputSchema>;

/** How far the rules agree with a suite's labelled answers (design §12b): "rules agree with 57 of 60". */
export const FixtureAgreementSchema = z.object({
  agreed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  /** The labelled answers the rules read otherwise (at most 50 listed). */
  disagreements: z.array(z.object({ scenario_id: z.string(), fixture: z.number().int().nonnegative(), label: z.enum(['correct', 'wrong']), note: z.string() })).max(50),
});
export type FixtureAgreement = z.infer<typeof FixtureAgreementSchema>;

export const SuiteSchema = z.object({
  suite_id: SuiteIdSchema,
  ...suiteFields,
  description: z.string(),
  /** The shipped suite: it cannot be deleted. */
  read_only: z.boolean(),
  created_at: z.iso.datetime({ offset: true }),
  /** The rules against the suite's fixtures; absent when no scenario has any. */
  fixture_agreement: FixtureAgreementSchema.optional(),
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
      .superRefine((v, ctx) => addIssues(ctx, [...uniqueScenarioIssues(v.scenarios), ...riskyPatternIssues(v.scenarios)])),
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

