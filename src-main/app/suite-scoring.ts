import { ScoreAnswerInputSchema, scoreAnswerOutput, type FixtureAgreement, type ScoreAnswerOutput, type Suite } from '../../shared';
import { ScoringTimeoutError, type AnswerScorer } from '../suites/score-pool';
import { ProblemError } from './problem-error';

/**
 * `POST /v1/suites/{suite_id}/score` (design §12b): one answer to one scenario, scored by the rules
 * without a run, off the main thread (score-pool.ts). Also the fixtures agreement a suite shows
 * when created or imported.
 */

export async function scoreOneAnswer(scorer: AnswerScorer, find: (suiteId: string) => Promise<Suite>, input: unknown): Promise<ScoreAnswerOutput> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ProblemError(400, 'bad_request', 'the body is a JSON object: {scenario_id, answer}');
  const parsed = ScoreAnswerInputSchema.safeParse(input);
  if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'score request');
  const { suite_id: suiteId, scenario_id: scenarioId, answer } = parsed.data;
  const suite = await find(suiteId);
  const scenario = suite.scenarios.find((s) => s.scenario_id === scenarioId);
  if (!scenario) {
    const known = suite.scenarios.map((s) => s.scenario_id);
    throw new ProblemError(404, 'scenario_not_found', `suite ${suiteId} has no scenario ${scenarioId}; it has: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''}`);
  }
  try {
    return scoreAnswerOutput(await scorer.score(answer, scenario));
  } catch (err) {
    if (err instanceof ScoringTimeoutError) {
      throw new ProblemError(422, 'scoring_timeout', `scenario ${scenarioId} of suite ${suiteId}: ${err.message}`);
    }
    throw err;
  }
}

/** The suite with its fixtures agreement (absent when no scenario has fixtures). */
export async function withAgreement(scorer: AnswerScorer, suite: Suite): Promise<Suite> {
  const agreement: FixtureAgreement | undefined = await scorer.agreement(suite.scenarios);
  const { fixture_agreement: _old, ...rest } = suite;
  return agreement ? { ...rest, fixture_agreement: agreement } : rest;
}
