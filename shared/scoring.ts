import { NEGATORS, readHit, toneOf, type HitReading } from './affirmation';
import { splitStatements } from './statements';
import type { ExpectedFinding } from './suites';
import { parseAnswerVerdict } from './verdict';

/**
 * The deterministic rules of design §12b, read as statements. The answer is split into statements
 * (shared/statements.ts); a pattern counts only where it hits an **affirmed** statement
 * (shared/affirmation.ts): not negated, dismissed, hypothetical, asked, or quoted tool output.
 *
 * - A finding is matched when one of its `any_of` patterns hits an affirmed statement and, for
 *   each concept of its `all_of`, one of that concept's patterns does too (anywhere in the answer:
 *   "ip-10-0-3-17 ran out of disk. It went NotReady." names the node and the state apart). In
 *   the statement where the main concept counted, its pattern's own negation does not take a
 *   concept back ("storefront-config has **no** entry called feature-flags" names the key).
 * - `must_not` lists claims of wrong causes, matched in affirmed statements only.
 * - The verdict block is quoted output, but its `fix` is read as the answer's own statements.
 * - On a healthy scenario, an affirmed claim of any fault (FAULT_CLAIMS) fails the answer; a
 *   message the answer only cites in quotes ("Readiness probe failed …") is not a claim.
 * - `score` = matched / expected (a scenario with nothing expected: 1 unless a wrong claim);
 *   `passed` = every finding matched and no wrong claim; an empty answer scores 0 and fails.
 *
 * Pure: the same answer always scores the same.
 */

export type StatementReason = 'affirmed' | 'negated' | 'dismissed' | 'hypothetical' | 'question' | 'quoted-output';

/** One statement of the answer as the rules read it: what a page shows to say why. */
export type ScoredStatement = {
  text: string;
  affirmed: boolean;
  reason: StatementReason;
  /** The words that made it not count ("not", "is fine", "whether"); null when affirmed or quoted. */
  cue: string | null;
  /** The findings it counted for. */
  counted: string[];
  /** The wrong claims (must_not patterns, or faults on a healthy scenario) it made. */
  wrong: string[];
};

export type RulesScore = {
  score: number;
  passed: boolean;
  /** The findings matched, by their words. */
  matched: string[];
  missed: string[];
  /** The must_not patterns affirmed (and, on a healthy scenario, each fault claimed, quoted). */
  must_not_matched: string[];
  statements: ScoredStatement[];
};

export type RuleSet = {
  expected: readonly ExpectedFinding[];
  must_not?: readonly string[];
  /** A healthy scenario: any affirmed fault fails. Default: nothing expected. */
  healthy?: boolean;
};

/**
 * Claims of a fault, for the healthy scenario: a correct answer makes none of them (negated or
 * dismissed ones are fine: "no pods are failing", "the old restarts are harmless").
 */
export const FAULT_CLAIMS: readonly string[] = [
  String.raw`\b(?:is|are|was|were|keeps?|kept|stuck|remains?|has been|have been)\s+(?:\w+\s+)?(?:crash-?looping|crashing|failing|broken|down|unhealthy|degraded|misconfigured|not ready|pending|unavailable|evicted|erroring|restarting|flapping|unreachable|out of (?:memory|disk))\b`,
  String.raw`crash ?-?loop|CrashLoopBackOff`,
  String.raw`\bOOM ?-?kill|out of memory`,
  String.raw`ImagePullBackOff|ErrImagePull|image pull (?:error|fail)`,
  String.raw`\bunschedulable\b|FailedScheduling|insufficient (?:cpu|memory)`,
  String.raw`\bNotReady\b`,
  String.raw`\bevicted\b`,
  String.raw`\broot cause\b`,
  String.raw`\b(?:errors?|failures?|problems?|issues?|faults?)\s+(?:in|with|on|at|affecting)\b`,
  // A fault named as a thing it has now: "checkout 4.2 has a readiness problem" (a past one is history).
  String.raw`\b(?:has|have|there (?:is|are))\s+(?:an?\s+|some\s+)?(?:[\w-]+\s+)?(?:problem|issue|fault|bug|failure|outage|regression)s?\b`,
  String.raw`\b(?:fails|failed|failing)\b`,
  String.raw`\b(?:needs?|must|should)\s+(?:to\s+)?(?:be\s+)?(?:fixed|restarted|repaired|rolled back|fix|restart|repair)\b`,
  String.raw`\b(?:could|may|might|will|would|is likely to|is about to)\s+(?:soon\s+)?(?:fail|crash|break|go down|run out|be evicted|be OOMKilled)\b`,
  // A fix recommended is a fault claimed: "restart it before the sale".
  String.raw`^(?:please\s+)?(?:restart|fix|roll back|rollback|redeploy|repair|patch|recreate)\b`,
];

/** Thrown for a pattern that does not compile: suites are checked when stored, so this is a bug, not input. */
export class ScoringPatternError extends Error {
  override name = 'ScoringPatternError';
}

type Compiled = { all: RegExp; one: RegExp };
const compiledCache = new Map<string, Compiled>();

function compile(pattern: string): Compiled {
  const cached = compiledCache.get(pattern);
  if (cached) return cached;
  let compiled: Compiled;
  try {
    compiled = { all: new RegExp(pattern, 'gi'), one: new RegExp(pattern, 'i') };
  } catch (err) {
    throw new ScoringPatternError(`not a valid regular expression: ${pattern} (${err instanceof Error ? err.message : String(err)})`);
  }
  if (compiledCache.size > 5000) compiledCache.clear();
  compiledCache.set(pattern, compiled);
  return compiled;
}

/** Curly quotes and apostrophes as plain ones, so "isn’t" reads like "isn't". */
function normalise(answer: string): string {
  return answer.replace(/[\u2018\u2019\u02bc]/g, "'").replace(/[\u201c\u201d]/g, '"');
}

type Row = ScoredStatement & { prose: boolean; after: string; firstMiss: HitReading | null; hitAffirmed: boolean };

/** Where a pattern hit a statement and was affirmed: [start, end) in the statement's text. */
type Span = readonly [number, number];

/**
 * The text with every negation word inside `owned` blanked out (same length, so positions hold):
 * those negations belong to a pattern that already counted there ("has **no** entry called X").
 */
function withoutOwnedNegations(text: string, owned: readonly Span[]): string {
  return text.replace(NEGATORS, (word, at: number) => (owned.some(([s, e]) => at >= s && at + word.length <= e) ? ' '.repeat(word.length) : word));
}

/** Inline quotations in a statement: an event or log message the answer cites ("Readiness probe failed …"). */
const INLINE_QUOTE = /"[^"\n]{1,400}"|`[^`\n]{1,400}`/g;

function quotedSpans(text: string): Span[] {
  return [...text.matchAll(INLINE_QUOTE)].map((m) => [m.index ?? 0, (m.index ?? 0) + m[0].length] as const);
}

type AffirmedOptions = {
  /** Per statement, the spans of hits that already counted there (a finding's main concept), whose negations are not read against these patterns. */
  owned?: ReadonlyMap<number, readonly Span[]>;
  /** Hits wholly inside an inline quotation do not count (a message cited is not a fault claimed). */
  outsideQuotes?: boolean;
};

/**
 * The statements where any of `patterns` hits and is affirmed, with the spans of those hits,
 * recording every reading on the rows.
 */
function affirmedIn(rows: Row[], patterns: readonly string[], options: AffirmedOptions = {}): Map<number, Span[]> {
  const found = new Map<number, Span[]>();
  for (const pattern of patterns) {
    const { all, one } = compile(pattern);
    rows.forEach((row, index) => {
      if (!row.prose) return;
      const ownedSpans = options.owned?.get(index);
      const text = ownedSpans ? withoutOwnedNegations(row.text, ownedSpans) : row.text;
      const quotes = options.outsideQuotes ? quotedSpans(row.text) : [];
      all.lastIndex = 0;
      for (const m of row.text.matchAll(all)) {
        if (m[0].length === 0) continue;
        const start = m.index ?? 0;
        const end = start + m[0].length;
        if (quotes.some(([s, e]) => start >= s && end <= e)) continue;
        const reading = readHit(text, start, end, one, `${row.text.slice(end)} ${row.after}`);
        if (reading.reason === 'affirmed') {
          row.hitAffirmed = true;
          found.set(index, [...(found.get(index) ?? []), [start, end]]);
          break;
        }
        row.firstMiss ??= reading;
      }
    });
  }
  return found;
}

/**
 * The answer's statements, then its verdict block's `fix` as statements of their own: the block is
 * quoted, but its fix is the answer's own advice ("increase activeDeadlineSeconds"), not tool output.
 */
function rowsOf(answer: string): Row[] {
  const text = normalise(answer);
  const read = text.includes('"fix"') ? parseAnswerVerdict(text) : null;
  const fix = read && 'verdict' in read ? (read.verdict.fix ?? '').trim() : '';
  const statements = [...splitStatements(text), ...(fix === '' ? [] : splitStatements(fix).filter((s) => s.shape === 'prose'))];
  return statements.map((s) => {
    const prose = s.shape === 'prose' && !s.question;
    const reason: StatementReason = s.shape === 'quoted' ? 'quoted-output' : s.question ? 'question' : 'affirmed';
    return { text: s.text, affirmed: false, reason, cue: null, counted: [], wrong: [], prose, after: s.after, firstMiss: null, hitAffirmed: false };
  });
}

/** The rules' score of one answer. */
export function scoreRules(answer: string, rules: RuleSet): RulesScore {
  const rows = rowsOf(answer);
  const matched: string[] = [];
  const missed: string[] = [];
  for (const finding of rules.expected) {
    const main = affirmedIn(rows, finding.any_of);
    // A concept named where the main one counted is not taken back by the main pattern's own negation.
    const concepts = (finding.all_of ?? []).map((group) => affirmedIn(rows, group, { owned: main }));
    if (main.size > 0 && concepts.every((c) => c.size > 0)) {
      matched.push(finding.finding);
      for (const i of new Set([main, ...concepts].flatMap((found) => [...found.keys()]))) (rows[i] as Row).counted.push(finding.finding);
    } else missed.push(finding.finding);
  }
  const wrong: string[] = [];
  for (const pattern of rules.must_not ?? []) {
    const hits = affirmedIn(rows, [pattern]);
    if (hits.size === 0) continue;
    wrong.push(pattern);
    for (const i of hits.keys()) (rows[i] as Row).wrong.push(pattern);
  }
  if (rules.healthy ?? rules.expected.length === 0) {
    for (const pattern of FAULT_CLAIMS) {
      for (const i of affirmedIn(rows, [pattern], { outsideQuotes: true }).keys()) {
        const row = rows[i] as Row;
        const claim = `a fault claimed: "${row.text.length > 120 ? `${row.text.slice(0, 117)}…` : row.text}"`;
        if (!row.wrong.includes(claim)) row.wrong.push(claim);
        if (!wrong.includes(claim)) wrong.push(claim);
      }
    }
  }
  const empty = answer.trim() === '';
  const score = empty ? 0 : rules.expected.length === 0 ? (wrong.length === 0 ? 1 : 0) : matched.length / rules.expected.length;
  return { score, passed: !empty && missed.length === 0 && wrong.length === 0, matched, missed, must_not_matched: wrong, statements: rows.map(finishRow) };
}

function finishRow(row: Row): ScoredStatement {
  let reading: { reason: StatementReason; cue: string | null } = { reason: row.reason, cue: null };
  if (row.prose) reading = row.hitAffirmed ? { reason: 'affirmed', cue: null } : (row.firstMiss ?? toneOf(row.text));
  return { text: row.text, affirmed: reading.reason === 'affirmed', reason: reading.reason, cue: reading.cue, counted: row.counted, wrong: row.wrong };
}

/**
 * The rules as before statements (design §12), kept for callers that have only findings and
 * must_not patterns: the same reading as scoreRules.
 */
export function scoreAnswer(answer: string, expected: readonly ExpectedFinding[], mustNot: readonly string[] = [], healthy?: boolean): RulesScore {
  return scoreRules(answer, { expected, must_not: mustNot, ...(healthy !== undefined ? { healthy } : {}) });
}
