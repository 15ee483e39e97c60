import { DEFAULT_RELIABILITY, DEFAULT_WARMUP_TIMEOUT_S, JOB_REQUEST_SCHEMAS, type CreateJobInput, type JobKind } from '../../../shared';

/** The Vast.ai template that runs Ollama (the one the CLI's examples use). */
export const DEFAULT_TEMPLATE_HASH = '4e17788f74f075dd9aab7d0d4427968f';
export const DEFAULT_BACKEND_URL = 'http://127.0.0.1:11434';

/** The launch form as typed: strings for numbers, so half-typed input survives. */
export type LaunchDraft = {
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
  /** The duration assumption for the spend confirmation (not sent with the job). */
  hours: string;
};

export type DraftField = keyof LaunchDraft;

export const DEFAULT_DRAFT: LaunchDraft = {
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
  hours: '1',
};

/** Which fields each kind's form shows. */
export function fieldsOf(kind: JobKind, draft: LaunchDraft): ReadonlySet<DraftField> {
  const f = new Set<DraftField>(['model']);
  const add = (...names: DraftField[]) => names.forEach((n) => f.add(n));
  if (kind !== 'llm-instance') add('question', 'agent', 'cluster', draft.cluster === 'snapshot' ? 'snapshot' : 'kubeconfig');
  const marketplace = kind !== 'agentic-agent' && draft.target === 'marketplace';
  if (kind !== 'agentic-agent') f.add('target');
  if (marketplace) {
    add('template_hash', 'min_dph', 'max_dph', 'reliability_pct', 'hours');
    if (kind === 'benchmark') f.add('stop_instance');
  } else {
    add('backend_url', 'backend_warmup', 'backend_warmup_timeout');
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
};

/** A number as typed; empty or junk becomes NaN, which the schema reports as "expected number". */
function num(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

function optional(text: string): string | undefined {
  return text.trim() === '' ? undefined : text.trim();
}

/** The request body this draft stands for (before validation). */
export function buildRequest(kind: JobKind, d: LaunchDraft): Record<string, unknown> {
  const cluster = d.cluster === 'snapshot' ? { snapshot: optional(d.snapshot) } : d.kubeconfig.trim() ? { kubeconfig: d.kubeconfig.trim() } : {};
  const common = { model: optional(d.model), ...cluster };
  const existing = {
    backend_url: optional(d.backend_url),
    backend_warmup: d.backend_warmup,
    backend_warmup_timeout: num(d.backend_warmup_timeout),
  };
  const market = {
    marketplace: true,
    template_hash: optional(d.template_hash),
    min_dph: num(d.min_dph),
    max_dph: num(d.max_dph),
    reliability: Math.round(num(d.reliability_pct) * 10) / 1000,
  };
  const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
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

/**
 * Checks the draft with the kind's shared zod schema (the server's own rules, so what passes
 * here is what the API accepts) and maps each issue onto its form field.
 */
export function validateDraft(kind: JobKind, d: LaunchDraft): { input: CreateJobInput | null; errors: DraftErrors } {
  const errors: DraftErrors = {};
  const request = buildRequest(kind, d);
  if (kind !== 'llm-instance' && d.cluster === 'snapshot' && !d.snapshot.trim()) errors.snapshot = 'Choose a recorded snapshot, or switch to a live cluster.';
  const marketplace = kind !== 'agentic-agent' && d.target === 'marketplace';
  if (marketplace) {
    const hours = num(d.hours);
    if (!Number.isFinite(hours) || hours <= 0) errors.hours = 'How long you expect it to run, in hours (more than 0).';
    const pct = num(d.reliability_pct);
    if (!Number.isFinite(pct) || pct < 0 || pct > 100) errors.reliability_pct = 'A percentage from 0 to 100.';
  }
  const schema = JOB_REQUEST_SCHEMAS[kind];
  const parsed = schema.safeParse(request);
  if (!parsed.success) {
    const bad = new Set<string>();
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? '');
      bad.add(key);
      const field = REQUEST_FIELD_TO_DRAFT[key];
      if (field && !errors[field]) errors[field] = humanise(issue.message);
    }
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
    if (!second.success) {
      for (const issue of second.error.issues) {
        const key = String(issue.path[0] ?? '');
        const field = REQUEST_FIELD_TO_DRAFT[key];
        if (field && !bad.has(key) && !errors[field]) errors[field] = humanise(issue.message);
      }
    }
  }
  if (Object.keys(errors).length > 0) return { input: null, errors };
  // The schema accepted exactly this object; send it as typed by kind.
  const input = typedInput(kind, request);
  return { input, errors };
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
  const r = JOB_REQUEST_SCHEMAS['llm-instance'].safeParse(request);
  return r.success ? { kind, request: r.data } : null;
}

/** The API's validation issues (`path` like "request.max_dph" or "max_dph") by form field. */
export function fieldErrorsOf(issues: readonly { path: string; message: string }[]): DraftErrors {
  const errors: DraftErrors = {};
  for (const issue of issues) {
    const key = issue.path.split('.').filter((p) => p !== 'request' && p !== 'body')[0] ?? '';
    const field = REQUEST_FIELD_TO_DRAFT[key];
    if (field && !errors[field]) errors[field] = humanise(issue.message);
  }
  return errors;
}

/** zod's wording for an empty number field ("expected number, received NaN") → plain words. */
function humanise(message: string): string {
  if (/received NaN|expected number/i.test(message)) return 'Enter a number.';
  if (/Too small: expected string to have >=1/i.test(message)) return 'Required.';
  if (/expected string, received undefined|Invalid input: expected string/i.test(message)) return 'Required.';
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/** The estimate request that prices a marketplace draft. */
export function estimateFor(d: LaunchDraft): { marketplace: true; min_dph: number; max_dph: number; reliability: number; model?: string; estimated_duration_seconds: number } {
  return {
    marketplace: true,
    min_dph: num(d.min_dph),
    max_dph: num(d.max_dph),
    reliability: Math.round(num(d.reliability_pct) * 10) / 1000,
    ...(d.model.trim() ? { model: d.model.trim() } : {}),
    estimated_duration_seconds: Math.max(1, Math.round(num(d.hours) * 3600)),
  };
}
