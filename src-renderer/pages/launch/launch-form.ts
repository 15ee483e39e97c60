import {
  DEFAULT_ESTIMATED_DURATION_S,
  DEFAULT_RELIABILITY,
  DEFAULT_WARMUP_TIMEOUT_S,
  JOB_REQUEST_SCHEMAS,
  SERVING_DEFAULTS,
  issueInWords,
  zodIssuesToValidation,
  type AppSettings,
  type CreateJobInput,
  type FieldVocabulary,
  type JobKind,
  type ValidationIssue,
} from '../../../shared';
import { levelsOf, servingPlanEstimate } from './serving-estimate';
import {
  BACKEND_API_DRAFT_DEFAULTS,
  SERVING_DRAFT_DEFAULTS,
  SERVING_REQUEST_FIELDS,
  SERVING_WORDS,
  backendApiRequest,
  servingDraftFromRequest,
  servingWorkload,
  type BackendApiDraft,
  type ServingDraft,
} from './serving-draft';

/** The Vast.ai template that runs Ollama (the one the CLI's examples use). */
export const DEFAULT_TEMPLATE_HASH = '4e17788f74f075dd9aab7d0d4427968f';
export const DEFAULT_BACKEND_URL = 'http://127.0.0.1:11434';

/** The launch form as typed: strings for numbers, so half-typed input survives. */
export type LaunchDraft = ServingDraft & BackendApiDraft & {
  question: string;
  model: string;
  agent: string;
  kubeconfig: string;
  /** The cluster the agent reads: a live one (kubeconfig) or a recorded snapshot, served for the job's life. */
  cluster: 'live' | 'snapshot';
  /** A snapshot id when cluster is 'snapshot'. */
  snapshot: string;
  target: 'marketplace' | 'existing';
  backend_url: string;
  backend_warmup: boolean;
  backend_warmup_timeout: string;
  template_hash: string;
  min_dph: string;
  max_dph: string;
  reliability_pct: string;
  stop_instance: boolean;
  /** The server on a rented machine: Ollama from the template chosen, or vLLM (sent as backend_api openai). */
  rented_server: 'ollama' | 'vllm';
  /** Per-job spend limit in $; empty = none. */
  max_cost_usd: string;
  /** How long the machine is expected to be held: priced before launch, sent as estimated_duration_seconds. */
  hours: string;
  /** Serving benchmark: the concurrency levels as typed ("1, 2, 4, 8"). */
  concurrency: string;
  requests_per_level: string;
  prompt_tokens: string;
  output_tokens: string;
  warmup_requests: string;
};

export type DraftField = keyof LaunchDraft;

/** The form with nothing saved in Settings. */
export const DEFAULT_DRAFT: LaunchDraft = {
  ...SERVING_DRAFT_DEFAULTS,
  ...BACKEND_API_DRAFT_DEFAULTS,
  question: '',
  model: '',
  agent: 'builtin',
  kubeconfig: '',
  cluster: 'live',
  snapshot: '',
  target: 'existing',
  backend_url: DEFAULT_BACKEND_URL,
  backend_warmup: true,
  backend_warmup_timeout: String(DEFAULT_WARMUP_TIMEOUT_S),
  template_hash: DEFAULT_TEMPLATE_HASH,
  min_dph: '0',
  max_dph: '1',
  reliability_pct: String(DEFAULT_RELIABILITY * 100),
  stop_instance: true,
  rented_server: 'ollama',
  max_cost_usd: '',
  hours: '1',
  concurrency: SERVING_DEFAULTS.concurrency.join(', '),
  // Empty: each level's default, several waves of its concurrency.
  requests_per_level: '',
  prompt_tokens: String(SERVING_DEFAULTS.prompt_tokens),
  output_tokens: String(SERVING_DEFAULTS.output_tokens),
  warmup_requests: String(SERVING_DEFAULTS.warmup_requests),
};

/** The form as the saved settings start it: default backend, kubeconfig, agent and spend limit. */
export function draftDefaults(settings: Pick<AppSettings, 'default_backend_url' | 'default_kubeconfig' | 'default_agent' | 'default_max_cost_usd'> | null): LaunchDraft {
  if (!settings) return DEFAULT_DRAFT;
  return {
    ...DEFAULT_DRAFT,
    backend_url: settings.default_backend_url ?? DEFAULT_DRAFT.backend_url,
    kubeconfig: settings.default_kubeconfig ?? '',
    agent: settings.default_agent ?? DEFAULT_DRAFT.agent,
    max_cost_usd: settings.default_max_cost_usd === null ? '' : String(settings.default_max_cost_usd),
  };
}

/** The kinds this form edits: Launch opens them filled in from a job ("Edit and re-run"). */
export const EDITABLE_KINDS: readonly JobKind[] = ['benchmark', 'agentic-agent', 'llm-instance', 'serving-benchmark'];

/** Which kinds can rent a machine (their request has the marketplace fields). */
export function canRent(kind: JobKind): boolean {
  return kind !== 'agentic-agent';
}

/** Which fields each kind's form shows. */
export function fieldsOf(kind: JobKind, draft: LaunchDraft): ReadonlySet<DraftField> {
  const f = new Set<DraftField>(['model']);
  const add = (...names: DraftField[]) => names.forEach((n) => f.add(n));
  if (kind === 'serving-benchmark') {
    add('prompt_tokens', 'output_tokens', 'warmup_requests', 'level_mode', 'length_mode', 'dataset_kind', 'slo_ttft_ms', 'slo_tpot_ms', 'slo_e2e_ms');
    add(draft.level_mode === 'rate' ? 'request_rate' : 'concurrency', draft.length_mode === 'duration' ? 'duration_s' : 'requests_per_level');
    if (draft.level_mode === 'rate') add('burstiness', 'max_concurrency');
    if (draft.dataset_kind === 'file') add('dataset_path');
    else if (draft.dataset_kind === 'random') add('range_ratio');
  }
  else if (kind !== 'llm-instance') add('question', 'agent', 'cluster', draft.cluster === 'snapshot' ? 'snapshot' : 'kubeconfig');
  const marketplace = canRent(kind) && draft.target === 'marketplace';
  if (canRent(kind)) f.add('target');
  if (marketplace) {
    // The rented server: Ollama from the chosen template, or vLLM (backend_api openai) from Vast's template found by name.
    add('rented_server', 'min_dph', 'max_dph', 'reliability_pct', 'max_cost_usd');
    if (draft.rented_server !== 'vllm') f.add('template_hash');
    // A serving run's length comes from its plan (the pre-flight estimate), not from a typed duration.
    if (kind !== 'serving-benchmark') f.add('hours');
    if (kind === 'benchmark' || kind === 'serving-benchmark') f.add('stop_instance');
  } else {
    add('backend_url', 'backend_warmup', 'backend_warmup_timeout', 'backend_api');
    if (draft.backend_api !== 'ollama') f.add('backend_api_key');
  }
  return f;
}

const REQUEST_FIELD_TO_DRAFT: Record<string, DraftField> = {
  question: 'question',
  model: 'model',
  agent: 'agent',
  kubeconfig: 'kubeconfig',
  snapshot: 'snapshot',
  backend_url: 'backend_url',
  backend_warmup: 'backend_warmup',
  backend_warmup_timeout: 'backend_warmup_timeout',
  template_hash: 'template_hash',
  min_dph: 'min_dph',
  max_dph: 'max_dph',
  reliability: 'reliability_pct',
  marketplace_stop_instance: 'stop_instance',
  marketplace: 'target',
  max_cost_usd: 'max_cost_usd',
  estimated_duration_seconds: 'hours',
  concurrency: 'concurrency',
  requests_per_level: 'requests_per_level',
  prompt_tokens: 'prompt_tokens',
  output_tokens: 'output_tokens',
  warmup_requests: 'warmup_requests',
  ...SERVING_REQUEST_FIELDS,
};

/** The Launch form's names for the request's fields: what a validation issue is said with. */
export const LAUNCH_WORDS: FieldVocabulary = {
  question: { name: 'Question' },
  model: { name: 'Model' },
  agent: { name: 'Agent' },
  kubeconfig: { name: 'Kubeconfig' },
  snapshot: { name: 'Snapshot' },
  backend_url: { name: 'Backend URL' },
  backend_type: { name: 'Backend type' },
  backend_warmup: { name: 'Warm the model up first' },
  backend_warmup_timeout: { name: 'Warm-up timeout (s)' },
  template_hash: { name: 'Template' },
  min_dph: { name: 'Min $/h' },
  max_dph: { name: 'Max $/h' },
  reliability: { name: 'Reliability (%)', scale: 100 },
  marketplace_stop_instance: { name: 'Release the machine when done' },
  marketplace: { name: 'Rent a GPU' },
  max_cost_usd: { name: 'Spend limit ($)' },
  estimated_duration_seconds: { name: 'Expected duration (hours)', scale: 1 / 3600 },
  concurrency: { name: 'Concurrency levels' },
  requests_per_level: { name: 'Requests per level' },
  prompt_tokens: { name: 'Prompt tokens' },
  output_tokens: { name: 'Output tokens' },
  warmup_requests: { name: 'Warm-up requests' },
  ...SERVING_WORDS,
};

/** Valid stand-in values for fields that already have an error (see validateDraft). */
const STAND_INS: Record<string, unknown> = {
  question: 'q',
  model: 'm',
  agent: 'builtin',
  backend_url: 'http://127.0.0.1:1',
  backend_warmup_timeout: 1,
  template_hash: 't',
  min_dph: 0,
  reliability: 0.5,
  max_cost_usd: 1,
  estimated_duration_seconds: 3600,
  concurrency: [1],
  requests_per_level: 1024,
  request_rate: [1],
};

/** A number as typed; empty or junk becomes NaN, which the schema reports as "must be a number". */
function num(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

function optional(text: string): string | undefined {
  return text.trim() === '' ? undefined : text.trim();
}

/** The hours field as seconds, or NaN when it is not a positive number. */
function seconds(hours: string): number {
  const h = num(hours);
  return Number.isFinite(h) && h > 0 ? Math.max(1, Math.round(h * 3600)) : Number.NaN;
}

/** The request body this draft stands for (before validation). */
export function buildRequest(kind: JobKind, d: LaunchDraft): Record<string, unknown> {
  const cluster = d.cluster === 'snapshot' ? { snapshot: optional(d.snapshot) } : d.kubeconfig.trim() ? { kubeconfig: d.kubeconfig.trim() } : {};
  const common = { model: optional(d.model), ...cluster };
  const existing = {
    backend_url: optional(d.backend_url),
    backend_warmup: d.backend_warmup,
    backend_warmup_timeout: num(d.backend_warmup_timeout),
    ...backendApiRequest(d),
  };
  const market = {
    marketplace: true,
    // vLLM is rented from Vast's template named "vLLM" (the server finds it); Ollama from the template chosen.
    ...(d.rented_server === 'vllm' ? { backend_api: 'openai' } : { template_hash: optional(d.template_hash) }),
    min_dph: num(d.min_dph),
    max_dph: num(d.max_dph),
    reliability: Math.round(num(d.reliability_pct) * 10) / 1000,
    estimated_duration_seconds: seconds(d.hours),
    ...(d.max_cost_usd.trim() ? { max_cost_usd: num(d.max_cost_usd) } : {}),
  };
  const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  if (kind === 'serving-benchmark') {
    const load = { model: common.model, ...servingWorkload(d, levelsOf(d.concurrency)), warmup_requests: num(d.warmup_requests) };
    // The machine is held for the load and its preparation: priced from the plan, not typed.
    const held = servingPlanEstimate(d)?.totalSeconds;
    return strip(
      d.target === 'marketplace'
        ? { ...load, ...market, ...(held ? { estimated_duration_seconds: Math.max(1, held) } : {}), marketplace_stop_instance: d.stop_instance }
        : { ...load, marketplace: false, ...existing },
    );
  }
  if (kind === 'agentic-agent') {
    return strip({ question: d.question, model: common.model, agent: optional(d.agent), ...cluster, ...existing });
  }
  if (kind === 'benchmark') {
    const base = { question: d.question, model: common.model, agent: optional(d.agent), ...cluster };
    return strip(d.target === 'marketplace' ? { ...base, ...market, marketplace_stop_instance: d.stop_instance } : { ...base, marketplace: false, ...existing });
  }
  return strip(d.target === 'marketplace' ? { model: common.model, ...market } : { model: common.model, marketplace: false, ...existing });
}

export type DraftErrors = Partial<Record<DraftField, string>>;

/** Issues (the API's or the schema's) on their form fields, in the form's words. */
export function fieldErrorsOf(issues: readonly ValidationIssue[], skip: ReadonlySet<string> = new Set()): DraftErrors {
  const errors: DraftErrors = {};
  for (const issue of issues) {
    const key = issue.path.split('.').filter((p) => p !== 'request' && p !== 'body')[0] ?? '';
    const field = REQUEST_FIELD_TO_DRAFT[key];
    if (field && !skip.has(key) && !errors[field]) errors[field] = issueInWords(issue, LAUNCH_WORDS);
  }
  return errors;
}

/**
 * Checks the draft with the kind's shared zod schema (the server's own rules, so what passes
 * here is what the API accepts) and maps each issue onto its form field.
 */
export function validateDraft(kind: JobKind, d: LaunchDraft): { input: CreateJobInput | null; errors: DraftErrors } {
  let errors: DraftErrors = {};
  const request = buildRequest(kind, d);
  if (kind !== 'llm-instance' && d.cluster === 'snapshot' && !d.snapshot.trim()) errors.snapshot = 'Choose a recorded snapshot, or switch to a live cluster.';
  const marketplace = canRent(kind) && d.target === 'marketplace';
  if (marketplace) {
    const hours = num(d.hours);
    if (kind !== 'serving-benchmark' && (!Number.isFinite(hours) || hours <= 0)) errors.hours = 'Expected duration (hours) must be more than 0';
    const pct = num(d.reliability_pct);
    if (!Number.isFinite(pct) || pct < 0 || pct > 100) errors.reliability_pct = 'Reliability (%) must be from 0 to 100';
  }
  const schema = JOB_REQUEST_SCHEMAS[kind];
  const parsed = schema.safeParse(request);
  if (!parsed.success) {
    const first = zodIssuesToValidation(parsed.error.issues);
    errors = { ...fieldErrorsOf(first), ...errors };
    const bad = new Set(first.map((i) => i.path.split('.')[0] ?? ''));
    // zod runs the cross-field rules (max_dph >= min_dph...) only once every field parses. So the
    // user sees them field by field too, run them again with stand-ins for the fields already
    // reported.
    const probe = Object.fromEntries(
      Object.entries(request)
        .filter(([key]) => !bad.has(key) || STAND_INS[key] !== undefined)
        .map(([key, value]) => [key, bad.has(key) ? STAND_INS[key] : value]),
    );
    for (const key of bad) if (STAND_INS[key] !== undefined) probe[key] = STAND_INS[key];
    const second = schema.safeParse(probe);
    if (!second.success) errors = { ...fieldErrorsOf(zodIssuesToValidation(second.error.issues), bad), ...errors };
  }
  if (Object.keys(errors).length > 0) return { input: null, errors };
  return { input: typedInput(kind, request), errors };
}

function typedInput(kind: JobKind, request: Record<string, unknown>): CreateJobInput | null {
  if (kind === 'benchmark') {
    const r = JOB_REQUEST_SCHEMAS.benchmark.safeParse(request);
    return r.success ? { kind, request: r.data } : null;
  }
  if (kind === 'agentic-agent') {
    const r = JOB_REQUEST_SCHEMAS['agentic-agent'].safeParse(request);
    return r.success ? { kind, request: r.data } : null;
  }
  if (kind === 'suite') {
    // Suite runs are launched from the Suites page.
    return null;
  }
  if (kind === 'serving-benchmark') {
    const r = JOB_REQUEST_SCHEMAS['serving-benchmark'].safeParse(request);
    return r.success ? { kind, request: r.data } : null;
  }
  const r = JOB_REQUEST_SCHEMAS['llm-instance'].safeParse(request);
  return r.success ? { kind, request: r.data } : null;
}

/** The estimate request that prices a marketplace draft. */
export function estimateFor(
  d: LaunchDraft,
  kind?: JobKind,
): { marketplace: true; min_dph: number; max_dph: number; reliability: number; model?: string; estimated_duration_seconds: number } {
  const s = kind === 'serving-benchmark' ? (servingPlanEstimate(d)?.totalSeconds ?? Number.NaN) : seconds(d.hours);
  return {
    marketplace: true,
    min_dph: num(d.min_dph),
    max_dph: num(d.max_dph),
    reliability: Math.round(num(d.reliability_pct) * 10) / 1000,
    ...(d.model.trim() ? { model: d.model.trim() } : {}),
    estimated_duration_seconds: Number.isFinite(s) ? s : DEFAULT_ESTIMATED_DURATION_S,
  };
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const number = (v: unknown): string | undefined => (typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined);
const flag = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/**
 * A stored request as the fields of the form, for "Edit and re-run": only what the request says
 * (the rest keeps the saved defaults). Numbers go back to the form's units (percent, hours).
 */
export function draftFromRequest(request: Readonly<Record<string, unknown>>): Partial<LaunchDraft> {
  const patch: Partial<LaunchDraft> = {};
  const set = <F extends DraftField>(field: F, value: LaunchDraft[F] | undefined) => {
    if (value !== undefined) patch[field] = value;
  };
  set('question', text(request.question));
  set('model', text(request.model));
  set('agent', text(request.agent));
  set('kubeconfig', text(request.kubeconfig));
  // A job that ran on a recorded cluster re-runs on the same one.
  if (typeof request.snapshot === 'string') {
    patch.cluster = 'snapshot';
    patch.snapshot = request.snapshot;
  }
  set('backend_url', text(request.backend_url));
  set('backend_warmup', flag(request.backend_warmup));
  set('backend_warmup_timeout', number(request.backend_warmup_timeout));
  if (request.marketplace === true) patch.target = 'marketplace';
  else if (request.marketplace === false) patch.target = 'existing';
  set('template_hash', text(request.template_hash));
  set('min_dph', number(request.min_dph));
  set('max_dph', number(request.max_dph));
  if (typeof request.reliability === 'number') patch.reliability_pct = String(Math.round(request.reliability * 1000) / 10);
  set('stop_instance', flag(request.marketplace_stop_instance));
  if (request.marketplace === true) patch.rented_server = request.backend_api === 'openai' ? 'vllm' : 'ollama';
  set('max_cost_usd', number(request.max_cost_usd));
  // A rented run without a spend limit re-runs without one: today's default is not slipped in.
  if (request.marketplace === true && patch.max_cost_usd === undefined) patch.max_cost_usd = '';
  if (Array.isArray(request.concurrency) && request.concurrency.every((c) => typeof c === 'number')) patch.concurrency = request.concurrency.join(', ');
  set('requests_per_level', number(request.requests_per_level));
  set('prompt_tokens', number(request.prompt_tokens));
  set('output_tokens', number(request.output_tokens));
  set('warmup_requests', number(request.warmup_requests));
  if (typeof request.estimated_duration_seconds === 'number') patch.hours = String(Math.round((request.estimated_duration_seconds / 3600) * 100) / 100);
  return { ...patch, ...servingDraftFromRequest(request) };
}
