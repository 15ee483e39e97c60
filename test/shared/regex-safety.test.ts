import { describe, expect, it } from 'vitest';
import { backtrackingRisk } from '../../shared/regex-safety';
import { CreateSuiteInputSchema, SuiteDocumentSchema, SuiteSchema } from '../../shared/suites';

/** Issue 34 item 1: a pattern that could freeze the scorer is refused when a suite is stored or imported. */

describe('backtrackingRisk', () => {
  it('refuses nested quantifiers, overlapping alternatives under a repeat and too many unbounded wildcards', () => {
    for (const p of ['(\\w+\\s?)+$', '(a+)+', '(a{1,3})*', '(?:\\w+\\s+){0,3}', '((ab)*c)+', '(\\w|\\d)+', '(a|ab)*c', '(.|\\s)*', '.*a.*b.*c', '(x*)*y']) {
      expect(backtrackingRisk(p), p).not.toBeNull();
    }
  });
  it('lets bounded gaps, optional atoms, fixed repeats and disjoint alternatives through', () => {
    for (const p of [
      'orders-api.{0,120}(crash ?-?loop|restart|back-?off)',
      "fast-ssd.{0,80}(not found|does ?n[o']t exist)",
      '(crash|restart)+',
      '(?:[a-z]|-)+',
      '(?:ab){3}',
      '(\\s?\\w)+',
      '\\bv2\\.41\\b',
      '[(]x[)]+',
      'a.*b.*c',
    ]) {
      expect(backtrackingRisk(p), p).toBeNull();
    }
  });
});

const scenario = (mustNot: string[]) => ({ scenario_id: 'pods', title: 't', snapshot_id: 'snap', question: 'q', difficulty: 'easy', expected: [{ finding: 'f', any_of: ['ok'] }], must_not: mustNot });

describe('suites refuse such patterns, naming the scenario and the pattern', () => {
  it('when created', () => {
    const parsed = CreateSuiteInputSchema.safeParse({ name: 'n', scenarios: [scenario(['fine', '(\\w+\\s?)+$'])] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toEqual([
      expect.objectContaining({ path: ['scenarios', 0, 'must_not', 1], message: expect.stringMatching(/^scenario pods: the pattern \/\(\\w\+\\s\?\)\+\$\/ could take exponential time \(a repeated group holds a repeat/) }),
    ]);
  });
  it('when imported', () => {
    const doc = { format: 'benchdesk.suite/v1', suite: { name: 'n', scenarios: [scenario(['(a|ab)*c'])] }, snapshots: [] };
    const parsed = SuiteDocumentSchema.safeParse(doc);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toContain('suite.scenarios.0.must_not.0');
  });
  it('a suite stored before the check still reads (scoring has its own time limit)', () => {
    const stored = { suite_id: 'old', name: 'n', description: '', read_only: false, created_at: '2026-11-20T00:00:00Z', scenarios: [scenario(['(\\w+\\s?)+$'])] };
    expect(SuiteSchema.safeParse(stored).success).toBe(true);
  });
});
