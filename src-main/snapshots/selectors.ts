/**
 * Kubernetes label and field selectors, as the API server parses them (apimachinery's
 * labels.Parse and fields.ParseSelector): a malformed one is a SelectorError, which the replay
 * answers with a 400 Status like the real server.
 *
 * Labels: comma-separated requirements `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`.
 * Fields: comma-separated `k=v`, `k==v`, `k!=v` (a `\` escapes `,`, `=` and `\` in a value).
 */

export class SelectorError extends Error {
  override name = 'SelectorError';
}

export type LabelPredicate = (labels: Readonly<Record<string, string>> | undefined) => boolean;
export type FieldRequirement = { field: string; op: '=' | '!='; value: string };

const LABEL_KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;
const LABEL_VALUE = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?)?$/;

type LabelRequirement =
  | { key: string; op: 'exists' | 'notexists' }
  | { key: string; op: 'in' | 'notin'; values: Set<string> }
  | { key: string; op: '=' | '!='; value: string };

/** Splits at top-level commas (not inside `( … )`). */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(selector.slice(start));
  return parts;
}

function checkKey(key: string, selector: string): string {
  if (!LABEL_KEY.test(key) || key.length > 317) throw new SelectorError(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
  return key;
}

function checkValue(value: string, selector: string): string {
  if (!LABEL_VALUE.test(value) || value.length > 63) throw new SelectorError(`unable to parse requirement: invalid label value "${value}" in selector "${selector}"`);
  return value;
}

function parseLabelRequirement(term: string, selector: string): LabelRequirement {
  const t = term.trim();
  if (t === '') throw new SelectorError(`found '', expected: identifier in selector "${selector}"`);
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(t);
  if (set) {
    const values = (set[3] ?? '').split(',').map((v) => checkValue(v.trim(), selector));
    return { key: checkKey(set[1] ?? '', selector), op: set[2] as 'in' | 'notin', values: new Set(values) };
  }
  if (t.startsWith('!')) return { key: checkKey(t.slice(1).trim(), selector), op: 'notexists' };
  const eq = /^([^!=\s]+)\s*(==|!=|=)\s*(.*)$/.exec(t);
  if (eq) return { key: checkKey(eq[1] ?? '', selector), op: eq[2] === '!=' ? '!=' : '=', value: checkValue((eq[3] ?? '').trim(), selector) };
  if (/^\S+$/.test(t)) return { key: checkKey(t, selector), op: 'exists' };
  throw new SelectorError(`unable to parse requirement: "${t}" in selector "${selector}"`);
}

/** A predicate over an object's labels; an empty or absent selector matches everything. */
export function parseLabelSelector(selector: string | undefined): LabelPredicate {
  if (selector === undefined || selector.trim() === '') return () => true;
  const requirements = splitTopLevel(selector).map((term) => parseLabelRequirement(term, selector));
  return (labels) => {
    for (const r of requirements) {
      const has = labels !== undefined && Object.hasOwn(labels, r.key);
      const value = has ? labels[r.key] : undefined;
      switch (r.op) {
        case 'exists':
          if (!has) return false;
          break;
        case 'notexists':
          if (has) return false;
          break;
        case '=':
          if (value !== r.value) return false;
          break;
        case '!=':
          if (has && value === r.value) return false;
          break;
        case 'in':
          if (!has || !r.values.has(value ?? '')) return false;
          break;
        case 'notin':
          if (has && r.values.has(value ?? '')) return false;
          break;
      }
    }
    return true;
  };
}

/** Splits at commas not escaped with `\`, and unescapes. */
function splitEscaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\' && i + 1 < text.length) {
      current += c + (text[i + 1] as string);
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** The requirements of a field selector (fields are checked against the resource by the caller). */
export function parseFieldSelector(selector: string | undefined): FieldRequirement[] {
  if (selector === undefined || selector.trim() === '') return [];
  return splitEscaped(selector, ',').map((term) => {
    const m = /^((?:[^=!\\]|\\.)*?)\s*(==|!=|=)(.*)$/.exec(term.trim());
    if (!m || !m[1]) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
    return { field: m[1].trim(), op: m[2] === '!=' ? '!=' : '=', value: unescape(m[3] ?? '') };
  });
}

/** True when every requirement holds; `read` gives a field's value ('' when absent, as the API server's field sets do). */
export function matchesFields(requirements: readonly FieldRequirement[], read: (field: string) => string): boolean {
  for (const r of requirements) {
    const actual = read(r.field);
    if (r.op === '=' ? actual !== r.value : actual === r.value) return false;
  }
  return true;
}
