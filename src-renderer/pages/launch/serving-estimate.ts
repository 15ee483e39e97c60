import type { LaunchDraft } from './launch-form';

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

/** null while a field it needs is not a valid number. */
export function servingPlanEstimate(d: Pick<LaunchDraft, 'concurrency' | 'requests_per_level' | 'output_tokens' | 'warmup_requests' | 'target'>): ServingPlanEstimate | null {
  const levels = levelsOf(d.concurrency);
  const perLevel = whole(d.requests_per_level);
  const output = whole(d.output_tokens);
  const warmup = whole(d.warmup_requests);
  if (levels.length === 0 || levels.some((c) => !Number.isInteger(c) || c < 1) || !perLevel || !output || warmup === null) return null;
  const request = ASSUMED_TTFT_S + output / ASSUMED_STREAM_TOKENS_PER_S;
  let loadSeconds = 0;
  for (const c of levels) loadSeconds += (Math.ceil(warmup / c) + Math.ceil(perLevel / c)) * request;
  const requests = levels.length * (perLevel + warmup);
  return {
    requests,
    outputTokens: requests * output,
    loadSeconds: Math.round(loadSeconds),
    totalSeconds: Math.round(loadSeconds + (d.target === 'marketplace' ? RENT_ALLOWANCE_S : 0)),
  };
}
