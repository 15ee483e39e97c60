import { describe, expect, it } from 'vitest';
import { fixtureAgreement, scoreScenario } from '../../shared/scenario-score';
import { starterSuite } from '../../src-main/suites/starter';

/**
 * The scorer is tested like code (design §12b): every scenario of the shipped suite carries
 * labelled answers, and the rules must agree with at least 95% of them.
 */

const { suite } = starterSuite();

describe('the starter suite’s fixtures', () => {
  it('every scenario has a ground-truth verdict and at least 6 labelled answers, right and wrong', () => {
    for (const s of suite.scenarios) {
      expect(s.verdict, s.scenario_id).toBeDefined();
      const fixtures = s.fixtures ?? [];
      expect(fixtures.length, s.scenario_id).toBeGreaterThanOrEqual(6);
      expect(fixtures.some((f) => f.label === 'correct'), s.scenario_id).toBe(true);
      expect(fixtures.filter((f) => f.label === 'wrong').length, s.scenario_id).toBeGreaterThanOrEqual(3);
    }
  });

  it('the rules agree with at least 95% of them', () => {
    const agreement = fixtureAgreement(suite.scenarios);
    if (!agreement) throw new Error('the starter suite has no fixtures');
    const listed = agreement.disagreements.map((d) => `${d.scenario_id}#${d.fixture} (${d.label}: ${d.note})`).join('\n');
    expect(agreement.agreed / agreement.total, `rules agree with ${agreement.agreed} of ${agreement.total}; they disagree with:\n${listed}`).toBeGreaterThanOrEqual(0.95);
  });

  it('every right answer that carries a verdict block has it read and judged right against the ground truth', () => {
    const checked: string[] = [];
    for (const s of suite.scenarios) {
      for (const f of (s.fixtures ?? []).filter((x) => x.label === 'correct' && x.answer.includes('"healthy"'))) {
        expect(scoreScenario(f.answer, s).verdict, `${s.scenario_id}: ${f.note}`).toMatchObject({ found: true, correct: true });
        checked.push(s.scenario_id);
      }
    }
    // Every scenario has at least one such answer, so a ground truth the verdict check cannot meet shows.
    expect(new Set(checked)).toEqual(new Set(suite.scenarios.map((s) => s.scenario_id)));
  });

  it('fixtureAgreement counts what scoreScenario decides, and lists the disagreements', () => {
    const scenario = { scenario_id: 'x', expected: [{ finding: 'oom', any_of: ['oom'] }], must_not: [], fixtures: [
      { answer: 'It was OOM.', label: 'correct' as const, note: 'right' },
      { answer: 'It was not OOM.', label: 'wrong' as const, note: 'negated' },
      { answer: 'It was not OOM.', label: 'correct' as const, note: 'mislabelled on purpose' },
    ] };
    expect(scoreScenario('It was not OOM.', scenario).passed).toBe(false);
    expect(fixtureAgreement([scenario])).toEqual({ agreed: 2, total: 3, disagreements: [{ scenario_id: 'x', fixture: 2, label: 'correct', note: 'mislabelled on purpose' }] });
    expect(fixtureAgreement([{ ...scenario, fixtures: [] }])).toBeUndefined();
  });
});
