import { CostEstimationRequestSchema } from '../../../shared';
import type { EstimateInput } from '../../queries/estimate';
import type { EstimateForm } from '../../state/ui-store';

export type EstimateFieldErrors = Partial<Record<keyof EstimateForm, string>>;

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
  if (!Number.isFinite(minDph)) errors.min_dph = 'Enter a price in $/h (0 for no minimum).';
  if (!Number.isFinite(maxDph)) errors.max_dph = 'Enter the most you would pay in $/h.';
  if (!Number.isFinite(pct) || pct < 0 || pct > 100) errors.reliability_pct = 'A percentage from 0 to 100.';
  if (!Number.isFinite(hours) || hours <= 0) errors.hours = 'How long the machine runs, in hours (more than 0).';
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
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = FIELD_OF[String(issue.path[0] ?? '')];
      if (field && !errors[field]) errors[field] = issue.message;
    }
    return { input: null, errors };
  }
  if (maxDph === 0) return { input: null, errors: { max_dph: 'Set a maximum $/h above 0: it bounds the offers and the cost range.' } };
  return { input: { ...candidate }, errors };
}
