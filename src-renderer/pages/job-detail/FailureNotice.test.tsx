// @vitest-environment happy-dom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { FailureNotice } from './FailureNotice';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function text(job: { error: string | null; error_code: string | null; message: string }): { head: string; next: string | null } {
  const container = document.createElement('div');
  const root = createRoot(container);
  act(() => root.render(<FailureNotice job={job} />));
  const out = {
    head: container.querySelector('[data-testid="job-error"] p')?.textContent ?? '',
    next: container.querySelector('[data-testid="job-error-next"]')?.textContent ?? null,
  };
  act(() => root.unmount());
  return out;
}

describe('FailureNotice', () => {
  it('words each agent failure by its error code, with what to do next', () => {
    const cases = {
      agent_not_installed: [/not installed/, /Install the agent program/],
      agent_timeout: [/did not answer in time/, /BENCHDESK_AGENT_TIMEOUT_S/],
      agent_bad_output: [/cannot read/, /driver protocol/],
      agent_failed: [/The agent failed/, /reported an error/],
    } as const;
    for (const [code, [title, next]] of Object.entries(cases)) {
      const shown = text({ error: "driver 'holmes' said no", error_code: code, message: 'failed' });
      expect(shown.head, code).toMatch(title);
      expect(shown.head).toContain(`(${code})`);
      expect(shown.head).toContain("driver 'holmes' said no");
      expect(shown.next, code).toMatch(next);
    }
  });

  it('the failures a run meets most (backend, model, marketplace) say what happened and what to do, without API field names', () => {
    const cases = {
      llmserver_unreachable: [/The llmserver did not answer/, /backend URL/],
      model_not_found: [/not on the llmserver/, /ollama pull/],
      no_offers: [/No offer fits/, /Nothing was rented.*Raise Max \$\/h/],
      template_not_found: [/template does not exist/, /Nothing was rented/],
      budget_exceeded: [/Spend limit reached/, /its spend limit/],
    } as const;
    for (const [code, [title, next]] of Object.entries(cases)) {
      const shown = text({ error: 'why', error_code: code, message: 'failed' });
      expect(shown.head, code).toMatch(title);
      expect(shown.next, code).toMatch(next);
      expect(shown.next, code).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    }
  });

  it('an unknown code is shown as it is, without advice', () => {
    expect(text({ error: 'boom', error_code: 'something_new', message: 'failed' })).toEqual({ head: 'Failed (something_new): boom', next: null });
  });
});
