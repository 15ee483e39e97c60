import { describe, expect, it } from 'vitest';
import { CAUSE_CATEGORIES } from '../../../shared/suites';
import { parseAnswerVerdict } from '../../../shared/verdict';
import { FALLBACK_SYSTEM_PROMPT, SYSTEM_PROMPT, VERDICT_INSTRUCTIONS } from './prompts';

describe('the built-in agent’s prompts', () => {
  it('ask for the verdict block with every cause category, with tools and without', () => {
    for (const prompt of [SYSTEM_PROMPT, FALLBACK_SYSTEM_PROMPT]) {
      expect(prompt).toContain(VERDICT_INSTRUCTIONS);
      for (const category of CAUSE_CATEGORIES.filter((c) => c !== 'none')) expect(prompt).toContain(category);
    }
  });

  it('describe a block the scorer reads: the shape shown, filled in, parses', () => {
    const shape = /```json\n(.*)\n```/.exec(VERDICT_INSTRUCTIONS)?.[1] ?? '';
    const filled = shape.replace('<category>', 'oom-killed').replace('kind/namespace/name', 'deployment/analytics/report-worker').replace('<one sentence>', 'raise the limit');
    expect(parseAnswerVerdict(`report-worker is OOMKilled.\n\n\`\`\`json\n${filled}\n\`\`\``)).toEqual({
      verdict: { healthy: false, causes: [{ category: 'oom-killed', objects: ['deployment/analytics/report-worker'] }], fix: 'raise the limit' },
    });
  });
});
