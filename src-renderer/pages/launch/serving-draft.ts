import { SERVING_DEFAULTS, type BackendApi, type FieldVocabulary } from '../../../shared';

/**
 * The Launch form's serving workload (design §13b: concurrency or request-rate levels, a request
 * count or a duration, the dataset, SLOs) and every kind's backend API, as typed: strings for
 * numbers, so half-typed input survives. launch-form.ts composes them into its draft and request.
 */

export type ServingDraft = {
  /** A level is a number of requests in flight, or an arrival rate. */
  level_mode: 'concurrency' | 'rate';
  /** Rates as typed ("1, 4, inf"). */
  request_rate: string;
  burstiness: string;
  max_concurrency: string;
  /** Each level runs a number of requests, or for a time. */
  length_mode: 'requests' | 'duration';
  duration_s: string;
  dataset_kind: 'random' | 'shipped' | 'file';
  range_ratio: string;
  dataset_path: string;
  slo_ttft_ms: string;
  slo_tpot_ms: string;
  slo_e2e_ms: string;
};

export type BackendApiDraft = {
  backend_api: BackendApi;
  /** Only in memory (the form's store is not saved); a re-run never fills it from the redacted record. */
  backend_api_key: string;
};

export const SERVING_DRAFT_DEFAULTS: ServingDraft = {
  level_mode: 'concurrency',
  request_rate: '1, 4, 16',
  burstiness: '1',
  max_concurrency: '',
  length_mode: 'requests',
  duration_s: '60',
  dataset_kind: 'random',
  range_ratio: '0',
  dataset_path: '',
  slo_ttft_ms: '',
  slo_tpot_ms: '',
  slo_e2e_ms: '',
};

export const BACKEND_API_DRAFT_DEFAULTS: BackendApiDraft = { backend_api: 'auto', backend_api_key: '' };

/** The draft fields of the serving workload and the backend API, by the request field an issue names. */
export const SERVING_REQUEST_FIELDS = {
  request_rate: 'request_rate',
  burstiness: 'burstiness',
  max_concurrency: 'max_concurrency',
  duration_s: 'duration_s',
  dataset: 'dataset_path',
  slo: 'slo_ttft_ms',
  backend_api: 'backend_api',
  backend_api_key: 'backend_api_key',
} as const satisfies Record<string, keyof ServingDraft | keyof BackendApiDraft>;

export const SERVING_WORDS: FieldVocabulary = {
  request_rate: { name: 'Request rates' },
  burstiness: { name: 'Burstiness' },
  max_concurrency: { name: 'Max in flight' },
  duration_s: { name: 'Seconds per level' },
  dataset: { name: 'Dataset' },
  slo: { name: 'SLO' },
  backend_api: { name: 'Backend API' },
  backend_api_key: { name: 'API key' },
};

/** A number as typed; empty or junk becomes NaN, which the schema reports as "must be a number". */
const num = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));

/** "0.5, 4, inf" → [0.5, 4, "inf"]; anything else stays NaN, which the schema names. */
export function ratesOf(text: string): (number | 'inf')[] {
  return text
    .split(/[\s,]+/)
    .filter((p) => p !== '')
    .map((p) => (p.toLowerCase() === 'inf' || p === '∞' ? 'inf' : /^\d+(\.\d+)?$/.test(p) ? Number(p) : Number.NaN));
}

/** The workload fields of a serving request (the levels themselves come from launch-form's concurrency or these rates). */
export function servingWorkload(d: ServingDraft & { requests_per_level: string; prompt_tokens: string; output_tokens: string }, levels: number[]): Record<string, unknown> {
  const slo = {
    ...(d.slo_ttft_ms.trim() ? { ttft_ms: num(d.slo_ttft_ms) } : {}),
    ...(d.slo_tpot_ms.trim() ? { tpot_ms: num(d.slo_tpot_ms) } : {}),
    ...(d.slo_e2e_ms.trim() ? { e2e_ms: num(d.slo_e2e_ms) } : {}),
  };
  const dataset =
    d.dataset_kind === 'file'
      ? { kind: 'file', path: d.dataset_path.trim() }
      : d.dataset_kind === 'shipped'
        ? { kind: 'shipped' }
        : { kind: 'random', range_ratio: num(d.range_ratio) };
  return {
    ...(d.level_mode === 'rate'
      ? { request_rate: ratesOf(d.request_rate), burstiness: num(d.burstiness), ...(d.max_concurrency.trim() ? { max_concurrency: num(d.max_concurrency) } : {}) }
      : { concurrency: levels }),
    ...(d.length_mode === 'duration' ? { duration_s: num(d.duration_s) } : d.requests_per_level.trim() ? { requests_per_level: num(d.requests_per_level) } : {}),
    prompt_tokens: num(d.prompt_tokens),
    output_tokens: num(d.output_tokens),
    dataset,
    ...(Object.keys(slo).length > 0 ? { slo } : {}),
  };
}

/** The backend API fields of a request on an existing server: the API, and the key when typed. */
export function backendApiRequest(d: BackendApiDraft): Record<string, unknown> {
  return { backend_api: d.backend_api, ...(d.backend_api !== 'ollama' && d.backend_api_key.trim() ? { backend_api_key: d.backend_api_key.trim() } : {}) };
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const number = (v: unknown): string | undefined => (typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined);

/** A stored request's workload and backend API as form fields ("Edit and re-run"); never the key. */
export function servingDraftFromRequest(request: Readonly<Record<string, unknown>>): Partial<ServingDraft & BackendApiDraft> {
  const patch: Partial<ServingDraft & BackendApiDraft> = {};
  const api = text(request.backend_api);
  if (api === 'auto' || api === 'ollama' || api === 'openai') patch.backend_api = api;
  if (Array.isArray(request.request_rate)) {
    patch.level_mode = 'rate';
    patch.request_rate = request.request_rate.map(String).join(', ');
  }
  const burstiness = number(request.burstiness);
  if (burstiness) patch.burstiness = burstiness;
  const cap = number(request.max_concurrency);
  if (cap) patch.max_concurrency = cap;
  const duration = number(request.duration_s);
  if (duration) {
    patch.length_mode = 'duration';
    patch.duration_s = duration;
  }
  const dataset = request.dataset && typeof request.dataset === 'object' ? (request.dataset as Record<string, unknown>) : null;
  if (dataset?.kind === 'shipped') patch.dataset_kind = 'shipped';
  if (dataset?.kind === 'file' && typeof dataset.path === 'string') Object.assign(patch, { dataset_kind: 'file', dataset_path: dataset.path });
  if (dataset?.kind === 'random' && typeof dataset.range_ratio === 'number') patch.range_ratio = String(dataset.range_ratio);
  const slo = request.slo && typeof request.slo === 'object' ? (request.slo as Record<string, unknown>) : null;
  if (slo) Object.assign(patch, { slo_ttft_ms: number(slo.ttft_ms) ?? '', slo_tpot_ms: number(slo.tpot_ms) ?? '', slo_e2e_ms: number(slo.e2e_ms) ?? '' });
  return patch;
}

/** How many requests a level starts (for the pre-flight estimate): as typed, or the server's default (several waves). */
export function requestsOfLevel(typed: number | null, inFlight: number): number {
  return typed ?? Math.max(SERVING_DEFAULTS.requests_per_level, SERVING_DEFAULTS.waves * inFlight);
}

