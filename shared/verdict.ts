import { z } from 'zod';
import { CAUSE_CATEGORIES, type CauseCategory, type GroundTruthVerdict } from './causes';

/**
 * The structured verdict (design §12b): the built-in agent ends its answer with a fenced JSON block
 * `{"healthy", "causes": [{"category", "objects"}], "fix"}`. Read leniently (the last block that
 * has "healthy", trailing commas, category spellings such as "OOMKilled" or "crash_loop",
 * objects as one string), validated with zod, and scored against the scenario's ground truth:
 * the healthy flag, and for each true cause the category and at least one of its objects.
 */

const CATEGORY_ALIASES: Record<string, CauseCategory> = {
  crashloop: 'crash-loop',
  crashloopbackoff: 'crash-loop',
  'crash-loop-backoff': 'crash-loop',
  oom: 'oom-killed',
  oomkilled: 'oom-killed',
  'out-of-memory': 'oom-killed',
  imagepullbackoff: 'image-pull',
  errimagepull: 'image-pull',
  'image-pull-backoff': 'image-pull',
  misconfiguration: 'bad-config',
  'config-error': 'bad-config',
  'readiness-probe': 'probe-failure',
  'liveness-probe': 'probe-failure',
  'no-endpoints': 'service-no-endpoints',
  'disk-pressure': 'node-pressure',
  'node-not-ready': 'node-pressure',
  'cronjob-failure': 'job-failure',
  'resource-quota': 'quota',
  healthy: 'none',
};

function categoryOf(raw: string): string {
  const key = raw.trim().toLowerCase().replace(/[\s_]+/g, '-');
  return CATEGORY_ALIASES[key] ?? CATEGORY_ALIASES[key.replace(/-/g, '')] ?? key;
}

const LenientBoolean = z.preprocess((v) => (typeof v === 'string' ? (/^(true|yes)$/i.test(v.trim()) ? true : /^(false|no)$/i.test(v.trim()) ? false : v) : v), z.boolean());

export const AnswerVerdictSchema = z.object({
  healthy: LenientBoolean,
  causes: z
    .array(
      z.object({
        category: z.string().max(100).transform(categoryOf),
        objects: z.preprocess((v) => (typeof v === 'string' ? [v] : (v ?? [])), z.array(z.string().max(400)).max(50)),
      }),
    )
    .max(20)
    .default([]),
  fix: z.string().max(4000).optional(),
});
export type AnswerVerdict = z.infer<typeof AnswerVerdictSchema>;

/** What the scorer says of an answer's verdict block: found (a valid block), correct (null without a ground truth or block). */
export const VerdictScoreSchema = z.object({ found: z.boolean(), correct: z.boolean().nullable(), detail: z.string() });
export type VerdictScore = z.infer<typeof VerdictScoreSchema>;

/** The object that opens at `start`, up to its balanced closing brace (strings skipped), or null. */
function balancedObject(text: string, start: number): string | null {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

/** The candidate JSON texts of an answer, last first: fenced blocks, then a bare object holding "healthy". */
function candidates(answer: string): string[] {
  const fenced = [...answer.matchAll(/(```|~~~)[ \t]*(?:json[c5]?)?[ \t]*\r?\n([\s\S]*?)\r?\n?\s*\1/gi)].map((m) => m[2] ?? '');
  const out = fenced.filter((t) => t.includes('healthy')).reverse();
  const key = answer.lastIndexOf('"healthy"');
  const start = key >= 0 ? answer.lastIndexOf('{', key) : -1;
  const bare = start >= 0 ? balancedObject(answer, start) : null;
  if (bare && !out.includes(bare)) out.push(bare);
  return out;
}

function parseLoose(text: string): unknown {
  const cleaned = text
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/,\s*([}\]])/g, '$1')
    .trim();
  return JSON.parse(cleaned);
}

/** The answer's verdict block, or why there is none. */
export function parseAnswerVerdict(answer: string): { verdict: AnswerVerdict } | { error: string } {
  const texts = candidates(answer);
  if (texts.length === 0) return { error: 'no verdict block' };
  let lastError = '';
  for (const text of texts) {
    let raw: unknown;
    try {
      raw = parseLoose(text);
    } catch (err) {
      lastError = `the verdict block is not JSON (${err instanceof Error ? err.message : String(err)})`;
      continue;
    }
    const parsed = AnswerVerdictSchema.safeParse(raw);
    if (parsed.success) return { verdict: parsed.data };
    lastError = `the verdict block does not read: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'block'}: ${i.message}`).join('; ')}`;
  }
  return { error: lastError };
}

type ObjectRef = { kind: string | null; namespace: string | null; name: string };

const KINDS = new Set(['pod', 'deployment', 'replicaset', 'statefulset', 'daemonset', 'job', 'cronjob', 'service', 'endpoints', 'node', 'persistentvolumeclaim', 'pvc', 'persistentvolume', 'pv', 'storageclass', 'ingress', 'configmap', 'secret', 'namespace', 'networkpolicy', 'resourcequota', 'serviceaccount', 'role', 'rolebinding']);

function refOf(text: string): ObjectRef {
  const parts = text.trim().toLowerCase().replace(/\s+/g, '').split('/').filter((p) => p !== '');
  if (parts.length >= 3) return { kind: parts[0] ?? null, namespace: parts[1] ?? null, name: parts.slice(2).join('/') };
  if (parts.length === 2) return KINDS.has(parts[0] ?? '') ? { kind: parts[0] ?? null, namespace: null, name: parts[1] ?? '' } : { kind: null, namespace: parts[0] ?? null, name: parts[1] ?? '' };
  return { kind: null, namespace: null, name: parts[0] ?? '' };
}

/** Same object, or one generated from the other (a deployment's pod, a node's short name). */
function sameObject(truth: string, answered: string): boolean {
  const a = refOf(truth);
  const b = refOf(answered);
  if (a.name === '' || b.name === '') return false;
  if (a.namespace && b.namespace && a.namespace !== b.namespace) return false;
  const [short, long] = a.name.length <= b.name.length ? [a.name, b.name] : [b.name, a.name];
  return long === short || long.startsWith(`${short}-`) || long.startsWith(`${short}.`);
}

/**
 * Categories accepted in place of the ground truth's: a wrong setting is `bad-config` as much as
 * the symptom it causes. `crash-loop` is also tolerated as an extra cause (the symptom beside its cause).
 */
const ALSO_ACCEPTED: Partial<Record<CauseCategory, readonly string[]>> = {
  'crash-loop': ['bad-config'],
  'bad-config': ['crash-loop', 'image-pull', 'probe-failure', 'service-no-endpoints', 'unschedulable-volume'],
  'image-pull': ['bad-config'],
  'probe-failure': ['bad-config'],
  'service-no-endpoints': ['bad-config'],
  'unschedulable-volume': ['bad-config'],
};

function accepted(truth: CauseCategory, answered: string): boolean {
  return truth === answered || (ALSO_ACCEPTED[truth] ?? []).includes(answered);
}

/** An answer's verdict against the ground truth: correct, with a sentence saying why (or why not). */
export function judgeVerdict(answer: AnswerVerdict, truth: GroundTruthVerdict): { correct: boolean; detail: string } {
  const known = new Set<string>(CAUSE_CATEGORIES);
  const named = answer.causes.filter((c) => c.category !== 'none');
  if (truth.healthy) {
    if (!answer.healthy) return { correct: false, detail: 'says something is wrong; the cluster is healthy' };
    if (named.length > 0) return { correct: false, detail: `says healthy but names causes (${named.map((c) => c.category).join(', ')})` };
    return { correct: true, detail: 'healthy, as it is' };
  }
  if (answer.healthy) return { correct: false, detail: `says healthy; the cause is ${truth.causes.map((c) => c.category).join(' and ')}` };
  const problems: string[] = [];
  const used = new Set<number>();
  for (const cause of truth.causes) {
    const index = named.findIndex((c, i) => !used.has(i) && accepted(cause.category, c.category) && (cause.objects.length === 0 || c.objects.some((o) => cause.objects.some((t) => sameObject(t, o)))));
    if (index >= 0) {
      used.add(index);
      continue;
    }
    const sameCategory = named.find((c) => accepted(cause.category, c.category));
    problems.push(sameCategory ? `${cause.category} named without its object (${cause.objects.join(', ')})` : `misses ${cause.category} (${cause.objects.join(', ')})`);
  }
  named.forEach((c, i) => {
    if (used.has(i) || c.category === 'crash-loop') return;
    if (truth.causes.some((t) => accepted(t.category, c.category))) return;
    problems.push(known.has(c.category) ? `names a cause that is not there: ${c.category}` : `names an unknown category: ${c.category}`);
  });
  if (problems.length > 0) return { correct: false, detail: problems.join('; ') };
  return { correct: true, detail: `names ${truth.causes.map((c) => c.category).join(' and ')} on the right object${truth.causes.length > 1 ? 's' : ''}` };
}

/** The verdict part of a score: null when the answer has no block and the scenario no ground truth. */
export function scoreVerdict(answer: string, truth: GroundTruthVerdict | undefined): VerdictScore | null {
  const read = parseAnswerVerdict(answer);
  if ('error' in read) return truth || read.error !== 'no verdict block' ? { found: false, correct: null, detail: read.error } : null;
  if (!truth) return { found: true, correct: null, detail: 'the scenario has no ground truth to check it against' };
  const { correct, detail } = judgeVerdict(read.verdict, truth);
  return { found: true, correct, detail };
}
