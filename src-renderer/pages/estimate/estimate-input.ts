import { CostEstimationRequestSchema, issuesByField, zodIssuesToValidation, type FieldVocabulary, type ValidationIssue } from '../../../shared';
import type { EstimateInput } from '../../queries/estimate';
import type { EstimateForm } from '../../state/ui-store';

export type EstimateFieldErrors = Partial<Record<keyof EstimateForm, string>>;

/** The Estimate form's names for the request's fields (reliability as a percentage, duration in hours). */
export const ESTIMATE_WORDS: FieldVocabulary = {
  model: { name: 'Model' },
  min_dph: { name: 'Min $/h' },
  max_dph: { name: 'Max $/h' },
  reliability: { name: 'Reliability (%)', scale: 100 },
  estimated_duration_seconds: { name: 'Duration (hours)', scale: 1 / 3600 },
};

const FIELD_OF: Record<string, keyof EstimateForm> = {
  model: 'model',
  min_dph: 'min_dph',
  max_dph: 'max_dph',
  reliability: 'reliability_pct',
  estimated_duration_seconds: 'hours',
};

function num(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

/** Validation issues (the schema's here, or the server's 422) on the form's fields, in its words. */
export function estimateFieldErrors(issues: readonly ValidationIssue[]): EstimateFieldErrors {
  const errors: EstimateFieldErrors = {};
  for (const [field, text] of Object.entries(issuesByField(issues, ESTIMATE_WORDS))) {
    const key = FIELD_OF[field];
    if (key && !errors[key]) errors[key] = text;
  }
  return errors;
}

/**
 * The typed form → an estimate request, checked with the shared schema (the server's own rules),
 * plus the form's own unit conversions (percent → fraction, hours → seconds).
 */
export function parseEstimateForm(form: EstimateForm): { input: EstimateInput | null; errors: EstimateFieldErrors } {
  const errors: EstimateFieldErrors = {};
  const minDph = num(form.min_dph);
  const maxDph = num(form.max_dph);
  const pct = num(form.reliability_pct);
  const hours = num(form.hours);
  if (!Number.isFinite(minDph)) errors.min_dph = 'Min $/h must be a number (0 for no minimum)';
  if (!Number.isFinite(maxDph)) errors.max_dph = 'Max $/h must be a number: the most you would pay per hour';
  if (!Number.isFinite(pct) || pct < 0 || pct > 100) errors.reliability_pct = 'Reliability (%) must be from 0 to 100';
  if (!Number.isFinite(hours) || hours <= 0) errors.hours = 'Duration (hours) must be more than 0';
  if (Object.keys(errors).length > 0) return { input: null, errors };

  const candidate = {
    marketplace: true,
    min_dph: minDph,
    max_dph: maxDph,
    reliability: Math.round(pct * 10) / 1000,
    estimated_duration_seconds: Math.max(1, Math.round(hours * 3600)),
    ...(form.model.trim() ? { model: form.model.trim() } : {}),
  };
  const parsed = CostEstimationRequestSchema.safeParse(candidate);
  if (!parsed.success) return { input: null, errors: estimateFieldErrors(zodIssuesToValidation(parsed.error.issues)) };
  if (maxDph === 0) return { input: null, errors: { max_dph: 'Max $/h must be more than 0: it bounds the offers and the cost' } };
  return { input: { ...candidate }, errors };
}
