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

  it('an unknown code is shown as it is, without advice', () => {
    expect(text({ error: 'boom', error_code: 'something_new', message: 'failed' })).toEqual({ head: 'Failed (something_new): boom', next: null });
  });
});
