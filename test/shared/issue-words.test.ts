import { describe, expect, it } from 'vitest';
import { AppSettingsSchema } from '../../shared/settings';
import { JOB_REQUEST_SCHEMAS, CostEstimationRequestSchema } from '../../shared/requests';
import { zodIssuesToValidation } from '../../shared/problems';
import { issueField, issueInWords, issuesByField, type FieldVocabulary } from '../../shared/issue-words';

const FORM: FieldVocabulary = {
  min_dph: { name: 'Min $/h' },
  max_dph: { name: 'Max $/h' },
  reliability: { name: 'Reliability (%)', scale: 100, unit: ' %' },
  backend_warmup_timeout: { name: 'Warm-up timeout (s)' },
  question: { name: 'Question' },
  model: { name: 'Model' },
  template_hash: { name: 'Template' },
  agent: { name: 'Agent' },
  max_cost_usd: { name: 'Spend limit ($)' },
};
const CLI: FieldVocabulary = { min_dph: { name: '--marketplace-min-dph' }, max_dph: { name: '--marketplace-max-dph' }, template_hash: { name: '--marketplace-template' } };

/** zod's own wording, which no person should read. */
const ZOD_WORDING = /Too (small|big)|expected (number|string|int|boolean)|received|>=|<=|Invalid input|Unrecognized/;

describe('validation issues in the words of the form', () => {
  it('says the cross-field rule with both labels, in the app and on the command line', () => {
    const issue = { path: 'request.max_dph', message: 'must be >= min_dph' };
    expect(issueInWords(issue, FORM)).toBe('Max $/h must be at least Min $/h');
    expect(issueInWords(issue, CLI)).toBe('--marketplace-max-dph must be at least --marketplace-min-dph');
  });

  it('turns every zod issue of the request schemas into plain words, scaled to the unit the form uses', () => {
    const bad = JOB_REQUEST_SCHEMAS.benchmark.safeParse({ question: '', model: 'bad model', marketplace: true, min_dph: -1, max_dph: 2000, reliability: 2, backend_warmup_timeout: 0, agent: 'X', max_cost_usd: 0, extra: 1 });
    expect(bad.success).toBe(false);
    const words = issuesByField(zodIssuesToValidation(bad.error?.issues ?? []), FORM);
    expect(words).toMatchObject({
      min_dph: 'Min $/h must be at least 0',
      max_dph: 'Max $/h must be at most 1,000',
      reliability: 'Reliability (%) must be at most 100 %',
      backend_warmup_timeout: 'Warm-up timeout (s) must be at least 1',
      question: 'Question is required',
      model: 'Model names use letters, digits and . _ : / -',
      agent: 'Agent names are lower-case letters, digits, _ and -',
      max_cost_usd: 'Spend limit ($) must be more than 0',
      '': 'Not accepted here: extra',
    });
    for (const text of Object.values(words)) expect(text).not.toMatch(ZOD_WORDING);
  });

  it('missing, mistyped and marketplace-only fields', () => {
    const missing = JOB_REQUEST_SCHEMAS['agentic-agent'].safeParse({ backend_warmup_timeout: Number.NaN, backend_warmup: 'yes' });
    const words = issuesByField(zodIssuesToValidation(missing.error?.issues ?? []), FORM);
    expect(words.question).toBe('Question is required');
    expect(words.backend_warmup_timeout).toBe('Warm-up timeout (s) must be a number');
    expect(words.backend_warmup).toBe('Backend warmup must be on or off (true or false)');
    const market = JOB_REQUEST_SCHEMAS.benchmark.safeParse({ question: 'q', model: 'm', marketplace: true, backend_url: 'http://x' });
    const m = issuesByField(zodIssuesToValidation(market.error?.issues ?? []), FORM);
    expect(m.template_hash).toBe('Template is required to rent a GPU');
    expect(m.max_dph).toBe('Max $/h is required to rent a GPU');
    expect(m.backend_url).toBe('Backend url is not used when a GPU is rented: leave it empty');
    expect(issueInWords({ path: 'estimated_duration_seconds', message: 'Invalid input: expected int, received number' }, {})).toBe('Estimated duration seconds must be a whole number');
  });

  it('the estimate and settings schemas too', () => {
    const est = CostEstimationRequestSchema.safeParse({ min_dph: 2, max_dph: 1 });
    expect(issuesByField(zodIssuesToValidation(est.error?.issues ?? []), FORM).max_dph).toBe('Max $/h must be at least Min $/h');
    const settings = AppSettingsSchema.partial().safeParse({ concurrency: 0, default_backend_url: 'ftp://x' });
    const words = issuesByField(zodIssuesToValidation(settings.error?.issues ?? []), { concurrency: { name: 'Jobs at once' }, default_backend_url: { name: 'Default backend' } });
    expect(words).toEqual({ concurrency: 'Jobs at once must be at least 1', default_backend_url: 'An http(s) URL, e.g. http://127.0.0.1:11434' });
  });

  it("the server's own checks: unknown agent, no key, a model outside the catalog (no API path shown)", () => {
    expect(issueInWords({ path: 'agent', message: "unknown agent 'nope'; available: builtin, holmes" }, FORM)).toBe("Agent 'nope' is not registered here; the agents are: builtin, holmes");
    expect(issueInWords({ path: 'marketplace', message: 'marketplace is true but no marketplace key is configured (set VAST_API_KEY)' }, FORM)).toMatch(/^Renting a GPU needs a marketplace key/);
    const catalog = issueInWords({ path: 'model', message: "model 'x:1b' is not in the marketplace catalog, so its GPU memory need is unknown; add it to the catalog in settings (GET /v1/catalog/marketplace-models lists it)" }, FORM);
    expect(catalog).toContain("Model 'x:1b' is not in the marketplace catalog");
    expect(catalog).not.toContain('/v1/');
    // An unknown wording keeps its text, with field names replaced.
    expect(issueInWords({ path: 'template_hash', message: 'template_hash is an identifier of letters, digits, _ and -' }, FORM)).toBe('Template is an identifier of letters, digits, _ and -');
  });

  it('finds the field in nested paths', () => {
    expect(issueField('request.max_dph')).toBe('max_dph');
    expect(issueField('body/judge/model')).toBe('model');
    expect(issueField('models.0')).toBe('models');
    expect(issueField('')).toBe('');
  });
});
