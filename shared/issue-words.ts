import type { ValidationIssue } from './problems';

/**
 * Validation issues in the words of the form (or command line) the user filled in. The API
 * reports `{path, message}` with its own field names and zod's wording ("Too small: expected
 * number to be >=1", "must be >= min_dph"); a person never should see either. Every form of the
 * app and the CLI's 422 messages go through `issueInWords`, each with its own names for the
 * fields: "Max $/h must be at least Min $/h" in the app, "--marketplace-max-dph must be at least
 * --marketplace-min-dph" in a terminal.
 */

export type FieldWords = {
  /** What the user sees: a form label ("Max $/h") or an option ("--marketplace-max-dph"). */
  name: string;
  /** Shown value = API value × scale (a fraction entered as a percentage: 100). */
  scale?: number;
  /** Appended to a shown bound, e.g. " %". */
  unit?: string;
};

/** Request field → its name on this surface. Fields without an entry keep a readable version of their API name. */
export type FieldVocabulary = Readonly<Record<string, FieldWords>>;

/** The request field an issue is about: the last named segment of its path ("request.max_dph" → "max_dph"). */
export function issueField(path: string): string {
  const segments = path.split(/[./]/).filter((s) => s !== '' && s !== 'request' && s !== 'body' && !/^\d+$/.test(s));
  return segments.at(-1) ?? '';
}

function wordsOf(field: string, vocabulary: FieldVocabulary): FieldWords {
  return vocabulary[field] ?? { name: field ? field.replaceAll('_', ' ') : 'The request' };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function bound(raw: string, words: FieldWords): string {
  const n = Number(raw);
  if (!Number.isFinite(n)) return raw;
  const shown = Math.round(n * (words.scale ?? 1) * 1e6) / 1e6;
  return `${shown.toLocaleString('en-US', { maximumFractionDigits: 6 })}${words.unit ?? ''}`;
}

/** Replaces API field names inside a free-text message with their names on this surface. */
function withNames(message: string, vocabulary: FieldVocabulary): string {
  let text = message;
  // Longest first, so max_cost_usd is not half-replaced by a shorter name.
  for (const field of Object.keys(vocabulary).sort((a, b) => b.length - a.length)) {
    if (!field.includes('_')) continue;
    const words = vocabulary[field];
    if (words) text = text.replace(new RegExp(`\\b${field}\\b`, 'g'), words.name);
  }
  return text;
}

type Rule = { pattern: RegExp; say: (m: RegExpExecArray, name: string, words: FieldWords, vocabulary: FieldVocabulary) => string };

const RULES: readonly Rule[] = [
  { pattern: /^Too small: expected number to be >=(.+)$/, say: (m, name, w) => `${name} must be at least ${bound(m[1] ?? '', w)}` },
  { pattern: /^Too small: expected number to be >(.+)$/, say: (m, name, w) => `${name} must be more than ${bound(m[1] ?? '', w)}` },
  { pattern: /^Too big: expected number to be <=(.+)$/, say: (m, name, w) => `${name} must be at most ${bound(m[1] ?? '', w)}` },
  { pattern: /^Too big: expected number to be <(.+)$/, say: (m, name, w) => `${name} must be less than ${bound(m[1] ?? '', w)}` },
  { pattern: /^Too small: expected string to have >=1 characters?$/, say: (_m, name) => `${name} is required` },
  { pattern: /^Too small: expected string to have >=?(\d+) characters?$/, say: (m, name) => `${name} must have at least ${m[1]} characters` },
  { pattern: /^Too big: expected string to have <=?(\d+) characters?$/, say: (m, name) => `${name} must be at most ${m[1]} characters long` },
  { pattern: /^Too (small|big): expected array to have [<>]=?(\d+) items?$/, say: (m, name) => `${name} must have ${m[1] === 'small' ? 'at least' : 'at most'} ${m[2]} entries` },
  { pattern: /^Invalid input: expected \w+, received undefined$/, say: (_m, name) => `${name} is required` },
  { pattern: /^Invalid input: expected (number|int), received NaN$/, say: (_m, name) => `${name} must be a number` },
  { pattern: /^Invalid input: expected int, received number$/, say: (_m, name) => `${name} must be a whole number` },
  { pattern: /^Invalid input: expected (number|int), received \w+$/, say: (_m, name) => `${name} must be a number` },
  { pattern: /^Invalid input: expected boolean, received \w+$/, say: (_m, name) => `${name} must be on or off (true or false)` },
  { pattern: /^Invalid input: expected string, received \w+$/, say: (_m, name) => `${name} must be text` },
  { pattern: /^Invalid input: expected (object|array|record), received \w+$/, say: (_m, name) => `${name} has the wrong shape` },
  { pattern: /^Invalid option: expected one of (.+)$/, say: (m, name) => `${name} must be one of ${(m[1] ?? '').replaceAll('"', '').split('|').join(', ')}` },
  { pattern: /^(?:Unrecognized keys?|unknown field\(s\)):? (.+)$/i, say: (m, _name, _w, v) => `Not accepted here: ${(m[1] ?? '').replaceAll('"', '').split(/,\s*/).map((f) => wordsOf(f, v).name).join(', ')}` },
  { pattern: /^must be >= (\w+)$/, say: (m, name, _w, v) => `${name} must be at least ${wordsOf(m[1] ?? '', v).name}` },
  { pattern: /^must be > (\w+)$/, say: (m, name, w, v) => `${name} must be more than ${/^\d/.test(m[1] ?? '') ? bound(m[1] ?? '', w) : wordsOf(m[1] ?? '', v).name}` },
  { pattern: /^required when marketplace is true/, say: (_m, name) => `${name} is required to rent a GPU` },
  { pattern: /^required when marketplace is false/, say: (_m, name) => `${name} is required unless a GPU is rented` },
  { pattern: /^must not be set when marketplace is true/, say: (_m, name) => `${name} is not used when a GPU is rented: leave it empty` },
  { pattern: /no marketplace key is configured/, say: () => 'Renting a GPU needs a marketplace key: set VAST_API_KEY for the server, or add the key in Settings in the desktop app' },
  {
    pattern: /^model '([^']+)' is not in the marketplace catalog/,
    say: (m, name) => `${name} '${m[1]}' is not in the marketplace catalog, so the GPU memory it needs is unknown: pick a catalog model (the Models page lists them) or add it to the catalog`,
  },
  { pattern: /^unknown agent '([^']+)'; available: (.*)$/, say: (m, name) => `${name} '${m[1]}' is not registered here; the agents are: ${m[2]}` },
  { pattern: /^is a list of levels(.*)$/, say: (m, name) => `${name} must be a list of levels${m[1] ?? ''}` },
  { pattern: /^needs at least one level$/, say: (_m, name) => `${name} needs at least one level` },
  { pattern: /^lists level (\d+) twice$/, say: (m, name) => `${name} lists level ${m[1]} twice` },
  { pattern: /^must be at least the largest concurrency level: (.*)$/, say: (m, name) => `${name} must be at least the largest concurrency level (${m[1]})` },
  { pattern: /^\d+ more issue\(s\) not listed$/, say: (m) => m[0] },
];

/**
 * One validation issue as a sentence in the surface's words (no trailing period). An issue whose
 * message matches no known wording keeps its text, with API field names replaced.
 */
export function issueInWords(issue: ValidationIssue, vocabulary: FieldVocabulary): string {
  const field = issueField(issue.path);
  const words = wordsOf(field, vocabulary);
  const message = issue.message.trim();
  for (const rule of RULES) {
    const m = rule.pattern.exec(message);
    if (m) return capitalise(rule.say(m, words.name, words, vocabulary));
  }
  return capitalise(withNames(message, vocabulary));
}

/** The issues by request field (the first one per field), in the surface's words. */
export function issuesByField(issues: readonly ValidationIssue[], vocabulary: FieldVocabulary): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const field = issueField(issue.path);
    if (!(field in out)) out[field] = issueInWords(issue, vocabulary);
  }
  return out;
}
