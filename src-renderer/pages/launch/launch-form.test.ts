import { describe, expect, it } from 'vitest';
import { DEFAULT_DRAFT, buildRequest, estimateFor, fieldErrorsOf, validateDraft, type LaunchDraft } from './launch-form';

const draft = (patch: Partial<LaunchDraft>): LaunchDraft => ({ ...DEFAULT_DRAFT, ...patch });

describe('launch form validation (the shared job schemas)', () => {
  it('reports each missing field on its own form field', () => {
    const { input, errors } = validateDraft('benchmark', draft({ question: '', model: '' }));
    expect(input).toBeNull();
    expect(errors.question).toBeTruthy();
    expect(errors.model).toBeTruthy();
    expect(errors.backend_url).toBeUndefined();
  });

  it('shows a cross-field rule (max_dph >= min_dph) even while other fields are still empty', () => {
    const { errors } = validateDraft('benchmark', draft({ target: 'marketplace', min_dph: '0.5', max_dph: '0.1' }));
    expect(errors.question).toBeTruthy();
    expect(errors.max_dph).toContain('min_dph');
  });

  it('a marketplace benchmark: percent → fraction, release by default, no backend_url', () => {
    const d = draft({ target: 'marketplace', question: 'Why?', model: 'qwen2.5:32b', max_dph: '0.5', reliability_pct: '98.5' });
    const { input, errors } = validateDraft('benchmark', d);
    expect(errors).toEqual({});
    expect(input?.kind).toBe('benchmark');
    expect(input?.request).toMatchObject({ marketplace: true, max_dph: 0.5, reliability: 0.985, marketplace_stop_instance: true, agent: 'builtin' });
    expect(input?.request).not.toHaveProperty('backend_url');
    expect(estimateFor(d)).toMatchObject({ marketplace: true, max_dph: 0.5, reliability: 0.985, model: 'qwen2.5:32b', estimated_duration_seconds: 3600 });
  });

  it('an agent run needs a backend URL and sends no marketplace fields', () => {
    expect(validateDraft('agentic-agent', draft({ question: 'q', model: 'm', backend_url: '' })).errors.backend_url).toBeTruthy();
    const body = buildRequest('agentic-agent', draft({ question: 'q', model: 'm' }));
    expect(body).not.toHaveProperty('marketplace');
    expect(body).toMatchObject({ backend_url: DEFAULT_DRAFT.backend_url, backend_warmup_timeout: 300 });
  });

  it('a non-number is "Enter a number.", not zod wording', () => {
    const { errors } = validateDraft('llm-instance', draft({ backend_warmup_timeout: '' }));
    expect(errors.backend_warmup_timeout).toBe('Enter a number.');
  });
});

describe('fieldErrorsOf', () => {
  it("puts the API's 422 issues on their form fields", () => {
    expect(fieldErrorsOf([{ path: 'agent', message: 'unknown agent "x"' }, { path: 'request.reliability', message: 'too big' }, { path: '', message: 'whole body' }])).toEqual({
      agent: 'Unknown agent "x"',
      reliability_pct: 'Too big',
    });
  });
});

describe('the cluster the agent reads: live or a recorded snapshot', () => {
  const base = { question: 'Why?', model: 'llama3.1:8b', kubeconfig: '/home/me/.kube/config' };
  it('a snapshot replaces the kubeconfig in the request', () => {
    const { input, errors } = validateDraft('agentic-agent', draft({ ...base, cluster: 'snapshot', snapshot: 'shop-3f9a1c' }));
    expect(errors).toEqual({});
    expect(input?.request).toMatchObject({ snapshot: 'shop-3f9a1c' });
    expect(input?.request).not.toHaveProperty('kubeconfig');
    expect(buildRequest('benchmark', draft({ ...base, cluster: 'snapshot', snapshot: 'shop-3f9a1c' }))).toMatchObject({ snapshot: 'shop-3f9a1c', marketplace: false });
  });
  it('choosing "snapshot" without picking one is an error on the snapshot field; a live cluster sends the kubeconfig', () => {
    expect(validateDraft('benchmark', draft({ ...base, cluster: 'snapshot' })).errors.snapshot).toMatch(/Choose a recorded snapshot/);
    expect(validateDraft('agentic-agent', draft(base)).input?.request).toMatchObject({ kubeconfig: '/home/me/.kube/config' });
    expect(fieldErrorsOf([{ path: 'snapshot', message: 'no snapshot x: list them with benchdesk snapshot list' }])).toEqual({ snapshot: 'No snapshot x: list them with benchdesk snapshot list' });
  });
});
