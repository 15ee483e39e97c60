import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../shared';
import { passRates, summarise } from './summary';

const r = (scenario_id: string, run: number, over: Partial<ScenarioResult>): ScenarioResult => ({
  scenario_id,
  run,
  passed: false,
  score: 0,
  matched: [],
  missed: [],
  must_not_matched: [],
  answer: 'x',
  duration_ms: 1000,
  prompt_tokens: 10,
  completion_tokens: 20,
  tool_calls: 1,
  ...over,
});

describe('summarise', () => {
  it('counts errors apart: accuracy = passed ÷ (total − errors), with a Wilson interval', () => {
    const results = [r('a', 1, { passed: true, score: 1 }), r('a', 2, { passed: true, score: 1 }), r('b', 1, { score: 0.5 }), r('b', 2, { error: 'no answer' })];
    const s = summarise(results, 0.3);
    expect(s).toMatchObject({ passed: 2, total: 4, errors: 1, accuracy: 0.6667, mean_score: 0.8333, cost_per_correct_usd: 0.15 });
    expect(s.accuracy_ci95).toEqual([0.2077, 0.9385]);
    expect(s.per_scenario).toEqual([
      { scenario_id: 'a', runs: 2, passed: 2, errors: 0, pass_rate: 1 },
      { scenario_id: 'b', runs: 2, passed: 0, errors: 1, pass_rate: 0 },
    ]);
  });

  it('8 of 10 has the interval the issue quotes, [0.49, 0.94]', () => {
    const results = Array.from({ length: 10 }, (_, i) => r(`s${i}`, 1, { passed: i < 8 }));
    const [lo = 0, hi = 0] = summarise(results, 0).accuracy_ci95 ?? [];
    expect([Math.round(lo * 100) / 100, Math.round(hi * 100) / 100]).toEqual([0.49, 0.94]);
  });

  it('counts the judge’s disagreements with the rules', () => {
    const judge = (passed: boolean) => ({ score: passed ? 1 : 0, passed, reasoning: '', model: 'j', duration_ms: 5, prompt_tokens: 1, completion_tokens: 1, cost_usd: 0 });
    const results = [r('a', 1, { passed: true, rules_passed: false, judge: judge(true) }), r('b', 1, { passed: false, rules_passed: false, judge: judge(false) })];
    expect(summarise(results, 0).judge).toMatchObject({ passed: 1, disagreements: 1 });
    expect(passRates([])).toEqual([]);
  });
});
