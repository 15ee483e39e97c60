/**
 * An answer as statements (design §12b): the units the scoring rules read. Pure and shared, so
 * the renderer can show which statements counted and why.
 *
 * - Fenced code blocks, and lines that look like raw tool output (kubectl tables and `describe`
 *   fields, log lines, shell commands, block quotes), are **quoted output**: shown, never counted.
 * - The rest is prose. A paragraph's wrapped lines are joined; list items, headings and table
 *   rows stand alone. Prose is split into sentences, and sentences into clauses at strong breaks
 *   (`;`, `: `, dashes, parentheses) and before contrast or cause words (but, because, rather
 *   than, …) and `, not` / `, no`: each clause is one statement. A colon before a number or
 *   true/false is a `key: value` pair (`replicas: 0`), not a break; a quotation in double quotes
 *   is never cut.
 */

export type StatementShape = 'prose' | 'quoted';

export type Statement = {
  text: string;
  shape: StatementShape;
  /** Ends with a question mark: asks, does not claim. */
  question: boolean;
  /** The rest of its sentence after it (a dismissal may follow a clause break: "Problems found: none"). */
  after: string;
};

/** Longest statement kept whole; longer ones are cut (scoring time stays bounded). */
export const MAX_STATEMENT_CHARS = 1500;

const FENCE = /^\s*(```|~~~)/;
const TIMESTAMP = /^\s*\[?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\d{2}:\d{2}:\d{2}[.,]\d)/;
const KLOG = /^\s*[IWEF]\d{4} \d{2}:\d{2}:\d{2}/;
const LOG_LEVEL = /^\s*\[?(FATAL|ERROR|WARN(ING)?|INFO|DEBUG|PANIC|TRACE)\b[\]:\s]/;
const KEY_VALUE_LOG = /^\s*(level|ts|time|msg|caller)=\S/;
const JSON_LINE = /^\s*\{".*\}\s*$/;
const SHELL = /^\s*(\$|#|>)?\s*(kubectl|helm|k9s|curl|aws|gcloud|az|docker|crictl)\s+\S/;
/** `kubectl describe` fields: `  Reason:       OOMKilled` (a label, a colon and aligned spaces). */
const DESCRIBE_FIELD = /^\s*[A-Za-z][\w.-]*( [A-Za-z-]+){0,3}:\s{2,}\S/;
const BLOCKQUOTE = /^\s*>/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const LIST_ITEM = /^\s*([-*+•]|\d{1,3}[.)])\s+/;
const HEADING = /^\s*#{1,6}\s+/;

/** kubectl's tables: columns aligned with runs of spaces (or tabs), at least three columns. */
function looksLikeTableLine(line: string): boolean {
  const gaps = line.trim().match(/(?<![.!?:,;])( {2,}|\t+)(?=\S)/g);
  return gaps !== null && gaps.length >= 2;
}

/** A line that is raw output of a tool, not the answer's own words. */
export function isRawOutputLine(line: string): boolean {
  return (
    TIMESTAMP.test(line) ||
    KLOG.test(line) ||
    LOG_LEVEL.test(line) ||
    KEY_VALUE_LOG.test(line) ||
    JSON_LINE.test(line) ||
    SHELL.test(line) ||
    DESCRIBE_FIELD.test(line) ||
    BLOCKQUOTE.test(line) ||
    looksLikeTableLine(line)
  );
}

type Unit = { text: string; quoted: boolean };

/** Code blocks and raw lines apart; prose joined into paragraphs, list items, headings and table rows. */
function unitsOf(answer: string): Unit[] {
  const units: Unit[] = [];
  let prose: string[] = [];
  let fence: string[] | null = null;
  const flush = () => {
    if (prose.length > 0) units.push({ text: prose.join(' '), quoted: false });
    prose = [];
  };
  for (const line of answer.replace(/\r\n?/g, '\n').split('\n')) {
    if (fence) {
      if (FENCE.test(line)) {
        units.push({ text: fence.join('\n'), quoted: true });
        fence = null;
      } else fence.push(line);
      continue;
    }
    if (FENCE.test(line)) {
      flush();
      fence = [];
      continue;
    }
    if (line.trim() === '' || TABLE_RULE.test(line)) {
      flush();
      continue;
    }
    if (TABLE_ROW.test(line)) {
      flush();
      // A Markdown table the answer wrote is its own words: one statement per row.
      const cells = line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim()).filter((c) => c !== '');
      units.push({ text: cells.join(' | '), quoted: false });
      continue;
    }
    if (isRawOutputLine(line)) {
      flush();
      units.push({ text: line.trim(), quoted: true });
      continue;
    }
    if (LIST_ITEM.test(line) || HEADING.test(line)) flush();
    prose.push(line.trim().replace(HEADING, '').replace(LIST_ITEM, ''));
  }
  // An unclosed fence runs to the end, as Markdown renders it.
  if (fence) units.push({ text: fence.join('\n'), quoted: true });
  flush();
  return units.filter((u) => u.text.trim() !== '');
}

const ABBREVIATIONS = /\b(e\.g|i\.e|etc|vs|approx|incl|resp|cf|Mr|Dr)\.$/i;

/** Sentences: after . ! ? followed by space, except after a known abbreviation. */
function sentencesOf(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const m of text.matchAll(/[.!?]+(?=\s+|$)/g)) {
    const end = (m.index ?? 0) + m[0].length;
    const piece = text.slice(start, end);
    if (m[0] === '.' && ABBREVIATIONS.test(piece)) continue;
    out.push(piece);
    start = end;
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * Where a sentence breaks into clauses: strong punctuation, and before the words that start a new
 * claim (contrast, cause, exception) or a negated afterthought (", not X").
 */
const CLAUSE_BREAK = new RegExp(
  [
    ';',
    // Not inside a `key: value` pair (`replicas: 0`, `suspend: true`, `timeoutSeconds: 1`): one fact, not two claims.
    String.raw`:(?=\s)(?!\s*(?:-?\d+(?:\.\d+)?(?:[KMGTPE]i|[kKMG]|ms|m|s|%)?|true|false)\b)`,
    '\\s[—–]\\s?',
    '\\s-{1,2}\\s',
    '[()]',
    ',?\\s+(?=(?:but|however|whereas|although|though|because|since|except|other than|apart from|besides|rather than|instead of|unlike|so that|which means|meaning)\\b)',
    String.raw`,\s*(?=(?:not|no|never|nor|neither|and|or|while|so|as|yet|it is|it's|that is|this is)\b)`,
  ].join('|'),
  'gi',
);

/** A quotation the answer cites ("… is forbidden: exceeded quota …"): one piece, never cut into clauses. */
const QUOTATION = /"[^"\n]{1,400}"|\u201c[^\u201d\n]{1,400}\u201d/g;
/** The characters a clause break needs, and stand-ins for them (private-use code points) inside quotations. */
const BREAK_CHARS = ';:()\u2014\u2013-, \t';
const STAND_IN = 0xe000;

function shieldQuotations(sentence: string): string {
  return sentence.replace(QUOTATION, (q) => [...q].map((ch) => (BREAK_CHARS.includes(ch) ? String.fromCharCode(STAND_IN + BREAK_CHARS.indexOf(ch)) : ch)).join(''));
}

function unshield(text: string): string {
  return text.replace(/[\ue000-\ue00f]/g, (ch) => BREAK_CHARS[ch.charCodeAt(0) - STAND_IN] ?? ch);
}

function clausesOf(sentence: string): string[] {
  return shieldQuotations(sentence)
    .split(CLAUSE_BREAK)
    .filter((c): c is string => typeof c === 'string')
    .map((c) => unshield(c).trim().replace(/^[,.\s]+|[,\s]+$/g, ''))
    .filter((c) => /[\p{L}\p{N}]/u.test(c) && !/^(but|however|whereas|although|though|because|since|except|rather than|instead of|unlike|so that|which means|meaning|other than|apart from|besides|not|no|never|nor|neither|and not|while|so|which|as|yet|it is|it's|that is|this is)$/i.test(c));
}

function cut(text: string): string[] {
  if (text.length <= MAX_STATEMENT_CHARS) return [text];
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += MAX_STATEMENT_CHARS) pieces.push(text.slice(at, at + MAX_STATEMENT_CHARS));
  return pieces;
}

/** The answer's statements, in order. */
export function splitStatements(answer: string): Statement[] {
  const statements: Statement[] = [];
  for (const unit of unitsOf(answer)) {
    if (unit.quoted) {
      statements.push({ text: unit.text, shape: 'quoted', question: false, after: '' });
      continue;
    }
    for (const sentence of sentencesOf(unit.text)) {
      const question = /\?\s*$/.test(sentence);
      let cursor = 0;
      for (const clause of clausesOf(sentence)) {
        const at = sentence.indexOf(clause, cursor);
        cursor = at < 0 ? cursor : at + clause.length;
        const after = sentence.slice(cursor, cursor + 200);
        for (const text of cut(clause)) statements.push({ text, shape: 'prose', question, after });
      }
    }
  }
  return statements;
}
