/**
 * Whether a pattern's hit in a statement is **affirmed** (design §12b): said as a claim, not
 * negated ("not", "no", "isn't", "rule out"), dismissed ("is fine", "is not the problem",
 * "is correct" said of it) or put as a hypothesis ("whether", "if it were"). Pure.
 *
 * A negation word counts against a hit when it stands a few words before it in the same clause,
 * or inside the hit without the pattern needing it ("password is **not** wrong" still matches
 * `password.{0,40}wrong` with "not" taken out, so the "not" is the answer's, not the pattern's;
 * "does not exist" in `does ?n[o']t exist` is the pattern's own). A dismissal counts when it
 * follows the hit within a few words.
 */

export type HitReason = 'affirmed' | 'negated' | 'dismissed' | 'hypothetical';
export type HitReading = { reason: HitReason; cue: string | null };

/** Words that negate what follows them. */
export const NEGATORS =
  /\b(?:not|no|never|none|nothing|nobody|neither|nor|without|cannot|can't|won't|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|hasn't|haven't|hadn't|shouldn't|couldn't|wouldn't|ruled? out|rules out|ruling out|excluded?|excludes|instead of|rather than|unlike|no sign of|no evidence of|nothing to do with|free of|far from|false alarm)\b/gi;

/** How many words before a hit a negator still reaches. */
const NEGATOR_REACH_WORDS = 7;

const HYPOTHESIS_BEFORE = /\b(?:whether|in case|suppose|supposing|assuming|hypothetically)\b/i;
/** "If X were …, …": a counterfactual (a plain "if you raise the limit" is advice, and counts). */
const COUNTERFACTUAL = /\b(?:were|would|had been|could be|might be)\b/i;

/** What follows a hit and takes it back: "X is fine", "X is not the cause", "X can be ruled out", "X won't help". */
const DISMISSAL_AFTER = new RegExp(
  String.raw`^[\s,'"\x60)\]]*(?:[\w./=:-]+\s+){0,4}?(?:` +
    [
      String.raw`(?:is|are|was|were|looks?|seems?|appears?|remains?|stays?)\s+(?:to be\s+)?(?:all\s+|completely\s+|perfectly\s+|totally\s+|actually\s+|still\s+)?(?:fine|ok|okay|healthy|correct|right|normal|expected|valid|unrelated|irrelevant|harmless|benign|good|working|in order|unaffected|a red herring|not (?:the|a|an)\s+(?:\w+\s+)?(?:cause|problem|issue|culprit|reason|concern)|not (?:related|relevant|involved|responsible|to blame|it|wrong|at fault|the issue|an issue|a problem|the problem))\b`,
      String.raw`(?:isn't|aren't|wasn't|weren't)\s+(?:the|a|an)?\s*(?:\w+\s+)?(?:cause|problem|issue|culprit|reason|concern|wrong|involved|responsible|related|relevant|to blame|at fault)\b`,
      String.raw`(?:can|could|should|may)\s+be\s+(?:ruled out|ignored|excluded|dismissed)\b`,
      String.raw`(?:has|have|had)\s+nothing to do with\b`,
      String.raw`(?:checks?|checked) out\b`,
      String.raw`(?:won't|will not|would not|wouldn't|doesn't|does not|did not|didn't)\s+(?:help|fix|solve|matter|change anything|work|apply)\b`,
      String.raw`(?:is|are|was|were)\s+(?:not|n't)\s+(?:an?\s+)?(?:issue|problem|factor)\b`,
      String.raw`(?:is|are|was|were)\s+(?:not\s+(?:needed|necessary|required)|unnecessary)\b`,
      String.raw`(?:is|are|was|were)\s+(?:only|just|merely)\s+(?:a\s+)?(?:warning|noise|cosmetic|informational|symptom)\b`,
      String.raw`(?<=:\s*)(?:none|nothing|zero|no|0|ok|fine)\b(?=\s*(?:[.,;!)]|$))`,
      // Meant so: "data-sandbox-db-0 is Pending by design".
      String.raw`(?:by design|on purpose|intentionally|deliberately|as (?:intended|designed))\b`,
      // History, not a fault now: "is a leftover from five days ago", "is five days old", "dates from the reboot".
      String.raw`(?:is|are|was|were)\s+(?:just\s+|only\s+|merely\s+|simply\s+)?(?:an?\s+)?(?:old\s+)?(?:leftovers?|left over|history|historical|stale|old news)\b`,
      String.raw`(?:is|are)\s+(?:\w+\s+)?(?:days?|weeks?|months?)\s+old\b`,
      String.raw`dat(?:e|es|ed|ing)\s+(?:back\s+)?(?:from|to)\b`,
      String.raw`(?:is|are|was|were)\s+(?:all\s+)?from\s+(?:the\s+|a\s+|an\s+)?(?:[\w-]+\s+){0,3}?(?:days?|weeks?|months?)\s+ago\b`,
    ].join('|') +
    ')',
  'i',
);

/** The dismissing words of a dismissal match, without the subject before them ("is fine", "can be ruled out"). */
function dismissalCue(match: string): string {
  const predicate = /\b(?:is|are|was|were|isn't|aren't|wasn't|weren't|looks?|seems?|appears?|remains?|stays?|can|could|should|may|has|have|had|checks?|checked|won't|will|would|wouldn't|doesn't|does|did|didn't)\b[\s\S]*$/i.exec(match);
  return (predicate ? predicate[0] : match).trim();
}

/** An age said of the thing just before the hit: "the **old** evicted pod". */
const HISTORY_BEFORE = /\b(?:old|stale|leftover|left-over|historical|long-gone)\s+$/i;

/** "No," or "Nope," opening a statement answers the question asked; it does not negate what follows. */
const ANSWER_WORD = /^\s*(?:no|nope|nah)\s*[,!:;]\s*/i;

/** The statement with an opening answer word blanked (same length, so positions hold). */
function withoutAnswerWord(statement: string): string {
  return statement.replace(ANSWER_WORD, (word) => ' '.repeat(word.length));
}

function wordsBefore(text: string, at: number): string {
  const before = text.slice(0, at);
  const words = before.split(/\s+/);
  return words.slice(Math.max(0, words.length - NEGATOR_REACH_WORDS - 1)).join(' ');
}

/** The first negator in `text` the pattern does not own (removing it, the hit no longer matches). */
function unownedNegator(text: string, pattern: RegExp): string | null {
  for (const m of text.matchAll(NEGATORS)) {
    const at = m.index ?? 0;
    const without = `${text.slice(0, at)}${text.slice(at + m[0].length)}`.replace(/\s{2,}/g, ' ');
    pattern.lastIndex = 0;
    if (pattern.test(without)) return m[0];
  }
  return null;
}

/** The negators in a plain string (no pattern owns any). */
function anyNegator(text: string): string | null {
  NEGATORS.lastIndex = 0;
  const m = NEGATORS.exec(text);
  NEGATORS.lastIndex = 0;
  return m ? m[0] : null;
}

/**
 * Reads one hit: `text` is the clause (an opening "No," answers the question and negates
 * nothing), [start, end) the hit, `pattern` the pattern that hit (a fresh non-global RegExp),
 * `sentenceAfter` the rest of the sentence after the hit (a dismissal may follow past a clause
 * break: "Problems found: none"). A hit said to be old or meant so ("the old evicted pod", "is a
 * leftover from five days ago", "is Pending by design") is dismissed: history, not a fault now.
 */
export function readHit(text: string, start: number, end: number, pattern: RegExp, sentenceAfter: string): HitReading {
  const statement = start > 0 ? withoutAnswerWord(text) : text;
  const before = wordsBefore(statement, start);
  const negatorBefore = anyNegator(before);
  if (negatorBefore) return { reason: 'negated', cue: negatorBefore };
  const inside = unownedNegator(statement.slice(start, end), pattern);
  if (inside) return { reason: 'negated', cue: inside };
  const hypothesis = HYPOTHESIS_BEFORE.exec(statement.slice(0, start)) ?? (/\bif\b/i.test(statement.slice(0, start)) && COUNTERFACTUAL.test(statement) ? ['if'] : null);
  if (hypothesis) return { reason: 'hypothetical', cue: hypothesis[0] };
  const dismissal = DISMISSAL_AFTER.exec(sentenceAfter);
  if (dismissal) return { reason: 'dismissed', cue: dismissalCue(dismissal[0]) };
  const age = HISTORY_BEFORE.exec(statement.slice(0, start));
  if (age) return { reason: 'dismissed', cue: age[0].trim() };
  return { reason: 'affirmed', cue: null };
}

/** A statement's own tone, where no pattern hit it: the first negation or dismissal it holds. */
export function toneOf(statement: string): HitReading {
  const negator = anyNegator(statement);
  if (negator) return { reason: 'negated', cue: negator };
  const dismissal = DISMISSAL_AFTER.exec(statement);
  if (dismissal) return { reason: 'dismissed', cue: dismissalCue(dismissal[0]) };
  return { reason: 'affirmed', cue: null };
}
