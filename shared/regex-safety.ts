/**
 * Patterns that could freeze a scorer (issue 34 item 1): JavaScript's regular expressions
 * backtrack, and some shapes take exponential time on a short answer — `(\w+\s?)+$` on a 40-letter
 * pod name runs for hours. A suite is refused when stored or imported if a pattern has:
 *
 * - a **nested quantifier**: a group repeated (`+`, `*`, `{n,m}`) that holds a variable repeat
 *   (`(\w+\s?)+`, `(a{1,3})*`, `(?:\w+\s+){0,3}`);
 * - **overlapping alternatives under a repeat**: `(\w|\d)+`, `(a|ab)*`, where each character can be
 *   taken more than one way;
 * - more than two unbounded repeats of a class that matches nearly everything (`.*`, `\S+`,
 *   `[^x]*`), which is polynomial but still seconds on a long statement.
 *
 * Bounded gaps (`.{0,60}`) and optional atoms (`s?`) are fine. Scoring also runs off the main
 * thread with a time limit, for any pattern this check lets through. Pure, shared/ only.
 */

type Quantifier = { min: number; max: number };

type FirstChar = { kind: 'literal'; char: string } | { kind: 'class'; name: string } | { kind: 'any' } | { kind: 'none' };

type Atom = { first: FirstChar; broad: boolean; variableInside: boolean; alternatives: FirstChar[] | null };

type Frame = { alternatives: FirstChar[]; current: Atom[]; variableInside: boolean };

const BROAD_ESCAPES = new Set(['w', 'W', 's', 'S', 'd', 'D']);

/** Pairs of escapes that share no character (sorted by code point): \d and \s, \s and \w, … */
const DISJOINT_ESCAPES = new Set(['ds', 'sw', 'Wd', 'Ww', 'Dd', 'Ss']);

function contains(cls: string, char: string): boolean {
  if (cls.startsWith('\\')) return true;
  try {
    return new RegExp(cls.length === 1 ? `\\${cls}` : cls, 'i').test(char);
  } catch {
    return true;
  }
}

/** Whether two alternatives' first characters can be the same (conservative: unsure means yes). */
function classOverlap(a: FirstChar, b: FirstChar): boolean {
  if (a.kind === 'none' || b.kind === 'none') return false;
  if (a.kind === 'any' || b.kind === 'any') return true;
  if (a.kind === 'literal' && b.kind === 'literal') return a.char === b.char;
  if (a.kind === 'literal' && b.kind === 'class') return contains(b.name, a.char);
  if (a.kind === 'class' && b.kind === 'literal') return contains(a.name, b.char);
  const names = [(a as { name: string }).name, (b as { name: string }).name];
  if (names.every((n) => n.length === 1)) return !DISJOINT_ESCAPES.has([...names].sort().join(''));
  return true;
}

function parseQuantifier(pattern: string, at: number): { q: Quantifier; length: number } | null {
  const c = pattern[at];
  let q: Quantifier | null = null;
  let length = 1;
  if (c === '*') q = { min: 0, max: Infinity };
  else if (c === '+') q = { min: 1, max: Infinity };
  else if (c === '?') q = { min: 0, max: 1 };
  else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
    if (!m) return null;
    const min = Number(m[1]);
    q = { min, max: m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]) };
    length = m[0].length;
  }
  if (!q) return null;
  if (pattern[at + length] === '?') length++;
  return { q, length };
}

/** Reads one escape (`\w`, `\u{1F600}`, `\p{L}`, `\k<name>`) at `at` (the backslash): its length and first character. */
function readEscape(pattern: string, at: number): { length: number; first: FirstChar; broad: boolean } {
  const c = pattern[at + 1] ?? '';
  if (BROAD_ESCAPES.has(c)) return { length: 2, first: { kind: 'class', name: c }, broad: c === 'S' || c === 'W' || c === 'D' };
  const braced = /^\\[pPu]\{[^}]*\}|^\\k<[^>]*>|^\\x[0-9a-fA-F]{2}|^\\u[0-9a-fA-F]{4}|^\\c[A-Za-z]|^\\\d+/.exec(pattern.slice(at));
  if (braced) return { length: braced[0].length, first: { kind: 'class', name: braced[0] }, broad: /^\\[pP]/.test(braced[0]) };
  if (c === 'b' || c === 'B') return { length: 2, first: { kind: 'none' }, broad: false };
  return { length: 2, first: { kind: 'literal', char: c.toLowerCase() }, broad: false };
}

function readClass(pattern: string, at: number): number {
  let i = at + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
  return i + 1 - at;
}

/** Why `pattern` may backtrack catastrophically, or null when it is safe to run. */
export function backtrackingRisk(pattern: string): string | null {
  const stack: Frame[] = [{ alternatives: [], current: [], variableInside: false }];
  let unboundedBroad = 0;
  let i = 0;
  while (i < pattern.length) {
    const frame = stack.at(-1) as Frame;
    const c = pattern[i] as string;
    let atom: Atom;
    if (c === '\\') {
      const e = readEscape(pattern, i);
      atom = { first: e.first, broad: e.broad, variableInside: false, alternatives: null };
      i += e.length;
    } else if (c === '[') {
      const length = readClass(pattern, i);
      const body = pattern.slice(i, i + length);
      atom = { first: { kind: 'class', name: body }, broad: body.startsWith('[^'), variableInside: false, alternatives: null };
      i += length;
    } else if (c === '(') {
      const head = /^\((\?(:|=|!|<=|<!|<[A-Za-z_$][\w$]*>))?/.exec(pattern.slice(i));
      stack.push({ alternatives: [], current: [], variableInside: false });
      i += head ? head[0].length : 1;
      continue;
    } else if (c === ')') {
      if (stack.length === 1) return null; // does not compile; the compile check says so
      const closed = stack.pop() as Frame;
      const alternatives = [...closed.alternatives, closed.current[0]?.first ?? { kind: 'none' as const }];
      atom = { first: alternatives[0] as FirstChar, broad: false, variableInside: closed.variableInside, alternatives };
      i++;
    } else if (c === '|') {
      frame.alternatives.push(frame.current[0]?.first ?? { kind: 'none' });
      frame.current = [];
      i++;
      continue;
    } else if (c === '^' || c === '$') {
      i++;
      continue;
    } else {
      atom = { first: c === '.' ? { kind: 'any' } : { kind: 'literal', char: c.toLowerCase() }, broad: c === '.', variableInside: false, alternatives: null };
      i++;
    }
    const quantified = parseQuantifier(pattern, i);
    const top = stack.at(-1) as Frame;
    if (quantified) {
      const { q } = quantified;
      i += quantified.length;
      if (atom.variableInside && q.max >= 2) return 'a repeated group holds a repeat of its own (a nested quantifier, as in (\\w+\\s?)+)';
      if (atom.alternatives && q.max === Infinity) {
        const alts = atom.alternatives;
        for (let a = 0; a < alts.length; a++) {
          for (let b = a + 1; b < alts.length; b++) {
            if (classOverlap(alts[a] as FirstChar, alts[b] as FirstChar)) return 'a repeated group has alternatives that can start with the same character (as in (\\w|\\d)+ or (a|ab)*)';
          }
        }
      }
      if (q.min !== q.max && q.max >= 2) top.variableInside = true;
      if (q.max === Infinity && atom.broad) unboundedBroad++;
    }
    if (atom.variableInside) top.variableInside = true;
    top.current.push(atom);
  }
  if (unboundedBroad > 2) return `${unboundedBroad} unbounded repeats of a class that matches nearly anything (.*, \\S+, [^x]*): use bounded gaps such as .{0,60}`;
  return null;
}
