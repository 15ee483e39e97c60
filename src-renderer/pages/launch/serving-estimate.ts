import { SERVING_DEFAULTS } from '../../../shared';
import { ratesOf, requestsOfLevel, type ServingDraft } from './serving-draft';

/** "1, 2, 4, 8" → [1, 2, 4, 8]; anything that is not a number stays NaN, which the schema names. */
export function levelsOf(text: string): number[] {
  return text
    .split(/[\s,]+/)
    .filter((p) => p !== '')
    .map((p) => (/^-?\d+(\.\d+)?$/.test(p) ? Number(p) : Number.NaN));
}


/**
 * A serving run's length before launch. What a model streams per request is not known until it
 * runs, so the estimate assumes a typical single-GPU rate per request and says so; a loaded GPU
 * at high concurrency is slower, so read it as a lower bound of the load.
 */
export const ASSUMED_STREAM_TOKENS_PER_S = 30;
/** Time to first token assumed per request, s. */
export const ASSUMED_TTFT_S = 0.5;
/** Renting a machine: start-up, pulling the model, warming it up (s). */
export const RENT_ALLOWANCE_S = 600;

export type ServingPlanEstimate = {
  requests: number;
  outputTokens: number;
  /** The load alone: every level's waves, one after another. */
  loadSeconds: number;
  /** What the machine is held for: the load, plus renting it when on the marketplace. */
  totalSeconds: number;
};

const whole = (text: string): number | null => {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isInteger(n) && n >= 0 ? n : null;
};

/** The fields of the launch form the plan reads (the form's own type imports this module's estimate). */
type PlanDraft = Pick<ServingDraft, 'level_mode' | 'request_rate' | 'max_concurrency' | 'length_mode' | 'duration_s'> & {
  concurrency: string;
  requests_per_level: string;
  output_tokens: string;
  warmup_requests: string;
  target: 'marketplace' | 'existing';
};

/** One level's requests and its load time (s), the warm-up included. */
function levelLoad(d: PlanDraft, level: number | 'inf', rate: boolean, request: number, warmup: number): { requests: number; seconds: number } | null {
  const typed = d.length_mode === 'requests' && d.requests_per_level.trim() !== '' ? whole(d.requests_per_level) : null;
  if (d.length_mode === 'requests' && d.requests_per_level.trim() !== '' && !typed) return null;
  const duration = d.length_mode === 'duration' ? Number(d.duration_s) : null;
  if (duration !== null && !(duration > 0)) return null;
  if (!rate) {
    const c = level as number;
    if (duration !== null) return { requests: Math.ceil((duration / request) * c) + warmup, seconds: duration + request + Math.ceil(warmup / c) * request };
    const n = requestsOfLevel(typed, c);
    return { requests: n + warmup, seconds: (Math.ceil(warmup / c) + Math.ceil(n / c)) * request };
  }
  const cap = whole(d.max_concurrency) ?? 0;
  if (level === 'inf') {
    const n = requestsOfLevel(typed, cap || SERVING_DEFAULTS.requests_per_level);
    return { requests: n + warmup, seconds: (cap > 0 ? Math.ceil(n / cap) : 1) * request + warmup * request };
  }
  const n = duration !== null ? Math.max(1, Math.round(level * duration)) : requestsOfLevel(typed, cap || Math.ceil(level * 10));
  return { requests: n + warmup, seconds: n / level + request + warmup * request };
}

/** null while a field it needs is not a valid number. */
export function servingPlanEstimate(d: PlanDraft): ServingPlanEstimate | null {
  const rate = d.level_mode === 'rate';
  const levels: (number | 'inf')[] = rate ? ratesOf(d.request_rate) : levelsOf(d.concurrency);
  const output = whole(d.output_tokens);
  const warmup = whole(d.warmup_requests);
  if (levels.length === 0 || levels.some((c) => c !== 'inf' && (!(c > 0) || (!rate && !Number.isInteger(c)))) || !output || warmup === null) return null;
  const request = ASSUMED_TTFT_S + output / ASSUMED_STREAM_TOKENS_PER_S;
  let loadSeconds = 0;
  let requests = 0;
  for (const level of levels) {
    const one = levelLoad(d, level, rate, request, warmup);
    if (!one) return null;
    loadSeconds += one.seconds;
    requests += one.requests;
  }
  return {
    requests,
    outputTokens: requests * output,
    loadSeconds: Math.round(loadSeconds),
    totalSeconds: Math.round(loadSeconds + (d.target === 'marketplace' ? RENT_ALLOWANCE_S : 0)),
  };
}
