import { CAUSE_CATEGORIES, parseAnswerVerdict, type CauseCategory, type GroundTruthVerdict, type Scenario, type Suite } from '../../../shared';

/**
 * The answer's structured verdict as the job page shows it (design §12b): read with the shared
 * parser (shared/verdict.ts), each cause worded from the shared taxonomy, and the suite scenario a
 * job asked (same snapshot, same question) found among the suites, so its ground truth can score it.
 */

/** The taxonomy in words, for people: the ids stay beside them (they are what a verdict block writes). */
export const CATEGORY_WORDS: Record<CauseCategory, string> = {
  'crash-loop': 'crash loop',
  'bad-config': 'bad configuration',
  'image-pull': 'image cannot be pulled',
  'oom-killed': 'out of memory (OOMKilled)',
  'unschedulable-resources': 'unschedulable: not enough CPU or memory',
  'unschedulable-volume': 'unschedulable: volume cannot bind',
  'probe-failure': 'failing probe',
  'service-no-endpoints': 'service without endpoints',
  'network-policy': 'blocked by a NetworkPolicy',
  dns: 'DNS',
  'node-pressure': 'node pressure or not ready',
  'job-failure': 'job failure',
  quota: 'resource quota',
  rbac: 'RBAC permission',
  none: 'no cause (healthy)',
};

const KNOWN = new Set<string>(CAUSE_CATEGORIES);

export type CauseView = { category: string; words: string | null; objects: readonly string[] };

export type VerdictView =
  | { state: 'read'; healthy: boolean; causes: readonly CauseView[]; fix: string | null }
  | { state: 'missing' | 'malformed'; reason: string };

/** A category id in words; null when the id is not in the taxonomy (it is shown as written, flagged). */
export function categoryWords(category: string): string | null {
  return KNOWN.has(category) ? CATEGORY_WORDS[category as CauseCategory] : null;
}

/** The answer's verdict block, read; or why there is none, in the page's words. */
export function verdictView(answer: string): VerdictView {
  const read = parseAnswerVerdict(answer);
  if ('error' in read) {
    if (read.error === 'no verdict block') return { state: 'missing', reason: 'The answer does not end with a verdict block (a fenced JSON block with healthy, causes and fix).' };
    return { state: 'malformed', reason: `The answer has a verdict block, but it does not read: ${read.error.replace(/^the verdict block /, '')}.` };
  }
  const v = read.verdict;
  const causes = v.causes.filter((c) => !(v.healthy && c.category === 'none')).map((c) => ({ category: c.category, words: categoryWords(c.category), objects: c.objects }));
  const fix = v.fix?.trim() ? v.fix.trim() : null;
  return { state: 'read', healthy: v.healthy, causes, fix };
}

/** The scenario a job asked: a suite scenario on the same snapshot with the same question (spaces aside). */
export function findScenario(suites: readonly Suite[], snapshotId: string | undefined | null, question: string): { suite: Suite; scenario: Scenario } | null {
  if (!snapshotId) return null;
  const asked = question.trim().replace(/\s+/g, ' ');
  for (const suite of suites) {
    const scenario = suite.scenarios.find((s) => s.snapshot_id === snapshotId && s.question.trim().replace(/\s+/g, ' ') === asked);
    if (scenario) return { suite, scenario };
  }
  return null;
}

/** A ground truth in one line: "healthy", or each cause with its objects. */
export function groundTruthWords(truth: GroundTruthVerdict | undefined): string | null {
  if (!truth) return null;
  if (truth.healthy) return 'healthy: nothing is wrong';
  return truth.causes.map((c) => `${CATEGORY_WORDS[c.category]} on ${c.objects.join(', ') || 'any object'}`).join('; and ');
}
