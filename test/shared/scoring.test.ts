import { describe, expect, it } from 'vitest';
import { CreateSuiteInputSchema } from '../../shared/suites';
import { highlightSpans, scoreAnswer, ScoringPatternError } from '../../shared/scoring';

const expected = [
  { finding: 'crash loop', any_of: ['crash ?loop', 'back-?off'] },
  { finding: 'wrong password', any_of: ['password authentication failed', 'wrong password'] },
];

describe('scoreAnswer', () => {
  it('matches case-insensitively and passes when every finding matches', () => {
    const s = scoreAnswer('The pod is in CRASHLOOPBACKOFF because of a Wrong Password.', expected, ['OOMKilled']);
    expect(s).toMatchObject({ score: 1, passed: true, matched: ['crash loop', 'wrong password'], missed: [], must_not_matched: [] });
    expect(s.spans[0]).toEqual({ finding: 'crash loop', start: 14, end: 23 });
  });

  it('counts a finding once when any of its alternatives matches', () => {
    const s = scoreAnswer('back-off restarting; FATAL: password authentication failed', expected);
    expect(s.matched).toEqual(['crash loop', 'wrong password']);
    expect(s.score).toBe(1);
  });

  it('scores matched / expected and fails on a missed finding', () => {
    const s = scoreAnswer('it keeps crash looping', expected);
    expect(s).toMatchObject({ score: 0.5, passed: false, missed: ['wrong password'] });
  });

  it('fails on a must_not claim even with every finding matched', () => {
    const s = scoreAnswer('crash loop: wrong password, and it was OOMKilled', expected, ['oom ?killed']);
    expect(s).toMatchObject({ score: 1, passed: false, must_not_matched: ['oom ?killed'] });
  });

  it('an empty answer scores 0 and never passes, even when nothing is expected', () => {
    expect(scoreAnswer('', expected)).toMatchObject({ score: 0, passed: false, missed: ['crash loop', 'wrong password'] });
    expect(scoreAnswer('   ', [], ['broken'])).toMatchObject({ score: 0, passed: false });
  });

  it('a control scenario (nothing expected) passes unless a must_not matches', () => {
    expect(scoreAnswer('Everything is healthy.', [], ['is broken'])).toMatchObject({ score: 1, passed: true });
    expect(scoreAnswer('The database is broken.', [], ['is broken'])).toMatchObject({ score: 0, passed: false });
  });

  it('refuses a pattern that does not compile (suites are validated before they reach it)', () => {
    expect(() => scoreAnswer('x', [{ finding: 'f', any_of: ['(unclosed'] }])).toThrow(ScoringPatternError);
  });
});

describe('a suite with an invalid regex is refused, naming its path', () => {
  it('in expected and in must_not', () => {
    const scenario = { scenario_id: 's', title: 't', snapshot_id: 'snap', question: 'q', difficulty: 'easy', expected: [{ finding: 'f', any_of: ['ok', '(bad'] }], must_not: ['[z-a]'] };
    const parsed = CreateSuiteInputSchema.safeParse({ name: 'n', scenarios: [scenario] });
    expect(parsed.success).toBe(false);
    const paths = parsed.error?.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(['scenarios.0.expected.0.any_of.1', 'scenarios.0.must_not.0']);
    expect(parsed.error?.issues[0]?.message).toMatch(/not a valid regular expression/);
  });
});

describe('highlightSpans', () => {
  it('marks every hit of every finding, merging overlaps', () => {
    const spans = highlightSpans('CrashLoopBackOff, back-off again; wrong password', expected);
    expect(spans.map((s) => [s.start, s.end])).toEqual([
      [0, 16],
      [18, 26],
      [34, 48],
    ]);
  });
});
