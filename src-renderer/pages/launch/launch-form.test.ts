import { describe, expect, it } from 'vitest';
import { JOB_REQUEST_SCHEMAS } from '../../../shared';
import { carriedFields, carriedInWords } from './launch-carry';
import { DEFAULT_DRAFT, buildRequest, draftDefaults, draftFromRequest, estimateFor, fieldErrorsOf, validateDraft, type LaunchDraft } from './launch-form';
import { ceilingFor, needsConfirmation, type Preflight } from './spend';

const draft = (patch: Partial<LaunchDraft>): LaunchDraft => ({ ...DEFAULT_DRAFT, ...patch });
/** zod's own wording and the API's field names: never on a form. */
const NOT_THE_FORMS_WORDS = /Too (small|big)|expected (number|string|int)|received|>=|<=|min_dph|max_dph|template_hash|backend_warmup_timeout/;

describe('launch form validation (the shared job schemas, in the form’s words)', () => {
  it('reports each missing field on its own form field', () => {
    const { input, errors } = validateDraft('benchmark', draft({ question: '', model: '' }));
    expect(input).toBeNull();
    expect(errors.question).toBe('Question is required');
    expect(errors.model).toBe('Model is required');
    expect(errors.backend_url).toBeUndefined();
  });

  it('shows a cross-field rule (Max $/h ≥ Min $/h) even while other fields are still empty', () => {
    const { errors } = validateDraft('benchmark', draft({ target: 'marketplace', min_dph: '0.5', max_dph: '0.1' }));
    expect(errors.question).toBeTruthy();
    expect(errors.max_dph).toBe('Max $/h must be at least Min $/h');
    for (const text of Object.values(errors)) expect(text).not.toMatch(NOT_THE_FORMS_WORDS);
  });

  it('a marketplace benchmark: percent → fraction, hours → seconds, the spend limit, release by default, no backend_url', () => {
    const d = draft({ target: 'marketplace', question: 'Why?', model: 'qwen2.5:32b', max_dph: '0.5', reliability_pct: '98.5', hours: '2', max_cost_usd: '3' });
    const { input, errors } = validateDraft('benchmark', d);
    expect(errors).toEqual({});
    expect(input?.kind).toBe('benchmark');
    expect(input?.request).toMatchObject({ marketplace: true, max_dph: 0.5, reliability: 0.985, marketplace_stop_instance: true, agent: 'builtin', max_cost_usd: 3, estimated_duration_seconds: 7200 });
    expect(input?.request).not.toHaveProperty('backend_url');
    expect(estimateFor(d)).toMatchObject({ marketplace: true, max_dph: 0.5, reliability: 0.985, model: 'qwen2.5:32b', estimated_duration_seconds: 7200 });
    // No limit typed: none sent (the server's default applies).
    expect(buildRequest('benchmark', draft({ target: 'marketplace', max_cost_usd: '' }))).not.toHaveProperty('max_cost_usd');
    expect(validateDraft('benchmark', draft({ target: 'marketplace', question: 'q', model: 'm', max_cost_usd: '0' })).errors.max_cost_usd).toBe('Spend limit ($) must be more than 0');
  });

  it('a rented vLLM (serving): backend_api openai and no template (the server finds Vast’s “vLLM” by name); a re-run keeps the choice', () => {
    const d = draft({ target: 'marketplace', model: 'Qwen/Qwen2.5-7B-Instruct', max_dph: '1', rented_server: 'vllm' });
    const { input, errors } = validateDraft('serving-benchmark', d);
    expect(errors).toEqual({});
    expect(input?.request).toMatchObject({ marketplace: true, backend_api: 'openai', model: 'Qwen/Qwen2.5-7B-Instruct' });
    expect(input?.request).not.toHaveProperty('template_hash');
    expect(draftFromRequest(input?.request as Record<string, unknown>).rented_server).toBe('vllm');
    // Ollama (the default) — even when the API chosen for an existing server was OpenAI: the template chosen is sent, and no backend_api.
    const ollama = buildRequest('benchmark', draft({ target: 'marketplace', question: 'q', model: 'm', backend_api: 'openai' }));
    expect(ollama).toMatchObject({ template_hash: DEFAULT_DRAFT.template_hash });
    expect(ollama).not.toHaveProperty('backend_api');
  });

  it('an agent run needs a backend URL and sends no marketplace fields', () => {
    expect(validateDraft('agentic-agent', draft({ question: 'q', model: 'm', backend_url: '' })).errors.backend_url).toBe('Backend URL is required');
    const body = buildRequest('agentic-agent', draft({ question: 'q', model: 'm' }));
    expect(body).not.toHaveProperty('marketplace');
    expect(body).toMatchObject({ backend_url: DEFAULT_DRAFT.backend_url, backend_warmup_timeout: 300 });
  });

  it('a non-number says so in the form’s words', () => {
    const { errors } = validateDraft('llm-instance', draft({ backend_warmup_timeout: '' }));
    expect(errors.backend_warmup_timeout).toBe('Warm-up timeout (s) must be a number');
    expect(validateDraft('llm-instance', draft({ backend_warmup_timeout: '0' })).errors.backend_warmup_timeout).toBe('Warm-up timeout (s) must be at least 1');
  });
});

describe('fieldErrorsOf', () => {
  it("puts the API's 422 issues on their form fields, in the form's words", () => {
    expect(
      fieldErrorsOf([
        { path: 'agent', message: "unknown agent 'x'; available: builtin, holmes" },
        { path: 'request.reliability', message: 'Too big: expected number to be <=1' },
        { path: '', message: 'whole body' },
      ]),
    ).toEqual({ agent: "Agent 'x' is not registered here; the agents are: builtin, holmes", reliability_pct: 'Reliability (%) must be at most 100' });
  });
});

describe('the saved defaults and a request to edit', () => {
  it('starts from the saved backend, kubeconfig, agent and spend limit', () => {
    const d = draftDefaults({ default_backend_url: 'http://gpu-box:11434', default_kubeconfig: '/home/me/.kube/lab', default_agent: 'holmes', default_max_cost_usd: 2.5 });
    expect(d).toMatchObject({ backend_url: 'http://gpu-box:11434', kubeconfig: '/home/me/.kube/lab', agent: 'holmes', max_cost_usd: '2.5' });
    expect(draftDefaults({ default_backend_url: null, default_kubeconfig: null, default_agent: null, default_max_cost_usd: null })).toEqual(DEFAULT_DRAFT);
    expect(draftDefaults(null)).toEqual(DEFAULT_DRAFT);
  });

  it('a stored request comes back as the form it was made from (the round trip is the same request)', () => {
    const request = JOB_REQUEST_SCHEMAS.benchmark.parse({
      marketplace: true, template_hash: 'abc', min_dph: 0.1, max_dph: 0.6, reliability: 0.975, model: 'qwen2.5:32b', question: 'Why?', agent: 'k8sgpt',
      kubeconfig: '/k', marketplace_stop_instance: false, max_cost_usd: 4, estimated_duration_seconds: 5400,
    });
    const patch = draftFromRequest(request);
    expect(patch).toMatchObject({ target: 'marketplace', template_hash: 'abc', min_dph: '0.1', max_dph: '0.6', reliability_pct: '97.5', stop_instance: false, max_cost_usd: '4', hours: '1.5', agent: 'k8sgpt' });
    const again = validateDraft('benchmark', { ...DEFAULT_DRAFT, ...patch });
    expect(again.errors).toEqual({});
    expect(again.input?.request).toEqual(request);
    const existing = draftFromRequest(JOB_REQUEST_SCHEMAS['llm-instance'].parse({ backend_url: 'http://h:1', model: 'm', backend_warmup: false }));
    expect(existing).toMatchObject({ target: 'existing', backend_url: 'http://h:1', backend_warmup: false, backend_warmup_timeout: '300' });
  });

  it("a rented request without a spend limit re-runs without one, whatever today's default", () => {
    const request = JOB_REQUEST_SCHEMAS.benchmark.parse({ question: 'q', model: 'm', marketplace: true, template_hash: 'abc', min_dph: 0, max_dph: 1 });
    const defaults = draftDefaults({ default_backend_url: null, default_kubeconfig: null, default_agent: null, default_max_cost_usd: 2.5 });
    const form = { ...defaults, ...draftFromRequest(request) };
    expect(form.max_cost_usd).toBe('');
    expect(validateDraft('benchmark', form).input?.request).not.toHaveProperty('max_cost_usd');
  });
});

describe('the spend confirmation', () => {
  const live = (expected: number): Preflight => ({
    estimate: { projected_cost_usd: expected, cost_driver: 'marketplace', resource_impact: 'low', local_energy_kwh: 0, confidence_score: 0.9, warning: null, basis: 'live_offers', hours: 1, cost_range_usd: { low: expected, expected, high: expected } },
    estimateError: null,
    hours: 1,
    maxDph: 1,
    maxCost: null,
    kept: false,
  });
  it('asks always at 0, and from the threshold on otherwise', () => {
    expect(needsConfirmation(live(0.01), 0)).toBe(true);
    expect(needsConfirmation(live(0.4), 1)).toBe(false);
    expect(needsConfirmation(live(1), 1)).toBe(true);
  });
  it('asks when the cost is not known from live offers, or the machine is kept after the job', () => {
    expect(needsConfirmation({ ...live(0.1), estimate: null }, 5)).toBe(true);
    expect(needsConfirmation({ ...live(0.1), kept: true }, 5)).toBe(true);
  });
  it('raises a ceiling to a rate rounded up to the cent', () => {
    expect(ceilingFor(0.3512)).toBe(0.36);
    expect(ceilingFor(0.35)).toBe(0.35);
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
  it('"Edit and re-run" of a job that ran on a snapshot picks the same snapshot', () => {
    expect(draftFromRequest({ question: 'Why?', model: 'm', snapshot: 'shop-3f9a1c' })).toMatchObject({ cluster: 'snapshot', snapshot: 'shop-3f9a1c' });
    expect(draftFromRequest({ question: 'Why?', model: 'm', kubeconfig: '/k' })).not.toHaveProperty('cluster');
  });
  it('choosing "snapshot" without picking one is an error on the snapshot field; a live cluster sends the kubeconfig', () => {
    expect(validateDraft('benchmark', draft({ ...base, cluster: 'snapshot' })).errors.snapshot).toMatch(/Choose a recorded snapshot/);
    expect(validateDraft('agentic-agent', draft(base)).input?.request).toMatchObject({ kubeconfig: '/home/me/.kube/config' });
    expect(fieldErrorsOf([{ path: 'snapshot', message: 'no snapshot x: list them with benchdesk snapshot list' }])).toEqual({ snapshot: 'No snapshot x: list them with benchdesk snapshot list' });
  });
});

describe('the serving benchmark form', () => {
  const serving: LaunchDraft = { ...DEFAULT_DRAFT, model: 'llama3.1:8b', concurrency: '1, 2, 4', requests_per_level: '8', output_tokens: '64', prompt_tokens: '128', warmup_requests: '1' };

  it('builds the request the API takes, with the levels as a list', () => {
    const { input, errors } = validateDraft('serving-benchmark', serving);
    expect(errors).toEqual({});
    expect(input).toMatchObject({ kind: 'serving-benchmark', request: { model: 'llama3.1:8b', concurrency: [1, 2, 4], requests_per_level: 8, output_tokens: 64, prompt_tokens: 128, warmup_requests: 1, marketplace: false } });
  });

  it('names the field of each refused value in the form’s words', () => {
    expect(validateDraft('serving-benchmark', { ...serving, concurrency: '0, 2' }).errors.concurrency).toBe('Concurrency levels must be at least 1');
    expect(validateDraft('serving-benchmark', { ...serving, concurrency: '2, 2' }).errors.concurrency).toBe('Concurrency levels lists level 2 twice');
    expect(validateDraft('serving-benchmark', { ...serving, concurrency: '1, 16' }).errors.requests_per_level).toBe(
      'Requests per level must be at least the largest concurrency level (level 16 keeps 16 requests in flight)',
    );
    expect(validateDraft('serving-benchmark', { ...serving, output_tokens: '0' }).errors.output_tokens).toBe('Output tokens must be at least 1');
  });

  it('on the marketplace, prices the plan’s length instead of a typed duration', () => {
    const rented = { ...serving, target: 'marketplace' as const, max_dph: '0.5', hours: 'junk' };
    const { input, errors } = validateDraft('serving-benchmark', rented);
    expect(errors).toEqual({});
    const seconds = (input?.request as { estimated_duration_seconds?: number }).estimated_duration_seconds;
    expect(seconds).toBeGreaterThan(600);
    expect(estimateFor(rented, 'serving-benchmark').estimated_duration_seconds).toBe(seconds);
  });

  it('fills the form back from a stored request (Edit and re-run)', () => {
    expect(draftFromRequest({ model: 'm', concurrency: [1, 8], requests_per_level: 16, prompt_tokens: 512, output_tokens: 32, warmup_requests: 0 })).toMatchObject({
      concurrency: '1, 8',
      requests_per_level: '16',
      prompt_tokens: '512',
      output_tokens: '32',
      warmup_requests: '0',
    });
  });
});

describe('switching kind', () => {
  const offer = draft({ target: 'marketplace', model: 'qwen2.5:32b', min_dph: '0.05', max_dph: '0.24', reliability_pct: '98', hours: '2', question: 'why?' });
  it('carries the offer (model, price range, rent mode) between kinds that rent, never the question', () => {
    const patch = carriedFields(offer, 'benchmark', 'llm-instance');
    expect(patch).toEqual({ target: 'marketplace', model: 'qwen2.5:32b', min_dph: '0.05', max_dph: '0.24', reliability_pct: '98', hours: '2' });
    expect(carriedInWords(patch ?? {})).toBe('model, price range, rent mode, reliability and duration');
  });
  it('to an agent run (which cannot rent) only the model; nothing when nothing was set', () => {
    expect(carriedFields(offer, 'benchmark', 'agentic-agent')).toEqual({ model: 'qwen2.5:32b' });
    expect(carriedFields(DEFAULT_DRAFT, 'benchmark', 'llm-instance')).toBeNull();
  });
});
