import { z } from 'zod';
import { scoreRules, type RulesScore } from './scoring';
import type { FixtureAgreement, Scenario } from './suites';
import { scoreVerdict, VerdictScoreSchema, type VerdictScore } from './verdict';

/**
 * One answer to one scenario, scored by the rules (design §12b): findings in affirmed statements,
 * no affirmed wrong claim, and the structured verdict right where the answer carries one. Pure:
 * the suite job, `POST /v1/suites/{id}/score`, the fixtures test and the bench all call this.
 */

export type ScorableScenario = Pick<Scenario, 'expected' | 'must_not'> & { verdict?: Scenario['verdict'] };

export type ScenarioScore = Omit<RulesScore, 'passed'> & {
  passed: boolean;
  /** The rules' findings and wrong claims alone, before the verdict is checked. */
  findings_passed: boolean;
  verdict: VerdictScore | null;
};

export function isHealthyScenario(scenario: ScorableScenario): boolean {
  return scenario.verdict?.healthy ?? scenario.expected.length === 0;
}

export function scoreScenario(answer: string, scenario: ScorableScenario): ScenarioScore {
  const rules = scoreRules(answer, { expected: scenario.expected, must_not: scenario.must_not, healthy: isHealthyScenario(scenario) });
  const verdict = scoreVerdict(answer, scenario.verdict);
  const verdictWrong = verdict?.found === true && verdict.correct === false;
  return { ...rules, findings_passed: rules.passed, passed: rules.passed && !verdictWrong, verdict };
}

export const ScoredStatementSchema = z.object({
  text: z.string(),
  affirmed: z.boolean(),
  reason: z.enum(['affirmed', 'negated', 'dismissed', 'hypothetical', 'question', 'quoted-output']),
  cue: z.string().nullable(),
  counted: z.array(z.string()),
  wrong: z.array(z.string()),
});

/** `POST /v1/suites/{suite_id}/score`: an answer to one scenario. */
export const ScoreAnswerInputSchema = z
  .object({
    suite_id: z.string().min(1).max(64),
    scenario_id: z.string().min(1).max(100),
    answer: z.string().max(100_000, 'an answer is at most 100,000 characters'),
  })
  .strict();
export type ScoreAnswerInput = z.infer<typeof ScoreAnswerInputSchema>;

export const ScoreAnswerOutputSchema = z.object({
  passed: z.boolean(),
  score: z.number().min(0).max(1),
  matched: z.array(z.string()),
  missed: z.array(z.string()),
  must_not_matched: z.array(z.string()),
  verdict: VerdictScoreSchema.optional(),
  statements: z.array(ScoredStatementSchema),
  method: z.literal('rules'),
});
export type ScoreAnswerOutput = z.infer<typeof ScoreAnswerOutputSchema>;

export function scoreAnswerOutput(score: ScenarioScore): ScoreAnswerOutput {
  return {
    passed: score.passed,
    score: score.score,
    matched: score.matched,
    missed: score.missed,
    must_not_matched: score.must_not_matched,
    ...(score.verdict ? { verdict: score.verdict } : {}),
    statements: score.statements,
    method: 'rules',
  };
}

const MAX_LISTED_DISAGREEMENTS = 50;

/** The rules against every labelled answer of a suite: how many they agree with, and which not. */
export function fixtureAgreement(scenarios: readonly (ScorableScenario & Pick<Scenario, 'scenario_id' | 'fixtures'>)[]): FixtureAgreement | undefined {
  let agreed = 0;
  let total = 0;
  const disagreements: FixtureAgreement['disagreements'] = [];
  for (const scenario of scenarios) {
    (scenario.fixtures ?? []).forEach((fixture, index) => {
      total++;
      const passed = scoreScenario(fixture.answer, scenario).passed;
      if (passed === (fixture.label === 'correct')) agreed++;
      else if (disagreements.length < MAX_LISTED_DISAGREEMENTS) disagreements.push({ scenario_id: scenario.scenario_id, fixture: index, label: fixture.label, note: fixture.note });
    });
  }
  return total === 0 ? undefined : { agreed, total, disagreements };
}

/** "rules agree with 57 of 60 labelled answers" */
export function agreementInWords(agreement: FixtureAgreement | undefined): string | null {
  if (!agreement) return null;
  return `rules agree with ${agreement.agreed} of ${agreement.total} labelled answers`;
}
