import type { ExpectedFinding } from './suites';

/**
 * The deterministic scorer of design §12. A finding is matched when any of its regular expressions
 * matches the answer, case-insensitively; `score` = matched / expected; `passed` = every finding
 * matched and no `must_not` pattern matched. Pure: the same answer always scores the same.
 */

export type Score = {
  score: number;
  passed: boolean;
  /** The findings matched, by their words. */
  matched: string[];
  missed: string[];
  /** The must_not patterns the answer matched. */
  must_not_matched: string[];
  /** Where each matched finding's first hit is in the answer (for highlighting). */
  spans: { finding: string; start: number; end: number }[];
};

/** Thrown for a pattern that does not compile: suites are checked when stored, so this is a bug, not input. */
export class ScoringPatternError extends Error {
  override name = 'ScoringPatternError';
}

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'i');
  } catch (err) {
    throw new ScoringPatternError(`not a valid regular expression: ${pattern} (${err instanceof Error ? err.message : String(err)})`);
  }
}

export function scoreAnswer(answer: string, expected: readonly ExpectedFinding[], mustNot: readonly string[] = []): Score {
  const matched: string[] = [];
  const missed: string[] = [];
  const spans: Score['spans'] = [];
  for (const finding of expected) {
    let hit: RegExpExecArray | null = null;
    for (const pattern of finding.any_of) {
      hit = compile(pattern).exec(answer);
      if (hit) break;
    }
    if (hit) {
      matched.push(finding.finding);
      spans.push({ finding: finding.finding, start: hit.index, end: hit.index + hit[0].length });
    } else missed.push(finding.finding);
  }
  const mustNotMatched = mustNot.filter((pattern) => compile(pattern).test(answer));
  // No expected findings (a control scenario): the score is whether it made no wrong claim.
  const score = expected.length === 0 ? (mustNotMatched.length === 0 ? 1 : 0) : matched.length / expected.length;
  // An empty answer never passes, even where nothing is expected.
  const passed = answer.trim() !== '' && missed.length === 0 && mustNotMatched.length === 0;
  return { score: answer.trim() === '' ? 0 : score, passed, matched, missed, must_not_matched: mustNotMatched, spans };
}

/** Every stretch of the answer a matched finding's patterns hit (for highlighting), sorted and merged. */
export function highlightSpans(answer: string, expected: readonly ExpectedFinding[]): { start: number; end: number; finding: string }[] {
  const spans: { start: number; end: number; finding: string }[] = [];
  for (const finding of expected) {
    for (const pattern of finding.any_of) {
      let re: RegExp;
      try {
        re = new RegExp(pattern, 'gi');
      } catch {
        continue;
      }
      for (const m of answer.matchAll(re)) {
        if (m[0].length > 0 && m.index !== undefined) spans.push({ start: m.index, end: m.index + m[0].length, finding: finding.finding });
      }
    }
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: typeof spans = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}
