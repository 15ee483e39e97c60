import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAUSE_CATEGORIES, DIFFICULTIES } from '../../shared/suites';
import { starterSuite } from '../../src-main/suites/starter';
import { STARTER_SCENARIOS } from '../../scripts/starter/scenarios';

/**
 * The builder-written starter scenarios as an author checks them before the scorer does: each has
 * its ground truth, tags and at least six labelled answers of both kinds; the question does not
 * give the answer away; every right answer holds every finding (plainly matched: the scorer's rule
 * only narrows this to affirmed statements); and the suite covers the whole taxonomy, with red
 * herrings, two-cause cases and every difficulty.
 */

const built = STARTER_SCENARIOS.map((s) => s.scenario);
const rx = (pattern: string) => new RegExp(pattern, 'i');

describe('the builder-written starter scenarios', () => {
  for (const s of built) {
    it(`${s.scenario_id}: ground truth, tags, fixtures, and a question that does not name the cause`, () => {
      const category = s.verdict.healthy ? 'none' : s.verdict.causes[0]?.category;
      expect(s.tags, 'tags name the category and the difficulty').toEqual(expect.arrayContaining([category, s.difficulty]));
      if (!s.verdict.healthy) expect(s.expected.length, 'an unhealthy scenario expects findings').toBeGreaterThan(0);
      if (!s.verdict.healthy) for (const cause of s.verdict.causes) expect(cause.objects.length, `${cause.category} names its objects`).toBeGreaterThan(0);
      const fixtures = s.fixtures ?? [];
      expect(fixtures.length).toBeGreaterThanOrEqual(6);
      expect(fixtures.filter((f) => f.label === 'correct').length).toBeGreaterThanOrEqual(2);
      expect(fixtures.filter((f) => f.label === 'wrong').length).toBeGreaterThanOrEqual(3);
      for (const f of fixtures) expect(f.note, 'each fixture says which probe it is').not.toBe('');
      for (const finding of s.expected) {
        expect(finding.any_of.some((p) => rx(p).test(s.question)), `the question gives away: ${finding.finding}`).toBe(false);
      }
    });

    it(`${s.scenario_id}: every right answer holds every finding`, () => {
      for (const f of (s.fixtures ?? []).filter((x) => x.label === 'correct')) {
        for (const finding of s.expected) expect(finding.any_of.some((p) => rx(p).test(f.answer)), `${finding.finding}\n  in: ${f.answer.slice(0, 160)}`).toBe(true);
      }
    });
  }

  it('are all listed in docs/suites.md', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/suites.md'), 'utf8');
    for (const s of starterSuite().suite.scenarios) expect(doc, s.scenario_id).toContain(`| \`${s.scenario_id}\` |`);
  });

  it('cover every category of the taxonomy, every difficulty, red herrings, two-cause cases and a noisy healthy cluster', () => {
    const suite = starterSuite().suite.scenarios;
    const categories = new Set(suite.flatMap((s) => (s.verdict ? (s.verdict.healthy ? ['none'] : s.verdict.causes.map((c) => c.category)) : [])));
    expect([...CAUSE_CATEGORIES].filter((c) => !categories.has(c))).toEqual([]);
    expect(new Set(built.map((s) => s.difficulty))).toEqual(new Set(DIFFICULTIES));
    expect(built.filter((s) => s.verdict.causes.length >= 2).length).toBeGreaterThanOrEqual(3);
    expect(built.filter((s) => s.tags.includes('red-herring')).length).toBeGreaterThanOrEqual(3);
    expect(built.some((s) => s.verdict.healthy && s.tags.includes('noisy'))).toBe(true);
  });
});
